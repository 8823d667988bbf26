package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/protocol"
)

// openHistory opens the demo's history session (one finished turn) and
// waits for its chat.
func openHistory(d *driver) {
	d.t.Helper()
	d.until("session list", func() bool { return len(d.m.sessions.list) > 1 })
	for i, s := range d.m.sessions.list {
		if s.Resource == demohost.HistorySessionURI {
			d.m.sessions.sel = i
		}
	}
	d.keys("enter")
	d.until("the history chat", func() bool { return d.m.hasChat && d.m.hasSess && d.m.openChat == demohost.HistoryChatURI })
}

// TestChatSwitcher: c said "this session has one chat" or cycled blindly
// (issue 23, chats). It now lists every chat of the session with how it
// came to be and its status; f forks the open chat at its latest finished
// turn (the demo's agent advertises forks) and the fork opens; enter on a
// row opens that chat; s says the agent makes no side chats, as it does
// not advertise them.
func TestChatSwitcher(t *testing.T) {
	d := newDriver(t, nil)
	openHistory(d)
	d.keys("c")
	screen := ansi.Strip(d.m.Render())
	if !d.m.chats.open || !strings.Contains(screen, "Flaky test · on screen") || !strings.Contains(screen, "f fork") {
		t.Fatalf("c does not list the session's chat with the fork key:\n%s", screen)
	}
	if strings.Contains(screen, "s side chat") {
		t.Errorf("the side chat key is offered by an agent that makes none:\n%s", screen)
	}
	d.keys("s")
	d.until("the word on side chats", func() bool { return strings.Contains(d.m.status.text, "makes no side chats") })
	d.keys("f")
	if d.m.chats.open {
		t.Fatal("f left the switcher open")
	}
	// The history session also holds the demo's subagent and side chats.
	d.until("the fork open", func() bool { return len(d.m.sess.Chats) == 4 && d.m.openChat != demohost.HistoryChatURI && d.m.hasChat })
	fork := d.m.openChat
	if o := d.m.chat.Origin; o == nil || o.Kind() != "fork" {
		t.Fatalf("the chat opened is not the fork: origin %+v", o)
	}
	d.keys("c")
	screen = ansi.Strip(d.m.Render())
	for _, want := range []string{"Fork of Flaky test · on screen", "fork · ○ idle", "Flaky test"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the switcher lacks %q:\n%s", want, screen)
		}
	}
	for d.m.chats.sel > 0 {
		d.keys("up")
	}
	if got := d.m.sess.Chats[d.m.chats.sel].Resource; got != demohost.HistoryChatURI {
		t.Fatalf("the first row is %s", got)
	}
	d.keys("enter")
	d.until("back on the first chat", func() bool { return d.m.openChat == demohost.HistoryChatURI && d.m.hasChat })
	if d.m.openChat == fork {
		t.Fatal("enter did not switch chats")
	}
}

// TestSubagentCallOpensItsChat: a tool call that runs a subagent says so
// on its card, and o on it opens the subagent's chat (issue 23: a
// subagent's tool call links to its chat); on another card o says why it
// does nothing.
func TestSubagentCallOpensItsChat(t *testing.T) {
	desc := "find why the test flakes"
	sub := tcPart(protocol.ToolCallCompletedState{ToolCallID: "tc-sub", ToolName: "task", DisplayName: "Run subagent",
		InvocationMessage: protocol.PlainString("Investigating"), PastTenseMessage: protocol.PlainString("Investigated"), Success: true,
		Content: []protocol.ToolResultContent{protocol.NewToolResultContent(protocol.ToolResultSubagentContent{
			Resource: "ahp-chat:/fx-sub", Title: "Flake hunter", Description: &desc})}})
	m := fxModel(withBlocker(calmChat(), sub))
	m.sess.Chats = append(m.sess.Chats, protocol.ChatSummary{Resource: "ahp-chat:/fx-sub", Title: "Flake hunter",
		Origin: &protocol.ChatOrigin{Variant: protocol.ChatToolOrigin{Chat: fxChat, ToolCallID: "tc-sub"}}})
	m.resize(120, 40)
	m.focus = focusChat
	if s := ansi.Strip(m.Render()); !strings.Contains(squash(s), squash("[subagent Flake hunter: find why the test flakes · its own chat, o opens it]")) {
		t.Fatalf("the card does not say it runs a subagent in its own chat:\n%s", s)
	}
	for range 8 {
		if it, ok := m.chatPanel.selectedItem(); ok && it.ID == "tc-sub" {
			break
		}
		m.Update(press("]"))
	}
	if it, ok := m.chatPanel.selectedItem(); !ok || it.ID != "tc-sub" {
		t.Fatal("] never reached the subagent's call")
	}
	m.Update(press("o"))
	if m.openChat != "ahp-chat:/fx-sub" {
		t.Fatalf("o opened %q, want the subagent's chat", m.openChat)
	}
}

// selectChat moves the open switcher's selection to chat uri.
func selectChat(d *driver, uri string) {
	d.t.Helper()
	for i, c := range d.m.sess.Chats {
		if c.Resource == uri {
			d.m.chats.sel = i
			return
		}
	}
	d.t.Fatalf("no chat %s in %+v", uri, d.m.sess.Chats)
}

// TestSwitcherSideChatAndSubagent: the demo's earlier session lists its
// subagent (read-only, from the turn's tool call) and its side chat in
// the switcher. A question raised in the side chat is counted on its row
// while another chat is on screen; ! in the switcher, from the first
// row, opens the side chat with that card selected, and the chat's own !
// reaches it from the first chat too (issue 23: what waits per chat, !
// into any of them).
func TestSwitcherSideChatAndSubagent(t *testing.T) {
	d := newDriver(t, nil)
	openHistory(d)
	d.keys("c")
	screen := ansi.Strip(d.m.Render())
	for _, want := range []string{demohost.SubagentChatTitle, "subagent · ○ idle · read-only", demohost.SideChatTitle, "side chat · ○ idle"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the switcher lacks %q:\n%s", want, screen)
		}
	}
	if sheet := ansi.Strip(d.m.chats.view(72, 24)); strings.Contains(sheet, "! open what waits") {
		t.Errorf("! is offered where nothing waits:\n%s", sheet)
	}
	d.keys("!")
	d.until("the word that nothing waits", func() bool { return strings.Contains(d.m.status.text, "nothing in this session's chats waits") })

	selectChat(d, demohost.SideChatURI)
	d.keys("enter")
	d.until("the side chat", func() bool { return d.m.openChat == demohost.SideChatURI && d.m.hasChat })
	d.sendMessage("write it down")
	card := d.waitItem("the approval in the side chat", func(it chatItem) bool { return it.needsUser(nil) })

	d.keys("c")
	selectChat(d, demohost.HistoryChatURI)
	d.keys("enter")
	d.until("back on the first chat", func() bool { return d.m.openChat == demohost.HistoryChatURI && d.m.hasChat })
	d.keys("c")
	screen = ansi.Strip(d.m.Render())
	if !strings.Contains(screen, "side chat · ◆ needs input · ◆ 1 waiting for you") || !strings.Contains(screen, "! open what waits") {
		t.Fatalf("the side chat's row does not say what waits in it:\n%s", screen)
	}
	selectChat(d, demohost.HistoryChatURI)
	d.keys("!")
	d.until("the side chat at its card", func() bool {
		it, ok := d.m.chatPanel.selectedItem()
		return d.m.openChat == demohost.SideChatURI && d.m.hasChat && ok && it.ID == card.ID
	})
	if d.m.chats.open {
		t.Fatal("! left the switcher open")
	}

	d.keys("c")
	selectChat(d, demohost.HistoryChatURI)
	d.keys("enter")
	d.until("the first chat again", func() bool { return d.m.openChat == demohost.HistoryChatURI && d.m.hasChat })
	d.keys("!")
	d.until("the chat's ! into the side chat", func() bool {
		it, ok := d.m.chatPanel.selectedItem()
		return d.m.openChat == demohost.SideChatURI && ok && it.ID == card.ID
	})
}
