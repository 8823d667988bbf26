package e2e

// Issue 22, "the first hour, second pass": the items about hints, the MCP
// panel, 0.6's missing features, the screen left after quitting and the
// unread dot, each seen on screen at 80x24 and 120x40.

import (
	"strings"
	"testing"

	"github.com/ahptui/ahptui/keymap"
)

// TestIssue22HintsMatchKeys is item 9: a review card said "a/y accept
// result · x reject result" while the footer said approve and deny, and
// with the message history (L) open the footer offered the chat's keys
// ("i write • ! next needing you"), which do nothing there.
func TestIssue22HintsMatchKeys(t *testing.T) {
	skipShort(t)
	eachSize(t, func(t *testing.T, w, h int) {
		u := startDemoSession(t, w, h)
		approve, deny := km.Chat.Answers(keymap.AnswerResult)
		u.sendMessage("review the checklist")
		// The footer is empty for the second a card that took the keys
		// drops typed keys; its keys are offered after it.
		// (At 80x24 the card is taller than the chat and its own hint
		// row may be below the fold.)
		screen := u.see("the review card, selected, its keys live", func(s string) bool {
			return chatMatches(`review result`)(s) && strings.Contains(helpLine(s), approve.Help().Key+" ")
		})
		footer := helpLine(screen)
		for _, b := range []string{hint(approve), hint(deny)} {
			if !strings.Contains(footer, b) {
				t.Errorf("the card offers %q, the footer does not: %q", b, footer)
			}
		}
		for _, lie := range []string{hint(km.Chat.Approve), hint(km.Chat.Deny)} {
			if strings.Contains(footer, lie) {
				t.Errorf("the footer says %q under a review card: %q", lie, footer)
			}
		}

		u.hit(km.Global.Messages)
		screen = u.see("the message history", func(s string) bool { _, ok := Panel(s, "Messages"); return ok })
		footer = helpLine(screen)
		if close := km.MessagesClose(); !strings.Contains(footer, hint(close)) {
			t.Errorf("the footer under the history does not offer %q: %q", hint(close), footer)
		}
		for _, b := range km.Active(keymap.ContextChat) {
			if b.Help().Key == km.Global.Quit.Help().Key || b.Help().Key == km.Global.Help.Help().Key {
				continue
			}
			if strings.Contains(footer, hint(b)) {
				t.Errorf("the footer under the history offers the chat's %q: %q", hint(b), footer)
			}
		}
		u.hit(km.MessagesClose())
		u.see("the history closed, the card's keys back", func(s string) bool {
			_, open := Panel(s, "Messages")
			return !open && strings.Contains(helpLine(s), hint(approve))
		})
	})
}
