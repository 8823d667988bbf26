package views

import (
	"fmt"
	"strings"

	"github.com/ahptui/ahptui/keymap"
)

// QueueRow is one pending message as the queue sheet shows it: the
// steering message (it goes into the running turn) or a queued one (it
// starts a turn of its own once the running one ends). Text is host text;
// the renderer sanitizes it.
type QueueRow struct {
	Steering bool
	Text     string
}

// queueTextLines is how many lines of a message's text the sheet shows;
// the composer has the rest once the message is edited.
const queueTextLines = 3

// RenderQueueSheet is the pending-messages sheet (Q): the steering message
// first, then the queued messages in the order they will start, the
// selected one highlighted, each with its text cut to a few lines.
func RenderQueueSheet(th Theme, k keymap.KeyMap, rows []QueueRow, sel int, width, height int) string {
	width = max(width, 20)
	inner := width - 2
	var body []string
	selLine := -1
	if len(rows) == 0 {
		body = append(body, wrapLines(th.Muted.Render("Nothing waits to be sent. A message sent while a turn runs is queued here: it starts a turn once the running one ends."), inner)...)
	}
	n := 0
	for i, r := range rows {
		label := "steering · goes into the running turn"
		if !r.Steering {
			n++
			label = fmt.Sprintf("queued %d", n)
		}
		mark, style := "  ", th.Title.Render
		if i == sel {
			mark, style = "▸ ", th.Selected.Render
			selLine = len(body)
		}
		body = append(body, style(Truncate(mark+label, inner)))
		text := wrapLines(SanitizeLine(r.Text), max(1, inner-4))
		if len(text) > queueTextLines {
			text = append(text[:queueTextLines-1], Truncate(strings.TrimRight(text[queueTextLines-1], " ")+" …", inner-4))
		}
		for _, l := range text {
			body = append(body, "    "+th.Text.Render(l))
		}
	}
	qk := k.Queue
	foot := append([]string{""}, wrapLines(KeyHints(th, true, qk.Edit, qk.Edit.Help().Desc, qk.Remove, qk.Remove.Help().Desc,
		qk.MoveUp.Help().Key+"/"+qk.MoveDown.Help().Key, "reorder", qk.Close, qk.Close.Help().Desc), inner)...)
	body = append(scrollTo(th, body, selLine, height-2-len(foot)), foot...)
	return RenderDialog(th, "Pending messages", body, width, min(height, len(body)+2))
}
