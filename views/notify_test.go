package views

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestNotifySequenceForms(t *testing.T) {
	cases := []struct {
		name        string
		term        NotifyTerm
		title, body string
		want        string
	}{
		{"OSC 9 by default", NotifyTerm{Term: "xterm-256color", TermProgram: "iTerm.app"}, "ahptui", "approval waits",
			"\a\x1b]9;ahptui: approval waits\a"},
		{"OSC 9 without title", NotifyTerm{Term: "xterm-kitty"}, "", "x", "\a\x1b]9;x\a"},
		{"OSC 777 for urxvt", NotifyTerm{Term: "rxvt-unicode-256color"}, "ahptui", "approval waits",
			"\a\x1b]777;notify;ahptui;approval waits\a"},
		{"OSC 777 for foot", NotifyTerm{Term: "foot"}, "a;b", "c;d",
			"\a\x1b]777;notify;a,b;c;d\a"},
		{"OSC 777 for VTE", NotifyTerm{Term: "xterm-256color", VTE: true}, "t", "b", "\a\x1b]777;notify;t;b\a"},
		{"tmux wraps OSC 9 with ESC doubled", NotifyTerm{Term: "tmux-256color", TermProgram: "tmux", Tmux: true}, "t", "b",
			"\a\x1bPtmux;\x1b\x1b]9;t: b\a\x1b\\"},
		{"tmux wraps OSC 777", NotifyTerm{Term: "screen", VTE: true, Tmux: true}, "t", "b",
			"\a\x1bPtmux;\x1b\x1b]777;notify;t;b\a\x1b\\"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := NotifySequence(tc.term, tc.title, tc.body); got != tc.want {
				t.Errorf("NotifySequence = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestNotifyTermFromEnv(t *testing.T) {
	env := map[string]string{"TERM": "foot", "TERM_PROGRAM": "x", "VTE_VERSION": "7600", "TMUX": "/tmp/tmux-1/default,1,0"}
	got := NotifyTermFromEnv(func(k string) string { return env[k] })
	if want := (NotifyTerm{Term: "foot", TermProgram: "x", VTE: true, Tmux: true}); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if got := NotifyTermFromEnv(func(string) string { return "" }); got.Tmux || got.VTE || got.OSC777() {
		t.Errorf("empty environment: %+v", got)
	}
}

// A hostile title or body never ends the sequence early, starts another
// one, or grows it without bound.
func TestNotifySequenceHostile(t *testing.T) {
	hostile := []string{
		"\x1b]52;c;cm0gLXJmIC8=\a", "a\aBEL", "x\x1b\\y", "\x9d8;;http://evil\x9c", "\u009b31m",
		"line\nbreak\r\ttab", "\x00nul\x7fdel", "\x1bPtmux;\x1b\x1b]9;fake\a\x1b\\",
		"\u202eRTL", strings.Repeat("long ", 500), "\xff\xfe bad utf8",
	}
	for _, term := range []NotifyTerm{{}, {Term: "foot"}, {Tmux: true}, {Term: "rxvt", Tmux: true}} {
		for _, h := range hostile {
			seq := NotifySequence(term, h, h)
			inner := seq[1:] // after the bell
			if term.Tmux {
				if !strings.HasPrefix(inner, "\x1bPtmux;") || !strings.HasSuffix(inner, "\x1b\\") {
					t.Fatalf("%q: not one tmux passthrough: %q", h, seq)
				}
				inner = strings.ReplaceAll(strings.TrimSuffix(strings.TrimPrefix(inner, "\x1bPtmux;"), "\x1b\\"), "\x1b\x1b", "\x1b")
			}
			if strings.Count(inner, "\x1b") != 1 || strings.Count(inner, "\a") != 1 || !strings.HasSuffix(inner, "\a") {
				t.Errorf("%+v %q: payload escapes its OSC: %q", term, h, seq)
			}
			payload := inner[2 : len(inner)-1]
			for _, r := range payload {
				if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) {
					t.Errorf("%+v %q: control %U left in %q", term, h, r, payload)
				}
			}
			// 777 has three separators plus the body's own; the title's are replaced.
			if term.OSC777() && strings.Count(payload, ";") != 3+strings.Count(NotifyText(h), ";") {
				t.Errorf("%+v %q: title grew a field: %q", term, h, payload)
			}
			if n := utf8.RuneCountInString(payload); n > 2*NotifyMaxRunes+20 {
				t.Errorf("%q: payload of %d runes", h, n)
			}
		}
	}
}

func TestNotifyText(t *testing.T) {
	cases := map[string]string{
		"  a   b  ":                "a b",
		"\x1b[31mred\x1b[0m":       "red",
		"tab\there\nnext":          "tab here next",
		"\u202egnp.exe":            "gnp.exe",
		strings.Repeat("x", 500):   strings.Repeat("x", NotifyMaxRunes-1) + "…",
		"":                         "",
		"\x1b]9;inner\abody":       "body",
		"ws://h/?tkn=kept-by-text": "ws://h/?tkn=kept-by-text", // redaction is the caller's job (ui)
	}
	for in, want := range cases {
		if got := NotifyText(in); got != want {
			t.Errorf("NotifyText(%q) = %q, want %q", in, got, want)
		}
	}
}
