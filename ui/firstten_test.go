package ui

import (
	"slices"
	"testing"

	"github.com/ahptui/ahptui/protocol"
)

// TestScrollFromTopMovesAtOnce: after home (or pgup past the top) the
// keys down move the view on their first press (issue 14, item 1); the
// offset used to be set to 1<<30 and never clamped.
func TestScrollFromTopMovesAtOnce(t *testing.T) {
	for _, tc := range []struct {
		name    string
		toTop   []string
		forward string
	}{
		{"home then j", []string{"home"}, "j"},
		{"home then down", []string{"home"}, "down"},
		{"home then pgdn", []string{"home"}, "pgdown"},
		{"pgup past the top then j", slices.Repeat([]string{"pgup"}, 200), "j"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := fxModel(benchChat())
			m.resize(80, 24)
			m.Update(press("end"))
			bottom := m.Render()
			for _, k := range tc.toTop {
				m.Update(press(k))
			}
			top := m.Render()
			if top == bottom {
				t.Fatal("the transcript does not overflow the chat; the test needs it to")
			}
			m.Update(press(tc.forward))
			if m.Render() == top {
				t.Fatalf("%s: the view did not move", tc.forward)
			}
		})
	}
}

// TestNewSessionTakesCursor: once the host lists the session n created,
// the cursor is on it, so d offers to dispose that one (issue 14, item 7).
func TestNewSessionTakesCursor(t *testing.T) {
	m := fxModel(fxChatState())
	m.resize(120, 40)
	m.focus = focusSessions
	m.Update(press("n"))
	if m.modal != modalNewSession {
		t.Fatal("n did not open the new-session dialog")
	}
	m.Update(press("enter"))
	created := "ahp-session:/fixed-id"
	m.Update(eventMsg{protocol.SessionAddedEvent{Summary: protocol.SessionSummary{Provider: "demo", Title: "New session",
		Resource: created, CreatedAt: "2026-01-02T15:03:00.000Z", ModifiedAt: "2026-01-02T15:03:00.000Z"}}})
	if got := m.sessions.list[m.sessions.sel].Resource; got != created {
		t.Fatalf("the cursor is on %s, want the new session %s", got, created)
	}
	m.Update(press("d"))
	if m.sessions.confirm != created {
		t.Fatalf("d offers to dispose %q, want %q", m.sessions.confirm, created)
	}
}
