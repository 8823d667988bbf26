package ui

import (
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

// refRow is a tool call's terminal as the list shows it.
func refRow(ref protocol.ToolResultTerminalContent) views.TerminalRow {
	r := views.TerminalRow{URI: string(ref.Resource), Title: ref.Title, FromRun: true, Claim: "from a tool call"}
	if ref.Result != nil && ref.Result.ExitCode != nil {
		r.Exited, r.Code = true, ref.Result.ExitCode
	}
	return r
}

// chatTerminals is the terminals the open chat's tool calls reference,
// oldest first, each once.
func (t *terminalView) chatTerminals() []protocol.ToolResultTerminalContent {
	if !t.hasChat {
		return nil
	}
	var out []protocol.ToolResultTerminalContent
	seen := map[protocol.URI]bool{}
	add := func(parts []protocol.ResponsePart) {
		for _, p := range parts {
			tc, ok := p.Variant.(protocol.ToolCallResponsePart)
			if !ok {
				continue
			}
			if ref, ok := tc.ToolCall.TerminalRef(); ok && !seen[ref.Resource] {
				seen[ref.Resource] = true
				if ref.Title == "" {
					ref.Title = tc.ToolCall.Name()
				}
				out = append(out, ref)
			}
		}
	}
	for _, turn := range t.chat.Turns {
		add(turn.ResponseParts)
	}
	if t.chat.ActiveTurn != nil {
		add(t.chat.ActiveTurn.ResponseParts)
	}
	return out
}
