package demohost

import (
	"strings"
	"testing"

	"github.com/ahptui/ahptui/protocol"
)

// TestDemoTerminal: the root lists the history terminal, the history
// turn's "Run the tests" tool call links to it, its channel serves
// coloured output with command detection (one command exiting 0, one
// not), and typing into it is refused: the agent holds it.
func TestDemoTerminal(t *testing.T) {
	h, v := startHost(t, Config{})
	c := dial(t, h, v, "terminal-test")
	c.initialize()
	var sub protocol.SubscribeResult
	c.mustCall("subscribe", protocol.SubscribeParams{Channel: rootURI}, &sub)
	root := sub.Snapshot.State.Variant.(protocol.RootState)
	if len(root.Terminals) != 1 || root.Terminals[0].Resource != DemoTerminalURI {
		t.Fatalf("root terminals: %+v", root.Terminals)
	}
	c.mustCall("subscribe", protocol.SubscribeParams{Channel: HistoryChatURI}, &sub)
	chat := sub.Snapshot.State.Variant.(protocol.ChatState)
	linked := false
	for _, p := range chat.Turns[0].ResponseParts {
		if tc, ok := p.Variant.(protocol.ToolCallResponsePart); ok {
			if uri, _ := tc.ToolCall.Terminal(); uri == DemoTerminalURI {
				linked = true
			}
		}
	}
	if !linked {
		t.Fatal("no tool call of the history turn links the terminal")
	}
	c.mustCall("subscribe", protocol.SubscribeParams{Channel: DemoTerminalURI}, &sub)
	st := sub.Snapshot.State.Variant.(protocol.TerminalState)
	if st.SupportsCommandDetection == nil || !*st.SupportsCommandDetection {
		t.Fatal("no command detection")
	}
	var codes []int64
	var all string
	for _, p := range st.Content {
		switch v := p.Variant.(type) {
		case protocol.TerminalCommandPart:
			if v.ExitCode != nil {
				codes = append(codes, *v.ExitCode)
			}
			all += v.Output.String()
		case protocol.TerminalUnclassifiedPart:
			all += v.Value.String()
		}
	}
	if len(codes) != 2 || codes[0] != 0 || codes[1] == 0 || !strings.Contains(all, "\x1b[31m") {
		t.Fatalf("commands' exit codes %v, colour in %q", codes, all)
	}
	seq := c.dispatch(DemoTerminalURI, protocol.TerminalInputAction{Data: "ls\r"})
	if e := c.waitEcho("refused input", DemoTerminalURI, seq); e.RejectionReason == nil {
		t.Error("input accepted from a client that does not hold the claim")
	}
}
