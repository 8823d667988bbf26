package views

import (
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"
)

// ConnState is the connection's lifecycle as the status bar shows it.
type ConnState int

// The connection states. They carry a Conn prefix because views is shared
// by many renderers and "Ready" alone would also name an MCP state.
const (
	ConnConnecting   ConnState = iota // first connect and handshake
	ConnReady                         // initialized; actions flow
	ConnReconnecting                  // dropped; retrying with backoff
	ConnFailed                        // gave up; FailedReason/FailedHint say why
)

func (s ConnState) String() string {
	switch s {
	case ConnConnecting:
		return "connecting"
	case ConnReady:
		return "ready"
	case ConnReconnecting:
		return "reconnecting"
	case ConnFailed:
		return "failed"
	}
	return "ConnState(" + strconv.Itoa(int(s)) + ")"
}

// StatusBar is everything the bottom line shows. Host, ProtocolVersion,
// Cause, FailedReason, FailedHint and Message may come from the host or the
// network and are sanitized by RenderStatusBar.
type StatusBar struct {
	Host            string
	ProtocolVersion string
	State           ConnState
	Attempt         int    // reconnect attempt, shown while Reconnecting
	Cause           string // why the connection dropped, while Reconnecting
	FailedReason    string // why connecting gave up, when Failed
	FailedHint      string // what the user can do next, when Failed
	NextTry         string // when a Failed connect is tried again ("next try in 4s")
	Progress        string // how a connect is going, while Connecting ("attempt 2 · 3s")
	NeedsInput      int    // sessions/tool calls waiting for the user
	Message         string // transient status, e.g. "action rejected: …"
	MessageIsError  bool
}

// minMiddle is the room kept for free text before the "needs input" count
// gives way to it.
const minMiddle = 20

// minHost is the narrowest a truncated host name is still worth showing.
const minHost = 12

type statusPart struct {
	text  string
	style lipgloss.Style
}

// RenderStatusBar draws the status bar as one line exactly width cells wide.
// Left to right: the connection badge, the "needs input" count, the free
// text (failure reason and hint, reconnect attempt and cause, transient
// message) and, right-aligned, host and protocol version. When space runs
// short it drops, in order: the protocol version, the host (truncated while
// it keeps minHost cells, then dropped: the free text says what happened or
// what to do, the host is only context), then the "needs input" count, then
// truncates the free text; the badge goes last.
func RenderStatusBar(th Theme, sb StatusBar, width int) string {
	if width <= 0 {
		return ""
	}
	base := th.StatusBar
	badge := th.ConnBadge(sb.State)
	badgeText := " " + badge.Plain() + " "

	var needsText string
	if sb.NeedsInput > 0 {
		noun := " needs input "
		if sb.NeedsInput > 1 {
			noun = " need input "
		}
		needsText = " " + badgeGlyphAsk + " " + strconv.Itoa(sb.NeedsInput) + noun
	}

	// The free text, most important first.
	var middle []statusPart
	add := func(text string, st lipgloss.Style) {
		if text = strings.TrimSpace(SanitizeLine(text)); text != "" {
			middle = append(middle, statusPart{text, st})
		}
	}
	msgStyle := th.StatusMessage
	if sb.MessageIsError {
		msgStyle = th.StatusError
	}
	switch sb.State {
	case ConnFailed:
		add(sb.NextTry, base)
		add(sb.FailedReason, th.StatusError)
		add(sb.FailedHint, th.StatusMessage)
		add(sb.Message, msgStyle)
	case ConnReconnecting:
		add(sb.Message, msgStyle)
		if sb.Attempt > 0 {
			add("attempt "+strconv.Itoa(sb.Attempt), base)
		}
		add(sb.Cause, base)
	case ConnConnecting:
		add(sb.Progress, base)
		add(sb.Message, msgStyle)
	default:
		add(sb.Message, msgStyle)
	}
	const sep = " · "
	middleWant := 0
	for i, p := range middle {
		if i > 0 {
			middleWant += lipgloss.Width(sep)
		}
		middleWant += lipgloss.Width(p.text)
	}
	if middleWant > 0 {
		middleWant += 2 // a space either side
	}

	host := SanitizeLine(strings.TrimSpace(sb.Host))
	version := SanitizeLine(strings.TrimSpace(sb.ProtocolVersion))
	if version != "" {
		version = "AHP " + version
	}

	// Fixed left segments first; on a very narrow bar they are all there is.
	left := lipgloss.Width(badgeText)
	if left >= width {
		return badge.Style.Render(Truncate(badgeText, width))
	}
	if needsText != "" && left+lipgloss.Width(needsText) > width-minMiddle/2 {
		needsText = ""
	}
	left += lipgloss.Width(needsText)
	avail := width - left

	// Decide the right segment: full, host only, truncated host, nothing.
	right := ""
	switch full := statusJoin(host, version, sep); {
	case full != "" && lipgloss.Width(full)+2+middleWant <= avail:
		right = full
	case host != "" && lipgloss.Width(host)+2+middleWant <= avail:
		right = host
	case host != "" && middleWant == 0:
		right = Truncate(host, avail-2)
	case host != "" && avail-middleWant-2 >= minHost:
		right = Truncate(host, avail-middleWant-2)
	}
	rightText := ""
	if right != "" {
		rightText = " " + right + " "
	}
	middleRoom := avail - lipgloss.Width(rightText)
	if sb.State == ConnFailed && middleWant > middleRoom {
		// Short of room the remedy and the next try stay whole: what to do
		// and when it happens by itself matter more than the detail of
		// what went wrong, which is cut instead.
		hint := strings.TrimSpace(SanitizeLine(sb.FailedHint))
		reason := strings.TrimSpace(SanitizeLine(sb.FailedReason))
		var next []statusPart
		if n := strings.TrimSpace(SanitizeLine(sb.NextTry)); n != "" {
			next = []statusPart{{n, base}}
			middleRoom -= lipgloss.Width(n) + lipgloss.Width(sep)
		}
		if hint != "" {
			r := middleRoom - 2 - lipgloss.Width(sep) - lipgloss.Width(hint)
			switch {
			case reason != "" && r >= minReason:
				middle = []statusPart{{Truncate(reason, r), th.StatusError}, {hint, th.StatusMessage}}
			default:
				middle = []statusPart{{hint, th.StatusMessage}}
				if reason != "" {
					middle = append(middle, statusPart{reason, th.StatusError})
				}
			}
		}
		if next != nil {
			middleRoom += lipgloss.Width(next[0].text) + lipgloss.Width(sep)
			middle = append(next, middle...)
		}
		if msg := strings.TrimSpace(SanitizeLine(sb.Message)); msg != "" {
			// The reply to what the user just did goes first for its few
			// seconds (a key refused while disconnected must say so at 80
			// columns); the remedy is back when it ends.
			middle = append([]statusPart{{msg, msgStyle}}, middle...)
		}
	}

	var b strings.Builder
	b.WriteString(badge.Style.Render(badgeText))
	if needsText != "" {
		b.WriteString(th.StatusNeedsInput.Render(needsText))
	}
	used := renderMiddle(&b, base, middle, sep, middleRoom)
	if pad := middleRoom - used; pad > 0 {
		b.WriteString(base.Render(strings.Repeat(" ", pad)))
	}
	if rightText != "" {
		if version != "" && strings.HasSuffix(right, version) {
			hostPart := strings.TrimSuffix(right, version)
			b.WriteString(th.StatusHost.Render(" " + hostPart))
			b.WriteString(th.StatusVersion.Render(version + " "))
		} else {
			b.WriteString(th.StatusHost.Render(rightText))
		}
	}
	return b.String()
}

// renderMiddle writes the free-text parts into at most room cells, cutting
// the part that does not fit with an ellipsis and dropping the rest. It
// returns the cells written.
func renderMiddle(b *strings.Builder, base lipgloss.Style, parts []statusPart, sep string, room int) int {
	if len(parts) == 0 || room < 4 {
		return 0
	}
	used := 0
	b.WriteString(base.Render(" "))
	used++
	for i, p := range parts {
		if i > 0 {
			sepW := lipgloss.Width(sep)
			if used+sepW+2 > room {
				break
			}
			b.WriteString(base.Render(sep))
			used += sepW
		}
		left := room - used - 1 // keep one trailing space
		if left <= 0 {
			break
		}
		text := Truncate(p.text, left)
		b.WriteString(p.style.Render(text))
		used += lipgloss.Width(text)
		if text != p.text {
			break
		}
	}
	return used
}

// minReason is the fewest cells a cut failure reason keeps beside its
// remedy; with less it moves after the remedy.
const minReason = 8

func statusJoin(a, b, sep string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + sep + b
}
