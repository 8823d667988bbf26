package views

import (
	"strconv"
	"strings"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"
	udiff "github.com/aymanbagabas/go-udiff"
	"github.com/charmbracelet/x/ansi"
)

// DiffLineKind is what one line of a diff is.
type DiffLineKind int

const (
	DiffContext DiffLineKind = iota
	DiffAdd
	DiffDel
	DiffHunk // a hunk's @@ header
)

// DiffLine is one line of a unified diff: its kind, its line numbers on
// each side (0: none) and its text, already sanitized and tab-expanded.
type DiffLine struct {
	Kind     DiffLineKind
	Old, New int
	Text     string
}

// DiffRow is one row of the side-by-side layout: a line of the old side
// and one of the new (-1: none), paired as deletions meet insertions.
type DiffRow struct{ Left, Right int }

// Diff is one file's diff, built once from its two sides (BuildDiff) and
// drawn a window at a time (RenderDiff): the unified lines, the
// side-by-side rows, and where each hunk starts in both.
type Diff struct {
	Path     string
	Lines    []DiffLine
	Rows     []DiffRow
	Hunks    []int // indexes into Lines of each hunk header
	HunkRows []int // indexes into Rows of each hunk header
	Added    int
	Removed  int
	// Binary is set when a side holds a NUL byte: such content is not
	// lines, and is said to differ rather than drawn.
	Binary bool
}

// diffContext is the unchanged lines kept around each change.
const diffContext = 3

// BuildDiff diffs before and after line by line (go-udiff's Myers diff,
// as crush does). Host text is sanitized line by line here, once, so
// drawing a window never sanitizes again.
func BuildDiff(path, before, after string) *Diff {
	d := &Diff{Path: path}
	if strings.IndexByte(before, 0) >= 0 || strings.IndexByte(after, 0) >= 0 {
		d.Binary = true
		return d
	}
	edits := udiff.Lines(before, after)
	u, err := udiff.ToUnifiedDiff("a", "b", before, edits, diffContext)
	if err != nil {
		return d
	}
	for _, h := range u.Hunks {
		old, neu := h.FromLine, h.FromLine+(d.Added-d.Removed)
		nOld, nNew := 0, 0
		for _, l := range h.Lines {
			if l.Kind != udiff.Insert {
				nOld++
			}
			if l.Kind != udiff.Delete {
				nNew++
			}
		}
		d.Hunks = append(d.Hunks, len(d.Lines))
		d.HunkRows = append(d.HunkRows, len(d.Rows))
		hdr := "@@ -" + strconv.Itoa(old) + "," + strconv.Itoa(nOld) + " +" + strconv.Itoa(neu) + "," + strconv.Itoa(nNew) + " @@"
		d.Rows = append(d.Rows, DiffRow{len(d.Lines), len(d.Lines)})
		d.Lines = append(d.Lines, DiffLine{Kind: DiffHunk, Text: hdr})
		var dels, adds []int
		flush := func() {
			for i := 0; i < max(len(dels), len(adds)); i++ {
				r := DiffRow{-1, -1}
				if i < len(dels) {
					r.Left = dels[i]
				}
				if i < len(adds) {
					r.Right = adds[i]
				}
				d.Rows = append(d.Rows, r)
			}
			dels, adds = dels[:0], adds[:0]
		}
		for _, l := range h.Lines {
			text := diffText(l.Content)
			switch l.Kind {
			case udiff.Delete:
				if len(adds) > 0 {
					flush()
				}
				dels = append(dels, len(d.Lines))
				d.Lines = append(d.Lines, DiffLine{Kind: DiffDel, Old: old, Text: text})
				old++
				d.Removed++
			case udiff.Insert:
				adds = append(adds, len(d.Lines))
				d.Lines = append(d.Lines, DiffLine{Kind: DiffAdd, New: neu, Text: text})
				neu++
				d.Added++
			default:
				flush()
				d.Rows = append(d.Rows, DiffRow{len(d.Lines), len(d.Lines)})
				d.Lines = append(d.Lines, DiffLine{Kind: DiffContext, Old: old, New: neu, Text: text})
				old++
				neu++
			}
		}
		flush()
	}
	return d
}

// diffText is one line of host text made inert: tabs expanded to four
// columns (SanitizeLine would make each one space), then sanitized.
func diffText(s string) string {
	s = strings.TrimSuffix(s, "\n")
	if strings.IndexByte(s, '\t') >= 0 {
		s = strings.ReplaceAll(s, "\t", "    ")
	}
	return SanitizeLine(s)
}

// SplitDiffWidth is the width from which a diff is drawn side by side.
const SplitDiffWidth = 160

// DiffHighlight colours a file's lines with the lexer its name implies
// (the file's language, not chroma's diff lexer), each line once: its
// cache is what a scrolled frame reuses. One per open file.
type DiffHighlight struct {
	lexer chroma.Lexer
	style *chroma.Style
	// sgr is each token type's escape sequence, worked out once: chroma's
	// formatters work out the whole style's on every call.
	sgr   map[chroma.TokenType]string
	cache map[string]string
	// cells are the drawn cells by line and sides, so a scrolled frame
	// only fits the rows it shows.
	cells map[cellKey]string
	off   bool
}

type cellKey struct {
	line             int
	oldSide, newSide bool
}

// NewDiffHighlight picks the lexer for path; without colour nothing is
// highlighted.
func NewDiffHighlight(th Theme, path string) *DiffHighlight {
	h := &DiffHighlight{cache: map[string]string{}, cells: map[cellKey]string{}, sgr: map[chroma.TokenType]string{}, off: th.NoColor}
	if h.off {
		return h
	}
	if l := lexers.Match(path); l != nil {
		h.lexer = chroma.Coalesce(l)
	}
	h.style = styles.Get("github")
	if th.IsDark {
		h.style = styles.Get("monokai")
	}
	return h
}

// line is text highlighted (text is sanitized: the only escapes in the
// result are chroma's colours).
func (h *DiffHighlight) line(text string) string {
	if h == nil || h.off || h.lexer == nil || text == "" {
		return text
	}
	if s, ok := h.cache[text]; ok {
		return s
	}
	out := text
	if it, err := h.lexer.Tokenise(nil, text); err == nil {
		var b strings.Builder
		for t := it(); t != chroma.EOF; t = it() {
			v := strings.TrimSuffix(t.Value, "\n")
			if v == "" {
				continue
			}
			if sgr := h.tokenSGR(t.Type); sgr != "" {
				b.WriteString(sgr)
				b.WriteString(v)
				b.WriteString("\x1b[m")
			} else {
				b.WriteString(v)
			}
		}
		out = b.String()
	}
	if len(h.cache) > 20_000 {
		clear(h.cache) // a bounded cache: a huge diff is highlighted as it scrolls
	}
	h.cache[text] = out
	return out
}

// tokenSGR is the escape sequence that colours a token of type tt.
func (h *DiffHighlight) tokenSGR(tt chroma.TokenType) string {
	if s, ok := h.sgr[tt]; ok {
		return s
	}
	e := h.style.Get(tt)
	var attrs []string
	if e.Bold == chroma.Yes {
		attrs = append(attrs, "1")
	}
	if e.Italic == chroma.Yes {
		attrs = append(attrs, "3")
	}
	if e.Colour.IsSet() {
		attrs = append(attrs, "38;2;"+strconv.Itoa(int(e.Colour.Red()))+";"+strconv.Itoa(int(e.Colour.Green()))+";"+strconv.Itoa(int(e.Colour.Blue())))
	}
	s := ""
	if len(attrs) > 0 {
		s = "\x1b[" + strings.Join(attrs, ";") + "m"
	}
	h.sgr[tt] = s
	return s
}

// DiffRowCount is how many rows the diff has at width: its lines, or its
// side-by-side rows from SplitDiffWidth.
func DiffRowCount(d *Diff, width int) int {
	if d == nil {
		return 0
	}
	if width >= SplitDiffWidth {
		return len(d.Rows)
	}
	return len(d.Lines)
}

// DiffHunkStarts is where each hunk starts at width, in rows.
func DiffHunkStarts(d *Diff, width int) []int {
	if d == nil {
		return nil
	}
	if width >= SplitDiffWidth {
		return d.HunkRows
	}
	return d.Hunks
}

// RenderDiff draws height rows of d from row top, width cells wide:
// unified below SplitDiffWidth, side by side from it. Only the rows
// shown are styled, so a frame costs the window, not the file.
func RenderDiff(th Theme, d *Diff, hl *DiffHighlight, top, width, height int) []string {
	return RenderDiffAt(th, d, hl, top, 0, width, height)
}

// RenderDiffAt is RenderDiff with each line's text shifted left by
// shift cells (the line numbers and the +/- mark stay): the diff view's
// sideways scroll, so a line cut with "…" can be read to its end.
func RenderDiffAt(th Theme, d *Diff, hl *DiffHighlight, top, shift, width, height int) []string {
	out := make([]string, 0, height)
	if d == nil || width <= 0 {
		return out
	}
	n := DiffRowCount(d, width)
	top = max(0, min(top, n-1))
	num := len(strconv.Itoa(max(1, len(d.Lines))))
	diffCell := func(th Theme, d *Diff, hl *DiffHighlight, i, num int, oldSide, newSide bool) string {
		c := diffCell(th, d, hl, i, num, oldSide, newSide)
		if shift <= 0 || d.Lines[i].Kind == DiffHunk {
			return c
		}
		g := 1 // the mark
		if oldSide {
			g += num + 1
		}
		if newSide {
			g += num + 1
		}
		return ansi.Cut(c, 0, g) + ansi.Cut(c, g+shift, g+shift+1<<20)
	}
	for i := top; i < n && len(out) < height; i++ {
		if width < SplitDiffWidth {
			out = append(out, Fit(diffCell(th, d, hl, i, num, true, true), width))
			continue
		}
		r := d.Rows[i]
		if r.Left >= 0 && r.Left == r.Right && d.Lines[r.Left].Kind == DiffHunk {
			out = append(out, Fit(diffCell(th, d, hl, r.Left, num, true, true), width))
			continue
		}
		half := (width - 1) / 2
		left, right := "", ""
		if r.Left >= 0 {
			left = diffCell(th, d, hl, r.Left, num, true, false)
		}
		if r.Right >= 0 {
			right = diffCell(th, d, hl, r.Right, num, false, true)
		}
		out = append(out, Fit(left, half)+th.Subtle.Render("│")+Fit(right, width-half-1))
	}
	return out
}

// DiffLongest is the width of d's longest line's text: how far the diff
// view's sideways scroll can usefully go.
func DiffLongest(d *Diff) int {
	w := 0
	if d == nil {
		return 0
	}
	for _, l := range d.Lines {
		if l.Kind != DiffHunk {
			w = max(w, ansi.StringWidth(l.Text))
		}
	}
	return w
}

// diffCell draws line i with the numbers of the sides asked for, once
// per highlighter.
func diffCell(th Theme, d *Diff, hl *DiffHighlight, i, num int, oldSide, newSide bool) string {
	if hl == nil {
		return drawDiffCell(th, d, hl, i, num, oldSide, newSide)
	}
	k := cellKey{i, oldSide, newSide}
	if s, ok := hl.cells[k]; ok {
		return s
	}
	if len(hl.cells) > 20_000 {
		clear(hl.cells)
	}
	s := drawDiffCell(th, d, hl, i, num, oldSide, newSide)
	hl.cells[k] = s
	return s
}

func drawDiffCell(th Theme, d *Diff, hl *DiffHighlight, i, num int, oldSide, newSide bool) string {
	l := d.Lines[i]
	if l.Kind == DiffHunk {
		return th.Info.Render(l.Text)
	}
	n := func(v int) string {
		if v == 0 {
			return strings.Repeat(" ", num)
		}
		s := strconv.Itoa(v)
		return strings.Repeat(" ", max(0, num-len(s))) + s
	}
	var gutter string
	if oldSide {
		gutter += n(l.Old) + " "
	}
	if newSide {
		gutter += n(l.New) + " "
	}
	mark, st := " ", th.Text
	switch l.Kind {
	case DiffAdd:
		mark, st = "+", th.Success
	case DiffDel:
		mark, st = "-", th.Error
	}
	text := hl.line(l.Text)
	if hl == nil || hl.off || hl.lexer == nil {
		if l.Kind != DiffContext {
			text = st.Render(l.Text)
		}
	}
	return th.Muted.Render(gutter) + st.Render(mark) + " " + text
}

// diffStat is "+3 −1" in the theme's colours.
func diffStat(th Theme, added, removed int) string {
	return th.Success.Render("+"+strconv.Itoa(added)) + " " + th.Error.Render("−"+strconv.Itoa(removed))
}
