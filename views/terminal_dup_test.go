package views

import (
	"strings"
	"testing"

	"github.com/ahptui/ahptui/protocol"
)

// TestTerminalOutputShownOnce: VS Code's agent host completes a shell
// tool call with its output twice, as text and as the preview of an
// agenthost-terminal:// reference (issue 19, finding 8). The card shows
// the output once (the text) and the terminal as a label.
func TestTerminalOutputShownOnce(t *testing.T) {
	exit := int64(0)
	preview := "alpha-line\nbeta-line"
	for _, content := range [][]protocol.ToolResultContent{
		{ // VS Code's order: text, then the terminal
			protocol.NewToolResultContent(protocol.ToolResultTextContent{Text: preview}),
			protocol.NewToolResultContent(protocol.ToolResultTerminalContent{Resource: "agenthost-terminal://s/call_1", Title: "Run ls",
				Result: &protocol.TerminalCommandResult{ExitCode: &exit, Preview: &preview}}),
		},
		{ // and the other way round
			protocol.NewToolResultContent(protocol.ToolResultTerminalContent{Resource: "agenthost-terminal://s/call_1", Title: "Run ls",
				Result: &protocol.TerminalCommandResult{ExitCode: &exit, Preview: &preview}}),
			protocol.NewToolResultContent(protocol.ToolResultTextContent{Text: preview}),
		},
	} {
		tc := protocol.NewToolCallState(protocol.ToolCallCompletedState{ToolCallID: "call_1", ToolName: "bash", DisplayName: "Run ls",
			InvocationMessage: protocol.PlainString("ls"), Success: true, PastTenseMessage: protocol.PlainString("Ran ls"),
			Confirmed: protocol.ToolCallConfirmationReasonNotNeeded, Content: content})
		flat := flatCard(RenderToolCard(noColorTheme, tc, CardContext{Expanded: true}, 100))
		if n := strings.Count(flat, "alpha-line"); n != 1 {
			t.Errorf("the output shows %d times, want once:\n%s", n, flat)
		}
		if !strings.Contains(flat, "terminal Run ls") || !strings.Contains(flat, "exit code 0") {
			t.Errorf("the card does not name the terminal and its exit code:\n%s", flat)
		}
	}
	// A terminal with no text beside it still shows its preview.
	tc := protocol.NewToolCallState(protocol.ToolCallCompletedState{ToolCallID: "call_2", ToolName: "bash", DisplayName: "Run ls",
		InvocationMessage: protocol.PlainString("ls"), Success: true, PastTenseMessage: protocol.PlainString("Ran ls"),
		Confirmed: protocol.ToolCallConfirmationReasonNotNeeded, Content: []protocol.ToolResultContent{
			protocol.NewToolResultContent(protocol.ToolResultTerminalContent{Resource: "agenthost-terminal://s/call_2", Title: "Run ls",
				Result: &protocol.TerminalCommandResult{ExitCode: &exit, Preview: &preview}})}})
	if flat := flatCard(RenderToolCard(noColorTheme, tc, CardContext{Expanded: true}, 100)); strings.Count(flat, "alpha-line") != 1 {
		t.Errorf("a terminal alone lost its preview:\n%s", flat)
	}
}
