package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/keymap"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
)

// calmChat is the fixture chat with nothing waiting on the user: the
// running turn has only its markdown part.
func calmChat() protocol.ChatState {
	c := fxChatState()
	at := *c.ActiveTurn
	at.ResponseParts = at.ResponseParts[:1]
	c.ActiveTurn = &at
	return c
}

// withBlocker is chat with p appended to its running turn.
func withBlocker(chat protocol.ChatState, p protocol.ResponsePart) protocol.ChatState {
	at := *chat.ActiveTurn
	at.ResponseParts = append(append([]protocol.ResponsePart(nil), at.ResponseParts...), p)
	chat.ActiveTurn = &at
	return chat
}

// arrive makes the stub host's chat become next and tells the model, the
// way a host's action reaches it.
func arrive(m *Model, next protocol.ChatState) {
	m.client.(*stubClient).chats[fxChat] = next
	m.Update(eventMsg{client.ChannelStateEvent{Channel: fxChat}})
}

func typeInto(m *Model, s string) {
	for _, r := range s {
		m.Update(press(string(r)))
	}
}

// A blocker that appears while the user sits in an empty composer (they
// just sent "please deploy") takes the selection and the focus, so the
// keys its card shows — n decline — act on it instead of typing.
func TestNewBlockerFromEmptyComposerFocusesIt(t *testing.T) {
	m := fxModel(calmChat())
	m.refreshChannel(fxChat)
	m.focus = focusComposer
	m.chatPanel.composer.Focus()
	arrive(m, withBlocker(calmChat(), fxAuthPart()))
	if m.focus != focusChat || m.chatPanel.sel.item != "tc5" {
		t.Fatalf("focus %v selection %q, want the chat focused on tc5", m.focus, m.chatPanel.sel.item)
	}
	if m.context() != keymap.ContextChatGrant {
		t.Fatalf("context %v, want the grant keys live", m.context())
	}
	// Its keys work once the card's first second is over (typingGuard).
	withStepClock(m).skip(2 * answerDelay)
	// The stub refuses every dispatch: the error names the action n sent.
	pressUntil(t, m, "n", "n to decline the grant", statusHas(m, "toolCallComplete"))
	if m.chatPanel.composer.Value() != "" {
		t.Fatalf("n typed into the composer: %q", m.chatPanel.composer.Value())
	}
}

// With a draft in the composer the user is typing: focus stays, and the
// card says how to reach its keys instead of offering keys that would type.
func TestNewBlockerKeepsDraftAndSaysHowToReachIt(t *testing.T) {
	m := fxModel(calmChat())
	m.refreshChannel(fxChat)
	m.focus = focusComposer
	m.chatPanel.composer.Focus()
	typeInto(m, "half a thought")
	arrive(m, withBlocker(calmChat(), fxAuthPart()))
	if m.focus != focusComposer || m.chatPanel.composer.Value() != "half a thought" {
		t.Fatalf("focus %v draft %q: the draft's owner lost the keyboard", m.focus, m.chatPanel.composer.Value())
	}
	m.resize(120, 60)
	screen := ansi.Strip(m.Render())
	if !strings.Contains(screen, "esc then ! to answer") {
		t.Fatalf("the card does not say how to reach it:\n%s", screen)
	}
	if strings.Contains(screen, "enter/g grant access") {
		t.Fatalf("the card offers keys that would type into the composer:\n%s", screen)
	}
	// esc then ! reaches it, and the keys work there.
	m.Update(press("esc"))
	m.Update(press("!"))
	if m.chatPanel.sel.item != "tc5" || m.context() != keymap.ContextChatGrant {
		t.Fatalf("esc ! selected %q (context %v), want tc5 with grant keys", m.chatPanel.sel.item, m.context())
	}
}

// A blocker arriving while the transcript has focus and nothing is
// selected (e.g. just after opening the session) is selected.
func TestNewBlockerSelectedInIdleTranscript(t *testing.T) {
	m := fxModel(calmChat())
	m.refreshChannel(fxChat)
	m.chatPanel.sel = chatSel{}
	arrive(m, withBlocker(calmChat(), fxAuthPart()))
	if m.chatPanel.sel.item != "tc5" {
		t.Fatalf("selection %q, want the new blocker tc5", m.chatPanel.sel.item)
	}
}

// Keys a blocker's card offers act on the newest blocker when nothing is
// selected, and say what to do when nothing waits.
func TestBlockerKeysWithNothingSelected(t *testing.T) {
	for _, tc := range []struct {
		name   string
		chat   protocol.ChatState
		key    string
		status string
		sel    string
	}{
		{"n declines the newest grant", fxChatState(fxAuthPart()), "n", "toolCallComplete", "tc5"},
		{"g accepts the newest grant", fxChatState(fxAuthPart()), "g", "sign-in is not available", "tc5"},
		{"a approves the newest confirmation", fxChatState(), "a", "toolCallConfirmed", "tc4"},
		{"x denies the newest confirmation", fxChatState(), "x", "toolCallConfirmed", "tc4"},
		{"n with nothing waiting says so", calmChat(), "n", "nothing here waits", ""},
		{"a with nothing waiting says so", calmChat(), "a", "nothing here waits", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := fxModel(tc.chat)
			m.chatPanel.sel = chatSel{}
			pressUntil(t, m, tc.key, "a status mentioning "+tc.status, statusHas(m, tc.status))
			if m.chatPanel.sel.item != tc.sel {
				t.Fatalf("selection %q, want %q", m.chatPanel.sel.item, tc.sel)
			}
		})
	}
}

// Text typed at the transcript (e.g. right after opening a session with
// enter) says where typing goes instead of vanishing.
func TestTypingAtTranscriptSaysHowToWrite(t *testing.T) {
	m := fxModel(calmChat())
	m.chatPanel.sel = chatSel{}
	pressUntil(t, m, "h", "where typing goes", statusHas(m, "press i to write"))
}
