package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// The app's lists and sheets (sessions, inbox, MCP servers, queue, chats,
// changes, terminals, resources, settings) share one cursor rule: up and
// down move it a row, and it never leaves the rows there are.

// cursorKey is true for a list's up or down key.
func cursorKey(msg tea.KeyPressMsg, up, down key.Binding) bool {
	return key.Matches(msg, up) || key.Matches(msg, down)
}

// moveCursor is a list cursor after a cursorKey: up moves it back a row,
// down forward, kept on one of n rows.
func moveCursor(msg tea.KeyPressMsg, up key.Binding, sel, n int) int {
	if key.Matches(msg, up) {
		return clampCursor(sel-1, n)
	}
	return clampCursor(sel+1, n)
}

// clampCursor keeps a list cursor on one of n rows, 0 when there are none.
func clampCursor(sel, n int) int { return max(0, min(sel, n-1)) }
