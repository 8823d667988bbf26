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

// scanBoundaries calls yield with the offset of every chunk boundary in src
// until yield returns false.
func scanBoundaries(src string, yield func(int) bool) {
	var sc mdScan
	for off := 0; off < len(src); {
		end := strings.IndexByte(src[off:], '\n')
		complete := end >= 0
		if !complete {
			end = len(src) - off
		}
		line := src[off : off+end]
		if sc.boundaryBefore(line) && !yield(off) {
			return
		}
		sc.feed(line, complete)
		if !complete {
			break
		}
		off += end + 1
	}
}

// mdScan is the state of the chunk-boundary scan at a line start, so a
// stream can carry it from one frame to the next instead of rescanning.
type mdScan struct {
	inFence  bool
	fence    string // the open fence's run of backticks or tildes
	blank    bool   // the previous line was blank (and complete)
	seenText bool
}

// fenceRun is the length of the run of backticks or tildes s starts with.
func fenceRun(s string) int {
	if s == "" || (s[0] != '`' && s[0] != '~') {
		return 0
	}
	return len(s) - len(strings.TrimLeft(s, s[:1]))
}

// boundaryBefore reports whether line starts a new chunk: a blank line
// outside fenced code, then text at the left margin. A boundary needs the
// first character of the next block to have arrived: until then a
// streaming text might still be growing an indented continuation.
func (sc mdScan) boundaryBefore(line string) bool {
	return !sc.inFence && sc.blank && sc.seenText && len(line) > 0 && line[0] != ' ' && strings.TrimSpace(line) != ""
}

// feed moves the scan past line (without its newline; complete when the
// newline has arrived).
func (sc *mdScan) feed(line string, complete bool) {
	trimmed := strings.TrimLeft(line, " ")
	isBlank := strings.TrimSpace(line) == ""
	if run := fenceRun(trimmed); run >= 3 && len(line)-len(trimmed) < 4 {
		// CommonMark's fences: a backtick fence's info string has no
		// backtick ("```go``` here" is inline code), and only a run of
		// the same character at least as long closes it.
		switch {
		case !sc.inFence && (trimmed[0] == '~' || !strings.Contains(trimmed[run:], "`")):
			sc.inFence, sc.fence = true, trimmed[:run]
		case sc.inFence && trimmed[0] == sc.fence[0] && run >= len(sc.fence) && strings.TrimSpace(trimmed[run:]) == "":
			sc.inFence = false
		}
	}
	if !isBlank {
		sc.seenText = true
	}
	sc.blank = isBlank && complete
}

// renderChunk renders one chunk to lines: no leading or trailing blank
// lines, only SGR escapes (none without colour), no line wider than width.
func renderChunk(th Theme, chunk string, width int) []string {
	if strings.TrimSpace(chunk) == "" {
		return nil
	}
	if renderChunkHook != nil {
		renderChunkHook(chunk)
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
	lines := renderedLines(out, th.NoColor)
	for len(lines) > 0 && ansi.Strip(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && ansi.Strip(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return fitLines(lines, width)
}

// renderedLines is the one step every piece of glamour output passes
// through before it may reach the terminal — whole answers, streamed
// chunks and code segments alike (markdownStream renders only through
// renderChunk) — so a stricter post-render filter belongs here.
func renderedLines(out string, noColor bool) []string {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		lines[i] = cleanLine(SanitizeRendered(l, noColor)) // sanitize_markdown.go: the way out
	}
	return lines
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

// renderChunkHook, when set (by tests only), sees every chunk handed to
// glamour: how tests check that a frame's work does not grow with the text.
var renderChunkHook func(chunk string)

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
