package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
)

// demoLikeSession has the demo's four servers (GitHub waiting for
// sign-in, Filesystem, Deploy, Flaky) with Filesystem in fs and enabled
// as said, and extra servers after them.
func demoLikeSession(fs protocol.McpServerStateVariant, fsEnabled bool, extra ...protocol.McpServerCustomization) protocol.SessionState {
	sess := fxSessionState()
	authSt := protocol.McpServerAuthRequiredState{Reason: protocol.McpAuthRequiredReasonRequired,
		Resource: fxResource(fxGitHub, "GitHub MCP server"), RequiredScopes: []string{"mcp:read"}}
	cs := []protocol.Customization{
		protocol.NewCustomization(fxServer("gh", "GitHub", authSt, true)),
		protocol.NewCustomization(fxServer("fs", "Filesystem", fs, fsEnabled)),
		protocol.NewCustomization(fxServer("deploy", "Deploy", protocol.McpServerReadyState{}, true)),
		protocol.NewCustomization(fxServer("flaky", "Flaky", protocol.McpServerErrorState{Error: protocol.ErrorInfo{
			ErrorType: "ConnectionRefused", Message: "flaky-mcp exited"}}, true)),
	}
	for _, s := range extra {
		cs = append(cs, protocol.NewCustomization(s))
	}
	sess.Customizations = cs
	return sess
}

// mcpPanelLines is the MCP panel's inner lines on screen, frame cut off.
func mcpPanelLines(t *testing.T, m *Model) []string {
	t.Helper()
	lines := strings.Split(ansi.Strip(m.Render()), "\n")
	r := m.layout.MCP
	if r.Empty() || r.Y+r.H > len(lines) {
		t.Fatalf("no MCP panel on screen:\n%s", strings.Join(lines, "\n"))
	}
	var out []string
	for _, l := range lines[r.Y+1 : r.Y+r.H-1] {
		out = append(out, strings.TrimSpace(strings.Trim(ansi.Cut(l, r.X, r.X+r.W), " │┃")))
	}
	return out
}

// TestMCPPanelSaysDisabledAt80: at 80x24 a disabled server showed only
// "○ stopped", its disabled flag dropped for room (issue 22, item 5); at
// 120x40 "○ stopped · ⊘ disabled". It says so at both.
func TestMCPPanelSaysDisabledAt80(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {120, 40}} {
		m, stub, _ := v10Model(t, fxChatState())
		m.resize(sz[0], sz[1])
		setSession(m, stub, demoLikeSession(protocol.McpServerStoppedState{}, false))
		m.focus = focusChat
		m.settle()
		panel := strings.Join(mcpPanelLines(t, m), "\n")
		if !strings.Contains(panel, "⊘") {
			t.Errorf("%dx%d: the disabled Filesystem does not say it is disabled:\n%s", sz[0], sz[1], panel)
		}
	}
}

// TestMCPPanelBlockingStartUnfocused: at 80x24 a blocking start's timer
// and its background key showed only while the MCP panel had the keys,
// and the status line's word on it was cut ("b in the MCP p…"; issue 22,
// item 5). Both show with the chat focused, and the word fits.
func TestMCPPanelBlockingStartUnfocused(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {120, 40}} {
		// An idle chat: the status line has the bar's room, as in a new
		// session.
		m, stub, _ := v10Model(t, protocol.ChatState{Resource: fxChat})
		m.resize(sz[0], sz[1])
		indexer := fxServer("idx", "Indexer", protocol.McpServerStartingState{Blocking: ptr(true)}, true)
		stub.sessions[fxSession] = demoLikeSession(protocol.McpServerReadyState{}, true, indexer)
		_, cmd := m.Update(eventsMsg{[]client.Event{client.ChannelStateEvent{Channel: fxSession}}})
		pump(t, m, cmd, "the status line's word on the start", statusHas(m, "Indexer"))
		m.focus = focusChat
		m.settle()
		panel := strings.Join(mcpPanelLines(t, m), " ")
		for _, want := range []string{"starting… 0s", "new messages wait", "b background start"} {
			if !strings.Contains(panel, want) {
				t.Errorf("%dx%d: the unfocused panel lacks %q:\n%s", sz[0], sz[1], want, panel)
			}
		}
		screen := strings.Split(ansi.Strip(m.Render()), "\n")
		status := screen[len(screen)-1]
		if strings.Contains(status, "…") || !strings.Contains(status, m.status.text) {
			t.Errorf("%dx%d: the status line cuts %q: %q", sz[0], sz[1], m.status.text, status)
		}
	}
}

// TestFocusedMCPPanelFitsContent: focused at 80x24 the panel kept its
// rows, three of them empty under a server with no detail (issue 22,
// item 5). It takes the rows its content needs.
func TestFocusedMCPPanelFitsContent(t *testing.T) {
	m, stub, _ := v10Model(t, fxChatState())
	m.resize(80, 24)
	setSession(m, stub, demoLikeSession(protocol.McpServerReadyState{}, true))
	selectServer(t, m, "deploy")
	lines := mcpPanelLines(t, m)
	for i, l := range lines {
		if l == "" {
			t.Fatalf("row %d of the focused panel is empty:\n%s", i, strings.Join(lines, "\n"))
		}
	}
	// A server with detail still gets its rows.
	selectServer(t, m, "flaky")
	if panel := strings.Join(mcpPanelLines(t, m), "\n"); !strings.Contains(panel, "flaky-mcp exited") {
		t.Errorf("the selected server's error is not shown:\n%s", panel)
	}
}

// TestMCPPanelHeightStable: at start-up the demo's servers all say
// "◌ starting", which takes two lines at 80 columns; as they settle the
// list fits one and the chat above grew a row, a jump (issue 22, item
// 16). The panel keeps its height while the session stays open.
func TestMCPPanelHeightStable(t *testing.T) {
	m, stub, _ := v10Model(t, fxChatState())
	m.resize(80, 24)
	m.focus = focusChat
	starting := demoLikeSession(protocol.McpServerStartingState{}, true)
	for i, c := range starting.Customizations {
		s := c.Variant.(protocol.McpServerCustomization)
		s.State = protocol.NewMcpServerState(protocol.McpServerStartingState{})
		starting.Customizations[i] = protocol.NewCustomization(s)
	}
	setSession(m, stub, starting)
	m.settle()
	before := m.layout.Chat.H
	setSession(m, stub, demoLikeSession(protocol.McpServerReadyState{}, true))
	m.settle()
	if m.layout.Chat.H != before {
		t.Fatalf("the chat went from %d rows to %d as the servers settled", before, m.layout.Chat.H)
	}
}

// TestOlderVersionSaysWhatItCannot: over 0.6, b on a starting server said
// it "is not holding new messages" and r said "no turn to resume", never
// that 0.6 can do neither (issue 22, item 4). The key says what the
// version cannot do; on 1.0 the same keys keep their own answers.
func TestOlderVersionSaysWhatItCannot(t *testing.T) {
	for _, tc := range []struct {
		name, key string
		focus     focus
		want, not string
	}{
		{"background", "b", focusMCP, "AHP 0.6.0, which cannot move a server start to the background", "not holding new messages"},
		{"resume", "r", focusChat, "AHP 0.6.0, which cannot resume a turn", "no turn to resume"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := fxModel(protocol.ChatState{Resource: fxChat})
			m.resize(80, 24)
			m.focus = tc.focus
			if tc.focus == focusMCP {
				selectServer(t, m, "db") // starting, not blocking: 0.6 has no such flag
			}
			pressUntil(t, m, tc.key, "the key's answer", func() bool { return m.status.text != "" })
			if !strings.Contains(m.status.text, tc.want) || strings.Contains(m.status.text, tc.not) {
				t.Errorf("%s over 0.6 says %q, want %q", tc.key, m.status.text, tc.want)
			}
			// 1.0 has both: the key's own answer.
			v, _, _ := v10Model(t, protocol.ChatState{Resource: fxChat})
			v.resize(80, 24)
			v.focus = tc.focus
			if tc.focus == focusMCP {
				selectServer(t, v, "db")
			}
			pressUntil(t, v, tc.key, "the key's answer", func() bool { return v.status.text != "" })
			if !strings.Contains(v.status.text, tc.not) {
				t.Errorf("%s over 1.0 says %q, want %q", tc.key, v.status.text, tc.not)
			}
		})
	}
}
