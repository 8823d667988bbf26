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
	width = max(width, 20)
	inner := width - 2
	var body []string
	add := func(style func(...string) string, s string) {
		body = append(body, wrapLines(style(s), inner)...)
	}
	if len(rows) == 0 {
		add(th.Muted.Render, "Nothing is waiting for you.")
	}
	selStart, selEnd := 0, 0
	for i, r := range rows {
		if i == sel {
			selStart = len(body)
		}
		mark, style := "  ", th.Text.Render
		if i == sel {
			mark, style = "▸ ", th.Selected.Render
		}
		what := SanitizeLine(r.What)
		if d := SanitizeLine(r.Detail); d != "" {
			what += ": " + d
		}
		add(style, mark+what+" · waiting "+waitedText(r.Waited))
		session := SanitizeLine(r.Session)
		if session == "" {
			session = "(untitled session)"
		}
		add(th.Muted.Render, "    "+session+" · on "+SanitizeLine(r.Host))
		if i == sel {
			selEnd = len(body)
		}
	}
	tail := wrapLines(hintLine(th, k.Inbox.Up, k.Inbox.Down, k.Inbox.Open, k.Inbox.Close), inner)
	room := max(1, height-2-len(tail))
	if len(body) > room {
		start := min(selStart, max(0, selEnd-room))
		body = body[start:min(len(body), start+room)]
	}
	return renderSheet(th, InboxTitle, framedRows(append(body, tail...)), inner)
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
