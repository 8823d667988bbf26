package ui

import (
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/keymap"
)

func TestListCursorStaysOnItsRows(t *testing.T) {
	k := keymap.DefaultKeyMap().Sessions
	up := tea.KeyPressMsg{Code: tea.KeyUp}
	down := tea.KeyPressMsg{Code: tea.KeyDown}
	if !cursorKey(up, k.Up, k.Down) || !cursorKey(down, k.Up, k.Down) {
		t.Fatal("↑ and ↓ are not the list's cursor keys")
	}
	if cursorKey(tea.KeyPressMsg{Code: tea.KeyEnter}, k.Up, k.Down) {
		t.Fatal("enter is taken for a cursor key")
	}
	for _, c := range []struct {
		name       string
		msg        tea.KeyPressMsg
		sel, n, to int
	}{
		{"down in an empty list", down, 0, 0, 0},
		{"up in an empty list", up, 0, 0, 0},
		{"up at the top", up, 0, 3, 0},
		{"down at the bottom", down, 2, 3, 2},
		{"down", down, 0, 3, 1},
		{"up", up, 2, 3, 1},
		{"down from past a shrunk list", down, 7, 3, 2},
	} {
		if got := moveCursor(c.msg, k.Up, c.sel, c.n); got != c.to {
			t.Errorf("%s: cursor %d of %d moved to %d, want %d", c.name, c.sel, c.n, got, c.to)
		}
	}
}
