package e2e

import (
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/key"
)

// TestCopyInTerminal is issue 35 item 4 in a real terminal at 80x24 and
// 120x40: Y in the earlier session's chat with nothing selected puts the
// agent's last message on the clipboard with OSC 52 (tmux, with
// set-clipboard on, keeps it as a paste buffer); with a tool call
// selected ([) it copies that card as Markdown, its heading first.
func TestCopyInTerminal(t *testing.T) {
	t.Parallel()
	skipShort(t)
	eachSize(t, func(t *testing.T, w, h int) {
		u := startOnHistorySession(t, w, h)
		buffered := func(want string) bool {
			deadline := time.Now().Add(stepTimeout)
			for time.Now().Before(deadline) {
				if strings.Contains(u.s.Buffers(), want) {
					return true
				}
				time.Sleep(100 * time.Millisecond)
			}
			return false
		}
		u.hit(km.Chat.Copy)
		if !buffered("fixed sleep") {
			t.Fatalf("Y with nothing selected copied no agent message; buffers:\n%s\nscreen:\n%s", u.s.Buffers(), u.s.Capture())
		}
		u.see("the copy said", func(s string) bool { return strings.Contains(statusLine(s), "copied the agent's last message") })
		u.hit(km.Chat.PrevToolCall)
		// The footer names the card's keys once it is selected; a narrow
		// one keeps what only this card does (o, w) and may drop Y.
		u.see("a card selected", func(s string) bool {
			l := helpLine(s)
			for _, b := range []key.Binding{km.Chat.Copy, km.Chat.ToggleExpand, km.Chat.Subagent, km.Chat.Terminal} {
				if strings.Contains(l, hint(b)) {
					return true
				}
			}
			return false
		})
		u.hit(km.Chat.Copy)
		if !buffered("#### Tool: ") {
			t.Fatalf("Y on a selected card copied no tool call; buffers:\n%s", u.s.Buffers())
		}
		u.see("the copy said", func(s string) bool { return strings.Contains(statusLine(s), "copied the tool call") })
	})
}
