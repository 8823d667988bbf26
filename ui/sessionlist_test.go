package ui

import (
	"testing"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
)

// selectedSession is the resource under the session list's cursor.
func selectedSession(m *Model) string {
	if m.sessions.sel < 0 || m.sessions.sel >= len(m.sessions.list) {
		return ""
	}
	return m.sessions.list[m.sessions.sel].Resource
}

// TestSessionCursorKeepsItsSession: VS Code's host lists sessions oldest
// first, and a listing (after a reconnect, say) replaced the list before
// the cursor was looked up by index, so it jumped to another session
// (issue 19, finding 5). The cursor stays on its session.
func TestSessionCursorKeepsItsSession(t *testing.T) {
	m := fxModel(fxChatState())
	m.focus = focusSessions
	m.Update(press("down"))
	m.Update(press("down"))
	want := selectedSession(m)
	if want == "" || want != m.sessions.list[2].Resource {
		t.Fatalf("the cursor did not move down: %q", want)
	}
	oldestFirst := fxSummaries()
	for i, j := 0, len(oldestFirst)-1; i < j; i, j = i+1, j-1 {
		oldestFirst[i], oldestFirst[j] = oldestFirst[j], oldestFirst[i]
	}
	m.Update(eventMsg{client.SessionsListedEvent{Sessions: oldestFirst}})
	if got := selectedSession(m); got != want {
		t.Errorf("after the listing the cursor is on %q, want %q", got, want)
	}
	// A session added or removed above it does not move it either.
	m.Update(eventMsg{client.SessionAddedEvent{Summary: protocol.SessionSummary{Provider: "demo", Title: "newer",
		Resource: "ahp-session:/newer", CreatedAt: "2026-01-03T00:00:00.000Z", ModifiedAt: "2026-01-03T00:00:00.000Z"}}})
	if got := selectedSession(m); got != want {
		t.Errorf("after an addition the cursor is on %q, want %q", got, want)
	}
	m.Update(eventMsg{client.SessionRemovedEvent{Session: "ahp-session:/newer"}})
	if got := selectedSession(m); got != want {
		t.Errorf("after a removal the cursor is on %q, want %q", got, want)
	}
}

// TestCreatedSessionIsListedAndFocused: VS Code's host leaves a new
// session out of listSessions until its first message (issue 19, finding
// 4). The session ahptui created shows in the list at once, under the
// cursor, and the chat has the keys, so what the user types is read by
// the chat (i writes the first message), not by the list.
func TestCreatedSessionIsListedAndFocused(t *testing.T) {
	m := fxModel(fxChatState())
	stub := m.client.(*stubClient)
	const created = "ahp-session:/fixed-id"
	sess := protocol.SessionState{Provider: "demo", Title: "New session", Status: protocol.SessionStatusIdle,
		Lifecycle: protocol.SessionLifecycleReady, ActiveClients: []protocol.SessionActiveClient{},
		Chats: []protocol.ChatSummary{{Resource: "ahp-chat:/fixed-id", Title: "Chat"}}, DefaultChat: ptr("ahp-chat:/fixed-id")}
	stub.sessions[created] = sess
	stub.chats["ahp-chat:/fixed-id"] = protocol.ChatState{Resource: "ahp-chat:/fixed-id", Title: "Chat", Status: protocol.SessionStatusIdle}
	m.Update(eventMsg{client.SessionsListedEvent{Sessions: nil}}) // the host lists none yet
	m.closeSession(m.openSession)
	m.focus = focusSessions
	m.Update(press("n"))
	pressUntil(t, m, "enter", "the new session open", func() bool { return m.openSession == created && m.hasChat })
	// Another listing still without it, as after a reconnect.
	m.Update(eventMsg{client.SessionsListedEvent{Sessions: nil}})
	if got := selectedSession(m); got != created || len(m.sessions.list) != 1 {
		t.Fatalf("session list %d long, cursor on %q; want the created session listed and selected", len(m.sessions.list), got)
	}
	if m.focus != focusChat {
		t.Fatalf("focus %v after creating a session, want the chat", m.focus)
	}
	typeInto(m, "ihello")
	if v := m.chatPanel.composer.Value(); v != "hello" {
		t.Errorf("typing went elsewhere: composer %q", v)
	}
	// Once the host lists it, its summary is the host's, listed once.
	m.Update(eventMsg{client.SessionsListedEvent{Sessions: []protocol.SessionSummary{{Provider: "demo", Title: "First message",
		Resource: created, CreatedAt: "2026-01-03T00:00:00.000Z", ModifiedAt: "2026-01-03T00:00:00.000Z"}}}})
	if len(m.sessions.list) != 1 || m.sessions.list[0].Title != "First message" {
		t.Errorf("list after the host listed it: %+v", m.sessions.list)
	}
}
