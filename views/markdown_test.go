package views

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	// Registers the shared -update flag the golden files here obey too.
	_ "github.com/charmbracelet/x/exp/golden"
)

// goldenWidths are the widths every component's golden screens cover.
var goldenWidths = []int{60, 100, 160}

var (
	noColorTheme = NewTheme(true, true)
	colorTheme   = NewTheme(true, false)
)

// checkGolden compares out with testdata/<Test>/<name>_<width>.golden
// (Test the top-level test's name, like ui's goldens), or
// rewrites the file under -update. NO_COLOR output is stored with its
// attribute SGRs (bold, reverse) stripped so the files read as the screen
// does; coloured variants (name ending in "_color") are stored raw.
func checkGolden(t *testing.T, name string, width int, out string) {
	t.Helper()
	if !strings.HasSuffix(name, "_color") {
		out = ansi.Strip(out)
	}
	test, _, _ := strings.Cut(t.Name(), "/")
	path := filepath.Join("testdata", test, fmt.Sprintf("%s_%d.golden", name, width))
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./views -run %s -update to create it)", err, t.Name())
	}
	if string(want) != out {
		t.Errorf("%s differs from the golden file (run with -update if the change is intended)\n--- want\n%s\n--- got\n%s", path, want, out)
	}
}

// checkScreen asserts the contracts every rendered view keeps: no line is
// wider than width, the only escape sequences are SGR styling, without
// colour those carry no colour, and no control character survives.
func checkScreen(t *testing.T, th Theme, out string, width int) {
	t.Helper()
	for i, l := range strings.Split(out, "\n") {
		if w := lipgloss.Width(l); w > width {
			t.Fatalf("line %d is %d cells, wider than %d: %q", i, w, width, ansi.Strip(l))
		}
	}
	var state byte
	for rest := out; len(rest) > 0; {
		seq, _, n, newState := ansi.DecodeSequence(rest, state, nil)
		state = newState
		if n <= 0 {
			t.Fatalf("undecodable output at %q", rest)
		}
		rest = rest[n:]
		switch {
		case seq == "\n":
		case strings.HasPrefix(seq, "\x1b"):
			if ownLink(seq) {
				continue
			}
			if !isSGR(seq) {
				t.Fatalf("non-SGR escape sequence %q in output", seq)
			}
			if th.NoColor && !attributeOnlySGR(seq) {
				t.Fatalf("colour SGR %q in NO_COLOR output", seq)
			}
		default:
			for _, r := range seq {
				if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
					t.Fatalf("control character %U in output", r)
				}
			}
		}
	}
}

// attributeOnlySGR reports whether an SGR sets only attributes (bold,
// italic, underline, reverse, strikethrough and their resets), no colour.
func attributeOnlySGR(seq string) bool {
	params := strings.TrimSuffix(strings.TrimPrefix(seq, "\x1b["), "m")
	if params == "" {
		return true
	}
	for _, p := range strings.Split(params, ";") {
		switch p {
		case "0", "1", "2", "3", "4", "7", "9", "21", "22", "23", "24", "27", "29":
		default:
			return false
		}
	}
	return true
}

func TestSplitMarkdown(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"one paragraph", "a\nb\n", []string{"a\nb\n"}},
		{"two paragraphs", "a\n\nb\n", []string{"a\n\n", "b\n"}},
		{"blank lines inside a fence stay", "```\nx\n\ny\n```\n\nz", []string{"```\nx\n\ny\n```\n\n", "z"}},
		{"tilde fence", "~~~\nx\n\n```\ny\n~~~\n\nz", []string{"~~~\nx\n\n```\ny\n~~~\n\n", "z"}},
		{"indented continuation stays", "- a\n\n  more\n\nb", []string{"- a\n\n  more\n\n", "b"}},
		{"indented code stays", "text\n\n    code\n\nb", []string{"text\n\n    code\n\n", "b"}},
		{"next block not arrived yet", "a\n\n", []string{"a\n\n"}},
		{"leading blank lines", "\n\na", []string{"\n\na"}},
		{"a shorter run does not close a fence", "~~~~\nx\n~~~\n\ny\n~~~~\n\nz", []string{"~~~~\nx\n~~~\n\ny\n~~~~\n\n", "z"}},
		{"backticks in the info string: no fence", "```go``` inline\n\nb", []string{"```go``` inline\n\n", "b"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := splitMarkdown(tc.src)
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("splitMarkdown(%q) = %q, want %q", tc.src, got, tc.want)
			}
			if strings.Join(got, "") != tc.src {
				t.Errorf("chunks do not reassemble the source")
			}
		})
	}
}

// Streaming must produce, at every step, exactly what rendering the same
// text from scratch produces: the prefix cache is an optimisation only.
func TestMarkdownStreamMatchesFullRender(t *testing.T) {
	src := "# Plan\n\nFirst I **read** the code.\n\n- one\n- two\n\n```go\nfunc f() {\n\n}\n```\n\n" +
		"A [link](https://example.com/a) and `code`.\n\n1. first\n2. second\n\nDone."
	for _, th := range []Theme{noColorTheme, colorTheme} {
		var m markdownStream
		for n := 0; n <= len(src); n += 3 {
			got := strings.Join(flattenPieces(m.render(th, src[:n], 60, "")), "\n")
			want := strings.Join(RenderMarkdown(th, src[:n], 60), "\n")
			if got != want {
				t.Fatalf("noColor=%v prefix %d:\nstream:\n%s\nfull:\n%s", th.NoColor, n, got, want)
			}
		}
		if len(m.ckpts) == 0 {
			t.Error("the stream never cached a prefix")
		}
	}
}

func TestMarkdownStreamRestartsOnEdit(t *testing.T) {
	var m markdownStream
	m.render(colorTheme, "para one\n\npara two\n\npara three", 40, "")
	got := ansi.Strip(strings.Join(flattenPieces(m.render(colorTheme, "other\n\ntext", 40, "")), "\n"))
	if strings.Contains(got, "para") || !strings.Contains(got, "other") {
		t.Errorf("an edited text kept stale lines: %q", got)
	}
}

// Markdown is host text: escape sequences in it must arrive inert, and
// glamour's own hyperlinks (OSC 8, target chosen by the host) must go.
func TestRenderMarkdownHostile(t *testing.T) {
	src := "Click \x1b]8;;http://evil.example\x1b\\here\x1b]8;;\x1b\\ or [there](http://evil.example/x).\n\n" +
		"\x1b[2J\x1b[H\x1b]52;c;cm0gLXJmIC8=\x07clipboard \u202eevil\u202c \x9b31m C1\r\n\n```\n\x1b[31mred\x1b[0m\n```\n"
	for _, th := range []Theme{noColorTheme, colorTheme} {
		for _, w := range goldenWidths {
			out := strings.Join(RenderMarkdown(th, src, w), "\n")
			checkScreen(t, th, out, w)
			plain := ansi.Strip(out)
			for _, bad := range []string{"52;c", "]8;", "[2J", "[31m"} {
				if strings.Contains(plain, bad) {
					t.Errorf("noColor=%v w=%d: escape payload %q visible: %q", th.NoColor, w, bad, plain)
				}
			}
			if !strings.Contains(plain, "clipboard") || !strings.Contains(plain, "red") {
				t.Errorf("noColor=%v w=%d: ordinary text lost: %q", th.NoColor, w, plain)
			}
		}
	}
}

func TestRenderMarkdownWidths(t *testing.T) {
	src := "A line with a very long URL https://example.com/" + strings.Repeat("a", 300) + " end.\n\n" +
		"| a | b |\n|---|---|\n| " + strings.Repeat("x", 200) + " | y |\n\n" + strings.Repeat("word ", 200)
	for _, th := range []Theme{noColorTheme, colorTheme} {
		for w := 10; w <= 250; w += 17 {
			checkScreen(t, th, strings.Join(RenderMarkdown(th, src, w), "\n"), w)
		}
	}
}

func TestCleanLine(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain  ", "plain"},
		{"\x1b[1mbold\x1b[m   ", "\x1b[1mbold\x1b[m"},
		{"\x1b[31mx\x1b[m\x1b[31m\x1b[m\x1b[31m \x1b[m", "\x1b[31mx\x1b[m"},
		{"\x1b]8;;http://e\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"\x1b[1ma\x1b[0m\x1b[2mb", "\x1b[1ma\x1b[m\x1b[2mb\x1b[m"},
	}
	for _, tc := range tests {
		if got := cleanLine(tc.in); got != tc.want {
			t.Errorf("cleanLine(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// Inline code sits in the sentence without padding spaces, in every theme.
func TestMarkdownInlineCodeUnpadded(t *testing.T) {
	for _, th := range []Theme{noColorTheme, colorTheme, NewTheme(false, false)} {
		got := ansi.Strip(strings.Join(RenderMarkdown(th, "I will update `CHANGELOG.md`; ok", 60), "\n"))
		if !strings.Contains(got, "update CHANGELOG.md; ok") {
			t.Errorf("dark=%v nocolor=%v: %q", th.IsDark, th.NoColor, got)
		}
	}
}

// ownLink reports whether seq is a hyperlink (OSC 8) the views draw
// themselves: a sign-in URL's (SignInLink accepts it, its id is ours) or
// the reset that ends one. Host text never yields one (the sanitizer
// strips every OSC).
func ownLink(seq string) bool {
	body, ok := strings.CutPrefix(seq, "\x1b]8;")
	if !ok {
		return false
	}
	body = strings.TrimSuffix(strings.TrimSuffix(body, "\a"), "\x1b\\")
	params, uri, ok := strings.Cut(body, ";")
	if !ok {
		return false
	}
	if uri == "" && params == "" {
		return true
	}
	return strings.HasPrefix(params, "id=ahptui-") && SignInLink(uri) == uri
}
