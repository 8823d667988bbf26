package views

import (
	"strings"
	"testing"

	"github.com/ahptui/ahptui/protocol"
)

// TestAgentMarkdown: what the agent wrote in a turn, its Markdown parts
// only, sanitized: no escape sequence of the host's reaches a clipboard.
func TestAgentMarkdown(t *testing.T) {
	parts := []protocol.ResponsePart{
		protocol.NewResponsePart(protocol.MarkdownResponsePart{ID: "a", Content: protocol.NewText("First **bold**.\n")}),
		protocol.NewResponsePart(protocol.ReasoningResponsePart{ID: "r", Content: protocol.NewText("thinking")}),
		protocol.NewResponsePart(protocol.MarkdownResponsePart{ID: "b", Content: protocol.NewText("Then \x1b]52;c;ZXZpbA==\x07this.")}),
	}
	got := AgentMarkdown(parts)
	if got != "First **bold**.\n\nThen this." {
		t.Errorf("AgentMarkdown = %q", got)
	}
	if AgentMarkdown(nil) != "" {
		t.Error("no parts gave text")
	}
}

// TestToolCallMarkdown: a card copies as the export writes it, its
// heading (name, id, state) first and its input and result after.
func TestToolCallMarkdown(t *testing.T) {
	tc := protocol.NewToolCallState(protocol.ToolCallCompletedState{
		ToolCallID: "tc-1", ToolName: "read_file", DisplayName: "Read file",
		InvocationMessage: protocol.PlainString("Reading a.go"), ToolInput: protocol.InlineToolInput(`{"path":"a.go"}`),
		Success: true, PastTenseMessage: protocol.PlainString("Read a.go"),
		Content:   []protocol.ToolResultContent{protocol.NewToolResultContent(protocol.ToolResultTextContent{Text: "package a"})},
		Confirmed: protocol.ToolCallConfirmationReasonNotNeeded,
	})
	got := ToolCallMarkdown(tc)
	for _, want := range []string{"#### Tool: Read file · `tc-1`", `"path": "a.go"`, "package a"} {
		if !strings.Contains(got, want) {
			t.Errorf("ToolCallMarkdown lacks %q:\n%s", want, got)
		}
	}
}
