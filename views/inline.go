package views

import (
	"strings"
	"sync"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// inlineParser parses one-line markdown messages. goldmark's parser is safe
// for concurrent use once built. It is built on first use, not at start-up:
// a command that draws no message does not pay for it (issue 32).
var inlineParser = sync.OnceValue(func() parser.Parser { return goldmark.New().Parser() })

// fragment is a run of text drawn in one style.
type fragment struct {
	text  string
	style lipgloss.Style
}

// messageLines draws a one-line host message (a tool call's invocation,
// past-tense or cancellation message, a confirmation title) at most width
// cells wide in style. A message the host marked as markdown shows its
// inline formatting — bold, italic, code spans, link text — instead of the
// raw `**`; block syntax (headings, lists) stays literal text, since a
// card's line is no place for a block. Link targets are not shown: the text
// is what the host wrote for the user, and nothing here is clickable.
// Either way the message is sanitized and flattened to one logical line
// first, and each wrapped line closes its own styling so no style bleeds
// into the card's frame.
func messageLines(base lipgloss.Style, s string, markdown bool, width int) []string {
	s = SanitizeLine(s)
	if !markdown {
		var out []string
		for _, l := range wrapLines(s, width) {
			out = append(out, base.Render(l))
		}
		return out
	}
	return wrapFragments(inlineFragments(base, s), width)
}

// inlineFragments parses s as inline markdown into styled runs. If parsing
// leaves no text (a message that is only a thematic break, say), s is shown
// as it came.
func inlineFragments(base lipgloss.Style, s string) []fragment {
	src := []byte(escapeBlockStart(strings.TrimSpace(s)))
	doc := inlineParser().Parse(text.NewReader(src))
	var frags []fragment
	styles := []lipgloss.Style{base}
	top := func() lipgloss.Style { return styles[len(styles)-1] }
	emit := func(t string) {
		if t != "" {
			frags = append(frags, fragment{t, top()})
		}
	}
	// What the markdown means, not how it is spelled: escapes and entity
	// references resolved. A reference can spell a control character, so
	// the result is sanitized again.
	literal := func(b []byte) string {
		b = util.ResolveEntityNames(util.ResolveNumericReferences(util.UnescapePunctuations(b)))
		return SanitizeLine(string(b))
	}
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		switch v := n.(type) {
		case *ast.Emphasis:
			if entering {
				st := top()
				if v.Level >= 2 {
					st = st.Bold(true)
				} else {
					st = st.Italic(true)
				}
				styles = append(styles, st)
			} else {
				styles = styles[:len(styles)-1]
			}
		case *ast.Text:
			if entering {
				emit(literal(v.Segment.Value(src)))
				if v.SoftLineBreak() || v.HardLineBreak() {
					emit(" ")
				}
			}
		case *ast.String:
			if entering {
				emit(SanitizeLine(string(v.Value)))
			}
		case *ast.AutoLink:
			if entering {
				emit(SanitizeLine(string(v.Label(src))))
			}
			return ast.WalkSkipChildren, nil
		case *ast.RawHTML:
			if entering {
				for i := 0; i < v.Segments.Len(); i++ {
					seg := v.Segments.At(i)
					emit(SanitizeLine(string(seg.Value(src))))
				}
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	if len(frags) == 0 && strings.TrimSpace(s) != "" {
		return []fragment{{s, base}}
	}
	return frags
}

// escapeBlockStart backslash-escapes what would open a block at the start
// of a line (heading, quote, list item, fence, thematic break), so a one-line
// message renders as the text it is, inline formatting only.
func escapeBlockStart(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case '#', '>', '=', '|', '~', '`':
		if s[0] == '`' && !strings.HasPrefix(s, "```") {
			return s // a code span, not a fence
		}
		return `\` + s
	case '-', '+', '*', '_':
		// A list marker or a thematic break; "**bold**" and "_it_" are not.
		if len(s) == 1 || s[1] == ' ' || strings.Trim(s, string(s[0])+" ") == "" {
			return `\` + s
		}
		return s
	}
	i := 0
	for i < len(s) && i < 9 && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i > 0 && i < len(s) && (s[i] == '.' || s[i] == ')') && (i+1 == len(s) || s[i+1] == ' ') {
		return s[:i] + `\` + s[i:]
	}
	return s
}

// wrapFragments word-wraps styled runs to width, breaking at spaces and
// cutting words longer than a line, and styles every piece on its own so
// each line opens and closes its own SGR.
func wrapFragments(frags []fragment, width int) []string {
	if width < 1 {
		width = 1
	}
	// Words are sequences of fragment pieces between spaces.
	type piece struct {
		text  string
		style lipgloss.Style
	}
	var words [][]piece
	var cur []piece
	flush := func() {
		if len(cur) > 0 {
			words = append(words, cur)
			cur = nil
		}
	}
	for _, f := range frags {
		parts := strings.Split(f.text, " ")
		for i, p := range parts {
			if i > 0 {
				flush()
			}
			if p != "" {
				cur = append(cur, piece{p, f.style})
			}
		}
	}
	flush()

	var lines []string
	var line strings.Builder
	lineW := 0
	end := func() {
		lines = append(lines, line.String())
		line.Reset()
		lineW = 0
	}
	for _, w := range words {
		ww := 0
		for _, p := range w {
			ww += ansi.StringWidth(p.text)
		}
		if lineW > 0 && lineW+1+ww > width {
			end()
		}
		if lineW > 0 {
			line.WriteByte(' ')
			lineW++
		}
		for _, p := range w {
			t := p.text
			for t != "" {
				room := width - lineW
				if room <= 0 {
					end()
					room = width
				}
				tw := ansi.StringWidth(t)
				if tw <= room {
					line.WriteString(p.style.Render(t))
					lineW += tw
					break
				}
				head := ansi.Cut(t, 0, room)
				if head == "" { // a wide rune that does not fit what is left
					if lineW == 0 {
						head = ansi.Cut(t, 0, 2)
					} else {
						end()
						continue
					}
				}
				line.WriteString(p.style.Render(head))
				lineW += ansi.StringWidth(head)
				t = t[len(head):]
			}
		}
	}
	if lineW > 0 {
		end()
	}
	return lines
}
