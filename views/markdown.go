package views

import (
	"strings"
	"sync"

	"charm.land/glamour/v2"
	gansi "charm.land/glamour/v2/ansi"
	"charm.land/glamour/v2/styles"
	"github.com/charmbracelet/x/ansi"
)

// RenderMarkdown renders host markdown for the terminal, word-wrapped to
// width, as lines none wider than width. The source is sanitized first
// (SanitizeMarkdown: escape sequences become inert text, and character
// references that would decode to controls are shown as typed), and
// glamour's output is sanitized again (SanitizeRendered): only the theme's
// SGR styling survives, not the OSC 8 hyperlinks glamour would emit with a
// target the host chose. Without colour the output carries attribute SGRs
// only (bold, italic), like the theme.
//
// Rendering is split at paragraph boundaries (see splitMarkdown) so that a
// streaming answer can reuse everything above its last paragraph; finished
// and streaming text go through the same split so a turn does not change
// shape when it completes.
func RenderMarkdown(th Theme, src string, width int) []string {
	if width < 1 {
		width = 1
	}
	src = SanitizeMarkdown(src) // sanitize_markdown.go: the way in
	var out []string
	for _, chunk := range splitMarkdown(src) {
		out = appendChunk(out, renderChunk(th, chunk, width))
	}
	return out
}

// appendChunk joins rendered chunks with exactly one blank line, the gap
// glamour puts between blocks of one document.
func appendChunk(out, chunk []string) []string {
	if len(chunk) == 0 {
		return out
	}
	if len(out) > 0 {
		out = append(out, "")
	}
	return append(out, chunk...)
}

// markdownStream renders a markdown part that is still growing. It keeps
// the rendered lines of the stable prefix (the text up to the last paragraph
// boundary) and re-renders only the tail, so a frame costs one glamour run
// over the last paragraph however long the answer has become.
type markdownStream struct {
	width   int
	noColor bool
	isDark  bool
	stable  string   // source of the cached prefix; ends at a chunk boundary
	lines   []string // rendered stable prefix
}

// render returns the lines for src, which is expected to extend the source
// of the previous call; anything else (an edit, a new width or theme)
// starts over.
func (m *markdownStream) render(th Theme, src string, width int) []string {
	if width < 1 {
		width = 1
	}
	src = SanitizeMarkdown(src) // sanitize_markdown.go: the way in
	if m.width != width || m.noColor != th.NoColor || m.isDark != th.IsDark || !strings.HasPrefix(src, m.stable) {
		*m = markdownStream{width: width, noColor: th.NoColor, isDark: th.IsDark}
	}
	rest := src[len(m.stable):]
	if cut := lastBoundary(rest); cut > 0 {
		for _, chunk := range splitMarkdown(rest[:cut]) {
			m.lines = appendChunk(m.lines, renderChunk(th, chunk, width))
		}
		m.stable = src[:len(m.stable)+cut]
		rest = rest[cut:]
	}
	out := m.lines
	if tail := renderChunk(th, rest, width); len(tail) > 0 {
		out = appendChunk(append([]string(nil), m.lines...), tail)
	}
	return out
}

// splitMarkdown cuts src into chunks that render the same alone as they do
// together: it cuts at a blank line outside fenced code when the next line
// starts a new block at the left margin (an indented line could continue a
// list item or be indented code). Each chunk keeps its trailing newlines.
func splitMarkdown(src string) []string {
	var chunks []string
	for len(src) > 0 {
		cut := firstBoundary(src)
		if cut <= 0 {
			chunks = append(chunks, src)
			break
		}
		chunks = append(chunks, src[:cut])
		src = src[cut:]
	}
	return chunks
}

// firstBoundary returns the offset of the first chunk boundary in src (the
// start of the line that begins the next chunk), or -1.
func firstBoundary(src string) int {
	b := -1
	scanBoundaries(src, func(off int) bool { b = off; return false })
	return b
}

// lastBoundary returns the offset of the last chunk boundary in src, or -1.
func lastBoundary(src string) int {
	b := -1
	scanBoundaries(src, func(off int) bool { b = off; return true })
	return b
}

// scanBoundaries calls yield with the offset of every chunk boundary in src
// until yield returns false. A boundary needs the first character of the
// next block to have arrived: until then a streaming text might still be
// growing an indented continuation.
func scanBoundaries(src string, yield func(int) bool) {
	inFence := false
	var fence string
	blank := false // previous line was blank
	seenText := false
	for off := 0; off < len(src); {
		end := strings.IndexByte(src[off:], '\n')
		complete := end >= 0
		if !complete {
			end = len(src) - off
		}
		line := src[off : off+end]
		trimmed := strings.TrimLeft(line, " ")
		isBlank := strings.TrimSpace(line) == ""
		if !inFence && blank && seenText && !isBlank && len(line) > 0 && line[0] != ' ' {
			if !yield(off) {
				return
			}
		}
		indent := len(line) - len(trimmed)
		if indent < 4 && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")) {
			marker := trimmed[:3]
			switch {
			case !inFence:
				inFence, fence = true, marker
			case marker == fence && strings.TrimSpace(strings.TrimLeft(trimmed, marker[:1])) == "":
				inFence = false
			}
		}
		if !isBlank {
			seenText = true
		}
		blank = isBlank && complete
		if !complete {
			break
		}
		off += end + 1
	}
}

// renderChunk renders one chunk to lines: no leading or trailing blank
// lines, only SGR escapes (none without colour), no line wider than width.
func renderChunk(th Theme, chunk string, width int) []string {
	if strings.TrimSpace(chunk) == "" {
		return nil
	}
	r := glamourFor(th, width)
	r.mu.Lock()
	out, err := r.tr.Render(chunk)
	r.mu.Unlock()
	if err != nil {
		// Glamour fails only on renderer bugs; the text still matters more
		// than its formatting.
		out = chunk
	}
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		lines[i] = cleanLine(SanitizeRendered(l, th.NoColor)) // sanitize_markdown.go: the way out
	}
	for len(lines) > 0 && ansi.Strip(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && ansi.Strip(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return fitLines(lines, width)
}

// cleanLine reduces one line of glamour output to what it shows: escape
// sequences other than SGR are dropped (glamour emits OSC 8 hyperlinks
// whose target the host chose), style runs that wrap no text are dropped
// (glamour pads every line to the wrap width with styled blanks), and so
// are trailing blanks, so the line measures what it shows.
func cleanLine(l string) string {
	if !strings.ContainsAny(l, "\x1b\u009b\u009d") {
		return strings.TrimRight(l, " ")
	}
	type token struct {
		s     string
		sgr   bool
		blank bool
	}
	var toks []token
	var state byte
	for rest := l; len(rest) > 0; {
		seq, _, n, newState := ansi.DecodeSequence(rest, state, nil)
		state = newState
		if n <= 0 {
			break
		}
		rest = rest[n:]
		switch {
		case isSGR(seq):
			toks = append(toks, token{s: seq, sgr: true})
		case seq[0] >= 0x20 && seq[0] != 0x7f && !strings.HasPrefix(seq, "\u009b") && !strings.HasPrefix(seq, "\u009d"):
			toks = append(toks, token{s: seq, blank: strings.TrimSpace(seq) == ""})
		}
	}
	last := -1
	for i, t := range toks {
		if !t.sgr && !t.blank {
			last = i
		}
	}
	var b strings.Builder
	b.Grow(len(l))
	var pending []string
	open := false
	for i, t := range toks {
		if t.sgr {
			pending = append(pending, t.s)
			continue
		}
		if i > last {
			continue
		}
		for j := len(pending) - 1; j >= 0; j-- {
			if pending[j] == "\x1b[m" || pending[j] == "\x1b[0m" {
				if open {
					b.WriteString("\x1b[m")
					open = false
				}
				pending = pending[j+1:]
				break
			}
		}
		for _, p := range pending {
			b.WriteString(p)
			open = true
		}
		pending = pending[:0]
		b.WriteString(t.s)
	}
	if open {
		b.WriteString("\x1b[m")
	}
	return b.String()
}

func isSGR(seq string) bool {
	if len(seq) < 3 || seq[0] != '\x1b' || seq[1] != '[' || seq[len(seq)-1] != 'm' {
		return false
	}
	for _, c := range seq[2 : len(seq)-1] {
		if (c < '0' || c > '9') && c != ';' && c != ':' {
			return false
		}
	}
	return true
}

// fitLines guarantees the width contract whatever glamour did (a long URL
// or a table can overflow its wrap width): overlong lines are hard-wrapped,
// keeping every character visible.
func fitLines(lines []string, width int) []string {
	var out []string
	for i, l := range lines {
		if ansi.StringWidth(l) <= width {
			if out != nil {
				out = append(out, l)
			}
			continue
		}
		if out == nil {
			out = append(make([]string, 0, len(lines)+4), lines[:i]...)
		}
		out = append(out, strings.Split(ansi.Hardwrap(l, width, true), "\n")...)
	}
	if out == nil {
		return lines
	}
	return out
}

type glamourEntry struct {
	mu sync.Mutex // a TermRenderer keeps per-render state
	tr *glamour.TermRenderer
}

type glamourKey struct {
	width          int
	noColor, light bool
}

// Building a TermRenderer parses its style and sets up goldmark: far too
// slow per frame, so renderers are kept per style and width.
var glamourCache sync.Map // glamourKey → *glamourEntry

func glamourFor(th Theme, width int) *glamourEntry {
	k := glamourKey{width: width, noColor: th.NoColor, light: !th.IsDark}
	if e, ok := glamourCache.Load(k); ok {
		return e.(*glamourEntry)
	}
	var cfg gansi.StyleConfig
	switch {
	case th.NoColor:
		// No colour, but emphasis as attributes rather than the ASCII
		// style's literal asterisks, as the theme does without colour.
		cfg = styles.NoTTYStyleConfig
		on := true
		cfg.Strong = gansi.StylePrimitive{Bold: &on}
		cfg.Emph = gansi.StylePrimitive{Italic: &on}
	case th.IsDark:
		cfg = styles.DarkStyleConfig
	default:
		cfg = styles.LightStyleConfig
	}
	// Inline code keeps its colour but not the styles' padding spaces,
	// which read as stray blanks in running text ("update  CHANGELOG.md ;").
	cfg.Code.Prefix, cfg.Code.Suffix = "", ""
	// The transcript places and spaces blocks itself.
	zero := uint(0)
	cfg.Document.Margin = &zero
	cfg.Document.BlockPrefix = ""
	cfg.Document.BlockSuffix = ""
	tr, err := glamour.NewTermRenderer(glamour.WithStyles(cfg), glamour.WithWordWrap(width))
	if err != nil {
		panic("views: glamour renderer: " + err.Error()) // only a bad built-in style gets here
	}
	e, _ := glamourCache.LoadOrStore(k, &glamourEntry{tr: tr})
	return e.(*glamourEntry)
}
