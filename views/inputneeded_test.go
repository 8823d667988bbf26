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
		protocol.NewSessionInputRequest(protocol.SessionToolConfirmationRequest{ID: "1", Chat: "ahp-chat:/c1", TurnID: "t4",
			ToolCall: protocol.ToolCallConfirmationState{Variant: pending}}),
		protocol.NewSessionInputRequest(protocol.SessionToolAuthenticationRequest{ID: "2", Chat: "ahp-chat:/c1", TurnID: "t4", ToolCall: auth}),
		protocol.NewSessionInputRequest(protocol.SessionChatInputRequest{ID: "3", Chat: "ahp-chat:/c2", Request: testInputRequest()}),
		protocol.NewSessionInputRequest(protocol.SessionToolConfirmationRequest{ID: "4", Chat: "ahp-chat:/c1", TurnID: "t4",
			ToolCall: protocol.ToolCallConfirmationState{Variant: result}}),
		protocol.NewSessionInputRequest(protocol.SessionToolClientExecutionRequest{ID: "5", Chat: "ahp-chat:/c1", TurnID: "t4", ClientID: "vscode-1",
			ToolCall: toolCardCases[2].tc.Variant.(protocol.ToolCallRunningState)}),
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

// TestInputNeededMarkdownDetail: a tool's markdown invocation shows its
// meaning under the blocker (no raw backticks), a plain one stays literal,
// and a long one stays within the width.
func TestInputNeededMarkdownDetail(t *testing.T) {
	entry := func(inv protocol.StringOrMarkdown) []protocol.SessionInputRequest {
		return []protocol.SessionInputRequest{protocol.NewSessionInputRequest(protocol.SessionToolConfirmationRequest{
			ID: "1", Chat: "ahp-chat:/c1", TurnID: "t1",
			ToolCall: protocol.ToolCallConfirmationState{Variant: protocol.ToolCallPendingConfirmationState{
				ToolCallID: "tc1", ToolName: "write_file", DisplayName: "Write file", InvocationMessage: inv}}})}
	}
	for _, tc := range []struct {
		name      string
		inv       protocol.StringOrMarkdown
		width     int
		want, not string
	}{
		{"markdown", protocol.MarkdownString("Write `CHANGELOG.md`"), 60, "Write CHANGELOG.md", "`"},
		{"plain keeps backticks", protocol.PlainString("Write `CHANGELOG.md`"), 60, "Write `CHANGELOG.md`", ""},
		{"long markdown", protocol.MarkdownString("Write **" + strings.Repeat("x", 80) + "** and more"), 30, "Write", "**"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, th := range []Theme{noColorTheme, colorTheme} {
				out := RenderInputNeeded(th, entry(tc.inv), -1, tc.width)
				plain := ansi.Strip(out)
				if !strings.Contains(plain, tc.want) || (tc.not != "" && strings.Contains(plain, tc.not)) {
					t.Errorf("got\n%s\nwant %q without %q", plain, tc.want, tc.not)
				}
				for _, l := range strings.Split(out, "\n") {
					if w := ansi.StringWidth(l); w > tc.width {
						t.Errorf("line %q is %d wide, over %d", l, w, tc.width)
					}
				}
			}
		})
	}
}
