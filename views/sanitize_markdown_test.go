package views

import (
	"strings"
	"testing"
)

// charRefPayloads are the character-reference forms of the hostile
// payloads: goldmark decodes them after SanitizeMarkdown's input pass, so
// each must still reach the screen inert.
var charRefPayloads = []string{
	"&#x1b;[8mhidden&#x1b;[0m",      // conceal, hex
	"&#27;[2J&#27;[H",               // clear screen, decimal
	"&#X1B;]52;c;cm0gLXJmIH4K&#x7;", // clipboard write, upper-case X
	"&#x1b;]8;;https://evil.example&#x1b;\\click&#x1b;]8;;&#x1b;\\",
	"&#x9b;31m",                     // C1 CSI
	"&#x202e;gnp.exe",               // bidi override
	"&#8238;gnp.exe",                // the same, decimal
	"&#x2066;isolate&#x2069;",       // isolate
	"&lrm;&rlm;&#x61c;marks",        // bidi marks, named and numeric
	"&#x2028;&#8233;separators",     // line / paragraph separator
	"&#xe0041;&#917601;tags",        // tag characters
	"&Tab;tab&NewLine;newline",      // named C0
	"&#0;nul&#x7f;del&#8;bs&#13;cr", // C0, DEL
	"&#x0001b;[5mblink",             // leading zeros
}

// TestSanitizeMarkdownEscapesUnsafeRefs: unsafe references are shown as
// typed, harmless ones still decode.
func TestSanitizeMarkdownEscapesUnsafeRefs(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"&#x1b;[8m", "&amp;#x1b;[8m"},
		{"&#27;", "&amp;#27;"},
		{"&#8238;x", "&amp;#8238;x"},
		{"&rlm;", "&amp;rlm;"},
		{"&NewLine;", "&amp;NewLine;"},
		{"&amp; &lt; &copy; &#233; &#x41;", "&amp; &lt; &copy; &#233; &#x41;"},
		{"&nosuchentity; & &#; &#x; &#12345678;", "&nosuchentity; & &#; &#x; &#12345678;"},
		{"\x1b[31m&#x1b;", "&amp;#x1b;"},
	} {
		if got := SanitizeMarkdown(tc.in); got != tc.want {
			t.Errorf("SanitizeMarkdown(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestMarkdownCharRefsInert renders every hostile payload, raw and as a
// character reference, in each markdown context that shows text (a
// paragraph, emphasis, a heading, a list, a quote, a table, a link text
// and target, inline code, a code block), in colour and without: the
// output holds no escape but the theme's SGRs and none of the characters
// Sanitize removes.
func TestMarkdownCharRefsInert(t *testing.T) {
	payloads := append(append([]string(nil), charRefPayloads...), hostileRaw...)
	contexts := []string{
		"%s",
		"*%s* and **%s**",
		"# %s",
		"- %s\n- item",
		"> %s",
		"| a | b |\n|---|---|\n| %s | x |",
		"[%s](https://example.com/%s)",
		"`%s`",
		"```\n%s\n```",
	}
	for _, noColor := range []bool{false, true} {
		th := NewTheme(true, noColor)
		for _, p := range payloads {
			for _, c := range contexts {
				src := strings.ReplaceAll(c, "%s", p)
				for _, l := range RenderMarkdown(th, src, 60) {
					assertRenderedInert(t, src, l, noColor)
				}
				var m markdownStream
				for _, piece := range m.render(th, src, 60, "") {
					for _, l := range piece {
						assertRenderedInert(t, src, l, noColor)
					}
				}
			}
		}
	}
}

// hostileRaw are raw-escape payloads (the input sanitizer's side).
var hostileRaw = []string{
	"\x1b[8mhidden\x1b[0m",
	"\x1b]52;c;cm0gLXJmIH4K\x07",
	"\u202egnp.exe",
	"\u200e\u200f\u061cmarks",
	"\u2028\u2029sep",
	"\U000e0041tag",
	"\u009b31m",
}

func assertRenderedInert(t *testing.T, src, line string, noColor bool) {
	t.Helper()
	for sc := (seqScanner{s: line}); ; {
		seq, isEscape, ok := sc.next()
		if !ok {
			break
		}
		if isEscape {
			if !themeSGR(seq, noColor) {
				t.Fatalf("noColor=%v: %q rendered with sequence %q: %q", noColor, src, seq, line)
			}
			continue
		}
		for _, r := range seq {
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || isInvisibleControl(r) {
				t.Fatalf("noColor=%v: %q rendered with %U: %q", noColor, src, r, line)
			}
		}
	}
	if strings.Contains(line, "\x1b[8m") || strings.Contains(line, "\x1b[5m") {
		t.Fatalf("%q rendered with conceal/blink: %q", src, line)
	}
}

func TestThemeSGR(t *testing.T) {
	for _, tc := range []struct {
		seq            string
		color, noColor bool
	}{
		{"\x1b[m", true, true},
		{"\x1b[0m", true, true},
		{"\x1b[1m", true, true},
		{"\x1b[3;4m", true, true},
		{"\x1b[38;5;252m", true, false},
		{"\x1b[48;2;10;20;30m", true, false},
		{"\x1b[1;38;5;39;48;5;236m", true, false},
		{"\x1b[31m", true, false},
		{"\x1b[8m", false, false},
		{"\x1b[5m", false, false},
		{"\x1b[7m", false, false},
		{"\x1b[38;5m", false, false},
		{"\x1b[38;5;256m", false, false},
		{"\x1b[38:5:1m", false, false},
		{"\x1b[2J", false, false},
		{"\x1b]8;;x\x07", false, false},
	} {
		if got := themeSGR(tc.seq, false); got != tc.color {
			t.Errorf("themeSGR(%q, colour) = %v", tc.seq, got)
		}
		if got := themeSGR(tc.seq, true); got != tc.noColor {
			t.Errorf("themeSGR(%q, no colour) = %v", tc.seq, got)
		}
	}
}
