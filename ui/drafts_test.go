package ui

import (
	"testing"

	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/protocol"
)

// TestDraftStaysWithItsSessionAndChat: text written in one session's
// composer showed in every other session's, and enter sent it there.
// Each chat of each session now keeps its own draft: another session or
// chat opens with its own (none at first), and the draft is back, and
// sent where it was written, on return.
func TestDraftStaysWithItsSessionAndChat(t *testing.T) {
	d := newDriver(t, nil)
	d.openDemo()
	write := func(text string) {
		d.t.Helper()
		d.keys("i")
		d.typeText(text)
		d.keys("esc")
	}
	composer := func(want, where string) {
		d.t.Helper()
		if got := d.m.chatPanel.composer.Value(); got != want {
			d.t.Fatalf("%s: the composer holds %q, want %q", where, got, want)
		}
	}
	write("for the demo")

	d.m.focus = focusSessions
	openHistory(d)
	composer("", "the history session")
	write("for the history")

	d.keys("c", "f")
	d.until("the fork open", func() bool { return d.m.openChat != demohost.HistoryChatURI && d.m.hasChat })
	composer("", "the fork")
	write("for the fork")

	d.keys("c")
	selectChat(d, demohost.HistoryChatURI)
	d.keys("enter")
	d.until("the first chat again", func() bool { return d.m.openChat == demohost.HistoryChatURI && d.m.hasChat })
	composer("for the history", "back on the history's first chat")

	d.m.focus = focusSessions
	d.openDemo()
	composer("for the demo", "back in the demo session")
	d.rec.take()
	d.keys("i", "enter")
	s := d.expectSent("chat/turnStarted")[0]
	if a := s.Action.Variant.(protocol.ChatTurnStartedAction); s.Channel != demohost.DemoChatURI || a.Message.Text != "for the demo" {
		t.Fatalf("sent %q to %s, want the demo's draft to the demo's chat", a.Message.Text, s.Channel)
	}
	composer("", "after sending")
}
