package views

import (
	"fmt"
	"image/color"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/keymap"
	"github.com/ahptui/ahptui/protocol"
)

// TermCell is one cell of a terminal's screen as the terminal pane draws
// it. ui fills it from its emulator; views never sees the emulator.
type TermCell struct {
	Text                                    string // one grapheme cluster; "" for a wide cell's second half
	Width                                   int
	Fg, Bg                                  color.Color // nil: the terminal's default
	Bold, Faint, Italic, Underline, Reverse bool
}

// TermGrid is a terminal's scrollback followed by its screen: line 0 is
// the oldest line kept, Lines()-1 the screen's last row.
type TermGrid interface {
	Lines() int
	Cols() int
	// Row appends line y's cells to dst (at most Cols of them).
	Row(y int, dst []TermCell) []TermCell
}

// TermCommandRow is one command of a terminal with command detection.
type TermCommandRow struct {
	Line     string
	Running  bool
	ExitCode *int64
}

// TerminalPane is what the terminal pane draws.
type TerminalPane struct {
	Title string
	// Exited and ExitCode are the process's lifecycle.
	Exited   bool
	ExitCode *int64
	// Claim says who holds the terminal, "" when this client does.
	Claim    string
	CanInput bool // this client holds the claim
	Input    bool // keys go to the terminal
	Commands []TermCommandRow
	Detects  bool // supportsCommandDetection
	Grid     TermGrid
	// Top is the first line shown; Follow shows the last lines instead.
	Top    int
	Follow bool
	Note   string
}

// TerminalCommandRows is how many rows the pane gives its commands.
const TerminalCommandRows = 3

// TerminalScreenRows is how many of the grid's lines a pane of height h
// shows: the frame, the header, the command strip and the hints take the
// rest.
func TerminalScreenRows(p TerminalPane, h int) int {
	rows := max(5, h) - 2 - 2 // frame, header and hints
	if p.Detects {
		rows -= min(TerminalCommandRows, len(p.Commands)) + 1
	}
	return max(1, rows)
}

// RenderTerminal draws a terminal pane exactly w×h: the title, its state
// and claim, the emulator's cells (cropped to the pane), the latest
// commands with their exit codes, and the keys.
func RenderTerminal(th Theme, k keymap.KeyMap, p TerminalPane, w, h int) string {
	w, h = max(20, w), max(5, h)
	inner := w - 2
	rows := TerminalScreenRows(p, h)
	body := []string{" " + terminalHeader(th, p, inner-1)}
	first := p.Top
	if p.Grid != nil {
		n := p.Grid.Lines()
		if p.Follow {
			first = n - rows
		}
		first = max(0, min(first, n-rows))
		var cells []TermCell
		for y := first; y < first+rows; y++ {
			if y >= n {
				body = append(body, "")
				continue
			}
			cells = p.Grid.Row(y, cells[:0])
			body = append(body, drawTermRow(th, cells, inner))
		}
	}
	for len(body) < rows+1 {
		body = append(body, "")
	}
	if p.Detects {
		body = append(body, " "+th.Muted.Render("commands"))
		cmds := p.Commands[max(0, len(p.Commands)-TerminalCommandRows):]
		for _, c := range cmds {
			body = append(body, " "+commandRow(th, c, inner-1))
		}
	}
	body = append(body, " "+terminalHints(th, k, p))
	title := "Terminal · " + SanitizeLine(p.Title)
	return RenderDialog(th, title, body, w, h)
}

func terminalHeader(th Theme, p TerminalPane, w int) string {
	state := th.Success.Render("process running")
	if p.Exited {
		state = th.Muted.Render("exited")
		if p.ExitCode != nil {
			st := th.Success
			if *p.ExitCode != 0 {
				st = th.Error
			}
			state = st.Render("exited " + strconv.FormatInt(*p.ExitCode, 10))
		}
	}
	parts := []string{state}
	switch {
	case p.Input:
		parts = append(parts, th.Warning.Render("typing into the terminal"))
	case p.Claim != "":
		parts = append(parts, th.Muted.Render(Truncate(SanitizeLine(p.Claim), w/2)))
	}
	if p.Note != "" {
		parts = append(parts, th.Info.Render(SanitizeLine(p.Note)))
	}
	return Truncate(strings.Join(parts, th.Subtle.Render(" · ")), w)
}

func commandRow(th Theme, c TermCommandRow, w int) string {
	mark := th.Info.Render("… running")
	switch {
	case c.Running:
	case c.ExitCode == nil:
		mark = th.Muted.Render("done")
	case *c.ExitCode == 0:
		mark = th.Success.Render("✓ exit 0")
	default:
		mark = th.Error.Render(fmt.Sprintf("✗ exit %d", *c.ExitCode))
	}
	return Truncate(mark+"  "+SanitizeLine(c.Line), w)
}

func terminalHints(th Theme, k keymap.KeyMap, p TerminalPane) string {
	t := k.Terminal
	if p.Input {
		return KeyHints(th, true, t.Leave, "stop typing")
	}
	pairs := []any{t.Top, "top", t.Bottom, "follow", t.PageUp, "page"}
	if p.CanInput {
		pairs = append(pairs, t.Input, "type")
	}
	return KeyHints(th, true, append(pairs, t.Back, "back")...)
}

// drawTermRow draws one line of cells in w columns. Cell text is the
// emulator's printable graphemes; it is checked again here so a control
// character can never reach the real terminal, and links are not drawn.
func drawTermRow(th Theme, cells []TermCell, w int) string {
	var b strings.Builder
	col := 0
	var cur ansi.Style
	styled := false
	for _, c := range cells {
		if c.Text == "" && c.Width == 0 {
			continue // the second half of a wide cell
		}
		cw := max(1, c.Width)
		if col+cw > w {
			break
		}
		st := cellStyle(th, c)
		if !styleEqual(st, cur) {
			if len(st) == 0 {
				b.WriteString(ansi.ResetStyle)
				styled = false
			} else {
				b.WriteString(ansi.ResetStyle)
				b.WriteString(st.String())
				styled = true
			}
			cur = st
		}
		b.WriteString(cellText(c.Text, cw))
		col += cw
	}
	if styled {
		b.WriteString(ansi.ResetStyle)
	}
	return b.String()
}

func styleEqual(a, b ansi.Style) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func cellStyle(th Theme, c TermCell) ansi.Style {
	var st ansi.Style
	if c.Bold {
		st = st.Bold()
	}
	if c.Faint {
		st = st.Faint()
	}
	if c.Italic {
		st = st.Italic(true)
	}
	if c.Underline {
		st = st.Underline(true)
	}
	if c.Reverse {
		st = st.Reverse(true)
	}
	if !th.NoColor {
		if c.Fg != nil {
			st = st.ForegroundColor(c.Fg)
		}
		if c.Bg != nil {
			st = st.BackgroundColor(c.Bg)
		}
	}
	return st
}

// maxCellRunes is the most runes a cell draws: its base and the first
// marks combined with it. A program can pile thousands of combining
// marks on one cell; drawn whole, a screen of them costs hundreds of
// megabytes and seconds a frame, and shows nothing more.
const maxCellRunes = 16

// cellText is a cell's text, at most maxCellRunes runes of it, or spaces
// when it is empty or holds anything but printable text.
func cellText(s string, w int) string {
	if s == "" {
		return strings.Repeat(" ", w)
	}
	n := 0
	for i, r := range s {
		if n == maxCellRunes {
			return s[:i]
		}
		n++
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
			return strings.Repeat(" ", w)
		}
	}
	return s
}

// TerminalRow is one row of the terminals list.
type TerminalRow struct {
	Title   string
	URI     string
	Claim   string // who holds it, in words
	Exited  bool
	Code    *int64
	FromRun bool // a tool call's terminal, not listed by the host
}

// RenderTerminals draws the terminals list (the root's terminals, and the
// tool call's one opened from a card).
func RenderTerminals(th Theme, k keymap.KeyMap, rows []TerminalRow, sel, w, h int) string {
	w, h = max(20, w), max(5, h)
	inner := w - 2
	var body []string
	if len(rows) == 0 {
		body = append(body, " "+th.Muted.Render("The host lists no terminals."))
	}
	for i, r := range rows {
		if len(body)+3 > h-2 {
			break
		}
		state := th.Success.Render("process running")
		if r.Exited {
			state = th.Muted.Render("exited")
			if r.Code != nil {
				state = th.Muted.Render("exited " + strconv.FormatInt(*r.Code, 10))
			}
		}
		title := SanitizeLine(r.Title)
		if strings.TrimSpace(title) == "" {
			title = SanitizeLine(r.URI)
		}
		mark := "  "
		if i == sel {
			mark = "▸ "
			title = th.Selected.Render(Truncate(title, inner/2))
		}
		body = append(body, Truncate(mark+title+"  "+state, inner))
		body = append(body, "    "+th.Muted.Render(Truncate(SanitizeLine(r.Claim)+" · "+SanitizeLine(r.URI), inner-4)))
	}
	for len(body) < h-3 {
		body = append(body, "")
	}
	body = append(body[:h-3], " "+KeyHints(th, true, k.Terminals.Open, "open", k.Terminals.Close, "close"))
	return RenderDialog(th, "Terminals", body, w, h)
}

// ClaimWords says who holds a terminal, for the pane and the list.
func ClaimWords(c protocol.TerminalClaim, self string) string {
	switch v := c.Variant.(type) {
	case protocol.TerminalClientClaim:
		if v.ClientID == self && self != "" {
			return "yours"
		}
		return "held by another client (" + SanitizeLine(v.ClientID) + ")"
	case protocol.TerminalSessionClaim:
		return "held by the agent"
	}
	return "claim unknown"
}
