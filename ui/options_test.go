package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/protocol"
)

// vscodeOptions are the options VS Code's agent host offers on a tool call
// that waits for approval (issue 19, finding 2).
func vscodeOptions() []protocol.ConfirmationOption {
	return []protocol.ConfirmationOption{
		{ID: "allow-session", Label: "Allow in this Session", Kind: protocol.ConfirmationOptionKindApprove},
		{ID: "allow-once", Label: "Allow once", Kind: protocol.ConfirmationOptionKindApprove},
		{ID: "skip", Label: "Skip", Kind: protocol.ConfirmationOptionKindDeny},
	}
}

// optionsChat is the fixture chat whose waiting call (tc4) offers options.
func optionsChat() protocol.ChatState {
	c := calmChat()
	return withBlocker(c, tcPart(protocol.ToolCallPendingConfirmationState{ToolCallID: "tc4", ToolName: "write_file",
		DisplayName: "Write file", InvocationMessage: protocol.PlainString("Write CHANGELOG.md"), Options: vscodeOptions()}))
}

// lastSent is the stub's last dispatched action.
func lastSent(t *testing.T, m *Model) protocol.StateAction {
	t.Helper()
	sent := m.client.(*stubClient).sent
	if len(sent) == 0 {
		t.Fatal("nothing was dispatched")
	}
	return sent[len(sent)-1]
}

// confirmed reads a chat/toolCallConfirmed action: approved, its turn and
// call, and the option it carries ("" for none).
func confirmed(t *testing.T, a protocol.StateAction) (approved bool, turn, call, option string) {
	t.Helper()
	switch v := a.Variant.(type) {
	case protocol.ChatToolCallApprovedAction:
		return true, v.TurnID, v.ToolCallID, deref(v.SelectedOptionID)
	case protocol.ChatToolCallDeniedAction:
		return false, v.TurnID, v.ToolCallID, deref(v.SelectedOptionID)
	}
	t.Fatalf("dispatched %s, want chat/toolCallConfirmed", a.Kind())
	return
}

// TestApprovalOptions: the card numbers the host's options; a number key
// picks that option, a/y the one that allows this call once (never "Allow
// in this Session", security finding 6; TestBroaderOptionAsksFirst picks
// that by number) and x the first deny-kind one, and the confirmation
// carries selectedOptionId.
func TestApprovalOptions(t *testing.T) {
	for _, tc := range []struct {
		key      string
		approved bool
		option   string
	}{
		{"2", true, "allow-once"},
		{"3", false, "skip"},
		{"a", true, "allow-once"},
		{"y", true, "allow-once"},
		{"x", false, "skip"},
	} {
		t.Run(tc.key, func(t *testing.T) {
			m := fxModel(optionsChat())
			m.client.(*stubClient).accept = true
			m.chatPanel.selectDefaultItem()
			m.resize(120, 60)
			screen := ansi.Strip(m.Render())
			for i, o := range vscodeOptions() {
				if want := string(rune('1'+i)) + " " + o.Label; !strings.Contains(screen, want) {
					t.Fatalf("the card does not offer %q:\n%s", want, screen)
				}
			}
			m.Update(press(tc.key))
			approved, turn, call, option := confirmed(t, lastSent(t, m))
			if approved != tc.approved || turn != "t2" || call != "tc4" || option != tc.option {
				t.Errorf("%s sent approved=%v %s/%s option %q, want approved=%v t2/tc4 option %q",
					tc.key, approved, turn, call, option, tc.approved, tc.option)
			}
		})
	}
	// A number past the options picks nothing and says so.
	m := fxModel(optionsChat())
	m.client.(*stubClient).accept = true
	m.chatPanel.selectDefaultItem()
	pressUntil(t, m, "7", "the out-of-range option reported", statusHas(m, "option 7"))
	if n := len(m.client.(*stubClient).sent); n != 0 {
		t.Errorf("7 dispatched %d actions, want none", n)
	}
}

// TestOptionKeysWithoutOptions: a call with no options is approved and
// denied as before, without selectedOptionId.
func TestOptionKeysWithoutOptions(t *testing.T) {
	m := fxModel(fxChatState())
	m.client.(*stubClient).accept = true
	m.chatPanel.selectDefaultItem()
	m.Update(press("a"))
	if approved, _, call, option := confirmed(t, lastSent(t, m)); !approved || call != "tc4" || option != "" {
		t.Errorf("a sent approved=%v %s option %q, want a plain approval of tc4", approved, call, option)
	}
}

// TestReusedToolCallIDIsKeyedByTurn: VS Code's host reuses a tool call id
// in a later turn (issue 19, finding 9). !, a and x act on the call that
// waits, in the running turn, not on the finished one with the same id.
func TestReusedToolCallIDIsKeyedByTurn(t *testing.T) {
	chat := calmChat()
	done := chat.Turns[0]
	done.ResponseParts = append(append([]protocol.ResponsePart(nil), done.ResponseParts...),
		tcPart(protocol.ToolCallCompletedState{ToolCallID: "call_1", ToolName: "bash", DisplayName: "Run",
			InvocationMessage: protocol.PlainString("ls"), Success: true, PastTenseMessage: protocol.PlainString("Ran ls"),
			Confirmed: protocol.ToolCallConfirmationReasonUserAction}))
	chat.Turns = []protocol.Turn{done}
	chat = withBlocker(chat, tcPart(protocol.ToolCallPendingConfirmationState{ToolCallID: "call_1", ToolName: "bash",
		DisplayName: "Run", InvocationMessage: protocol.PlainString("rm -rf build")}))
	for _, k := range []struct {
		key      string
		approved bool
	}{{"a", true}, {"x", false}} {
		t.Run(k.key, func(t *testing.T) {
			m := fxModel(chat)
			m.client.(*stubClient).accept = true
			m.chatPanel.sel = chatSel{}
			m.Update(press("!"))
			if it, ok := m.chatPanel.selectedItem(); !ok || it.TurnID != "t2" || it.ID != "call_1" {
				t.Fatalf("! selected %+v (ok %v), want t2/call_1", it, ok)
			}
			m.Update(press(k.key))
			approved, turn, call, _ := confirmed(t, lastSent(t, m))
			if approved != k.approved || turn != "t2" || call != "call_1" {
				t.Errorf("%s sent approved=%v %s/%s, want %v t2/call_1", k.key, approved, turn, call, k.approved)
			}
		})
	}
}
