package ui

import (
	"slices"
	"testing"
)

// TestScrollFromTopMovesAtOnce: after home (or pgup past the top) the
// keys down move the view on their first press (issue 14, item 1); the
// offset used to be set to 1<<30 and never clamped.
func TestScrollFromTopMovesAtOnce(t *testing.T) {
	for _, tc := range []struct {
		name    string
		toTop   []string
		forward string
	}{
		{"home then j", []string{"home"}, "j"},
		{"home then down", []string{"home"}, "down"},
		{"home then pgdn", []string{"home"}, "pgdown"},
		{"pgup past the top then j", slices.Repeat([]string{"pgup"}, 200), "j"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := fxModel(benchChat())
			m.resize(80, 24)
			m.Update(press("end"))
			bottom := m.Render()
			for _, k := range tc.toTop {
				m.Update(press(k))
			}
			top := m.Render()
			if top == bottom {
				t.Fatal("the transcript does not overflow the chat; the test needs it to")
			}
			m.Update(press(tc.forward))
			if m.Render() == top {
				t.Fatalf("%s: the view did not move", tc.forward)
			}
		})
	}
}
