package app

import "github.com/charmbracelet/x/ansi"

// warmWidthTable measures one box-drawing character's cell width, as the
// renderer's first frame does for its borders, on a goroutine of its own.
//
// The renderer measures runes with wcwidth (ansi.WcWidth, go-runewidth)
// unless the terminal answers the unicode-core mode query, and
// go-runewidth builds its lookup table for runes past U+02FF on first
// use: 2.2 MB written at once, 7 to 30 ms on the shared 2-core machine
// (issue 33). Started as the UI's start-up begins, the build runs on the
// other core while the configuration is read and the model built, instead
// of inside the first frame. The commands never call this: their output
// does not need the table.
func warmWidthTable() {
	go ansi.WcWidth.StringWidth("─")
}
