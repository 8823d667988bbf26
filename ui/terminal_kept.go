package ui

import (
	"strings"

	"github.com/ahptui/ahptui/protocol"
)

// keep shows, for a card's terminal the host no longer serves (VS Code's
// host refuses to subscribe to a shell call's terminal once the command
// has run), the output its tool result kept: the preview, with the exit
// code, and a note that it is what the call kept. It reports whether the
// card had a preview to show.
func (t *terminalView) keep(channel string) bool {
	ref := t.cardRef
	if string(ref.Resource) != channel || ref.Result == nil || ref.Result.Preview == nil {
		return false
	}
	text := *ref.Result.Preview
	if ref.IsPty == nil || !*ref.IsPty {
		// Plain text: the emulator needs a carriage return per line.
		text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\n", "\r\n")
	}
	t.st = protocol.TerminalState{Title: ref.Title,
		Content:   []protocol.TerminalContentPart{{Variant: protocol.TerminalUnclassifiedPart{Type: "unclassified", Value: protocol.NewText(text)}}},
		Lifecycle: protocol.TerminalLifecycleState{Variant: protocol.TerminalExitedLifecycleState{ExitCode: ref.Result.ExitCode}}}
	t.hasSt, t.kept, t.follow = true, true, true
	t.note = "the host no longer serves this terminal: the output its tool call kept"
	if ref.Result.Truncated != nil && *ref.Result.Truncated {
		t.note += " (cut short)"
	}
	return true
}
