package views

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/protocol"
)

// TestToolCardInput10: 1.0 tool input is inline text or a ContentRef,
// shown as where it lives (never fetched); a finished terminal command is
// the terminal content's result.
func TestToolCardInput10(t *testing.T) {
	ref := protocol.ToolInput(`{"uri":"ahp-content:/input/42","sizeHint":2048,"contentType":"application/json"}`)
	exit := int64(2)
	tests := []struct {
		name    string
		tc      protocol.ToolCallStateVariant
		want    []string
		wantNot []string
	}{
		{"inline input", protocol.ToolCallPendingConfirmationState{ToolCallID: "a", ToolName: "write", DisplayName: "Write",
			InvocationMessage: protocol.PlainString("Write"), ToolInput: protocol.InlineToolInput(`{"path":"a.go"}`)},
			[]string{`input {"path":"a.go"}`}, []string{"input at"}},
		{"referenced input", protocol.ToolCallPendingConfirmationState{ToolCallID: "b", ToolName: "write", DisplayName: "Write",
			InvocationMessage: protocol.PlainString("Write"), ToolInput: ref},
			[]string{"input [input at ahp-content:/input/42, application/json, 2048 bytes]"}, nil},
		{"hostile reference", protocol.ToolCallRunningState{ToolCallID: "c", ToolName: "write", DisplayName: "Write",
			InvocationMessage: protocol.PlainString("Write"), ToolInput: protocol.ToolInput(`{"uri":"x:\u001b]52;c;AAAA\u0007/y"}`)},
			[]string{"[input at x:/y]"}, []string{"]52;", "\a"}},
		{"no input", protocol.ToolCallRunningState{ToolCallID: "d", ToolName: "write", DisplayName: "Write",
			InvocationMessage: protocol.PlainString("Write")}, nil, []string{"input"}},
		{"terminal finished", protocol.ToolCallCompletedState{ToolCallID: "e", ToolName: "sh", DisplayName: "Shell",
			InvocationMessage: protocol.PlainString("Run make"), Success: true, PastTenseMessage: protocol.PlainString("Ran make"),
			Content: []protocol.ToolResultContent{protocol.NewToolResultContent(protocol.ToolResultTerminalContent{
				Resource: "ahp-terminal:/1", Title: "make", Result: &protocol.TerminalCommandResult{
					ExitCode: &exit, Preview: ptr("make: *** [all] Error 2\x1b[0m"), Truncated: ptr(true)}})}},
			[]string{"[terminal make finished, exit code 2, output cut short]", "make: *** [all] Error 2"}, []string{"\x1b[0m"}},
		{"terminal running", protocol.ToolCallRunningState{ToolCallID: "f", ToolName: "sh", DisplayName: "Shell",
			InvocationMessage: protocol.PlainString("Run make"),
			Content: []protocol.ToolResultContent{protocol.NewToolResultContent(protocol.ToolResultTerminalContent{
				Resource: "ahp-terminal:/1", Title: "make"})}},
			[]string{"[terminal make]"}, []string{"finished"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkCard(t, RenderToolCard(noColorTheme, protocol.NewToolCallState(tc.tc), CardContext{Expanded: true}, 120), tc.want, tc.wantNot)
		})
	}
}

// resumableChat has one turn that stopped at an error part.
func resumableChat(resumable *bool, active bool) protocol.ChatState {
	chat := protocol.ChatState{Turns: []protocol.Turn{
		{ID: "t1", Message: userMsg("hi"), State: protocol.TurnStateComplete,
			ResponseParts: []protocol.ResponsePart{mdPart("m1", "hello")}},
		{ID: "t2", Message: userMsg("go on"), State: protocol.TurnStateError,
			ResponseParts: []protocol.ResponsePart{
				mdPart("m2", "working"),
				protocol.NewResponsePart(protocol.ErrorResponsePart{Error: protocol.ErrorInfo{ErrorType: "overloaded", Message: "try again"},
					Resumable: resumable}),
			}},
	}}
	if active {
		chat.ActiveTurn = &protocol.ActiveTurn{ID: "t3", Message: userMsg("again")}
	}
	return chat
}

func TestResumableTurn(t *testing.T) {
	noError := resumableChat(ptr(true), false)
	noError.Turns[1].ResponseParts = noError.Turns[1].ResponseParts[:1]
	earlier := resumableChat(ptr(true), false)
	earlier.Turns = append(earlier.Turns, protocol.Turn{ID: "t3", Message: userMsg("x"), State: protocol.TurnStateComplete})
	for _, tc := range []struct {
		name string
		chat protocol.ChatState
		want string
	}{
		{"resumable", resumableChat(ptr(true), false), "t2"},
		{"not resumable", resumableChat(ptr(false), false), ""},
		{"resumable absent", resumableChat(nil, false), ""},
		{"a turn runs", resumableChat(ptr(true), true), ""},
		{"not the latest turn", earlier, ""},
		{"error state without an error part", noError, ""},
		{"no turns", protocol.ChatState{}, ""},
	} {
		if got := ResumableTurn(tc.chat); got != tc.want {
			t.Errorf("%s: ResumableTurn = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestTranscriptErrorPart: the error part is drawn where the turn stopped,
// once; the resume hint appears with ResumeTurn and goes with it (the
// finished turn's cache must not keep it).
func TestTranscriptErrorPart(t *testing.T) {
	tr := NewTranscript(noColorTheme)
	tr.SetChat(resumableChat(ptr(true), false), nil)
	plain := ansi.Strip(tr.Render(80, 40, 0, TranscriptOptions{}))
	if n := strings.Count(plain, "✗ error: try again (overloaded)"); n != 1 {
		t.Fatalf("error shown %d times:\n%s", n, plain)
	}
	if strings.Contains(plain, "the turn failed") || strings.Contains(plain, "resume") {
		t.Fatalf("footer repeats the error or offers resume unasked:\n%s", plain)
	}
	with := ansi.Strip(tr.Render(80, 40, 0, TranscriptOptions{ResumeTurn: "t2"}))
	if !strings.Contains(with, "the host can resume this turn · r resume turn") {
		t.Fatalf("no resume hint:\n%s", with)
	}
	if again := ansi.Strip(tr.Render(80, 40, 0, TranscriptOptions{})); again != plain {
		t.Fatalf("the hint outlived ResumeTurn:\n%s", again)
	}

	// A host that ends a turn in error without a part still says so.
	bare := resumableChat(nil, false)
	bare.Turns[1].ResponseParts = bare.Turns[1].ResponseParts[:1]
	tr.SetChat(bare, nil)
	if out := ansi.Strip(tr.Render(80, 40, 0, TranscriptOptions{})); !strings.Contains(out, "✗ error: the turn failed") {
		t.Fatalf("an error turn without an error part says nothing:\n%s", out)
	}
}

// TestMCPBlockingStart: a blocking start says how long it has held new
// messages and, selected, offers the background key; in the one-line
// strip its badge carries the time. A start that blocks nothing does not.
func TestMCPBlockingStart(t *testing.T) {
	cs := []protocol.Customization{
		protocol.NewCustomization(mcpServer("a", "alpha", true, protocol.McpServerStartingState{Blocking: ptr(true)})),
		protocol.NewCustomization(mcpServer("b", "beta", true, protocol.McpServerStartingState{})),
	}
	rows := MCPServerRows(cs)
	if !rows[0].Blocking || rows[1].Blocking {
		t.Fatalf("rows %+v", rows)
	}
	blocking := map[string]time.Duration{"a": 75 * time.Second}
	flat := flatCard(RenderMCPPanel(noColorTheme, rows, 0, nil, nil, blocking, 50, 20, true))
	for _, w := range []string{"starting… 1m15s · new messages wait for it", "b background start"} {
		if !strings.Contains(flat, w) {
			t.Errorf("panel lacks %q: %s", w, flat)
		}
	}
	if strings.Count(flat, "new messages wait") != 1 {
		t.Errorf("the non-blocking start claims to block: %s", flat)
	}
	unselected := flatCard(RenderMCPPanel(noColorTheme, rows, 1, nil, nil, blocking, 50, 20, true))
	if strings.Contains(unselected, "background start") {
		t.Errorf("the key is offered on a server that is not selected: %s", unselected)
	}
	strip := ansi.Strip(RenderMCPPanel(noColorTheme, rows, 0, nil, nil, blocking, 80, 3, true))
	if !strings.Contains(strip, "alpha starting… 1m15s") || strings.Contains(strip, "beta starting…") {
		t.Errorf("strip: %s", strip)
	}
}
