package views

import (
	"fmt"
	"strings"
	"time"

	"charm.land/lipgloss/v2"

	"github.com/ahptui/ahptui/protocol"
)

// HostHeader is one host's row in the session list grouped by host: its
// name (a token-free URL), how its connection stands and how many
// sessions it lists.
type HostHeader struct {
	Name string
	// State is the connection in words: "connected · AHP 1.0.0",
	// "connecting · attempt 2", "failed: version refused: …".
	State string
	// Bad marks a failed or disconnected host (drawn in the error colour).
	Bad bool
	// Active is the host the chat and MCP panels show.
	Active   bool
	Sessions int
}

// HostListRow is a row of the grouped list: a host's header, or one of
// its sessions.
type HostListRow struct {
	Header  *HostHeader
	Session protocol.SessionSummary
}

// hostRowHeight is the lines a header takes, as many as a session's, so
// the list scrolls by rows.
const hostRowHeight = sessionRowHeight

// RenderHostSessionsPanel draws the session list grouped by host. rows
// are the visible rows only (the caller cuts the window around the
// cursor: 20 hosts of 500 sessions must not be drawn whole every frame),
// selected is the cursor's index among them, sessions and hosts the
// whole list's counts for the title.
func RenderHostSessionsPanel(th Theme, rows []HostListRow, selected, sessions, hosts int, now time.Time, w, h int, focused bool) []string {
	if w <= 0 || h <= 0 {
		return nil
	}
	width, height := w-4, h-3
	var lines []string
	for i, r := range rows {
		if len(lines)+hostRowHeight > max(height, hostRowHeight) {
			break
		}
		if r.Header != nil {
			lines = append(lines, hostHeaderRow(th, *r.Header, i == selected, width)...)
			continue
		}
		lines = append(lines, sessionRow(th, r.Session, i == selected, width, now)...)
	}
	if len(lines) > height {
		lines = lines[:max(0, height)]
	}
	title := fmt.Sprintf("Sessions (%d) · %d hosts", sessions, hosts)
	return RenderPanel(th, title, lines, w, h, focused)
}

// HostRowsVisible is how many rows of the grouped list fit in a panel h
// lines high: the window the caller cuts.
func HostRowsVisible(h int) int { return max(1, (h-3)/hostRowHeight) }

func hostHeaderRow(th Theme, hd HostHeader, selected bool, width int) []string {
	if width < 1 {
		return []string{"", ""}
	}
	// › is the cursor, as on a session; ▸ the active host, ▪ another.
	mark := "  ▪ "
	if hd.Active {
		mark = "  ▸ "
	}
	if selected {
		mark = "›" + mark[1:]
	}
	name := Truncate(mark+SanitizeLine(hd.Name)+fmt.Sprintf(" (%d)", hd.Sessions), width)
	state := Truncate("  "+SanitizeLine(hd.State), width)
	stateStyle := th.Muted
	if hd.Bad {
		stateStyle = lipgloss.NewStyle().Foreground(th.Palette.Error)
	}
	if selected {
		pad := strings.Repeat(" ", max(0, width-lipgloss.Width(name)))
		return []string{th.Selected.Render(name + pad), stateStyle.Render(state)}
	}
	return []string{th.Title.Render(name), stateStyle.Render(state)}
}
