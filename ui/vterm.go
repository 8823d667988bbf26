package ui

import (
	"io"
	"sync"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/vt"

	"github.com/ahptui/ahptui/views"
)

// vtScreen is the terminal emulator as the terminal pane uses it. It is
// all ahptui asks of charmbracelet/x/vt, which promises no compatibility:
// a new release is adapted here and nowhere else. It is a views.TermGrid
// (scrollback, then the screen).
type vtScreen interface {
	views.TermGrid
	// Feed parses host output. It never blocks on the emulator's replies
	// to queries (DA, DSR, mode reports): those are read and dropped,
	// never sent to the host.
	Feed(data string)
	Resize(cols, rows int)
	Close()
}

// terminalScrollback bounds the lines a pane keeps above its screen.
const terminalScrollback = 5000

// newVTScreen is the one constructor of an emulator.
func newVTScreen(cols, rows int) vtScreen { return newXVT(cols, rows, terminalScrollback) }

// xvt adapts *vt.Emulator. The emulator writes its replies to queries into
// an unbuffered pipe, so a DA query in the output would block Write until
// someone read it: drain reads and discards them for the emulator's life.
type xvt struct {
	em   *vt.Emulator
	done chan struct{}
	once sync.Once
}

func newXVT(cols, rows, scrollback int) *xvt {
	x := &xvt{em: vt.NewEmulator(max(1, cols), max(1, rows)), done: make(chan struct{})}
	x.em.SetScrollbackSize(scrollback)
	go x.drain()
	return x
}

func (x *xvt) drain() {
	defer close(x.done)
	buf := make([]byte, 256)
	for {
		if _, err := x.em.Read(buf); err != nil {
			return
		}
	}
}

func (x *xvt) Feed(data string) { _, _ = x.em.WriteString(data) }

func (x *xvt) Resize(cols, rows int) {
	if cols != x.em.Width() || rows != x.em.Height() {
		x.em.Resize(max(1, cols), max(1, rows))
	}
}

// Close stops the drain before closing the emulator: vt's Read reads the
// closed flag Close writes, unlocked (v0.1.0), so the two must not overlap.
// Closing the reply pipe's writer (the emulator's input pipe) ends the
// drain's Read; replies written after it fail quietly.
func (x *xvt) Close() {
	x.once.Do(func() {
		if c, ok := x.em.InputPipe().(io.Closer); ok {
			_ = c.Close()
			<-x.done
		}
		_ = x.em.Close()
	})
}

func (x *xvt) Lines() int { return x.em.ScrollbackLen() + x.em.Height() }
func (x *xvt) Cols() int  { return x.em.Width() }

func (x *xvt) Row(y int, dst []views.TermCell) []views.TermCell {
	sb := x.em.ScrollbackLen()
	if y < sb {
		line := x.em.Scrollback().Line(y)
		for i := range min(len(line), x.em.Width()) {
			dst = append(dst, termCell(&line[i]))
		}
		return dst
	}
	y -= sb
	for i := range x.em.Width() {
		dst = append(dst, termCell(x.em.CellAt(i, y)))
	}
	return dst
}

func termCell(c *uv.Cell) views.TermCell {
	if c == nil {
		return views.TermCell{Text: " ", Width: 1}
	}
	a := c.Style.Attrs
	return views.TermCell{Text: c.Content, Width: c.Width, Fg: c.Style.Fg, Bg: c.Style.Bg,
		Bold: a&uv.AttrBold != 0, Faint: a&uv.AttrFaint != 0, Italic: a&uv.AttrItalic != 0,
		Underline: c.Style.Underline != uv.UnderlineStyleNone, Reverse: a&uv.AttrReverse != 0}
}
