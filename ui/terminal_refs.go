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
// oldest first, each once (protocol.ChatTerminals, which ahptui
// terminals list reads too), titled by the tool where the host gave none.
func (t *terminalView) chatTerminals() []protocol.ToolResultTerminalContent {
	if !t.hasChat {
		return nil
	}
	var out []protocol.ToolResultTerminalContent
	for _, ct := range protocol.ChatTerminals(t.chat) {
		ref := ct.Ref
		if ref.Title == "" {
			ref.Title = ct.Tool
		}
		out = append(out, ref)
	}
	return out
}
