package ui

import (
	"slices"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/keymap"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

// reviewChat is fxChatState with a tool result waiting for review.
func reviewChat() protocol.ChatState {
	return fxChatState(tcPart(protocol.ToolCallPendingResultConfirmationState{ToolCallID: "tc-p", ToolName: "read_env",
		DisplayName: "Read env", InvocationMessage: protocol.PlainString("Read .env"), Success: true,
		PastTenseMessage: protocol.PlainString("Read 3 variables"), Confirmed: protocol.ToolCallConfirmationReasonNotNeeded}))
}

// hintContexts are the places a user reads the footer in, each built
// afresh: a key pressed in one must not leak into the next.
var hintContexts = []struct {
	name  string
	build func() *Model
}{
	{"sessions", func() *Model { m := fxModel(fxChatState()); m.focus = focusSessions; return m }},
	{"chat approval", func() *Model { m := fxModel(fxChatState()); m.chatPanel.selectDefaultItem(); return m }},
	{"chat review", func() *Model {
		m := fxModel(reviewChat())
		m.chatPanel.sel = chatSel{item: "tc-p", turn: "t2"}
		return m
	}},
	{"chat idle", func() *Model { m := fxModel(protocol.ChatState{Resource: fxChat}); return m }},
	{"composer", func() *Model {
		m := fxModel(fxChatState())
		m.Update(press("i"))
		m.chatPanel.composer.SetValue("a draft")
		return m
	}},
	{"mcp", func() *Model { m := fxModel(fxChatState()); m.focus = focusMCP; return m }},
	{"message history over the chat", func() *Model { m := fxModel(fxChatState()); m.showMsgs = true; return m }},
	{"message history over the list", func() *Model {
		m := fxModel(fxChatState())
		m.focus, m.showMsgs = focusSessions, true
		return m
	}},
	{"quit dialog", func() *Model { m := fxModel(fxChatState()); m.modal = modalConfirmQuit; return m }},
	{"new session", func() *Model { m := fxModel(fxChatState()); m.modal = modalNewSession; return m }},
}

// TestEveryHintDoesSomething: with the message history (L) open the
// footer offered "i write • ! next needing you", which do nothing there
// (issue 22, item 9). In every context, each key the footer offers is one
// the context binds (keymap.Active) and, pressed, does something: the
// screen changes, or the key answers with a command.
func TestEveryHintDoesSomething(t *testing.T) {
	for _, c := range hintContexts {
		t.Run(c.name, func(t *testing.T) {
			m := c.build()
			m.resize(120, 40)
			m.settle()
			hints := m.hintBindings()
			if len(hints) == 0 {
				t.Fatal("the footer offers nothing")
			}
			active := m.keys.Active(m.context())
			for _, b := range hints {
				if !b.Enabled() {
					continue // the footer leaves it out
				}
				if !bound(active, b) {
					t.Errorf("the footer offers %q, which %s does not bind", b.Help().Key+" "+b.Help().Desc, m.context())
				}
				m := c.build()
				m.resize(120, 40)
				m.settle()
				before := m.Render()
				k := b.Keys()[0]
				if slices.Contains(b.Keys(), b.Help().Key) {
					k = b.Help().Key // the key the footer names
				}
				_, cmd := m.Update(press(k))
				if cmd == nil && m.Render() == before {
					t.Errorf("the footer offers %q; pressing %s did nothing\n%s", b.Help().Key+" "+b.Help().Desc, k, ansi.Strip(before))
				}
			}
		})
	}
}

func bound(active []key.Binding, b key.Binding) bool {
	for _, a := range active {
		if strings.Join(a.Keys(), " ") == strings.Join(b.Keys(), " ") {
			return true
		}
	}
	return false
}

// TestReviewCardAndFooterAgree: a card whose result waits for review said
// "a/y accept result · x reject result" while the footer said "approve"
// and "deny" (issue 22, item 9). Both say what the card says.
func TestReviewCardAndFooterAgree(t *testing.T) {
	for _, w := range []int{80, 120} {
		m := hintContexts[2].build()
		m.resize(w, 40)
		m.settle()
		approve, deny := m.keys.Chat.Answers(keymap.AnswerResult)
		screen := ansi.Strip(m.Render())
		lines := strings.Split(screen, "\n")
		footer := lines[len(lines)-2]
		body := strings.Join(lines[:len(lines)-2], "\n")
		for _, b := range []key.Binding{approve, deny} {
			h := b.Help().Key + " " + b.Help().Desc
			if !strings.Contains(footer, h) {
				t.Errorf("%d: the footer lacks %q: %q", w, h, footer)
			}
			if !strings.Contains(body, h) {
				t.Errorf("%d: the card lacks %q:\n%s", w, h, body)
			}
		}
		for _, lie := range []string{m.keys.Chat.Approve.Help().Desc, m.keys.Chat.Deny.Help().Desc} {
			if strings.Contains(footer, " "+lie+" ") {
				t.Errorf("%d: the footer says %q on a review card: %q", w, lie, footer)
			}
		}
	}
}

// TestQuitLeavesBlankFrame: started at 80x24, grown to 120x40 and quit,
// ahptui left 12 rows of panel borders on the normal screen (issue 22,
// item 13): on leaving the alternate screen tmux carries rows of it into
// the normal one when the size changed. The frame drawn last, once q is
// pressed, is blank, so there is nothing to carry.
func TestQuitLeavesBlankFrame(t *testing.T) {
	m := fxModel(protocol.ChatState{Resource: fxChat})
	m.resize(80, 24)
	m.resize(120, 40)
	if v := m.View(); v.Content == "" || !v.AltScreen {
		t.Fatalf("before quitting the view is blank or not on the alternate screen (alt %v)", v.AltScreen)
	}
	_, cmd := m.Update(press("q"))
	if !runsToQuit(cmd) {
		t.Fatal("q did not quit")
	}
	if v := m.View(); strings.TrimSpace(ansi.Strip(v.Content)) != "" || !v.AltScreen {
		t.Errorf("the last frame is not blank on the alternate screen (alt %v):\n%s", v.AltScreen, ansi.Strip(v.Content))
	}
}

// TestHelpExplainsUnreadDot: the dot before a session in the list was
// explained nowhere (issue 22, item 6). The help overlay has a legend of
// the list's marks, reached by scrolling at 80x24 as at 120x40, and the
// list draws the mark the legend names.
func TestHelpExplainsUnreadDot(t *testing.T) {
	want := views.UnreadMarker + " " + views.UnreadMeaning
	for _, sz := range [][2]int{{80, 24}, {120, 40}} {
		m := fxModel(fxChatState())
		m.resize(sz[0], sz[1])
		if !strings.Contains(ansi.Strip(m.Render()), "\n│ "+views.UnreadMarker+" ") {
			t.Fatalf("%dx%d: the list shows no unread mark:\n%s", sz[0], sz[1], ansi.Strip(m.Render()))
		}
		m.Update(press("?"))
		// The legend must not widen the list's first column so far that
		// the overlay at 80 columns no longer takes the width and shows
		// the panels' frames at its edges ("╭───╭─ Keys").
		if top := strings.SplitN(ansi.Strip(m.Render()), "\n", 2)[0]; sz[0] == 80 && !strings.HasPrefix(strings.TrimLeft(top, "╭┏"), "─ Keys") && !strings.HasPrefix(strings.TrimLeft(top, "╭┏"), "━ Keys") {
			t.Errorf("80x24: the help overlay does not take the width: %q", top)
		}
		seen := ""
		for range 20 {
			seen += ansi.Strip(m.Render())
			m.Update(tea.KeyPressMsg{Code: tea.KeyPgDown})
		}
		if !strings.Contains(squash(seen), squash(want)) {
			t.Errorf("%dx%d: the help overlay does not say what %s means", sz[0], sz[1], views.UnreadMarker)
		}
	}
}
