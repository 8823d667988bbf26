package e2e

// Issue 36, items 12–14: the screen and keyboard, seen at 80x24 and
// 120x40 against the demo.

import (
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
)

// TestIssue36FooterNamesSheets is item 14: the footers never named the
// sheets that open from where the user is (c C T O Q A L), nor a card's
// e, w and o. Where the line has room they are offered, after the
// context's own keys; ? still leads to the rest.
func TestIssue36FooterNamesSheets(t *testing.T) {
	skipShort(t)
	eachSize(t, func(t *testing.T, w, h int) {
		u := startDemoSession(t, w, h)
		want := []key.Binding{km.Chat.SwitchChat}
		if w >= 120 {
			want = append(want, km.Chat.Queue, km.Chat.Resources, km.Global.Changes)
		}
		screen := u.see("the chat's footer names its sheets", func(s string) bool {
			for _, b := range want {
				if !strings.Contains(helpLine(s), hint(b)) {
					return false
				}
			}
			return true
		})
		if f := helpLine(screen); !strings.Contains(f, hint(km.Global.Help)) || !strings.Contains(f, hint(km.Chat.FocusComposer)) {
			t.Errorf("the sheets pushed out the chat's own keys or ?: %q", f)
		}
		if w < 120 {
			return // a card's approve and deny fill 80 columns first
		}
		u.sendMessage("hello")
		u.hit(km.Composer.Cancel)
		u.hit(km.Chat.PrevToolCall)
		u.see("a selected tool call offers e", func(s string) bool { return strings.Contains(helpLine(s), hint(km.Chat.ToggleExpand)) })
	})
}
