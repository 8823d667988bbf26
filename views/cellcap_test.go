package views

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// TestTerminalCellTextIsCapped: a cell's text was drawn whole, so a
// program writing "e" and 4000 combining marks into every cell made each
// frame hundreds of megabytes. A cell now draws at most maxCellRunes
// runes: its base and its first marks.
func TestTerminalCellTextIsCapped(t *testing.T) {
	heavy := "e" + strings.Repeat("\u0301", 4000)
	cells := []TermCell{{Text: heavy, Width: 1}, {Text: "x", Width: 1}, {Text: heavy, Width: 1}}
	row := ansi.Strip(drawTermRow(NewTheme(true, false), cells, 10))
	if n := utf8.RuneCountInString(row); n > 2*maxCellRunes+1 {
		t.Fatalf("the row draws %d runes, want at most %d", n, 2*maxCellRunes+1)
	}
	if got := cellText(heavy, 1); utf8.RuneCountInString(got) > maxCellRunes || !strings.HasPrefix(got, "e\u0301") {
		t.Fatalf("a cell of e and 4000 marks draws %d runes (%q…)", utf8.RuneCountInString(got), got[:min(len(got), 8)])
	}
	if maxCellRunes > 16 {
		t.Fatalf("maxCellRunes is %d, more than a cell needs", maxCellRunes)
	}
	if got := cellText("e\u0301\u0302", 1); got != "e\u0301\u0302" {
		t.Fatalf("a cell with a few marks draws %q", got)
	}
}
