package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/protocol"
)

// TestCancelledTurnClosesItsQuestion: after ctrl+x cancelled a turn, its
// question's card still said "waiting for an answer", a opened its form
// again and ctrl+s said "answers submitted". A question the turn left
// unanswered is now closed: the card says so, offers no keys, and a, x
// and the form's ctrl+s and ctrl+d send nothing.
func TestCancelledTurnClosesItsQuestion(t *testing.T) {
	t.Run("cancelled with ctrl+x", func(t *testing.T) {
		d, it := askMe(t)
		d.keys("]")
		if d.m.chatPanel.sel.item != it.ID {
			t.Fatalf("] did not select the question")
		}
		d.keys("ctrl+x")
		d.expectSent("chat/turnCancelled")
		d.until("the turn ended", func() bool { return !d.m.chatPanel.turnRunning() && len(d.m.chat.Turns) > 0 })
		scr := ansi.Strip(d.m.Render())
		if !strings.Contains(scr, "not answered: the turn was cancelled") || strings.Contains(scr, "waiting for an answer") || strings.Contains(scr, "answer · ") {
			t.Fatalf("the cancelled turn's question does not show as closed:\n%s", scr)
		}
		d.keys("a")
		if d.m.modal == modalInput {
			t.Fatal("a opened the form of a closed question")
		}
		d.until("the word on a", statusHas(d.m, "not answered: the turn was cancelled"))
		d.keys("x")
		if sent := d.rec.take(); len(sent) != 0 {
			t.Fatalf("a and x on a closed question sent %v", sent)
		}
	})
	t.Run("the form was open", func(t *testing.T) {
		for _, k := range []string{"ctrl+s", "ctrl+d"} {
			d, _ := askMe(t)
			d.keys("]", "a")
			if d.m.modal != modalInput {
				t.Fatal("a did not open the form")
			}
			// The turn ends under the open form (another client, or the
			// host, cancels it).
			turn := d.m.chat.ActiveTurn.ID
			if _, err := d.m.dispatch(d.m.openChat, protocol.ChatTurnCancelledAction{TurnID: turn}); err != nil {
				t.Fatal(err)
			}
			d.until("the turn ended", func() bool { return !d.m.chatPanel.turnRunning() })
			d.rec.take()
			d.keys(k)
			if sent := d.rec.take(); len(sent) != 0 {
				t.Fatalf("%s on the form of a closed question sent %v", k, sent)
			}
			if d.m.modal == modalInput {
				t.Fatalf("%s left the form of a closed question open", k)
			}
			d.until("the word on "+k, statusHas(d.m, "not answered: the turn was cancelled"))
			if strings.Contains(d.m.status.text, "submitted") || strings.Contains(d.m.status.text, "declined") {
				t.Fatalf("status %q", d.m.status.text)
			}
		}
	})
}
