package ui

import (
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/protocol"
)

// runningWithQuestion is a driver on the demo's chat with a turn running
// that waits on a question. The question comes first: arriving while the
// composer is focused and empty, it would take the keys and drop the next
// second's typing.
func runningWithQuestion(t *testing.T) *driver {
	t.Helper()
	d := newDriver(t, nil)
	d.openDemo()
	d.sendMessage("ask me a question")
	d.expectSent("chat/turnStarted")
	d.until("running turn", func() bool { return d.m.chatPanel.turnRunning() })
	d.until("the question waits", func() bool { return len(d.m.chatPanel.blockers()) > 0 })
	return d
}

// TestQueueSheet: messages sent while a turn runs were only a count
// ("· 2 queued") that could not be read, changed or taken back (issue
// 23). Q lists them with their text; J moves one down the queue
// (chat/queuedMessagesReordered), e puts its text in the composer and
// enter saves the change under the same id (chat/pendingMessageSet), d
// removes it (chat/pendingMessageRemoved). Each is what the host then
// holds.
func TestQueueSheet(t *testing.T) {
	d := runningWithQuestion(t)
	d.sendMessage("first queued")
	d.sendMessage("second queued")
	d.expectSent("chat/pendingMessageSet", "chat/pendingMessageSet")
	queued := func() []string {
		var out []string
		for _, m := range d.m.chat.QueuedMessages {
			out = append(out, m.Message.Text)
		}
		return out
	}
	d.until("both queued at the host", func() bool { return slices.Equal(queued(), []string{"first queued", "second queued"}) })

	d.keys("Q")
	screen := ansi.Strip(d.m.Render())
	if !strings.Contains(screen, "Pending messages") || !strings.Contains(screen, "first queued") || !strings.Contains(screen, "second queued") {
		t.Fatalf("Q does not list the queued messages with their text:\n%s", screen)
	}
	d.keys("J")
	r := d.expectSent("chat/queuedMessagesReordered")[0].Action.Variant.(protocol.ChatQueuedMessagesReorderedAction)
	if len(r.Order) != 2 {
		t.Fatalf("reorder sent %v", r.Order)
	}
	d.until("the host's new order", func() bool { return slices.Equal(queued(), []string{"second queued", "first queued"}) })
	if d.m.queue.sel != 1 {
		t.Errorf("the selection did not follow the moved message: row %d", d.m.queue.sel)
	}

	d.keys("e")
	if d.m.queue.open || d.m.focus != focusComposer || d.m.chatPanel.composer.Value() != "first queued" {
		t.Fatalf("e did not put the message in the composer (sheet open %v, focus %v, composer %q)", d.m.queue.open, d.m.focus, d.m.chatPanel.composer.Value())
	}
	d.typeText(", please")
	d.keys("enter")
	set := d.expectSent("chat/pendingMessageSet")[0].Action.Variant.(protocol.ChatPendingMessageSetAction)
	if set.Kind != protocol.PendingMessageKindQueued || set.ID != r.Order[1] || set.Message.Text != "first queued, please" {
		t.Fatalf("the edit went as %+v, want id %s with the new text", set, r.Order[1])
	}
	d.until("the host's edited text", func() bool { return slices.Equal(queued(), []string{"second queued", "first queued, please"}) })

	d.keys("esc", "Q", "d")
	rm := d.expectSent("chat/pendingMessageRemoved")[0].Action.Variant.(protocol.ChatPendingMessageRemovedAction)
	if rm.ID != r.Order[0] {
		t.Fatalf("d removed %s, want the selected %s", rm.ID, r.Order[0])
	}
	d.until("the host's queue without it", func() bool { return slices.Equal(queued(), []string{"first queued, please"}) })
	d.keys("esc")
	if d.m.queue.open {
		t.Fatal("esc did not close the sheet")
	}
}

// TestQueueEditDropped: esc in the composer drops an edit, sending
// nothing; an edit of a message the host consumed meanwhile is not queued
// again (its id would be appended as a new message), and its text stays.
func TestQueueEditDropped(t *testing.T) {
	d := runningWithQuestion(t)
	d.sendMessage("queued once")
	d.expectSent("chat/pendingMessageSet")
	d.until("queued at the host", func() bool { return len(d.m.chat.QueuedMessages) == 1 })
	d.keys("Q", "e", "esc")
	d.expectSent()
	if v := d.m.chatPanel.composer.Value(); v != "" || d.m.chatPanel.editing != nil {
		t.Fatalf("esc kept the edit (composer %q)", v)
	}
	d.keys("Q", "e")
	// The host consumes it (the turn ends) while it is being edited.
	d.m.chat.QueuedMessages = nil
	d.typeText(" changed")
	d.keys("enter")
	d.expectSent()
	if v := d.m.chatPanel.composer.Value(); v != "queued once changed" {
		t.Fatalf("the edit of a consumed message lost its text: %q", v)
	}
}
