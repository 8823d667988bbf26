package e2e

import (
	"strings"
	"testing"
)

// TestChatSwitcherInTerminal: in a real terminal at 80x24 and 120x40, c on
// the demo's earlier session lists its one chat and offers fork (the
// demo's agent advertises forks, not side chats); f makes a fork at the
// latest finished turn and opens it; c lists both, the fork as such, and
// enter on the first goes back to it (issue 23, chats).
func TestChatSwitcherInTerminal(t *testing.T) {
	skipShort(t)
	eachSize(t, func(t *testing.T, w, h int) {
		u := startOnHistorySession(t, w, h)
		u.hit(km.Chat.SwitchChat)
		u.see("the switcher with the session's chat and the fork key", func(s string) bool {
			p := PanelText(s, "Chats")
			return strings.Contains(p, "Flaky test · on screen") && strings.Contains(p, hint(km.Chats.Fork)) && !strings.Contains(p, hint(km.Chats.Side))
		})
		u.hit(km.Chats.Fork)
		u.see("the fork open", func(s string) bool {
			_, open := Panel(s, "Chats")
			return !open && strings.Contains(s, "chat 2/2 Fork of") && strings.Contains(chatTextAny(s), "TestReconnect")
		})
		u.hit(km.Chat.SwitchChat)
		u.see("both chats, the fork as such and on screen", func(s string) bool {
			p := Flatten(strings.Split(PanelText(s, "Chats"), "\n"))
			return strings.Contains(p, "Fork of Flaky test · on screen") && strings.Contains(p, "fork · ○ idle") && strings.Contains(p, "Flaky test")
		})
		u.hit(km.Chats.Up)
		u.hit(km.Chats.Open)
		u.see("back on the first chat", func(s string) bool {
			_, open := Panel(s, "Chats")
			return !open && strings.Contains(s, "chat 1/2") && strings.Contains(chatTextAny(s), "TestReconnect")
		})
	})
}
