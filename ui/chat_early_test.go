package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/demohost"
)

// TestWriteBeforeChatIsIn: a user who opens a session and writes at once
// (VS Code's host takes a moment to send a new chat) had i answered with
// "no chat open" and the typed letters read as chat keys. i now opens the
// composer while the chat loads, the text is kept and drawn, and enter
// sends it as soon as the chat is in, once.
func TestWriteBeforeChatIsIn(t *testing.T) {
	d := newDriver(t, nil)
	d.until("session list", func() bool { return len(d.m.sessions.list) > 0 })
	for i, s := range d.m.sessions.list {
		if s.Resource == demohost.DemoSessionURI {
			d.m.sessions.sel = i
		}
	}
	d.keys("enter")
	if d.m.hasChat {
		t.Fatal("the chat is in before any message from the host was handled")
	}
	d.keys("i")
	d.typeText("written early")
	if screen := ansi.Strip(d.m.Render()); !strings.Contains(screen, "written early") {
		t.Fatalf("the text typed while the chat loads is not shown:\n%s", screen)
	}
	d.keys("enter")
	if d.m.hasChat {
		t.Fatal("the chat came in while keys were pressed")
	}
	d.until("the word that the chat is still loading", func() bool { return strings.Contains(d.m.status.text, "still loading") })
	d.until("the chat", func() bool { return d.m.hasChat && d.m.openChat == demohost.DemoChatURI })
	d.until("the message sent", func() bool {
		d.rec.mu.Lock()
		defer d.rec.mu.Unlock()
		for _, a := range d.rec.sent {
			if a.Action.Kind() == "chat/turnStarted" {
				return true
			}
		}
		return false
	})
	d.keys("esc")
	sent := 0
	for _, a := range d.rec.take() {
		if a.Action.Kind() == "chat/turnStarted" {
			sent++
			if b, _ := a.Action.MarshalJSON(); !strings.Contains(string(b), "written early") {
				t.Errorf("the turn sent is not the text written: %s", b)
			}
		}
	}
	if sent != 1 {
		t.Fatalf("the early message went %d times, want once", sent)
	}
}
