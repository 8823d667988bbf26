package ui

import (
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

// However narrow the terminal, the help line keeps "? help": the view's
// own hints give way first.
func TestHelpLineKeepsHelp(t *testing.T) {
	for _, w := range []int{40, 60, 80} {
		for _, f := range []focus{focusSessions, focusChat, focusMCP} {
			m := fxModel(fxChatState(fxAuthPart()))
			m.focus = f
			m.chatPanel.sel.item = "tc5"
			m.resize(w, 30)
			line := ansi.Strip(m.helpLine())
			if !strings.Contains(line, "? help") || ansi.StringWidth(line) > w {
				t.Errorf("width %d focus %v: help line %q", w, f, line)
			}
		}
	}
}

// The help line offers a/y and x only when they would act on something
// that waits: not with no cards, not on a finished card, not on an input
// request that is already answered.
func TestHelpLineNoStaleAnswerKeys(t *testing.T) {
	answered := protocol.ChatInputResponseKindAccept
	input := part(protocol.InputRequestResponsePart{Request: protocol.ChatInputRequest{ID: "in1", Message: ptr("Which env?")}, Response: &answered})
	for _, tc := range []struct {
		name string
		chat protocol.ChatState
		sel  string
		want []string
		none []string
	}{
		{"no cards", calmChat(), "", nil, []string{"approve", "deny", "answer"}},
		{"finished card", calmChat(), "tc1", nil, []string{"approve", "deny"}},
		{"answered input", withBlocker(calmChat(), input), "in1", nil, []string{"answer", "approve"}},
		{"pending card", fxChatState(), "tc4", []string{"a/y approve", "x deny"}, nil},
		{"pending, nothing selected", fxChatState(), "", []string{"a/y approve", "x deny"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := fxModel(tc.chat)
			m.chatPanel.sel = chatSel{item: tc.sel}
			m.resize(200, 40)
			line := ansi.Strip(m.helpLine())
			for _, w := range tc.want {
				if !strings.Contains(line, w) {
					t.Errorf("help line %q lacks %q", line, w)
				}
			}
			for _, w := range tc.none {
				if strings.Contains(line, w) {
					t.Errorf("help line %q offers %q", line, w)
				}
			}
		})
	}
}

// The help overlay names enter in the composer once, not as both "send"
// and "queue", and lists the input form's choice keys.
func TestFullHelpEnterOnce(t *testing.T) {
	m := fxModel(fxChatState())
	m.resize(200, 60)
	out := ansi.Strip(views.RenderFullHelp(m.th, m.help, m.keys, m.context(), m.width, m.height, 0))
	if n := len(regexp.MustCompile(`enter\s+(send|queue)`).FindAllString(out, -1)); n != 1 {
		t.Errorf("enter is listed %d times in the composer section:\n%s", n, out)
	}
	for _, w := range []string{`enter\s+send/queue`, `1-9\s+choose by number`, `space\s+toggle`} {
		if !regexp.MustCompile(w).MatchString(out) {
			t.Errorf("help overlay lacks %s:\n%s", w, out)
		}
	}
}

// The chat header marks "needs input" with the session list's glyph.
func TestChatHeaderNeedsInputGlyph(t *testing.T) {
	chat := fxChatState()
	chat.Status = protocol.SessionStatusInputNeeded
	m := fxModel(chat)
	h := ansi.Strip(m.chatPanel.chatHeader(60))
	if !strings.Contains(h, "◆ needs input") || strings.Contains(h, "!") {
		t.Errorf("chat header %q, want the ◆ glyph the session list uses", h)
	}
}
