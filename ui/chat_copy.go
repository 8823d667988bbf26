package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/views"
)

// copySelected is Y in the chat: the selected card, or else what the
// agent last wrote, to the terminal's clipboard (OSC 52, so it works over
// SSH too), as the Markdown export writes it. Only this key copies: a
// host cannot put anything on the clipboard.
func (cp *chatPanel) copySelected() tea.Cmd {
	text, what := "", ""
	if it, ok := cp.selectedItem(); ok {
		switch it.Kind {
		case itemToolCall:
			text, what = views.ToolCallMarkdown(it.Tool), "the tool call"
		case itemInput:
			if m := it.Input.Request.Message; m != nil {
				text, what = views.Sanitize(*m), "the question"
			}
		}
	}
	if text == "" && cp.hasChat {
		if at := cp.chat.ActiveTurn; at != nil {
			text = views.AgentMarkdown(at.ResponseParts)
		}
		for i := len(cp.chat.Turns) - 1; i >= 0 && text == ""; i-- {
			text = views.AgentMarkdown(cp.chat.Turns[i].ResponseParts)
		}
		what = "the agent's last message"
	}
	if strings.TrimSpace(text) == "" {
		return reportInfo("nothing to copy: select a card ([ and ]) or wait for the agent's answer")
	}
	lines := strings.Count(strings.TrimRight(text, "\n"), "\n") + 1
	return tea.Batch(tea.SetClipboard(text),
		reportInfo(fmt.Sprintf("copied %s (%d lines) to the terminal's clipboard (OSC 52)", what, lines)))
}
