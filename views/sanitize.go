package views

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// TabWidth is the tab stop distance Sanitize expands tabs to. It matches
// lipgloss's default so a string measures the same before and after styling,
// and markdown's four-space indented code blocks survive the expansion.
const TabWidth = 4

// Sanitize makes a host-provided string safe to print: whatever the host
// sends, the result cannot move the cursor, change modes, set the clipboard,
// emit hyperlinks or reorder text. It keeps printable text, '\n' and expands
// '\t' to spaces (so widths stay measurable), and removes:
//
//   - C0 controls other than '\n' and '\t' (including '\r', so "\r"
//     overwrite tricks cannot hide text), and DEL;
//   - C1 controls U+0080–U+009F;
//   - whole escape sequences, not just their ESC byte: CSI (7-bit and
//     U+009B, private parameters included), OSC (terminated by BEL, ST or
//     U+009C — covers OSC 8 hyperlinks and OSC 52 clipboard writes), DCS,
//     SOS, PM and APC strings, and two/three-byte ESC sequences;
//   - bidi controls: embeddings, overrides and isolates U+202A–U+202E and
//     U+2066–U+2069 (the "Trojan Source" reordering trick) and the marks
//     U+200E, U+200F and U+061C, which reorder neutral text just as well;
//   - the line and paragraph separators U+2028 and U+2029, which some
//     terminals and fonts treat as line breaks;
//   - tag characters U+E0000–U+E007F, invisible text that can carry a
//     message no one sees.
//
// Invalid UTF-8 becomes U+FFFD, one per bad byte. A string sequence that is
// never terminated swallows the rest of the input, as a terminal would.
// Zero-width characters (ZWJ, variation selectors) stay: emoji need them.
//
// Sanitize returns s itself, without allocating, when nothing needs changing,
// which is the common case for chat text. Sanitize(Sanitize(s)) ==
// Sanitize(s) for every s.
func Sanitize(s string) string {
	return sanitize(s, false)
}

// SanitizeLine is Sanitize for single-line fields (titles, server names,
// hosts, status messages): line breaks and tabs become single spaces so the
// value can never grow a layout by a row.
func SanitizeLine(s string) string {
	return sanitize(s, true)
}

// sanitizer holds the output being built. out stays nil until the first
// change, so clean input costs one pass and no allocation.
type sanitizer struct {
	src string
	out *strings.Builder
	// Tab stops need the display column, which is only worked out when a
	// tab arrives: colBase is the column at out[colFrom:], measured lazily.
	colBase int
	colFrom int
}

// flush copies the clean run src[start:i] to the output, starting the
// output on the first call.
func (z *sanitizer) flush(start, i int) {
	if z.out == nil {
		z.out = &strings.Builder{}
		z.out.Grow(len(z.src))
	}
	z.out.WriteString(z.src[start:i])
}

// column returns the display column at the end of the output so far.
func (z *sanitizer) column() int {
	seg := z.out.String()[z.colFrom:]
	if k := strings.LastIndexByte(seg, '\n'); k >= 0 {
		z.colBase, z.colFrom = 0, z.colFrom+k+1
		seg = seg[k+1:]
	}
	return z.colBase + ansi.StringWidth(seg)
}

func sanitize(s string, oneLine bool) string {
	z := sanitizer{src: s}
	start := 0 // s[start:i] is clean and not yet copied
	i := 0
	for i < len(s) {
		c := s[i]
		// Printable ASCII and newlines: the hot path, no copying.
		if (c >= 0x20 && c < 0x7f) || (c == '\n' && !oneLine) {
			i++
			continue
		}
		size := 1
		var r rune
		if c >= 0x80 {
			r, size = utf8.DecodeRuneInString(s[i:])
			if !(r == utf8.RuneError && size == 1) && (r > 0x9f) && !isInvisibleControl(r) {
				i += size
				continue
			}
		}
		z.flush(start, i)
		switch {
		case c == '\n': // oneLine only
			z.out.WriteByte(' ')
			i++
		case c == '\t':
			if oneLine {
				z.out.WriteByte(' ')
			} else {
				col := z.column()
				n := TabWidth - col%TabWidth
				z.out.WriteString("    "[:n])
				z.colBase, z.colFrom = col+n, z.out.Len()
			}
			i++
		case c == 0x1b:
			i = skipEscape(s, i+1)
		case c < 0x80:
			// Remaining C0 controls and DEL.
			i++
		case r == utf8.RuneError && size == 1:
			z.out.WriteRune(utf8.RuneError)
			i++
		case r >= 0x80 && r <= 0x9f:
			i = skipC1(s, r, i+size)
		default: // bidi or invisible control
			i += size
		}
		start = i
	}
	if z.out == nil {
		return s
	}
	z.out.WriteString(s[start:])
	return z.out.String()
}

// isInvisibleControl reports the non-C0/C1 characters Sanitize removes:
// bidi controls, line/paragraph separators and tag characters.
func isInvisibleControl(r rune) bool {
	switch {
	case r < 0x061c:
		return false
	case r == 0x061c, r == 0x200e, r == 0x200f:
		return true
	case r >= 0x2028 && r <= 0x202e: // separators, embeddings, overrides
		return true
	case r >= 0x2066 && r <= 0x2069:
		return true
	}
	return r >= 0xe0000 && r <= 0xe007f
}

// skipEscape returns the index just past the escape sequence whose ESC byte
// precedes s[i]. Bytes that cannot continue a sequence are left for the main
// loop, which strips them if they are controls and prints them otherwise:
// leaking harmless text of a malformed sequence beats hiding real content.
func skipEscape(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '[':
		return skipCSI(s, i+1)
	case ']', 'P', 'X', '^', '_':
		return skipString(s, i+1)
	}
	// nF/Fp/Fe/Fs sequences: intermediates 0x20–0x2F, then one final byte.
	j := i
	for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
		j++
	}
	if j < len(s) && s[j] >= 0x30 && s[j] <= 0x7e {
		return j + 1
	}
	return j
}

// skipCSI skips parameter (0x30–0x3F, which includes the private markers
// < = > ?) and intermediate (0x20–0x2F) bytes, then the final byte.
func skipCSI(s string, i int) int {
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x3f {
		i++
	}
	if i < len(s) && s[i] >= 0x40 && s[i] <= 0x7e {
		return i + 1
	}
	return i
}

// skipString skips the body of an OSC/DCS/SOS/PM/APC string up to and
// including its terminator: BEL, ESC '\' (ST) or U+009C. CAN and SUB abort
// the string (ECMA-48), and any other ESC ends it and starts a new sequence,
// which is how xterm treats it.
func skipString(s string, i int) int {
	for i < len(s) {
		switch c := s[i]; {
		case c == 0x07:
			return i + 1
		case c == 0x18 || c == 0x1a:
			return i + 1
		case c == 0x1b:
			if i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
			return skipEscape(s, i+1)
		case c == 0xc2 && i+1 < len(s) && s[i+1] == 0x9c:
			return i + 2
		}
		i++
	}
	return i
}

// skipC1 handles a C1 control that arrived as a UTF-8 code point: the
// introducers start the same sequences as their 7-bit ESC forms, everything
// else is dropped alone.
func skipC1(s string, r rune, i int) int {
	switch r {
	case 0x9b: // CSI
		return skipCSI(s, i)
	case 0x9d, 0x90, 0x98, 0x9e, 0x9f: // OSC, DCS, SOS, PM, APC
		return skipString(s, i)
	}
	return i
}

// Truncate cuts s to at most width terminal cells, ending with "…" when it
// had to cut. Wide runes (CJK, emoji) count as two cells and are never split;
// styling escape sequences in s are kept intact and cost no width, so it is
// safe on already-styled text. Truncate does not sanitize: pass host strings
// through Sanitize or SanitizeLine first.
func Truncate(s string, width int) string {
	if width <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= width {
		return s
	}
	return ansi.Truncate(s, width, "…")
}
