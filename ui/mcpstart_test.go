package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
)

// withServerState is the fixture session with MCP server id in state st.
func withServerState(s protocol.SessionState, id string, st protocol.McpServerStateVariant) protocol.SessionState {
	out := protocol.Reduce(s, protocol.NewStateAction(protocol.SessionMcpServerStateChangedAction{ID: id,
		State: protocol.NewMcpServerState(st)}), protocol.Rules{})
	return out.(protocol.SessionState)
}

// TestStartInNewSessionSaysRequested: until a session's first message VS
// Code's host only echoes a start request (issue 19, finding 7): the
// server's state, set to starting by the request itself, stays there. The
// marker settles on the echo, and the panel says the start was requested
// and happens when the session runs, instead of "starting" for good.
func TestStartInNewSessionSaysRequested(t *testing.T) {
	m := fxModel(fxChatState())
	stub := m.client.(*stubClient)
	stub.accept = true
	m.resize(160, 50)
	m.focus = focusMCP
	rows := m.signin.servers()
	for i, r := range rows {
		if r.ID == "old" {
			m.mcp.sel = i
		}
	}
	m.Update(press("s"))
	if len(m.mcp.pending) != 1 {
		t.Fatalf("s left %d pending markers, want 1", len(m.mcp.pending))
	}
	// The host's echo: the request's own reduction is all that changes.
	var seq int64
	for s := range m.mcp.pending {
		seq = s
	}
	requested := withServerState(m.sess, "old", protocol.McpServerStartingState{})
	stub.sessions[fxSession] = requested
	m.Update(eventsMsg{[]client.Event{
		client.ChannelStateEvent{Channel: fxSession},
		client.ActionConfirmedEvent{Channel: fxSession, ClientSeq: seq, Action: protocol.NewStateAction(protocol.SessionMcpServerStartRequestedAction{ID: "old"})},
	}})
	if len(m.mcp.pending) != 0 {
		t.Errorf("the echo left %d pending markers", len(m.mcp.pending))
	}
	flat := func() string { return strings.Join(strings.Fields(ansi.Strip(m.Render())), " ") }
	if s := flat(); !strings.Contains(s, "start requested") {
		t.Fatalf("the panel does not say the start was requested:\n%s", ansi.Strip(m.Render()))
	}
	// The host starts it: the note goes.
	stub.sessions[fxSession] = withServerState(requested, "old", protocol.McpServerReadyState{})
	m.Update(eventMsg{client.ChannelStateEvent{Channel: fxSession}})
	if s := flat(); strings.Contains(s, "start requested") {
		t.Errorf("the note stayed after the server came up:\n%s", ansi.Strip(m.Render()))
	}
}

// TestBackgroundKeyNeedsAHP10: moving a blocking start to the background
// is an AHP 1.0 action; on a 0.9 connection (VS Code's host) the key says
// so and sends nothing, and the footer does not offer it.
func TestBackgroundKeyNeedsAHP10(t *testing.T) {
	for _, tc := range []struct {
		version string
		sent    bool
	}{{"0.9.0", false}, {"0.10.0", false}, {"1.0.0", true}} {
		t.Run(tc.version, func(t *testing.T) {
			m := fxModel(fxChatState())
			stub := m.client.(*stubClient)
			stub.accept, stub.version = true, tc.version
			blocking := true
			m.sess = withServerState(m.sess, "db", protocol.McpServerStartingState{Blocking: &blocking})
			m.focus = focusMCP
			for i, r := range m.signin.servers() {
				if r.ID == "db" {
					m.mcp.sel = i
				}
			}
			pressUntil(t, m, "b", "b answered", func() bool { return len(stub.sent) > 0 || m.status.text != "" })
			if got := len(stub.sent) > 0; got != tc.sent {
				t.Errorf("b on AHP %s sent %v (status %q), want %v", tc.version, got, m.status.text, tc.sent)
			}
			if !tc.sent && !strings.Contains(m.status.text, "AHP "+tc.version) {
				t.Errorf("status %q does not say why", m.status.text)
			}
			if m.mcp.blockingSelected() != tc.sent {
				t.Errorf("the footer offers the background key: %v, want %v", m.mcp.blockingSelected(), tc.sent)
			}
		})
	}
}
