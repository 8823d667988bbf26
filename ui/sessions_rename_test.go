package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

// TestRenameOpenSession (issue 35 item 6): R on the open session in the
// list opens the form on its title; ctrl+s sends session/titleChanged
// with the new title, trimmed. An empty title or one with control
// characters sends nothing and says why; R on a session not open says to
// open it first.
func TestRenameOpenSession(t *testing.T) {
	m := fxModel(fxChatState())
	stub := m.client.(*stubClient)
	stub.accept = true
	m.focus = focusSessions
	at := func(uri string) {
		for i, s := range m.sessions.list {
			if s.Resource == uri {
				m.sessions.sel = i
				return
			}
		}
		t.Fatalf("no session %s in the list", uri)
	}
	at(fxSession)
	rename := func(title string) {
		t.Helper()
		m.status.text, m.status.isErr = "", false
		m.Update(press("R"))
		if m.modal != modalInput || m.form == nil {
			t.Fatalf("R did not open the rename form (modal %v)", m.modal)
		}
		if s := ansi.Strip(m.Render()); !strings.Contains(s, titleProp.title) {
			t.Fatalf("the form does not ask for the title:\n%s", s)
		}
		m.form.state.Drafts[titleProp.id] = views.InputDraft{Text: title, Cursor: len(title)}
		_, cmd := m.Update(press("ctrl+s"))
		pump(t, m, cmd, "the form closed and said so", func() bool { return m.modal == modalNone && m.status.text != "" })
	}

	rename("  Release 1.5  ")
	if len(stub.sent) != 1 {
		t.Fatalf("sent %d actions, want 1", len(stub.sent))
	}
	a, ok := stub.sent[0].Variant.(protocol.SessionTitleChangedAction)
	if !ok || a.Title != "Release 1.5" {
		t.Fatalf("sent %#v, want session/titleChanged to %q", stub.sent[0].Variant, "Release 1.5")
	}

	for _, bad := range []string{"   ", "two\x1b[31m"} {
		rename(bad)
		if len(stub.sent) != 1 || !m.status.isErr {
			t.Errorf("title %q: sent %d actions, error %v (%q)", bad, len(stub.sent), m.status.isErr, m.status.text)
		}
	}

	// Another session, not open: nothing to rename until it is.
	for _, s := range m.sessions.list {
		if s.Resource != fxSession {
			at(s.Resource)
			break
		}
	}
	pressUntil(t, m, "R", "the status says to open it", statusHas(m, "open the session first"))
	if m.modal != modalNone {
		t.Error("R on a session not open opened a form")
	}
}
