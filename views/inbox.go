package views

import (
	"fmt"
	"time"

	"github.com/ahptui/ahptui/keymap"
)

// InboxTitle is the title in the top border of RenderInbox's frame.
const InboxTitle = "Inbox"

// InboxRow is one thing waiting on the user as the inbox lists it. Host,
// Session and Detail come from a host: sanitized when drawn.
type InboxRow struct {
	Host    string // which host it waits on (token-free address)
	Session string // the session's title ("" when the host gave none)
	What    string // what it is, in ahptui's words ("approval", …)
	Detail  string // the tool or server it concerns, "" for none
	Waited  time.Duration
}

// RenderInbox draws what waits on the user, oldest first as given, sel
// highlighted, as a sheet exactly width cells wide and at most height
// tall. Each row says what it is and how long it has waited, then on a
// second line its host and session.
func RenderInbox(th Theme, k keymap.KeyMap, rows []InboxRow, sel int, width, height int) string {
	row := func(i int) (string, []string) {
		r := rows[i]
		what := SanitizeLine(r.What)
		if d := SanitizeLine(r.Detail); d != "" {
			what += ": " + d
		}
		session := SanitizeLine(r.Session)
		if session == "" {
			session = "(untitled session)"
		}
		return what + " · waiting " + waitedText(r.Waited), []string{session + " · on " + SanitizeLine(r.Host)}
	}
	tail := func(inner int) []string {
		return wrapLines(hintLine(th, k.Inbox.Up, k.Inbox.Down, k.Inbox.Open, k.Inbox.Close), inner)
	}
	return renderListSheet(th, InboxTitle, width, height, "Nothing is waiting for you.", len(rows), sel, row, tail)
}

// renderListSheet draws a sheet titled title, exactly width cells wide
// and at most height tall, listing n items: row gives the i-th's first
// line (marked and styled when selected) and its muted detail lines,
// empty stands for none, and tail (wrapped to the inner width) ends the
// sheet. When the list is taller than the room it scrolls just far
// enough for the selected item's last line, never past its first.
func renderListSheet(th Theme, title string, width, height int, empty string, n, sel int, row func(i int) (string, []string), tail func(inner int) []string) string {
	width = max(width, 20)
	inner := width - 2
	var body []string
	add := func(style func(...string) string, s string) {
		body = append(body, wrapLines(style(s), inner)...)
	}
	if n == 0 {
		add(th.Muted.Render, empty)
	}
	selStart, selEnd := 0, 0
	for i := range n {
		head, more := row(i)
		mark, style := "  ", th.Text.Render
		if i == sel {
			selStart = len(body)
			mark, style = "▸ ", th.Selected.Render
		}
		add(style, mark+head)
		for _, l := range more {
			add(th.Muted.Render, "    "+l)
		}
		if i == sel {
			selEnd = len(body)
		}
	}
	end := tail(inner)
	room := max(1, height-2-len(end))
	if len(body) > room {
		start := min(selStart, max(0, selEnd-room))
		body = body[start:min(len(body), start+room)]
	}
	return renderSheet(th, title, framedRows(append(body, end...)), inner)
}

// waitedText is a wait in the largest unit that matters: 12s, 4m, 2h5m.
func waitedText(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", max(0, int(d/time.Second)))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	}
	return fmt.Sprintf("%dh%dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
}
