package views

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/keymap"
)

// TestQueueSheetGolden: the pending-messages sheet at 80 and 120 columns,
// in colour and without: the steering message first, the queued ones
// numbered in the order they start, a long text cut to three lines, and
// host text (an escape sequence in a message) inert.
func TestQueueSheetGolden(t *testing.T) {
	k := keymap.DefaultKeyMap()
	rows := []QueueRow{
		{Steering: true, Text: "Use the staging database, not production."},
		{Text: "Then write the release notes\x1b[2J for 1.4."},
		{Text: strings.Repeat("And after that, run the whole test suite again and tell me what failed. ", 6)},
	}
	for _, w := range []int{80, 120} {
		for _, c := range []struct {
			name string
			th   Theme
		}{{"queue_sheet", noColorTheme}, {"queue_sheet_color", colorTheme}} {
			out := RenderQueueSheet(c.th, k, rows, 1, min(w, 72), 24)
			checkScreen(t, c.th, out, w)
			checkGolden(t, c.name, w, out)
			if strings.Contains(out, "\x1b[2J") {
				t.Fatal("a message's escape sequence reached the screen")
			}
			plain := ansi.Strip(out)
			for _, want := range []string{"steering · goes into the running turn", "▸ queued 1", "queued 2", "Then write the release notes", " …", "J reorder"} {
				if !strings.Contains(plain, want) {
					t.Errorf("%s at %d lacks %q:\n%s", c.name, w, want, plain)
				}
			}
		}
	}
	if plain := ansi.Strip(RenderQueueSheet(noColorTheme, k, nil, 0, 72, 24)); !strings.Contains(plain, "Nothing waits to be sent") {
		t.Errorf("the empty sheet does not say so:\n%s", plain)
	}
}
