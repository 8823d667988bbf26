package views

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/protocol"
)

func testInputNeeded() []protocol.SessionInputRequest {
	pending := toolCardCases[1].tc.Variant.(protocol.ToolCallPendingConfirmationState)
	result := toolCardCases[5].tc.Variant.(protocol.ToolCallPendingResultConfirmationState)
	auth := toolCardCases[3].tc.Variant.(protocol.ToolCallAuthRequiredState)
	return []protocol.SessionInputRequest{
		protocol.NewSessionInputRequest(protocol.SessionToolConfirmationRequest{Id: "1", Chat: "ahp-chat:/c1", TurnId: "t4",
			ToolCall: protocol.ToolCallConfirmationState{Variant: pending}}),
		protocol.NewSessionInputRequest(protocol.SessionToolAuthenticationRequest{Id: "2", Chat: "ahp-chat:/c1", TurnId: "t4", ToolCall: auth}),
		protocol.NewSessionInputRequest(protocol.SessionChatInputRequest{Id: "3", Chat: "ahp-chat:/c2", Request: testInputRequest()}),
		protocol.NewSessionInputRequest(protocol.SessionToolConfirmationRequest{Id: "4", Chat: "ahp-chat:/c1", TurnId: "t4",
			ToolCall: protocol.ToolCallConfirmationState{Variant: result}}),
		protocol.NewSessionInputRequest(protocol.SessionToolClientExecutionRequest{Id: "5", Chat: "ahp-chat:/c1", TurnId: "t4", ClientId: "vscode-1",
			ToolCall: toolCardCases[2].tc}),
		protocol.NewSessionInputRequest(protocol.UnknownSessionInputRequest{Discriminator: "newKind"}),
	}
}

func TestRenderInputNeededGolden(t *testing.T) {
	entries := testInputNeeded()
	for _, w := range goldenWidths {
		out := RenderInputNeeded(noColorTheme, entries, 1, w)
		checkScreen(t, noColorTheme, out, w)
		checkGolden(t, "input_needed", w, out)
	}
	out := RenderInputNeeded(colorTheme, entries, 1, 100)
	checkScreen(t, colorTheme, out, 100)
	checkGolden(t, "input_needed_color", 100, out)
}

func TestRenderInputNeededContent(t *testing.T) {
	out := ansi.Strip(RenderInputNeeded(noColorTheme, testInputNeeded(), 0, 120))
	for _, want := range []string{
		"› ◆ needs approval  approve Deploy service", "Deploy api 2026.11.29-1 to production",
		"⚠ needs sign-in  grant access for Deploy service", "https://mcp.example.com/deploy needs additional permission: tools:deploy",
		"◆ question  answer: Before I deploy", "5 questions",
		"◇ review result  review the result of Read secret",
		"run client tool Run tests", "for client vscode-1",
		"? newKind  waiting for you (newKind)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("list lacks %q:\n%s", want, out)
		}
	}
	if out := ansi.Strip(RenderInputNeeded(noColorTheme, nil, 0, 40)); !strings.Contains(out, "Nothing is waiting") {
		t.Errorf("empty list = %q", out)
	}
}

func TestRenderInputNeededWidths(t *testing.T) {
	for _, th := range []Theme{noColorTheme, colorTheme} {
		for w := 1; w <= 250; w += 3 {
			checkScreen(t, th, RenderInputNeeded(th, testInputNeeded(), 2, w), w)
		}
	}
}
