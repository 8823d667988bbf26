package views

import (
	"fmt"
	"strings"
	"time"

	"github.com/ahptui/ahptui/protocol"
)

// RenderSessionsPanel is the session list panel exactly w×h cells with
// selected highlighted; waiting says the host has not answered yet, and
// truncated that the host listed more sessions than the client keeps.
func RenderSessionsPanel(th Theme, sessions []protocol.SessionSummary, truncated bool, selected int, waiting bool, now time.Time, w, h int, focused bool) []string {
	if w <= 0 || h <= 0 {
		return nil
	}
	body := th.Muted.Render("waiting for the host…")
	if !waiting {
		body = RenderSessionList(th, sessions, selected, w-4, h-3, now)
	}
	title := fmt.Sprintf("Sessions (%d)", len(sessions))
	if truncated {
		// "+": the host has more; short, so a narrow panel keeps it (the
		// status line says it in words).
		title = fmt.Sprintf("Sessions (%d+)", len(sessions))
	}
	return RenderPanel(th, title, strings.Split(body, "\n"), w, h, focused)
}

// RenderMCPPanelNoSession is the MCP panel before a session is open.
func RenderMCPPanelNoSession(th Theme, w, h int, focused bool) []string {
	return RenderPanel(th, "MCP servers", []string{th.Muted.Render("open a session to see its servers")}, w, h, focused)
}

// RenderChatOpening is the chat panel's body while its chat is opening.
func RenderChatOpening(th Theme) []string {
	return []string{th.Muted.Render("opening…")}
}

// RenderInputNeededLines lists what waits on the user in a session, at
// most limit lines width cells wide; when more wait, the last line says
// to press jumpKey to reach them.
func RenderInputNeededLines(th Theme, entries []protocol.SessionInputRequest, width, limit int, jumpKey string) []string {
	if len(entries) == 0 {
		return nil
	}
	lines := strings.Split(RenderInputNeeded(th, entries, -1, width), "\n")
	if len(lines) > limit {
		lines = append(lines[:limit-1], th.Warning.Render(fmt.Sprintf("…and more: press %s to jump", jumpKey)))
	}
	return lines
}
