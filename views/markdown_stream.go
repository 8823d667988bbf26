package views

import (
	"strings"
	"unicode/utf8"
	"unsafe"
)

// Streaming code blocks are rendered in segments of a few dozen lines:
// finished segments are highlighted once and kept, and a frame renders only
// the open one, so its cost does not grow with the block. A segment is cut
// before a line at the left margin (a new declaration in most languages,
// where the highlighter's state carries nothing over) once it has
// segMinLines lines, or before any non-blank line once it is long.
const (
	segMinLines = 8
	segMaxLines = 32
	segMaxBytes = 2048
)

// markdownStream renders a markdown part that is still growing, in time
// proportional to what arrived since the last frame, not to the answer:
//
//   - the source is sanitized one line at a time as lines complete (a line
//     start outside any escape sequence is a point where sanitizing the
//     rest alone gives the same result), and only the partial last line
//     is sanitized again each frame;
//   - the chunk-boundary scan (see splitMarkdown) carries its state from
//     frame to frame;
//   - finished chunks are rendered and indented once;
//   - the open chunk is rendered each frame, except when it holds a fenced
//     code block at the left margin: then the text before the fence is
//     rendered once, the block's finished segments once each, and a frame
//     renders only the open segment (and the text after the closing fence).
//
// Every rendered piece comes out of renderChunk, the one place glamour's
// output is reduced to what may reach the terminal.
//
// The stream keeps the state it had after each finished chunk and segment,
// so a source that goes back (write-ahead reconciliation replaying over a
// new confirmed state) resumes from the last state it still extends rather
// than from scratch.
type markdownStream struct {
	width   int
	noColor bool
	isDark  bool
	indent  string

	raw   string // the source of the last frame; st covers raw[:st.rawN]
	st    streamState
	ckpts []streamState
}

// streamState is what the stream has consumed. Its slices only ever grow
// (and are clipped when restored), so a copy kept as a checkpoint keeps
// reading what it read.
type streamState struct {
	rawN  int      // source bytes consumed: whole lines, up to a line start
	clean []byte   // Sanitize(raw[:rawN])
	scan  mdScan   // the boundary scan at clean's end
	chunk int      // clean offset where the open chunk starts
	lines []string // finished chunks: rendered, indented, one blank line apart
	code  codeBlock
}

// codeBlock is the open chunk's fenced code block, rendered in segments.
type codeBlock struct {
	active   bool     // the open chunk has a fence at the left margin
	header   string   // the opening fence line, newline included
	closer   string   // a closing fence line for rendering a segment alone
	pre      []string // the chunk's text before the fence and the gap after it, rendered, indented
	stand    int      // lines of the one-line stand-in block (see openCode)
	segs     []string // code lines of the finished segments, rendered, indented
	nsegs    int
	segStart int // clean offset where the open segment starts
	segLines int // complete lines in the open segment
	segBytes int
	end      int // clean offset just past the closing fence line; 0 while open
}

// render returns the lines of src at width, each non-blank one prefixed
// with indent, as pieces to be concatenated in order. The pieces are shared
// with the stream: read them, never write into them. src is expected to
// extend the source of the previous call; anything else resumes from the
// last state src still extends, and a new width, theme or indent starts
// over.
func (m *markdownStream) render(th Theme, src string, width int, indent string) [][]string {
	width = max(width, 1)
	if m.width != width || m.noColor != th.NoColor || m.isDark != th.IsDark || m.indent != indent {
		*m = markdownStream{width: width, noColor: th.NoColor, isDark: th.IsDark, indent: indent}
	}
	if !m.extendedBy(src) {
		m.rewind(src)
	}
	m.raw = src
	for {
		n := topLevelLine(src[m.st.rawN:])
		if n < 0 {
			break
		}
		m.feedLine(th, SanitizeMarkdown(src[m.st.rawN:m.st.rawN+n]), n)
	}
	partial := SanitizeMarkdown(src[m.st.rawN:])
	if off := len(m.st.clean); off > m.st.chunk && m.st.scan.boundaryBefore(partial) {
		// The first character of the next block has arrived.
		m.finishChunk(th, off)
		m.checkpoint()
	}
	return m.frame(th, partial)
}

// extendedBy reports whether src starts with everything consumed so far.
// Text hands out views of one append-only buffer, so the same start
// pointer settles it without comparing bytes.
func (m *markdownStream) extendedBy(src string) bool {
	n := m.st.rawN
	if len(src) < n {
		return false
	}
	return unsafe.StringData(src) == unsafe.StringData(m.raw) || src[:n] == m.raw[:n]
}

// rewind goes back to the last checkpoint src extends, or to the start.
func (m *markdownStream) rewind(src string) {
	common := commonPrefix(src, m.raw)
	for i := len(m.ckpts) - 1; i >= 0; i-- {
		if m.ckpts[i].rawN <= common {
			m.st = m.ckpts[i].clipped()
			m.ckpts = m.ckpts[:i+1]
			return
		}
	}
	m.st, m.ckpts = streamState{}, nil
}

// clipped is s with every slice's capacity cut to its length, so appending
// after a restore copies instead of writing over what later states (and
// lines handed out with them) read.
func (s streamState) clipped() streamState {
	s.clean = s.clean[:len(s.clean):len(s.clean)]
	s.lines = s.lines[:len(s.lines):len(s.lines)]
	s.code.pre = s.code.pre[:len(s.code.pre):len(s.code.pre)]
	s.code.segs = s.code.segs[:len(s.code.segs):len(s.code.segs)]
	return s
}

// commonPrefix is the length of the longest common prefix of a and b.
func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	// Whole blocks first: string comparison is a memcmp.
	for block := 4096; i+block <= n && a[i:i+block] == b[i:i+block]; {
		i += block
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

func (m *markdownStream) checkpoint() { m.ckpts = append(m.ckpts, m.st) }

// feedLine consumes one complete line (sanitized, newline included) that
// took rawLen source bytes.
func (m *markdownStream) feedLine(th Theme, line string, rawLen int) {
	st := &m.st
	cb := &st.code
	off := len(st.clean)
	body := line[:len(line)-1]
	cut := false
	if off > st.chunk && st.scan.boundaryBefore(body) {
		m.finishChunk(th, off)
		cut = true
	}
	wasFence := st.scan.inFence
	st.scan.feed(body, true)
	st.clean = append(st.clean, line...)
	st.rawN += rawLen
	switch {
	case !wasFence && st.scan.inFence:
		if body[0] != ' ' {
			m.openCode(th, off, line)
		} else {
			// An indented fence may belong to a list item: render the
			// chunk whole, as a finished one would be.
			*cb = codeBlock{}
		}
	case !cb.active || cb.end != 0:
	case !st.scan.inFence:
		m.cutSegment(th, off)
		cb.end = len(st.clean)
		cut = true
	default:
		if cb.segLines >= segMinLines && strings.TrimSpace(body) != "" &&
			(body[0] != ' ' || cb.segLines >= segMaxLines || cb.segBytes >= segMaxBytes) {
			m.cutSegment(th, off)
			cut = true
		}
		cb.segLines++
		cb.segBytes += len(line)
	}
	if cut {
		m.checkpoint()
	}
}

// openCode starts segmenting the fenced code block whose opening line
// starts at clean offset off; what the chunk holds before it is rendered
// now, once.
func (m *markdownStream) openCode(th Theme, off int, header string) {
	st := &m.st
	run := fenceRun(header)
	cb := codeBlock{
		active:   true,
		header:   header,
		closer:   header[:run] + "\n",
		segStart: len(st.clean),
	}
	// The gap glamour leaves between the text and the block (one blank
	// line, or more after an empty heading) comes from rendering them
	// together, with a one-line block standing in for the code.
	cb.stand = len(renderChunk(th, cb.header+standIn+cb.closer, m.width))
	if pre := string(st.clean[st.chunk:off]); strings.TrimSpace(pre) != "" {
		all := renderChunk(th, pre+cb.header+standIn+cb.closer, m.width)
		cb.pre = m.indented(all[:max(0, len(all)-cb.stand)])
	}
	st.code = cb
}

// standIn is the code line of the one-line block rendered in place of a
// segmented block, to learn what glamour draws around it.
const standIn = "x\n"

// cutSegment renders the open segment, which ends at clean offset end, and
// keeps its lines. The lines a segment starts or ends with that are blank
// are trimmed by renderChunk; they are put back as the blank lines a whole
// block shows, except at the very start of the chunk.
func (m *markdownStream) cutSegment(th Theme, end int) {
	cb := &m.st.code
	seg := string(m.st.clean[cb.segStart:end])
	lead, trail := blankEdges(seg)
	if cb.nsegs == 0 && len(cb.pre) == 0 {
		lead = 0
	}
	for range lead {
		cb.segs = append(cb.segs, "")
	}
	if lead < strings.Count(seg, "\n") {
		cb.segs = append(cb.segs, m.indented(renderChunk(th, cb.header+seg+cb.closer, m.width))...)
		for range trail {
			cb.segs = append(cb.segs, "")
		}
	}
	cb.nsegs++
	cb.segStart, cb.segLines, cb.segBytes = end, 0, 0
}

// blankEdges counts the blank lines src starts and ends with; a src of
// blank lines only counts them once, as leading.
func blankEdges(src string) (lead, trail int) {
	if src == "" {
		return 0, 0
	}
	lines := strings.Split(strings.TrimSuffix(src, "\n"), "\n")
	for lead < len(lines) && strings.TrimSpace(lines[lead]) == "" {
		lead++
	}
	for trail < len(lines)-lead && strings.TrimSpace(lines[len(lines)-1-trail]) == "" {
		trail++
	}
	return lead, trail
}

// finishChunk renders the open chunk, which ends at clean offset end, into
// the finished lines and opens the next chunk there.
func (m *markdownStream) finishChunk(th Theme, end int) {
	st := &m.st
	var ls []string
	if st.code.active {
		for _, p := range m.codeChunk(th, string(st.clean[st.code.end:end])) {
			ls = append(ls, p...)
		}
	} else {
		ls = m.indented(renderChunk(th, string(st.clean[st.chunk:end]), m.width))
	}
	st.lines = appendChunk(st.lines, ls)
	st.chunk = end
	st.code = codeBlock{}
}

// codeChunk is the open chunk with a segmented code block, as pieces of
// one chunk: the text before the fence with the gap after it, the code,
// and after it the text past the closing fence (with the gap before it,
// while the block is closed) or the open segment with tail appended
// (while it is open).
func (m *markdownStream) codeChunk(th Theme, tail string) [][]string {
	cb := &m.st.code
	pieces := [][]string{cb.pre, cb.segs}
	if cb.end != 0 {
		if strings.TrimSpace(tail) != "" {
			all := renderChunk(th, cb.header+standIn+cb.closer+tail, m.width)
			pieces = append(pieces, m.indented(all[min(cb.stand, len(all)):]))
		}
	} else if seg := string(m.st.clean[cb.segStart:]) + tail; strings.TrimSpace(seg) != "" {
		if tail != "" {
			seg += "\n"
		}
		var open []string
		if lead, _ := blankEdges(seg); lead > 0 && (cb.nsegs > 0 || len(cb.pre) > 0) {
			open = make([]string, lead)
		}
		pieces = append(pieces, append(open, m.indented(renderChunk(th, cb.header+seg+cb.closer, m.width))...))
	}
	// Blank lines at the chunk's end go, as renderChunk drops them from a
	// whole chunk.
	for len(pieces) > 0 {
		last := pieces[len(pieces)-1]
		for len(last) > 0 && last[len(last)-1] == "" {
			last = last[:len(last)-1]
		}
		if len(last) > 0 {
			pieces[len(pieces)-1] = last
			break
		}
		pieces = pieces[:len(pieces)-1]
	}
	return pieces
}

// appendPieces appends a group of pieces that together form one chunk,
// one blank line after what is already there when both have lines.
func appendPieces(out, group [][]string) [][]string {
	n := 0
	for _, p := range group {
		n += len(p)
	}
	if n == 0 {
		return out
	}
	for _, p := range out {
		if len(p) > 0 {
			out = append(out, blankLine)
			break
		}
	}
	return append(out, group...)
}

// frame is the lines of the whole source: the finished chunks, then the
// open chunk with partial (the sanitized partial last line) at its end.
func (m *markdownStream) frame(th Theme, partial string) [][]string {
	st := &m.st
	out := [][]string{st.lines}
	if len(st.lines) == 0 {
		out = nil
	}
	if st.code.active {
		tail := partial
		if st.code.end != 0 {
			tail = string(st.clean[st.code.end:]) + partial
		}
		return appendPieces(out, m.codeChunk(th, tail))
	}
	open := string(st.clean[st.chunk:]) + partial
	return appendPieces(out, [][]string{m.indented(renderChunk(th, open, m.width))})
}

// indented prefixes the non-blank lines of ls (owned by the caller) with
// the stream's indent; blank lines stay empty so the viewport pads nothing.
func (m *markdownStream) indented(ls []string) []string {
	if m.indent == "" {
		return ls
	}
	for i, l := range ls {
		if l != "" {
			ls[i] = m.indent + l
		}
	}
	return ls
}

// topLevelLine returns the length of s's first line, newline included,
// when that newline is outside any escape sequence — exactly where
// Sanitize would keep it — or -1 when no such newline has arrived yet.
// It follows Sanitize's own escape parsing, so sanitizing the source line
// by line gives what sanitizing it whole does.
func topLevelLine(s string) int {
	// Fast path: no ESC and no 0xC2, the lead byte of every UTF-8 C1
	// control (and of a few printable characters, which take the slow
	// path harmlessly).
	if nl := strings.IndexByte(s, '\n'); nl >= 0 && strings.IndexByte(s[:nl], 0x1b) < 0 && strings.IndexByte(s[:nl], 0xc2) < 0 {
		return nl + 1
	}
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == '\n':
			return i + 1
		case c == 0x1b:
			i = skipEscape(s, i+1)
		case c < 0x80:
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r >= 0x80 && r <= 0x9f {
				i = skipC1(s, r, i+size)
			} else {
				i += size
			}
		}
	}
	return -1
}

// flattenPieces joins render's pieces into one slice (tests and callers
// that need one).
func flattenPieces(pieces [][]string) []string {
	var out []string
	for _, p := range pieces {
		out = append(out, p...)
	}
	return out
}
