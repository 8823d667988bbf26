package views

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"

	"github.com/ahptui/ahptui/keymap"
)

// SameKeys reports whether two bindings answer the same keys.
func SameKeys(a, b key.Binding) bool { return slices.Equal(a.Keys(), b.Keys()) }

// FitShortHelp renders the short help in width cells. When it does not
// fit it drops the view's own hints from the end first and the global ones
// after, never "? help": that is where every other key is listed, so it
// must survive the narrowest terminal.
func FitShortHelp(h help.Model, g keymap.GlobalKeys, short []key.Binding, width int) string {
	measure := h
	measure.SetWidth(0)
	short = append([]key.Binding(nil), short...)
	isHelp := func(b key.Binding) bool { return SameKeys(b, g.Help) }
	isGlobal := func(b key.Binding) bool {
		return isHelp(b) || SameKeys(b, g.Quit) || SameKeys(b, g.Interrupt)
	}
	for lipgloss.Width(measure.ShortHelpView(short)) > width {
		drop := -1
		for i := len(short) - 1; i >= 0 && drop < 0; i-- {
			if !isGlobal(short[i]) {
				drop = i
			}
		}
		for i := len(short) - 1; i >= 0 && drop < 0; i-- {
			if !isHelp(short[i]) {
				drop = i
			}
		}
		if drop < 0 {
			break
		}
		short = append(short[:drop], short[drop+1:]...)
	}
	return h.ShortHelpView(short)
}

// FullHelp is the ? overlay's list laid out for one screen size: every
// row, measured and flowed into columns once. Laying it out walks every
// binding of the keymap; scrolling it only slices the rows, so the UI keeps
// one while the overlay is open and draws each frame from it.
type FullHelp struct {
	Here          keymap.Context
	Width, Height int
	body          []string
}

// NewFullHelp lays out the overlay of the keys of the context it was
// opened from (here) first, then every binding of the keymap, one
// bubbles/help column per view, flowed into as many columns as width
// holds.
func NewFullHelp(th Theme, h help.Model, k keymap.KeyMap, here keymap.Context, width, height int) FullHelp {
	return FullHelp{Here: here, Width: width, Height: height, body: fullHelpBody(th, h, k, here, width, height)}
}

// RenderFullHelp lays out and draws the overlay in one go (see
// NewFullHelp and FullHelp.Render).
func RenderFullHelp(th Theme, h help.Model, k keymap.KeyMap, here keymap.Context, width, height, offset int) string {
	return NewFullHelp(th, h, k, here, width, height).Render(th, k, offset)
}

// Render draws the overlay. A list taller than the screen scrolls: it
// shows the rows from offset (clamped, see MaxOffset) with a line saying
// how to move.
func (f FullHelp) Render(th Theme, k keymap.KeyMap, offset int) string {
	width, height, body := f.Width, f.Height, f.body
	rows := fullHelpRows(height)
	offset = max(0, min(offset, len(body)-rows))
	shown := body[offset:min(len(body), offset+rows)]
	hs := k.HelpScreen
	foot := KeyHints(th, true, hs.Close, hs.Close.Help().Desc)
	if len(body) > rows {
		foot = KeyHints(th, true, hs.Down, "more", hs.Up, "back", hs.Close, hs.Close.Help().Desc) +
			th.Muted.Render(fmt.Sprintf("  %d–%d of %d", offset+1, offset+len(shown), len(body)))
	}
	shown = append(slices.Clone(shown), foot)
	w := 0
	for _, l := range shown {
		w = max(w, lipgloss.Width(l))
	}
	dw := min(width, w+2)
	if width-dw < 4 || len(body) > rows {
		// A margin of a column or so shows slivers of the panels' frames
		// beside the overlay's: take the whole width instead. So does a
		// list that scrolls: its columns were fitted to the width, and
		// a narrower set of them leaves the panels showing at its sides.
		dw = width
	}
	return RenderDialog(th, "Keys", shown, dw, min(height, len(shown)+2))
}

// MaxOffset is the largest useful scroll offset of Render: the one that
// shows the last row.
func (f FullHelp) MaxOffset() int { return max(0, len(f.body)-fullHelpRows(f.Height)) }

// fullHelpRows is how many rows of the list a height-line screen shows:
// the dialog's border and its footer line take three.
func fullHelpRows(height int) int { return max(1, height-3) }

// fullHelpBody is every row of the overlay's list. Columns take as many
// rows as the screen has; when they do not fit side by side in width, they
// grow longer (and the list scrolls) rather than be cut.
func fullHelpBody(th Theme, h help.Model, k keymap.KeyMap, here keymap.Context, width, height int) []string {
	sections := []struct {
		title  string
		groups [][]key.Binding
	}{
		{"Here (" + here.String() + ")", [][]key.Binding{k.Active(here)}},
		{"Everywhere", k.Global.FullHelp()}, {"Sessions", k.Sessions.FullHelp()}, {"Chat", k.Chat.FullHelp()},
		{"Composer", k.Composer.FullHelp()}, {"MCP servers", k.MCP.FullHelp()}, {"Sign-in prompt", k.Grant.FullHelp()},
		{"Input form", append(k.Input.FullHelp(), k.Input.ChoiceHelp(), k.Input.BooleanHelp())}, {"Confirm", k.Confirm.FullHelp()},
		{"Saved sign-ins", k.SignIns.FullHelp()}, {"Pasted address", k.Paste.FullHelp()},
		{"New session", k.NewSession.FullHelp()}, {"Settings", k.Settings.FullHelp()}, {"Pending messages", k.Queue.FullHelp()}, {"Chats", k.Chats.FullHelp()}, {"Attachments", k.Resources.FullHelp()},
		{"Inbox", k.Inbox.FullHelp()}, {"Changes", k.Changes.FullHelp()}, {"Diff", k.Diff.FullHelp()},
		{"Terminals", k.Terminals.FullHelp()}, {"Terminal", append(k.Terminal.FullHelp(), []key.Binding{k.Terminal.Leave})},
		{"This help", k.HelpScreen.FullHelp()},
	}
	h.ShowAll = true
	h.SetWidth(0)
	var blocks []helpBlock
	total := 0
	add := func(lines []string) {
		b := helpBlock{lines: lines, widths: make([]int, len(lines))}
		for i, l := range lines {
			b.widths[i] = lipgloss.Width(l)
		}
		blocks = append(blocks, b)
		total += len(lines)
	}
	for _, sec := range sections {
		block := []string{th.Title.Render(sec.title)}
		block = append(block, strings.Split(h.FullHelpView([][]key.Binding{helpBindings(k, sec.groups)}), "\n")...)
		add(append(block, ""))
		if sec.title == "Sessions" {
			// What the list's marks mean, beside its keys.
			legend := append([]string{th.Title.Render("Session marks")}, SessionLegend(th)...)
			add(append(legend, ""))
		}
	}
	// The dialog's border takes two cells. Every line was measured once
	// above: trying each column height is arithmetic, and only the one
	// that fits is drawn (measuring per try made a frame of this overlay
	// cost a fifth of a second at 80 columns, and seconds under -race).
	for maxRows := fullHelpRows(height); ; maxRows++ {
		cols := helpColumns(blocks, maxRows)
		if maxRows >= total || helpColumnsWidth(cols) <= width-2 {
			return drawHelpColumns(cols)
		}
	}
}

// helpBlock is one section of the overlay: its lines and their widths.
type helpBlock struct {
	lines  []string
	widths []int
}

// helpColumn is the blocks one column of the overlay holds and its width.
type helpColumn struct {
	blocks []helpBlock
	rows   int
	width  int
}

// helpColumns flows blocks into columns of at most maxRows lines (a block
// taller than that gets a column of its own).
func helpColumns(blocks []helpBlock, maxRows int) []helpColumn {
	var cols []helpColumn
	var col helpColumn
	for _, b := range blocks {
		if col.rows > 0 && col.rows+len(b.lines) > maxRows {
			cols = append(cols, col)
			col = helpColumn{}
		}
		col.blocks = append(col.blocks, b)
		col.rows += len(b.lines)
		for _, w := range b.widths {
			col.width = max(col.width, w)
		}
	}
	return append(cols, col)
}

// helpColumnsWidth is how wide the columns are drawn two spaces apart.
func helpColumnsWidth(cols []helpColumn) int {
	w := 2 * (len(cols) - 1)
	for _, c := range cols {
		w += c.width
	}
	return w
}

// drawHelpColumns lays the columns side by side, each line padded to its
// column's width, two spaces between columns.
func drawHelpColumns(cols []helpColumn) []string {
	rows := 0
	for _, c := range cols {
		rows = max(rows, c.rows)
	}
	out := make([]strings.Builder, rows)
	for i, c := range cols {
		r := 0
		for _, b := range c.blocks {
			for j, l := range b.lines {
				out[r].WriteString(l)
				out[r].WriteString(strings.Repeat(" ", c.width-b.widths[j]))
				r++
			}
		}
		for ; r < rows; r++ {
			out[r].WriteString(strings.Repeat(" ", c.width))
		}
		if i < len(cols)-1 {
			for r := range out {
				out[r].WriteString("  ")
			}
		}
	}
	lines := make([]string, rows)
	for r := range out {
		lines[r] = out[r].String()
	}
	return lines
}

// helpBindings flattens a section's groups into the lines it lists.
func helpBindings(k keymap.KeyMap, groups [][]key.Binding) []key.Binding {
	var flat []key.Binding
	for _, g := range groups {
		for _, b := range g {
			switch {
			case len(b.Keys()) == 0:
				continue
			case !k.MultiHost() && k.HostKey(b):
				// One host: its list has no host rows to act on.
				continue
			case SameKeys(b, k.Composer.Queue) && b.Help() == k.Composer.Queue.Help():
				// Send and Queue share enter, one enabled at a time: one
				// line says both.
				continue
			case SameKeys(b, k.Composer.Send) && b.Help() == k.Composer.Send.Help():
				b.SetHelp(b.Help().Key, b.Help().Desc+"/"+k.Composer.Queue.Help().Desc)
			}
			b.SetEnabled(true)
			flat = append(flat, b)
		}
	}
	return flat
}
