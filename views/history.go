package views

import (
	"strings"
	"time"

	"github.com/ahptui/ahptui/keymap"
)

// StatusEntry is one message the status line showed, kept for the message
// history. Text may come from the host and is sanitized when drawn.
type StatusEntry struct {
	At      time.Time
	Text    string
	IsError bool
}

// RenderMessageHistory is the message history overlay, at most
// width×height cells: the newest messages first, each whole (wrapped, never
// cut), as many as fit.
func RenderMessageHistory(th Theme, k keymap.KeyMap, entries []StatusEntry, width, height int) string {
	w := max(20, min(width, 100))
	inner := w - 4
	rows := max(1, height-4) // the border, the blank line and the keys
	var body []string
	if len(entries) == 0 {
		body = append(body, th.Muted.Render("No messages yet."))
	}
	for i := len(entries) - 1; i >= 0 && len(body) < rows; i-- {
		e := entries[i]
		st := th.Text
		if e.IsError {
			st = th.Error
		}
		stamp := e.At.Format("15:04:05") + " "
		lines := wrapLines(SanitizeLine(e.Text), inner-len(stamp))
		for j, l := range lines {
			if len(body) >= rows {
				break
			}
			lead := strings.Repeat(" ", len(stamp))
			if j == 0 {
				lead = th.Muted.Render(stamp)
			}
			body = append(body, " "+lead+st.Render(l))
		}
	}
	body = append(body, "", " "+KeyHints(th, true, k.MessagesClose(), k.MessagesClose().Help().Desc))
	return RenderDialog(th, "Messages", body, w, min(height, len(body)+2))
}
