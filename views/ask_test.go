package views

import (
	"testing"

	"github.com/ahptui/ahptui/protocol"
)

func TestAskedAsQuestion(t *testing.T) {
	part := func(name string) protocol.ResponsePart {
		return protocol.NewResponsePart(protocol.ToolCallResponsePart{Kind: "toolCall", ToolCall: protocol.NewToolCallState(
			protocol.ToolCallRunningState{ToolCallID: "t", ToolName: name, DisplayName: "x", InvocationMessage: protocol.PlainString("x")})})
	}
	for name, want := range map[string]bool{
		"ask_user": true, "AskUserQuestion": true, "askQuestions": true, "ask_user_question": true,
		"bash": false, "task": false, "askpass": false, "flask_user": false,
	} {
		if got := AskedAsQuestion(part(name)); got != want {
			t.Errorf("AskedAsQuestion(%q) = %v, want %v", name, got, want)
		}
	}
}
