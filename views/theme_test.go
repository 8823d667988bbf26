package views

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"charm.land/lipgloss/v2"

	"github.com/ahptui/ahptui/protocol"
)

var themeToolCallStatuses = []string{
	protocol.ToolCallStatusStreaming, protocol.ToolCallStatusPendingConfirmation, protocol.ToolCallStatusRunning, protocol.ToolCallStatusAuthRequired,
	protocol.ToolCallStatusPendingResultConfirmation, protocol.ToolCallStatusCompleted, protocol.ToolCallStatusCancelled,
}

var themeMcpKinds = []string{"starting", "ready", "authRequired", "error", "stopped"}

// themeAllBadges is every badge the theme can produce for known states.
func themeAllBadges(th Theme) map[string]Badge {
	m := map[string]Badge{}
	for _, s := range themeToolCallStatuses {
		m["tool "+s] = th.ToolCallBadge(s, false)
	}
	m["tool completed failed"] = th.ToolCallBadge(protocol.ToolCallStatusCompleted, true)
	for _, k := range themeMcpKinds {
		m["mcp "+k] = th.McpBadge(k, "")
	}
	for _, r := range []string{"required", "expired", "insufficientScope"} {
		m["mcp authRequired "+r] = th.McpBadge("authRequired", r)
	}
	m["enabled"] = th.EnabledBadge(true)
	m["disabled"] = th.EnabledBadge(false)
	for _, s := range []ConnState{ConnConnecting, ConnReady, ConnReconnecting, ConnFailed} {
		m["conn "+s.String()] = th.ConnBadge(s)
	}
	return m
}

func TestBadgesAreOneCellGlyphPlusLabel(t *testing.T) {
	th := NewTheme(true, false)
	for name, b := range themeAllBadges(th) {
		if w := lipgloss.Width(b.Glyph); w != 1 {
			t.Errorf("%s: glyph %q is %d cells wide, want 1", name, b.Glyph, w)
		}
		if strings.TrimSpace(b.Label) == "" {
			t.Errorf("%s: empty label; colour must never be the only signal", name)
		}
		if lipgloss.Width(b.String()) != lipgloss.Width(b.Plain()) {
			t.Errorf("%s: styled width %d != plain width %d", name, lipgloss.Width(b.String()), lipgloss.Width(b.Plain()))
		}
	}
}

// Within one family every state must read differently without colour.
func TestBadgeLabelsAreDistinct(t *testing.T) {
	th := NewTheme(true, true)
	seen := map[string]string{}
	for _, s := range themeToolCallStatuses {
		b := th.ToolCallBadge(s, false)
		if prev, dup := seen[b.Plain()]; dup {
			t.Errorf("tool-call states %s and %s share badge %q", prev, s, b.Plain())
		}
		seen[b.Plain()] = s
	}
	if th.ToolCallBadge(protocol.ToolCallStatusCompleted, true).Plain() == th.ToolCallBadge(protocol.ToolCallStatusCompleted, false).Plain() {
		t.Error("failed and successful completions look the same")
	}
	seen = map[string]string{}
	for _, k := range themeMcpKinds {
		b := th.McpBadge(k, "")
		if prev, dup := seen[b.Plain()]; dup {
			t.Errorf("MCP states %s and %s share badge %q", prev, k, b.Plain())
		}
		seen[b.Plain()] = k
	}
	if th.EnabledBadge(true).Plain() == th.EnabledBadge(false).Plain() {
		t.Error("enabled and disabled look the same")
	}
}

func TestUnknownStateBadgeIsSanitized(t *testing.T) {
	th := NewTheme(true, false)
	for _, b := range []Badge{
		th.ToolCallBadge("\x1b]52;c;Zm9v\x07future-state\n", false),
		th.McpBadge("\x1b[2Jnew\u202ekind", ""),
	} {
		if strings.ContainsAny(b.Label, "\x1b\n\u202e") {
			t.Errorf("unknown badge label not sanitized: %q", b.Label)
		}
		if b.Glyph != badgeGlyphUnknown {
			t.Errorf("unknown badge glyph = %q", b.Glyph)
		}
	}
	if got := th.ToolCallBadge("future-state", false).Label; got != "future-state" {
		t.Errorf("unknown state label = %q, want the state's name", got)
	}
	if got := th.McpBadge("", "").Label; got != "unknown" {
		t.Errorf("empty kind label = %q", got)
	}
}

var themeSGRRe = regexp.MustCompile(`\x1b\[([0-9;:]*)m`)

// colourParams returns the SGR parameters in s that set a colour.
func colourParams(s string) []string {
	var out []string
	for _, m := range themeSGRRe.FindAllStringSubmatch(s, -1) {
		for _, p := range strings.FieldsFunc(m[1], func(r rune) bool { return r == ';' || r == ':' }) {
			n, err := strconv.Atoi(p)
			if err != nil {
				continue
			}
			if (n >= 30 && n <= 49) || (n >= 90 && n <= 107) {
				out = append(out, p)
			}
		}
	}
	return out
}

func themeSamples(th Theme) map[string]string {
	m := map[string]string{
		"title":         th.Title.Render("Sessions"),
		"text":          th.Text.Render("text"),
		"muted":         th.Muted.Render("muted"),
		"subtle":        th.Subtle.Render("subtle"),
		"panel":         th.Panel.Render("panel"),
		"panel focused": th.PanelFocused.Render("panel"),
		"selected":      th.Selected.Render("row"),
		"error":         th.Error.Render("error"),
		"warning":       th.Warning.Render("warning"),
		"success":       th.Success.Render("success"),
		"info":          th.Info.Render("info"),
		"status":        th.StatusBar.Render("status"),
		"status error":  th.StatusError.Render("err"),
		"needs input":   th.StatusNeedsInput.Render("2"),
		"help key":      th.Help.ShortKey.Render("q"),
		"grant box":     th.GrantBox.Render("grant"),
		"grant url":     th.GrantURL.Render("https://x"),
		"user":          th.UserMessage.Render("hi"),
		"agent":         th.AgentMessage.Render("hello"),
		"reasoning":     th.Reasoning.Render("hmm"),
	}
	for name, b := range themeAllBadges(th) {
		m["badge "+name] = b.String()
	}
	return m
}

func TestNoColorThemeEmitsNoColour(t *testing.T) {
	for _, dark := range []bool{true, false} {
		th := NewTheme(dark, true)
		for name, out := range themeSamples(th) {
			if p := colourParams(out); len(p) > 0 {
				t.Errorf("dark=%v %s: NO_COLOR output sets colours %v: %q", dark, name, p, out)
			}
		}
	}
}

// The colour themes must actually colour things, and differ per background;
// otherwise the test above would pass for a theme that is broken everywhere.
func TestColourThemesDifferByBackground(t *testing.T) {
	dark, light := themeSamples(NewTheme(true, false)), themeSamples(NewTheme(false, false))
	for _, name := range []string{"title", "error", "selected", "badge tool running", "status"} {
		if len(colourParams(dark[name])) == 0 {
			t.Errorf("%s: dark theme output has no colour: %q", name, dark[name])
		}
		if dark[name] == light[name] {
			t.Errorf("%s: dark and light themes render identically", name)
		}
	}
}

func TestNoColorFocusStillVisible(t *testing.T) {
	th := NewTheme(true, true)
	if th.Panel.Render("x") == th.PanelFocused.Render("x") {
		t.Error("without colour, focused and blurred panels look the same")
	}
	if th.Selected.Render("x") == th.Text.Render("x") {
		t.Error("without colour, the selection is invisible")
	}
}

func TestNoColorRequested(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want bool
	}{
		{map[string]string{}, false},
		{map[string]string{"NO_COLOR": ""}, false},
		{map[string]string{"NO_COLOR": "1"}, true},
		{map[string]string{"NO_COLOR": "0"}, true}, // any non-empty value counts
	}
	for _, tc := range tests {
		got := NoColorRequested(func(k string) string { return tc.env[k] })
		if got != tc.want {
			t.Errorf("NoColorRequested(%v) = %v, want %v", tc.env, got, tc.want)
		}
	}
}
