package demohost

import (
	"errors"

	"github.com/ahptui/ahptui/protocol"
)

// The history session's terminal (issue 23): the shell its agent ran the
// tests in, with colour and shell integration, so --demo shows the
// terminal pane, its command list and exit codes. The host lists it on
// the root, and the history turn's "Run the tests" tool call links to it.
const (
	DemoTerminalURI   = "agenthost-terminal://history/shell"
	DemoTerminalTitle = "make"
	demoTerminalTool  = "history-1-make"
)

// demoTerminalContent is a prompt, a command that succeeds and one that
// fails, in colour, and the prompt after them.
func demoTerminalContent() []protocol.TerminalContentPart {
	zero, two := int64(0), int64(2)
	d1, d2 := 1840.0, 3120.0
	prompt := "\x1b[1;34m~/demo\x1b[0m \x1b[32m$\x1b[0m "
	return []protocol.TerminalContentPart{
		{Variant: protocol.TerminalUnclassifiedPart{Type: "unclassified", Value: protocol.NewText(prompt + "make build\r\n")}},
		{Variant: protocol.TerminalCommandPart{Type: "command", CommandID: "demo-build", CommandLine: "make build", Timestamp: 1767366000000,
			Output: protocol.NewText("go build ./...\r\n\x1b[32mbuild ok\x1b[0m\r\n"), IsComplete: true, ExitCode: &zero, DurationMs: &d1}},
		{Variant: protocol.TerminalUnclassifiedPart{Type: "unclassified", Value: protocol.NewText(prompt + "make test\r\n")}},
		{Variant: protocol.TerminalCommandPart{Type: "command", CommandID: "demo-test", CommandLine: "make test", Timestamp: 1767366002000,
			Output: protocol.NewText("go test ./protocol/...\r\n\x1b[31m--- FAIL: TestReconnect (0.21s)\x1b[0m\r\n    conn_test.go:88: status connecting, want ready\r\n" +
				"\x1b[1;31mFAIL\x1b[0m\r\nmake: *** [test] Error 2\r\n"), IsComplete: true, ExitCode: &two, DurationMs: &d2}},
		{Variant: protocol.TerminalUnclassifiedPart{Type: "unclassified", Value: protocol.NewText(prompt)}},
	}
}

// seedTerminalLocked lists the terminal on the root and links it from a
// tool call of the history turn. The terminal is on the 1.0 wire only,
// like the changesets; the tool call is in the turn on every wire
// (without its link below 1.0), so the CLI's show reads the same over
// 0.6 and 1.0.
func (h *Host) seedTerminalLocked(s *session) {
	c := h.chats[HistoryChatURI]
	if c == nil || len(c.state.Turns) == 0 {
		return
	}
	done := protocol.ToolCallCompletedState{
		ToolCallID: demoTerminalTool, ToolName: "run_in_terminal", DisplayName: "Run the tests",
		InvocationMessage: protocol.MarkdownString("Running `make test`"), Success: true,
		PastTenseMessage: protocol.MarkdownString("Ran `make test`: it fails"), Confirmed: protocol.ToolCallConfirmationReasonNotNeeded,
	}
	if !h.wire.older() {
		cols, rows, on := int64(80), int64(16), true
		chat := protocol.URI(HistoryChatURI)
		tool := demoTerminalTool
		claim := protocol.NewTerminalClaim(protocol.TerminalSessionClaim{Kind: "session", Session: s.uri, Chat: chat, ToolCallID: &tool})
		running := protocol.TerminalLifecycleState{Variant: protocol.TerminalRunningLifecycleState{Status: "running"}}
		h.terminals = map[string]*protocol.TerminalState{DemoTerminalURI: {
			Title: DemoTerminalTitle, Cols: &cols, Rows: &rows, Content: demoTerminalContent(),
			Lifecycle: running, Claim: claim, SupportsCommandDetection: &on,
		}}
		h.root.Terminals = []protocol.TerminalInfo{{Resource: DemoTerminalURI, Title: DemoTerminalTitle, Claim: claim, Lifecycle: running}}
		two := int64(2)
		done.Content = []protocol.ToolResultContent{protocol.NewToolResultContent(protocol.ToolResultTerminalContent{
			Resource: DemoTerminalURI, Title: DemoTerminalTitle, Result: &protocol.TerminalCommandResult{ExitCode: &two}})}
	}
	part := protocol.NewResponsePart(protocol.ToolCallResponsePart{ToolCall: protocol.NewToolCallState(done)})
	turn := &c.state.Turns[0]
	// After the search, before the answer that explains the failure.
	parts := append([]protocol.ResponsePart{}, turn.ResponseParts[:min(2, len(turn.ResponseParts))]...)
	parts = append(parts, part)
	turn.ResponseParts = append(parts, turn.ResponseParts[min(2, len(turn.ResponseParts)):]...)
}

var errNeedTerminal = errors.New("this action belongs on a terminal channel")

// checkTerminalAction allows terminal/input from the client that holds
// the terminal's claim; the demo's terminal is the agent's, so typing is
// refused with the reason.
func (h *Host) checkTerminalAction(c *conn, channel string, v protocol.StateActionVariant) error {
	t := h.terminals[channel]
	if t == nil {
		return errNeedTerminal
	}
	if _, ok := v.(protocol.TerminalInputAction); !ok {
		return notDispatchable(v)
	}
	if cl, ok := t.Claim.Variant.(protocol.TerminalClientClaim); !ok || cl.ClientID != c.clientID {
		return errors.New("only the client holding the terminal's claim may type into it")
	}
	return nil
}
