package views

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// hostilePayloads doubles as the fuzz seed corpus.
var sanitizeCases = []struct {
	name, in, want string
}{
	{"plain", "hello, world", "hello, world"},
	{"empty", "", ""},
	{"newlines kept", "a\nb\n", "a\nb\n"},
	{"tab to stop", "a\tb", "a   b"},
	{"tab at stop", "abcd\te", "abcd    e"},
	{"tab after wide rune", "世\tx", "世  x"},
	{"tab column resets per line", "ab\ncd\tx", "ab\ncd  x"},
	{"clear screen and home", "\x1b[2J\x1b[Hgotcha", "gotcha"},
	{"SGR colour", "\x1b[31;1mred\x1b[0m", "red"},
	{"private CSI", "\x1b[?1049h\x1b[?25lhidden", "hidden"},
	{"cursor movement", "ok\x1b[1A\x1b[2K\x1b[10;20Hfake", "okfake"},
	{"OSC 52 clipboard BEL", "x\x1b]52;c;cm0gLXJmIC8=\x07y", "xy"},
	{"OSC 52 clipboard ST", "x\x1b]52;c;cm0gLXJmIC8=\x1b\\y", "xy"},
	{"OSC 8 hyperlink", "\x1b]8;;http://evil\x1b\\click\x1b]8;;\x1b\\", "click"},
	{"OSC title", "\x1b]0;pwned\x07title", "title"},
	{"8-bit CSI as code point", "a\u009b31mb", "ab"},
	{"raw 0x9b byte", "\x9b31m", "\uFFFD31m"},
	{"8-bit OSC with C1 ST", "a\u009d52;c;Zm9v\u009cb", "ab"},
	{"DCS", "a\x1bP1$r0m\x1b\\b", "ab"},
	{"DCS tmux passthrough", "a\x1bPtmux;\x1b\x1b]52;c;Zm9v\x07\x1b\\b", "ab"},
	{"APC", "a\x1b_Gf=100;AAAA\x1b\\b", "ab"},
	{"SOS and PM", "a\x1bXsos\x1b\\b\x1b^pm\x1b\\c", "abc"},
	{"single char ESC", "a\x1b7b\x1b8c\x1bcd", "abcd"},
	{"ESC with intermediate", "a\x1b(0b\x1b#8c", "abc"},
	{"unterminated OSC swallows rest", "a\x1b]52;c;Zm9v", "a"},
	{"unterminated CSI", "a\x1b[", "a"},
	{"lone ESC", "a\x1b", "a"},
	{"ESC before control", "a\x1b\x07b", "ab"},
	{"CSI interrupted by ESC", "a\x1b[12\x1b[2Jb", "ab"},
	{"CAN aborts OSC", "a\x1b]0;t\x18b", "ab"},
	{"carriage return overwrite", "rm -rf /\rls      ", "rm -rf /ls      "},
	{"backspace overwrite", "safe\x08\x08\x08\x08evil", "safeevil"},
	{"bell and NUL", "a\x07b\x00c", "abc"},
	{"DEL", "a\x7fb", "ab"},
	{"C1 NEL", "a\u0085b", "ab"},
	{"bidi override", "a\u202eevil\u202cb", "aevilb"},
	{"bidi isolate", "a\u2066x\u2069b", "axb"},
	{"bidi marks", "a\u200ex\u200fy\u061cb", "axyb"},
	{"line and paragraph separators", "a\u2028b\u2029c", "abc"},
	{"tag characters", "a\U000e0001\U000e0068\U000e0069\U000e007fb", "ab"},
	{"just past the tag block kept", "\U000e0080\U000e0100", "\U000e0080\U000e0100"},
	{"zero-width joiner kept", "👩\u200d💻", "👩\u200d💻"},
	{"variation selector kept", "⚠\ufe0f", "⚠\ufe0f"},
	{"invalid utf8", "a\xffb\xc3", "a\uFFFDb\uFFFD"},
	{"surrogate half", "\xed\xa0\x80", "\uFFFD\uFFFD\uFFFD"},
	{"CJK", "日本語", "日本語"},
}

func TestSanitize(t *testing.T) {
	for _, tc := range sanitizeCases {
		t.Run(tc.name, func(t *testing.T) {
			got := Sanitize(tc.in)
			if got != tc.want {
				t.Fatalf("Sanitize(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if again := Sanitize(got); again != got {
				t.Fatalf("not idempotent: %q -> %q", got, again)
			}
		})
	}
}

func TestSanitizeLine(t *testing.T) {
	tests := []struct{ in, want string }{
		{"one\ntwo", "one two"},
		{"a\tb", "a b"},
		{"a\r\nb", "a b"},
		{"\x1b[2Jtitle\n", "title "},
		{"plain", "plain"},
	}
	for _, tc := range tests {
		if got := SanitizeLine(tc.in); got != tc.want {
			t.Errorf("SanitizeLine(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// A clean string must come back as the very same string: chat transcripts
// are sanitized on every frame, so this path must not allocate.
func TestSanitizeCleanDoesNotAllocate(t *testing.T) {
	s := strings.Repeat("Hello, 世界! plain text with ünïcödé\n", 20)
	allocs := testing.AllocsPerRun(100, func() {
		if Sanitize(s) != s {
			t.Fatal("clean string changed")
		}
	})
	if allocs != 0 {
		t.Fatalf("Sanitize allocated %v times on clean input", allocs)
	}
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		in    string
		width int
		want  string
	}{
		{"hello", 10, "hello"},
		{"hello", 5, "hello"},
		{"hello world", 5, "hell…"},
		{"hello", 1, "…"},
		{"hello", 0, ""},
		{"hello", -3, ""},
		{"日本語テキスト", 5, "日本…"},
		{"日本語", 6, "日本語"},
		{"日本語", 4, "日…"},
		{"👩‍💻👩‍💻👩‍💻", 5, "👩‍💻👩‍💻…"},
	}
	for _, tc := range tests {
		got := Truncate(tc.in, tc.width)
		if got != tc.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", tc.in, tc.width, got, tc.want)
		}
		if w := ansi.StringWidth(got); tc.width > 0 && w > tc.width {
			t.Errorf("Truncate(%q, %d) is %d cells wide", tc.in, tc.width, w)
		}
	}
}

func TestTruncateKeepsStyling(t *testing.T) {
	in := "\x1b[1mbold text here\x1b[0m"
	got := Truncate(in, 6)
	if ansi.Strip(got) != "bold …" {
		t.Fatalf("Truncate(styled) text = %q", ansi.Strip(got))
	}
	if !strings.HasPrefix(got, "\x1b[1m") {
		t.Fatalf("Truncate dropped the style: %q", got)
	}
}

// checkSanitized asserts the safety properties every Sanitize output must
// have, whatever went in.
func checkSanitized(t *testing.T, in, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("Sanitize(%q) = %q: invalid UTF-8", in, out)
	}
	for _, r := range out {
		switch {
		case r == '\n':
		case r < 0x20 || r == 0x7f:
			t.Fatalf("Sanitize(%q) = %q: contains control %U", in, out, r)
		case r >= 0x80 && r <= 0x9f:
			t.Fatalf("Sanitize(%q) = %q: contains C1 %U", in, out, r)
		case isInvisibleControl(r):
			t.Fatalf("Sanitize(%q) = %q: contains bidi or invisible control %U", in, out, r)
		}
	}
	if strings.IndexByte(out, 0x1b) >= 0 {
		t.Fatalf("Sanitize(%q) = %q: contains ESC", in, out)
	}
	if again := Sanitize(out); again != out {
		t.Fatalf("not idempotent: Sanitize(%q) = %q, again %q", in, out, again)
	}
	// Sanitize only removes: apart from the spaces tabs become and the
	// U+FFFD bad bytes become, the output is a subsequence of the input.
	rest := in
	for _, r := range out {
		if r == ' ' || r == utf8.RuneError {
			continue
		}
		k := strings.IndexRune(rest, r)
		if k < 0 {
			t.Fatalf("Sanitize(%q) = %q: %q is not from the input", in, out, r)
		}
		rest = rest[k+utf8.RuneLen(r):]
	}
	line := SanitizeLine(in)
	if strings.ContainsAny(line, "\n\t") || strings.IndexByte(line, 0x1b) >= 0 || !utf8.ValidString(line) {
		t.Fatalf("SanitizeLine(%q) = %q: not a safe single line", in, line)
	}
}

func FuzzSanitize(f *testing.F) {
	for _, tc := range sanitizeCases {
		f.Add(tc.in)
	}
	f.Add("\x1b[38;2;255;0;0m\x1b]133;A\x07\x1b[6n")
	f.Add("\xc2\x9b\xc2\x9d\xc2\x9c\xc2")
	f.Add("\t\t\x1b\t\u202e\t世\t")
	f.Fuzz(func(t *testing.T, in string) {
		checkSanitized(t, in, Sanitize(in))
	})
}

// BenchmarkSanitizeClean protects the per-frame cost of sanitizing a chat
// transcript that has nothing to strip: budget ≤ 1 ns/byte and 0 allocs
// (a 4 KiB message in under ~4 µs), so re-rendering 100 messages per frame
// stays well below a millisecond.
func BenchmarkSanitizeClean(b *testing.B) {
	s := strings.Repeat("The quick brown fox jumps over the lazy dog. 日本語 ✓\n", 64)
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		_ = Sanitize(s)
	}
}

// BenchmarkSanitizeHostile protects the cost when every line carries escape
// sequences to strip: budget ≤ 8 ns/byte and two allocations (the output
// builder, and one growth when tab expansion outgrows the input size).
func BenchmarkSanitizeHostile(b *testing.B) {
	s := strings.Repeat("\x1b[31mred\x1b[0m \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\\tcol\r\n", 64)
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		_ = Sanitize(s)
	}
}
