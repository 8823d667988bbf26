package e2e

import (
	"strings"
	"testing"
)

// TestQueueSheetInTerminal: in a real terminal at 80x24 and 120x40,
// messages sent while a turn waits on an approval are queued; Q lists
// them with their text, J moves the first down the queue and d removes
// the selected one, each as the host then holds it (issue 23, messages).
func TestQueueSheetInTerminal(t *testing.T) {
	t.Parallel()
	skipShort(t)
	eachSize(t, func(t *testing.T, w, h int) {
		u := startDemoSession(t, w, h)
		u.sendMessage("please write the changelog")
		u.see("the approval takes the keys", func(s string) bool { return strings.Contains(helpLine(s), hint(km.Chat.Approve)) })
		for i, text := range []string{"alpha queued", "bravo queued"} {
			u.hit(km.Chat.FocusComposer)
			u.see("composer focused", func(s string) bool { return strings.Contains(helpLine(s), hint(km.Composer.Queue)) })
			u.s.SendText(text)
			u.hit(km.Composer.Queue)
			n := []string{"1 queued", "2 queued"}[i]
			u.see(text+" queued", func(s string) bool { return strings.Contains(s, n) })
		}
		u.hit(km.Composer.Cancel)
		u.see("back in the chat", func(s string) bool { return strings.Contains(helpLine(s), hint(km.Chat.FocusComposer)) })
		u.hit(km.Chat.Queue)
		order := func(first, second string) func(string) bool {
			return func(s string) bool {
				p := Flatten(strings.Split(PanelText(s, "Pending messages"), "\n"))
				a, b := strings.Index(p, first), strings.Index(p, second)
				return a >= 0 && b > a
			}
		}
		u.see("the sheet lists both with their text, in order", order("alpha queued", "bravo queued"))
		u.hit(km.Queue.MoveDown)
		u.see("alpha moved down at the host", order("bravo queued", "alpha queued"))
		u.hit(km.Queue.Remove)
		u.see("alpha removed at the host", func(s string) bool {
			p := PanelText(s, "Pending messages")
			return strings.Contains(p, "bravo queued") && !strings.Contains(p, "alpha queued")
		})
		u.hit(km.Queue.Close)
		u.see("the sheet closed, one queued", func(s string) bool {
			_, open := Panel(s, "Pending messages")
			return !open && strings.Contains(s, "1 queued")
		})
	})
}
