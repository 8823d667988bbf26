package views

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"charm.land/lipgloss/v2"

	"github.com/ahptui/ahptui/protocol"
)

// SessionBadge is the badge for a session's (or chat's) status bits. Input
// needed outranks error and error outranks in progress: the badge names
// the most urgent thing a watcher must know.
func SessionBadge(th Theme, status protocol.SessionStatus) Badge {
	s := lipgloss.NewStyle
	p := th.Palette
	switch {
	case status.Has(protocol.SessionStatusInputNeeded):
		return Badge{"◆", "needs input", s().Foreground(p.Warning).Bold(true)}
	case status.Has(protocol.SessionStatusError):
		return Badge{"✗", "error", s().Foreground(p.Error).Bold(true)}
	case status.Has(protocol.SessionStatusInProgress):
		return Badge{"◐", "in progress", s().Foreground(p.Info)}
	}
	return Badge{"○", "idle", s().Foreground(p.FgSubtle)}
}

// UnreadMarker leads a session in the list that changed since the user
// last opened it (the host's isRead bit is off); UnreadMeaning is what it
// means, in the help overlay's legend and the README.
const (
	UnreadMarker  = "•"
	UnreadMeaning = "unread since last opened"
)

// SessionLegend is what the session list's marks mean, one per line
// ("• unread: …", "◆ needs input", …), for the help overlay: the marks
// come from the functions that draw them.
func SessionLegend(th Theme) []string {
	lines := []string{th.HelpKey.Render(UnreadMarker) + " " + th.HelpDesc.Render(UnreadMeaning)}
	for _, st := range []protocol.SessionStatus{protocol.SessionStatusInputNeeded, protocol.SessionStatusError,
		protocol.SessionStatusInProgress, protocol.SessionStatusIdle} {
		b := SessionBadge(th, st)
		lines = append(lines, b.Style.Render(b.Glyph)+" "+th.HelpDesc.Render(b.Label))
	}
	return lines
}

// RelativeAge formats how long ago an ISO 8601 timestamp was, relative to
// now: "now", "42s", "5m", "3h", "2d", then a date. It returns "" for a
// timestamp that does not parse.
func RelativeAge(ts string, now time.Time) string {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return ""
	}
	d := now.Sub(t)
	switch {
	case d < 10*time.Second:
		return "now"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh", int(d/time.Hour))
	case d < 7*24*time.Hour:
		return fmt.Sprintf("%dd", int(d/(24*time.Hour)))
	case t.Year() == now.Year():
		return t.Format("Jan 2")
	}
	return t.Format("2006-01-02")
}

// sessionRowHeight is the lines one session takes: title line, status line.
const sessionRowHeight = 2

// RenderSessionList draws the session list content (the caller frames it
// with th.Panel or th.PanelFocused) as at most height lines none wider than
// width: per session a title line with its age, and a status line with the
// badge and the host's activity text. The selected session is highlighted
// and the list scrolls to keep it visible. now is injected so output is
// reproducible.
func RenderSessionList(th Theme, sessions []protocol.SessionSummary, selected int, width, height int, now time.Time) string {
	if width < 1 || height < 1 {
		return ""
	}
	if len(sessions) == 0 {
		lines := wrapLines(th.Muted.Render("No sessions yet."), width)
		lines = append(lines, wrapLines(hintLine(th, hintKeys.Sessions.New), width)...)
		if len(lines) > height {
			lines = lines[:height]
		}
		return strings.Join(lines, "\n")
	}
	if selected < 0 {
		selected = 0
	}
	if selected >= len(sessions) {
		selected = len(sessions) - 1
	}
	visible := max(1, height/sessionRowHeight)
	first := 0
	if selected >= visible {
		first = selected - visible + 1
	}
	var lines []string
	for i := first; i < len(sessions) && len(lines)+sessionRowHeight <= max(height, sessionRowHeight); i++ {
		lines = append(lines, sessionRow(th, sessions[i], i == selected, width, now)...)
	}
	if len(lines) > height {
		lines = lines[:height]
	}
	return strings.Join(lines, "\n")
}

func sessionRow(th Theme, s protocol.SessionSummary, selected bool, width int, now time.Time) []string {
	title := SanitizeLine(s.Title)
	if strings.TrimSpace(title) == "" {
		title = "Untitled session"
	}
	age := RelativeAge(s.ModifiedAt, now)
	unread := !s.Status.Has(protocol.SessionStatusIsRead)
	marker := "  "
	switch {
	case selected:
		marker = "› "
	case unread:
		marker = UnreadMarker + " "
	}
	ageW := lipgloss.Width(age)
	titleW := width - 2 - ageW - 1
	if ageW == 0 {
		titleW = width - 2
	}
	var line1 string
	switch {
	case titleW < 4 || age == "": // no age, or too narrow for an age column
		line1 = Truncate(marker+title, width)
		age = ""
	default:
		t := Truncate(title, titleW)
		pad := width - 2 - lipgloss.Width(t) - ageW
		line1 = marker + t + strings.Repeat(" ", max(pad, 1)) + age
	}

	b := SessionBadge(th, s.Status)
	status := b.Plain()
	if a := SanitizeLine(strOr(s.Activity)); strings.TrimSpace(a) != "" {
		status += " · " + a
	} else if s.Status.Has(protocol.SessionStatusIsArchived) {
		status += " · archived"
	}
	line2 := Truncate("  "+status, width)

	if selected {
		w := lipgloss.Width(line1)
		return []string{
			th.Selected.Render(line1 + strings.Repeat(" ", max(0, width-w))),
			styleStatusLine(th, b, line2),
		}
	}
	titleStyle := th.Text
	if unread {
		titleStyle = titleStyle.Bold(true)
	}
	if s.Status.Has(protocol.SessionStatusIsArchived) {
		titleStyle = th.Muted
	}
	// Restyle only the parts: marker and title in the title style, the age muted.
	if age != "" && strings.HasSuffix(line1, age) {
		line1 = titleStyle.Render(strings.TrimSuffix(line1, age)) + th.Muted.Render(age)
	} else {
		line1 = titleStyle.Render(line1)
	}
	return []string{line1, styleStatusLine(th, b, line2)}
}

// styleStatusLine colours the badge part of an already-truncated plain
// status line and mutes the rest.
func styleStatusLine(th Theme, b Badge, line string) string {
	plain := "  " + b.Plain()
	if strings.HasPrefix(line, plain) {
		return "  " + b.String() + th.Muted.Render(strings.TrimPrefix(line, plain))
	}
	return b.Style.Render(line)
}

// SessionTitle is title as a session can be renamed to it, for the UI's
// R and `ahptui rename` alike: trimmed, not empty, one line of plain text
// (no control characters or escape sequences for other clients to draw).
func SessionTitle(title string) (string, error) {
	title = strings.TrimSpace(title)
	switch {
	case title == "":
		return "", errors.New("a session needs a title")
	case SanitizeLine(title) != title:
		return "", errors.New("a title is one line of plain text, without control characters")
	}
	return title, nil
}
