package views

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/protocol"
)

func mcpServer(id, name string, enabled bool, st protocol.McpServerStateVariant) protocol.McpServerCustomization {
	return protocol.McpServerCustomization{ID: id, Name: name, URI: "file:///mcp/" + id, Enablement: protocol.SessionEnablement(enabled), State: protocol.NewMcpServerState(st)}
}

// mcpCustomizations has a server in every state: two at top level, three
// inside a plugin, one inside a directory, one with a state kind from a
// newer host, and non-MCP customizations that must not show up.
func mcpCustomizations() []protocol.Customization {
	return []protocol.Customization{
		protocol.NewCustomization(mcpServer("mcp-github", "github", true, protocol.McpServerReadyState{})),
		protocol.NewCustomization(protocol.PluginCustomization{ID: "plugin-ops", Name: "ops-toolkit",
			Children: []protocol.ChildCustomization{
				protocol.NewChildCustomization(mcpServer("mcp-deploy", "deploy-server", true, protocol.McpServerAuthRequiredState{
					Reason: "insufficientScope", Resource: deployAuth.Resource, RequiredScopes: []string{"tools:deploy"}})),
				protocol.NewChildCustomization(protocol.SkillCustomization{ID: "skill-1", Name: "a skill"}),
				protocol.NewChildCustomization(mcpServer("mcp-metrics", "metrics", true, protocol.McpServerStartingState{})),
				protocol.NewChildCustomization(mcpServer("mcp-db", "database", true, protocol.McpServerErrorState{
					Error: protocol.ErrorInfo{ErrorType: "spawn", Message: "exec: \"pg-mcp\": executable file not found in $PATH"}})),
			}}),
		protocol.NewCustomization(protocol.DirectoryCustomization{ID: "dir-1", Name: ".agents", Enabled: true,
			Children: []protocol.ChildCustomization{
				protocol.NewChildCustomization(mcpServer("mcp-local", "local-files", false, protocol.McpServerStoppedState{})),
			}}),
		protocol.NewCustomization(mcpServer("mcp-future", "future", true, protocol.UnknownMcpServerState{Discriminator: "hibernating"})),
	}
}

func TestMCPServerRows(t *testing.T) {
	rows := MCPServerRows(mcpCustomizations())
	var got []string
	for _, r := range rows {
		got = append(got, fmt.Sprintf("%s/%s/%s/%v/%s", r.ID, r.Name, r.Parent, r.Enabled, r.StateKind))
	}
	want := []string{
		"mcp-github/github//true/ready",
		"mcp-deploy/deploy-server/ops-toolkit/true/authRequired",
		"mcp-metrics/metrics/ops-toolkit/true/starting",
		"mcp-db/database/ops-toolkit/true/error",
		"mcp-local/local-files/.agents/false/stopped",
		"mcp-future/future//true/hibernating",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if rows[1].Auth == nil || rows[1].Auth.Resource.Resource != "https://mcp.example.com/deploy" || rows[1].Auth.RequiredScopes[0] != "tools:deploy" {
		t.Errorf("auth requirement not carried: %+v", rows[1].Auth)
	}
	if rows[1].ParentID != "plugin-ops" {
		t.Errorf("ParentID = %q", rows[1].ParentID)
	}
	if rows[3].Error == "" {
		t.Error("error message not carried")
	}
	if MCPServerRows(nil) != nil {
		t.Error("no customizations must give no rows")
	}
}

func TestRenderMCPPanelGolden(t *testing.T) {
	rows := MCPServerRows(mcpCustomizations())
	pending := map[string]bool{"mcp-metrics": true}
	grants := map[string]GrantView{}
	for _, w := range goldenWidths {
		out := RenderMCPPanel(noColorTheme, rows, 1, pending, grants, nil, w, 30, true)
		checkPanel(t, noColorTheme, out, w, 30)
		checkGolden(t, "mcp_panel", w, out)
	}
	out := RenderMCPPanel(colorTheme, rows, 1, pending, grants, nil, 100, 30, true)
	checkPanel(t, colorTheme, out, 100, 30)
	checkGolden(t, "mcp_panel_color", 100, out)

	// The sizes the layout really gives it: a column and a strip.
	for _, size := range [][2]int{{28, 20}, {44, 12}, {100, 3}} {
		out := RenderMCPPanel(noColorTheme, rows, 3, pending, grants, nil, size[0], size[1], false)
		checkPanel(t, noColorTheme, out, size[0], size[1])
		checkGolden(t, fmt.Sprintf("mcp_panel_h%d", size[1]), size[0], out)
	}
	// A sign-in in progress shows its URL in full even in a narrow column.
	grants["mcp-deploy"] = GrantView{Phase: GrantWaiting, URL: grantURL}
	out = RenderMCPPanel(noColorTheme, rows, 1, nil, grants, nil, 36, 40, true)
	checkPanel(t, noColorTheme, out, 36, 40)
	checkGolden(t, "mcp_panel_grant", 36, out)
}

func checkPanel(t *testing.T, th Theme, out string, width, height int) {
	t.Helper()
	checkScreen(t, th, out, width)
	if got := strings.Count(out, "\n") + 1; got != height {
		t.Fatalf("panel is %d lines, want %d", got, height)
	}
}

func TestRenderMCPPanelContent(t *testing.T) {
	rows := MCPServerRows(mcpCustomizations())
	out := ansi.Strip(RenderMCPPanel(noColorTheme, rows, 1, map[string]bool{"mcp-metrics": true}, nil, nil, 60, 40, true))
	for _, want := range []string{"MCP servers", "github", "● ready", "⚠ needs access", "needs additional permission: tools:deploy",
		"g sign in", "◌ starting", "⋯ pending", "✗ error", "executable file not found", "○ stopped", "⊘ disabled",
		"? hibernating", "from ops-toolkit", "from .agents"} {
		if !strings.Contains(out, want) {
			t.Errorf("panel lacks %q:\n%s", want, out)
		}
	}
	// The sign-in hint belongs to the selected row only.
	out = ansi.Strip(RenderMCPPanel(noColorTheme, rows, 0, nil, nil, nil, 60, 40, true))
	if strings.Contains(out, "g sign in") {
		t.Errorf("sign-in hint on an unselected row:\n%s", out)
	}
}

// Whatever the selection, it is on screen.
func TestRenderMCPPanelScrollsToSelection(t *testing.T) {
	rows := MCPServerRows(mcpCustomizations())
	for sel := range rows {
		out := ansi.Strip(RenderMCPPanel(noColorTheme, rows, sel, nil, nil, nil, 40, 8, true))
		// The compact form points with "›" and no space.
		if !strings.Contains(out, "› "+rows[sel].Name) && !strings.Contains(out, "›"+rows[sel].Name) {
			t.Errorf("selected row %d (%s) not visible:\n%s", sel, rows[sel].Name, out)
		}
	}
}

func TestRenderMCPPanelSizes(t *testing.T) {
	rows := MCPServerRows(mcpCustomizations())
	grants := map[string]GrantView{"mcp-deploy": {Phase: GrantWaiting, URL: grantURL}, "mcp-db": {Phase: GrantFailed, Err: "denied"}}
	for _, th := range []Theme{noColorTheme, colorTheme} {
		for w := 8; w <= 250; w += 11 {
			for _, h := range []int{3, 4, 7, 20} {
				checkPanel(t, th, RenderMCPPanel(th, rows, 2, map[string]bool{"mcp-github": true}, grants, nil, w, h, w%2 == 0), w, h)
			}
		}
		checkPanel(t, th, RenderMCPPanel(th, nil, 0, nil, nil, nil, 40, 10, true), 40, 10)
	}
}

func TestRenderMCPPanelHostile(t *testing.T) {
	evil := "\x1b]52;c;cm0=\x07\x1b[2Jevil\r\u202e\x9b31m"
	custom := []protocol.Customization{
		protocol.NewCustomization(mcpServer("x", evil, true, protocol.McpServerErrorState{Error: protocol.ErrorInfo{Message: evil}})),
		protocol.NewCustomization(protocol.PluginCustomization{ID: "p", Name: evil, Children: []protocol.ChildCustomization{
			protocol.NewChildCustomization(mcpServer("y", evil, true, protocol.UnknownMcpServerState{Discriminator: evil})),
		}}),
	}
	rows := MCPServerRows(custom)
	for _, th := range []Theme{noColorTheme, colorTheme} {
		for _, w := range goldenWidths {
			out := RenderMCPPanel(th, rows, 0, nil, nil, nil, w, 12, true)
			checkPanel(t, th, out, w, 12)
			if strings.Contains(ansi.Strip(out), "52;c") {
				t.Fatal("payload visible")
			}
			if th.NoColor {
				checkGolden(t, "mcp_panel_hostile", w, out)
			}
		}
	}
}

// A panel as short as the layout gives it at 60×20 and 80×24 (a title and
// three or four lines inside) still shows every server with its state: one line per
// server, in columns when they fit. Once it showed a single name.
func TestRenderMCPPanelShortShowsEveryServer(t *testing.T) {
	all := MCPServerRows(mcpCustomizations())
	for _, size := range [][2]int{{60, 6}, {80, 7}} {
		rows := all
		if size[0] == 60 {
			// Six long names cannot share 56 cells in three lines; four
			// (as many as the demo host has) must.
			rows = all[:4]
		}
		out := RenderMCPPanel(noColorTheme, rows, 3, nil, nil, nil, size[0], size[1], true)
		checkPanel(t, noColorTheme, out, size[0], size[1])
		plain := ansi.Strip(out)
		for _, r := range rows {
			b := noColorTheme.McpBadge(r.StateKind, authReason(r))
			if !r.Enabled {
				b = disabledBadge(noColorTheme) // no room for both (issue 22, item 5)
			}
			if !strings.Contains(plain, SanitizeLine(r.Name)+" "+b.Glyph) {
				t.Errorf("%dx%d: %s and its state are missing:\n%s", size[0], size[1], r.Name, plain)
			}
		}
		checkGolden(t, fmt.Sprintf("mcp_panel_short%d", size[1]), size[0], out)
	}
}

// Servers a client contributes arrive as children of its
// ClientPluginCustomization in activeClients; the panel and the cards must
// name them, once even when the host also surfaces the plugin at top level.
func TestClientPluginServers(t *testing.T) {
	browser := protocol.McpServerCustomization{ID: "mcp-browser", URI: "file:///client/plugin.json", Name: "Browser tools",
		State: protocol.NewMcpServerState(protocol.McpServerReadyState{})}
	plugin := protocol.ClientPluginCustomization{ID: "client-plugin", URI: "file:///client/plugin.json", Name: "VS Code tools",
		Type: "plugin", Children: []protocol.ChildCustomization{protocol.NewChildCustomization(browser)}}
	sess := protocol.SessionState{Customizations: mcpCustomizations(),
		ActiveClients: []protocol.SessionActiveClient{{ClientID: "vscode", Tools: []protocol.ToolDefinition{},
			Customizations: []protocol.ClientPluginCustomization{plugin}}}}
	tc := protocol.NewToolCallState(protocol.ToolCallRunningState{ToolCallID: "tc-b", ToolName: "open_page",
		Contributor:       &protocol.ToolCallContributor{Variant: protocol.ToolCallMcpContributor{CustomizationID: "mcp-browser"}},
		InvocationMessage: protocol.PlainString("Open the page"), Confirmed: protocol.ToolCallConfirmationReasonNotNeeded})

	count := func(rows []MCPServerRow) (n int, parent string) {
		for _, r := range rows {
			if r.ID == "mcp-browser" {
				n++
				parent = r.Parent
			}
		}
		return n, parent
	}
	if n, _ := count(MCPServerRows(sess.Customizations)); n != 0 {
		t.Fatalf("fixture: the session's own list already has the client server")
	}
	rows := MCPServerRows(SessionCustomizations(sess))
	if n, parent := count(rows); n != 1 || parent != "VS Code tools" {
		t.Fatalf("client server listed %d times under %q, want once under VS Code tools", n, parent)
	}
	if got := ServerNameFor(tc, SessionCustomizations(sess)); got != "Browser tools" {
		t.Fatalf("ServerNameFor = %q, want Browser tools", got)
	}
	if out := ansi.Strip(RenderMCPPanel(noColorTheme, rows, 0, nil, nil, nil, 44, 40, false)); !strings.Contains(out, "Browser tools") {
		t.Fatalf("panel lacks the client's server:\n%s", out)
	}
	// The host surfaced the plugin (with its children) at top level too.
	surfaced := sess
	surfaced.Customizations = append(append([]protocol.Customization(nil), sess.Customizations...), protocol.NewCustomization(protocol.PluginCustomization{
		ID: plugin.ID, URI: plugin.URI, Name: plugin.Name, Type: "plugin", Children: plugin.Children}))
	if n, _ := count(MCPServerRows(SessionCustomizations(surfaced))); n != 1 {
		t.Fatalf("surfaced client server listed %d times, want once", n)
	}
}

// TestMCPCompactLayoutSearch checks the layout search that starts at the
// narrowest entry's bound against trying every line count from one: both
// must pick the same (fewest) lines and column widths.
func TestMCPCompactLayoutSearch(t *testing.T) {
	th := NewTheme(true, false)
	for _, tc := range []struct {
		names []string
		inner int
	}{
		{[]string{"a", "b", "c", "d"}, 40},
		{[]string{"a-very-long-server-name", "b", "c", "d", "e", "f", "g"}, 50},
		{[]string{"x", "yy", "zzz", "a-very-long-server-name-indeed", "b"}, 30},
		{[]string{"one", "two"}, 8},
		{strings.Split(strings.Repeat("srv ", 37), " ")[:37], 160},
	} {
		var rows []MCPServerRow
		for i, n := range tc.names {
			rows = append(rows, MCPServerRow{ID: fmt.Sprint(i), Name: n, Enabled: i%3 != 0, StateKind: []string{"ready", "error", "starting"}[i%3]})
		}
		got := mcpCompactLayoutFor(th, rows, nil, tc.inner, false)
		// Every line count from one, as the layout was once found.
		// A start is measured as if it had settled on "ready" (issue 22,
		// item 16: the list must not shrink as servers settle).
		width := func(r MCPServerRow, bare, settled bool) int {
			_, _, text := mcpCompactText(th, r, false, bare)
			w := ansi.StringWidth(" " + text)
			if settled && r.StateKind == "starting" && r.Enabled {
				w -= len("starting") - len("ready")
			}
			return w
		}
		search := func(bare bool) mcpCompactLayout {
			for lines := 1; lines < len(rows); lines++ {
				cols := (len(rows) + lines - 1) / lines
				ws := make([]int, cols)
				total := 2 * (cols - 1)
				for i, r := range rows {
					ws[i/lines] = max(ws[i/lines], width(r, bare, true))
				}
				for _, w := range ws {
					total += w
				}
				if total <= tc.inner {
					return mcpCompactLayout{lines: lines, widths: ws}
				}
			}
			return mcpCompactLayout{lines: len(rows), widths: []int{tc.inner}}
		}
		// The line count comes from names and badges alone; the suffixes
		// show only where they fit in it.
		want := search(false)
		if bare := search(true); bare.lines != want.lines {
			want, want.bare = bare, true
		}
		// Then the columns widen, left to right, with the cells to spare
		// towards what their entries really take.
		if len(want.widths) > 1 {
			spare := tc.inner - 2*(len(want.widths)-1)
			for _, w := range want.widths {
				spare -= w
			}
			for i, r := range rows {
				c := i / want.lines
				if add := min(width(r, want.bare, false)-want.widths[c], spare); add > 0 {
					want.widths[c] += add
					spare -= add
				}
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%d rows at %d: layout %v, want %v", len(rows), tc.inner, got, want)
		}
	}
}

// TestMCPStripMatchesFullLine checks the strip that styles only what
// reaches the line against building every entry and cutting the joined
// line, as it once did, for each selection at several widths. (The
// duplicate rows exercise long lines; the strip lists rows as given.)
func TestMCPStripMatchesFullLine(t *testing.T) {
	th := NewTheme(true, false)
	rows := MCPServerRows(mcpCustomizations())
	rows = append(rows, rows...)
	pending := map[string]bool{"mcp-metrics": true}
	full := func(selected, inner int) string {
		var parts []string
		for i, r := range rows {
			b := th.McpBadge(r.StateKind, authReason(r))
			if !r.Enabled {
				b = disabledBadge(th)
			}
			s := b.Style.Render(b.Glyph) + " " + SanitizeLine(r.Name) + " " + b.Style.Render(b.Label)
			if pending[r.ID] {
				s += th.Muted.Render(" …")
			}
			if i == selected {
				s = th.Selected.Render("›") + s
			}
			parts = append(parts, s)
		}
		if selected > 0 && selected < len(parts) {
			for first := 0; first < selected; first++ {
				prefix := ""
				if first > 0 {
					prefix = "… "
				}
				if ansi.StringWidth(prefix+strings.Join(parts[first:selected+1], "  ")) <= inner {
					return Truncate(prefix+strings.Join(parts[first:], "  "), inner)
				}
			}
			return Truncate("… "+strings.Join(parts[selected:], "  "), inner)
		}
		return Truncate(strings.Join(parts, "  "), inner)
	}
	for _, inner := range []int{8, 20, 37, 60, 120, 400} {
		for sel := -1; sel <= len(rows); sel++ {
			// The full line also carried the empty style runs of every
			// entry cut off (ansi.Truncate keeps escapes): the strip is
			// that line without them.
			if got, want := mcpStrip(th, rows, sel, pending, nil, inner), full(sel, inner); !strings.HasPrefix(want, got) || ansi.Strip(got) != ansi.Strip(want) {
				t.Fatalf("selected %d at %d:\n got %q\nwant %q", sel, inner, got, want)
			}
		}
	}
}

// Disabling a server or a change in flight does not reflow the badges
// from a row into a grid (issue 14, item 10): the layout comes from the
// names and badges alone.
func TestMCPBadgesKeepTheirLayout(t *testing.T) {
	rows := MCPServerRows(mcpCustomizations())[:4]
	for i := range rows {
		rows[i].Enabled = true
	}
	inner := 40
	lines := func(rows []MCPServerRow, pending map[string]bool) int {
		return len(mcpCompact(noColorTheme, rows, 0, pending, inner, 10, true, false))
	}
	// The narrowest panel that holds the four in one row: no room to spare.
	for lines(rows, nil) > 1 && inner < 200 {
		inner++
	}
	before := lines(rows, nil)
	if before != 1 {
		t.Fatalf("four servers take %d lines in %d cells, want the one row the test starts from", before, inner)
	}
	off := slices.Clone(rows)
	off[1].Enabled = false
	if got := lines(off, nil); got != before {
		t.Errorf("disabling %s reflowed the badges from %d lines to %d", off[1].Name, before, got)
	}
	if got := lines(rows, map[string]bool{rows[2].ID: true}); got != before {
		t.Errorf("a pending change reflowed the badges from %d lines to %d", before, got)
	}
}

// TestMCPSignInKeysAfterATry (issue 36 item 8): the selected server that
// needs a sign-in names both ways in, g and t, before a first try and
// after one failed or was cancelled; while a sign-in runs it names none.
// A column too narrow for both puts each on its own line, unbroken.
func TestMCPSignInKeysAfterATry(t *testing.T) {
	rows := MCPServerRows(mcpCustomizations())
	both := func(out string) bool {
		flat := strings.Join(strings.Fields(ansi.Strip(out)), " ")
		return strings.Contains(flat, "g sign in") && strings.Contains(flat, "t paste a token")
	}
	for _, tc := range []struct {
		name  string
		grant *GrantView
		want  bool
	}{
		{"before", nil, true},
		{"failed", &GrantView{Phase: GrantFailed, Err: "denied"}, true},
		{"user-cancelled", &GrantView{Phase: GrantCancelled}, true},
		{"waiting", &GrantView{Phase: GrantWaiting, URL: grantURL}, false},
	} {
		grants := map[string]GrantView{}
		if tc.grant != nil {
			grants["mcp-deploy"] = *tc.grant
		}
		for _, w := range []int{28, 60} {
			out := RenderMCPPanel(noColorTheme, rows, 1, nil, grants, nil, w, 40, true)
			if got := both(out); got != tc.want {
				t.Errorf("%s at %d columns: both keys shown %v, want %v:\n%s", tc.name, w, got, tc.want, out)
			}
			if strings.Contains(out, "paste a\n") {
				t.Errorf("%s at %d columns: a hint broken inside its words:\n%s", tc.name, w, out)
			}
		}
	}
}
