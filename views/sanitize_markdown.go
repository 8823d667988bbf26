package views

import (
	"html"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Markdown is the one place host text changes after Sanitize has run:
// goldmark decodes character references, so "&#x1b;[8m" or "&#x202e;" in a
// sanitized source become a real ESC or a bidi override on screen. Two
// steps close that, both built on Sanitize's rules:
//
//   - SanitizeMarkdown, on the way in, escapes every reference that would
//     decode to something Sanitize removes, so it is shown as the literal
//     text the host sent;
//   - SanitizeRendered, on the way out, passes every text run of the
//     rendered line through the same rules and keeps only the SGR
//     sequences the theme emits (colours and the attributes bold, faint,
//     italic, underline, strikethrough; attributes only without colour),
//     so nothing the renderer decodes or adds can hide text (conceal,
//     reverse, blink) or act on the terminal.

// SanitizeMarkdown is Sanitize for markdown source: it also escapes each
// character reference (numeric, or named as in HTML) that decodes to a
// character Sanitize removes, or to a tab or line break that would reshape
// the line, so the renderer shows "&#x1b;" as those six characters.
func SanitizeMarkdown(src string) string {
	src = Sanitize(src)
	if !strings.Contains(src, "&") {
		return src
	}
	var b strings.Builder
	start := 0
	for i := strings.IndexByte(src, '&'); i >= 0; {
		if n := charRefLen(src[i:]); n > 0 && unsafeCharRef(src[i:i+n]) {
			if b.Len() == 0 {
				b.Grow(len(src) + 16)
			}
			b.WriteString(src[start:i])
			b.WriteString("&amp;")
			start = i + 1
		}
		j := strings.IndexByte(src[i+1:], '&')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	if start == 0 {
		return src
	}
	b.WriteString(src[start:])
	return b.String()
}

// charRefLen returns the length of the character reference s starts with
// (CommonMark's forms: &#digits; up to 7 digits, &#xhex; up to 6 hex
// digits, &name; of ASCII letters and digits), or 0.
func charRefLen(s string) int {
	if len(s) < 3 || s[0] != '&' {
		return 0
	}
	i, maxLen, isDigit := 1, 32, isASCIIAlnum
	if s[1] == '#' {
		i, maxLen, isDigit = 2, 7, isASCIIDigit
		if len(s) > 2 && (s[2] == 'x' || s[2] == 'X') {
			i, maxLen, isDigit = 3, 6, isASCIIHex
		}
	}
	j := i
	for j < len(s) && j-i < maxLen && isDigit(s[j]) {
		j++
	}
	if j == i || j >= len(s) || s[j] != ';' {
		return 0
	}
	return j + 1
}

func isASCIIDigit(c byte) bool { return c >= '0' && c <= '9' }
func isASCIIHex(c byte) bool {
	return isASCIIDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}
func isASCIIAlnum(c byte) bool {
	return isASCIIDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

// unsafeCharRef reports whether ref (a whole reference) decodes to
// anything Sanitize would remove or change.
func unsafeCharRef(ref string) bool {
	var decoded string
	if ref[1] == '#' {
		digits, base := ref[2:len(ref)-1], 10
		if digits[0] == 'x' || digits[0] == 'X' {
			digits, base = digits[1:], 16
		}
		n, err := strconv.ParseUint(digits, base, 32)
		if err != nil || n > 0x10ffff {
			return false // CommonMark renders it as U+FFFD
		}
		decoded = string(rune(n))
	} else {
		decoded = html.UnescapeString(ref)
		if decoded == ref {
			return false // not an entity: shown as typed
		}
	}
	return SanitizeLine(decoded) != decoded
}

// SanitizeRendered makes one line of renderer output safe to print: each
// text run goes through SanitizeLine, an SGR sequence stays only when the
// theme could have emitted it (see themeSGR), and every other escape
// sequence or control is dropped.
func SanitizeRendered(line string, noColor bool) string {
	if renderedIsSafe(line, noColor) {
		return line // the common case, without allocating
	}
	var b strings.Builder
	b.Grow(len(line))
	for sc := (seqScanner{s: line}); ; {
		seq, isEscape, ok := sc.next()
		if !ok {
			break
		}
		switch {
		case !isEscape:
			b.WriteString(SanitizeLine(seq))
		case themeSGR(seq, noColor):
			b.WriteString(seq)
		}
	}
	return b.String()
}

// renderedIsSafe reports whether SanitizeRendered would return line as is.
func renderedIsSafe(line string, noColor bool) bool {
	for sc := (seqScanner{s: line}); ; {
		seq, isEscape, ok := sc.next()
		if !ok {
			return true
		}
		if isEscape && !themeSGR(seq, noColor) || !isEscape && SanitizeLine(seq) != seq {
			return false
		}
	}
}

// seqScanner cuts a string the way a terminal reads it: escape sequences
// (7-bit, or introduced by a C1 control) with isEscape set, and the text
// and lone controls between them. A struct rather than an iterator: it
// runs on every rendered line, and must not allocate.
type seqScanner struct {
	s     string
	state byte
}

func (sc *seqScanner) next() (seq string, isEscape, ok bool) {
	if len(sc.s) == 0 {
		return "", false, false
	}
	seq, _, n, newState := ansi.DecodeSequence(sc.s, sc.state, nil)
	sc.state = newState
	if n <= 0 {
		return "", false, false
	}
	sc.s = sc.s[n:]
	return seq, seq[0] == 0x1b || strings.HasPrefix(seq, "\u009b") || strings.HasPrefix(seq, "\u009d"), true
}

// themeSGR reports whether seq is an SGR sequence made only of what the
// theme and the markdown styles use: resets, bold, faint, italic,
// underline, strikethrough and, with colour, the 16/256/true-colour
// foreground and background colours. Conceal, reverse and blink can hide
// or disguise text and are never used, so they never pass.
func themeSGR(seq string, noColor bool) bool {
	if !strings.HasPrefix(seq, "\x1b[") || !strings.HasSuffix(seq, "m") {
		return false
	}
	// Parsed into a fixed array, not a split slice: this runs for every
	// SGR of every rendered line.
	var ps [32]int
	n := 0
	for rest := seq[2 : len(seq)-1]; rest != ""; n++ {
		var p string
		p, rest, _ = strings.Cut(rest, ";")
		v, err := strconv.Atoi(p)
		if err != nil || v < 0 || n == len(ps) {
			return false
		}
		ps[n] = v
	}
	for i := 0; i < n; i++ {
		switch p := ps[i]; {
		case p == 0 || p == 1 || p == 2 || p == 3 || p == 4 || p == 9 || (p >= 22 && p <= 24) || p == 29:
		case noColor:
			return false
		case (p >= 30 && p <= 37) || p == 39 || (p >= 40 && p <= 47) || p == 49 || (p >= 90 && p <= 97) || (p >= 100 && p <= 107):
		case p == 38 || p == 48:
			k := colourArgs(ps[i+1 : n])
			if k == 0 {
				return false
			}
			i += k
		default:
			return false
		}
	}
	return true
}

// colourArgs returns how many parameters after a 38/48 form its colour
// ("5;n" or "2;r;g;b", each 0–255), or 0 when they do not.
func colourArgs(ps []int) int {
	if len(ps) == 0 {
		return 0
	}
	n := 0
	switch ps[0] {
	case 5:
		n = 2
	case 2:
		n = 4
	default:
		return 0
	}
	if len(ps) < n {
		return 0
	}
	for _, v := range ps[1:n] {
		if v > 255 {
			return 0
		}
	}
	return n
}
