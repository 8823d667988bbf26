package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/keymap"
	"github.com/ahptui/ahptui/views"
)

func gridText(g views.TermGrid) string {
	var b strings.Builder
	var cells []views.TermCell
	for y := range g.Lines() {
		cells = g.Row(y, cells[:0])
		for _, c := range cells {
			b.WriteString(c.Text)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// TestVTQueriesNeverBlock: the emulator answers DA, DSR and mode queries
// into an unbuffered pipe; Feed must return anyway (the replies are
// drained and dropped), and Close must end the drain. Run under -race:
// vt v0.1.0's Read is unlocked against Close.
func TestVTQueriesNeverBlock(t *testing.T) {
	for range 20 {
		x := newXVT(40, 5, 100)
		done := make(chan struct{})
		go func() {
			defer close(done)
			x.Feed("before\x1b[c\x1b[>c\x1b[6n\x1b[5n\x1b[?2004$p after")
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("Feed blocked on a query's reply")
		}
		if got := gridText(x); !strings.Contains(got, "before") || !strings.Contains(got, "after") {
			t.Fatalf("the text around the queries is lost: %q", got)
		}
		x.Close()
		x.Close() // twice is fine
	}
}

// TestVTScrollbackBounded: lines above the screen are kept up to the
// limit, oldest dropped first.
func TestVTScrollbackBounded(t *testing.T) {
	x := newXVT(20, 4, 50)
	defer x.Close()
	var b strings.Builder
	for i := range 500 {
		b.WriteString("line ")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString("\r\n")
	}
	x.Feed(b.String())
	if n := x.Lines(); n != 54 {
		t.Fatalf("Lines() = %d, want 50 of scrollback + 4 of screen", n)
	}
}

// TestVTHostileOutputInert: OSC 8 links, OSC 52 clipboard writes, a title
// set and a DA query leave only their visible text in the cells, and the
// drawn pane carries no escape but SGR.
func TestVTHostileOutputInert(t *testing.T) {
	x := newXVT(60, 6, 100)
	defer x.Close()
	x.Feed(hostileTerminalOutput)
	cells := []views.TermCell{}
	for y := range x.Lines() {
		cells = x.Row(y, cells[:0])
		for _, c := range cells {
			for _, r := range c.Text {
				if r < 0x20 || r == 0x7f {
					t.Fatalf("control %U in a cell", r)
				}
			}
		}
	}
	txt := gridText(x)
	for _, bad := range []string{"evil.example", "aGVsbG8=", "PWNED-TITLE"} {
		if strings.Contains(txt, bad) {
			t.Errorf("%q reached the screen: %q", bad, txt)
		}
	}
	if !strings.Contains(txt, "click me") || !strings.Contains(txt, "red") {
		t.Errorf("the visible text is lost: %q", txt)
	}
	out := views.RenderTerminal(views.NewTheme(true, false), testKeys(), views.TerminalPane{Title: "t", Grid: x, Follow: true}, 80, 24)
	checkOnlySGR(t, out)
}

// hostileTerminalOutput is terminal output that tries to reach the user's
// own terminal: a link, a clipboard write, a title, a DA query.
const hostileTerminalOutput = "\x1b]8;;https://evil.example/\x1b\\click me\x1b]8;;\x1b\\\r\n" +
	"\x1b]52;c;aGVsbG8=\x07\x1b]0;PWNED-TITLE\x07\x1b[c\x1b[31mred\x1b[0m\r\n"

func testKeys() keymap.KeyMap { return keymap.DefaultKeyMap() }

// checkOnlySGR fails on any escape sequence in out but SGR styling.
func checkOnlySGR(t *testing.T, out string) {
	t.Helper()
	var state byte
	for rest := out; len(rest) > 0; {
		seq, _, n, newState := ansi.DecodeSequence(rest, state, nil)
		state = newState
		if n <= 0 {
			t.Fatalf("undecodable output at %q", rest)
		}
		rest = rest[n:]
		if strings.HasPrefix(seq, "\x1b") && !(strings.HasPrefix(seq, "\x1b[") && strings.HasSuffix(seq, "m")) {
			t.Fatalf("non-SGR escape %q in the pane", seq)
		}
		if seq != "\n" && len(seq) == 1 && (seq[0] < 0x20 || seq[0] == 0x7f) {
			t.Fatalf("control %q in the pane", seq)
		}
	}
}
