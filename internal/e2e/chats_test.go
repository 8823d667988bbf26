package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ahptui/ahptui/demohost"
)

// historyChats is how many chats the demo's earlier session starts with:
// over 1.0 its subagent's and a side chat besides its own.
func historyChats() int {
	if suiteVersion == demohost.Version10 {
		return 3
	}
	return 1
}

// TestChatSwitcherInTerminal: in a real terminal at 80x24 and 120x40, c on
// the demo's earlier session lists its one chat and offers fork (the
// demo's agent advertises forks, and side chats over 1.0 only); f makes a fork at the
// latest finished turn and opens it; c lists both, the fork as such, and
// enter on the first goes back to it (issue 23, chats).
func TestChatSwitcherInTerminal(t *testing.T) {
	t.Parallel()
	skipShort(t)
	eachSize(t, func(t *testing.T, w, h int) {
		u := startOnHistorySession(t, w, h)
		u.hit(km.Chat.SwitchChat)
		u.see("the switcher with the session's chat and the fork key", func(s string) bool {
			p := PanelText(s, "Chats")
			return strings.Contains(p, "Flaky test · on screen") && strings.Contains(p, hint(km.Chats.Fork)) &&
				strings.Contains(p, hint(km.Chats.Side)) == (suiteVersion == demohost.Version10)
		})
		u.hit(km.Chats.Fork)
		u.see("the fork open", func(s string) bool {
			_, open := Panel(s, "Chats")
			n := historyChats() + 1
			return !open && strings.Contains(s, fmt.Sprintf("chat %d/%d Fork of", n, n)) && strings.Contains(chatTextAny(s), "TestReconnect")
		})
		u.hit(km.Chat.SwitchChat)
		u.see("both chats, the fork as such and on screen", func(s string) bool {
			p := Flatten(strings.Split(PanelText(s, "Chats"), "\n"))
			return strings.Contains(p, "Fork of Flaky test · on screen") && strings.Contains(p, "fork · ○ idle") && strings.Contains(p, "Flaky test")
		})
		for range historyChats() {
			u.hit(km.Chats.Up)
		}
		u.hit(km.Chats.Open)
		u.see("back on the first chat", func(s string) bool {
			_, open := Panel(s, "Chats")
			return !open && strings.Contains(s, fmt.Sprintf("chat 1/%d", historyChats()+1)) && strings.Contains(chatTextAny(s), "TestReconnect")
		})
	})
}

// TestSideChatAndSubagentInTerminal: in a real terminal at 80x24 and
// 120x40, the demo's earlier session lists its subagent (read-only) and
// its side chat in the switcher; [ selects the turn's last tool call, the
// subagent's, and o opens its chat. A message that needs an approval in
// the side chat is counted on its row from another chat, and ! in the
// switcher opens the side chat at it (issue 23, chats).
func TestSideChatAndSubagentInTerminal(t *testing.T) {
	t.Parallel()
	skipShort(t)
	onlyOver10(t)
	eachSize(t, func(t *testing.T, w, h int) {
		u := startOnHistorySession(t, w, h)
		u.hit(km.Chat.PrevToolCall)
		u.see("the subagent's card selected", func(s string) bool {
			return strings.Contains(helpLine(s), hint(km.Chat.Subagent))
		})
		u.hit(km.Chat.Subagent)
		u.see("the subagent's chat", func(s string) bool {
			return strings.Contains(s, "chat 2/3") && strings.Contains(chatTextAny(s), "3 failures")
		})
		u.hit(km.Chat.SwitchChat)
		u.see("the subagent and the side chat listed", func(s string) bool {
			p := Flatten(strings.Split(PanelText(s, "Chats"), "\n"))
			return strings.Contains(p, demohost.SubagentChatTitle+" · on screen") && strings.Contains(p, "subagent · ○ idle · read-only") &&
				strings.Contains(p, demohost.SideChatTitle) && strings.Contains(p, "side chat · ○ idle")
		})
		u.hit(km.Chats.Down)
		u.hit(km.Chats.Open)
		u.see("the side chat", func(s string) bool {
			return strings.Contains(s, "chat 3/3") && strings.Contains(chatTextAny(s), "240 ms")
		})
		// The demo's sendMessage looks for the text in the demo chat's panel.
		u.hit(km.Chat.FocusComposer)
		u.see("composer focused", func(s string) bool { return strings.Contains(helpLine(s), hint(km.Composer.Send)) })
		u.s.SendText("write it down")
		u.hit(km.Composer.Send)
		u.see("the approval", func(s string) bool { return strings.Contains(helpLine(s), hint(km.Chat.Approve)) })
		u.hit(km.Chat.SwitchChat)
		u.hit(km.Chats.Up)
		u.hit(km.Chats.Up)
		u.hit(km.Chats.Open)
		u.see("the first chat", func(s string) bool { return strings.Contains(s, "chat 1/3") })
		u.hit(km.Chat.SwitchChat)
		u.see("what waits in the side chat", func(s string) bool {
			p := Flatten(strings.Split(PanelText(s, "Chats"), "\n"))
			return strings.Contains(p, "◆ 1 waiting for you") && strings.Contains(p, hint(km.Chats.Waiting))
		})
		u.hit(km.Chats.Waiting)
		u.see("the side chat at its approval", func(s string) bool {
			_, open := Panel(s, "Chats")
			return !open && strings.Contains(s, "chat 3/3") && strings.Contains(helpLine(s), hint(km.Chat.Approve))
		})
	})
}

// TestResourcesSheetInTerminal: in a real terminal at 80x24 and 120x40,
// A on the demo's earlier session lists its chat's canvas by title and
// the session's annotations with their counts; on the side chat it lists
// the attachment and shows its content only after enter (issue 23: a
// ContentRef is fetched only on the user's request).
func TestResourcesSheetInTerminal(t *testing.T) {
	t.Parallel()
	skipShort(t)
	onlyOver10(t)
	const sheet = "Attachments, canvases, annotations"
	eachSize(t, func(t *testing.T, w, h int) {
		u := startOnHistorySession(t, w, h)
		u.hit(km.Chat.Resources)
		u.see("the canvas and the annotations", func(s string) bool {
			p := Flatten(strings.Split(PanelText(s, sheet), "\n"))
			return strings.Contains(p, "Canvases (1)") && strings.Contains(p, demohost.HistoryCanvasTitle) &&
				strings.Contains(p, "Annotations · 2 annotations, 3 entries") && strings.Contains(p, "Why 5 s and not 1 s?")
		})
		u.hit(km.Resources.Close)
		u.see("the sheet closed", func(s string) bool { _, open := Panel(s, sheet); return !open })
		u.hit(km.Chat.SwitchChat)
		u.hit(km.Chats.Down)
		u.hit(km.Chats.Down)
		u.hit(km.Chats.Open)
		u.see("the side chat, its attachment naming the key that reads it", func(s string) bool {
			return strings.Contains(s, "chat 3/3") && strings.Contains(chatTextAny(s), km.Chat.Resources.Help().Key+" reads it")
		})
		u.hit(km.Chat.Resources)
		u.see("the attachment, unread", func(s string) bool {
			p := Flatten(strings.Split(PanelText(s, sheet), "\n"))
			return strings.Contains(p, "reconnect-flake.log · text/plain · 112 B") && !strings.Contains(s, "240ms FAIL")
		})
		u.hit(km.Resources.Read)
		u.see("the attachment read", func(s string) bool {
			return strings.Contains(PanelText(s, sheet), "run 2: reconnect after 240ms FAIL (slept 200ms)")
		})
		u.hit(km.Resources.Close)
		u.see("the sheet closed", func(s string) bool { _, open := Panel(s, sheet); return !open })
	})
}

// TestCreateSideChatInTerminal: in a real terminal at 80x24, s in the chat
// switcher on the demo's earlier session makes a side chat on its turn
// (the demo's agent advertises side chats over 1.0); it opens, empty, and
// c lists it as a side chat on screen (issue 23: create a side chat where
// the agent advertises it).
func TestCreateSideChatInTerminal(t *testing.T) {
	t.Parallel()
	skipShort(t)
	onlyOver10(t)
	u := startOnHistorySession(t, 80, 24)
	u.hit(km.Chat.SwitchChat)
	u.see("the switcher offering side chats", func(s string) bool {
		return strings.Contains(PanelText(s, "Chats"), hint(km.Chats.Side))
	})
	u.hit(km.Chats.Side)
	n := historyChats() + 1
	u.see("the side chat open", func(s string) bool {
		_, open := Panel(s, "Chats")
		return !open && strings.Contains(s, fmt.Sprintf("chat %d/%d Side", n, n)) && strings.Contains(chatTextAny(s), "No messages yet")
	})
	u.hit(km.Chat.SwitchChat)
	u.see("the side chat listed as such, on screen", func(s string) bool {
		p := Flatten(strings.Split(PanelText(s, "Chats"), "\n"))
		return strings.Contains(p, "Side chat on Flaky test · on screen") && strings.Contains(p, "side chat · ○ idle")
	})
}
