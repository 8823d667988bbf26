package views

import (
	"strings"
	"unicode/utf8"
)

// NotifyTerm is what the environment says about the terminal a desktop
// notification goes to. main reads it from the environment once
// (NotifyTermFromEnv); views only turns it into bytes.
type NotifyTerm struct {
	Term        string // $TERM
	TermProgram string // $TERM_PROGRAM
	VTE         bool   // $VTE_VERSION set: a VTE terminal (GNOME Terminal, Tilix…)
	Tmux        bool   // $TMUX set: the sequence must pass through tmux
}

// NotifyTermFromEnv reads NotifyTerm through getenv (os.Getenv).
func NotifyTermFromEnv(getenv func(string) string) NotifyTerm {
	return NotifyTerm{
		Term:        getenv("TERM"),
		TermProgram: getenv("TERM_PROGRAM"),
		VTE:         getenv("VTE_VERSION") != "",
		Tmux:        getenv("TMUX") != "",
	}
}

// OSC777 reports whether the terminal's notification form is OSC 777
// (`ESC ] 777 ; notify ; title ; body BEL`) rather than OSC 9: rxvt-unicode
// (its notify extension defined the form), foot and VTE terminals, which
// understand 777 and not 9. Every other terminal gets OSC 9, the form
// iTerm2 defined and WezTerm, Windows Terminal, kitty, Ghostty and
// ConEmu read; a terminal that knows neither ignores an OSC it does not
// know. Inside tmux TERM and TERM_PROGRAM name tmux, not the terminal
// outside, so only VTE_VERSION (inherited from the outer terminal) can
// pick 777 there.
func (t NotifyTerm) OSC777() bool {
	term := strings.ToLower(t.Term)
	return t.VTE || strings.HasPrefix(term, "rxvt") || strings.HasPrefix(term, "foot")
}

// NotifyMaxRunes bounds a notification's title and body each: a desktop
// notification shows a line or two, and a hostile host must not make
// ahptui write an unbounded escape sequence.
const NotifyMaxRunes = 120

// NotifySequence is what signals that something waits on the user: the
// terminal bell, then a desktop notification in t's form, wrapped for
// tmux passthrough inside tmux (`ESC P tmux; … ESC \` with every ESC of
// the sequence doubled; tmux passes it on when allow-passthrough is on and
// drops it otherwise, and rings its own bell for the BEL). title and body
// are cleaned of every control character and escape sequence, cut to
// NotifyMaxRunes, and OSC 777's field separator (;) is replaced in the
// title, so no text can end the sequence early or start another.
func NotifySequence(t NotifyTerm, title, body string) string {
	title, body = NotifyText(title), NotifyText(body)
	var osc string
	if t.OSC777() {
		osc = "\x1b]777;notify;" + strings.ReplaceAll(title, ";", ",") + ";" + body + "\a"
	} else {
		text := body
		if title != "" {
			text = title + ": " + body
		}
		osc = "\x1b]9;" + text + "\a"
	}
	if t.Tmux {
		osc = "\x1bPtmux;" + strings.ReplaceAll(osc, "\x1b", "\x1b\x1b") + "\x1b\\"
	}
	return "\a" + osc
}

// NotifyText is s fit for a notification: one line through SanitizeLine,
// then anything still below space, DEL and the C1 range dropped (the
// sanitizer keeps none, but an OSC payload has no second chance), runs of
// spaces folded, and cut to NotifyMaxRunes with an ellipsis.
func NotifyText(s string) string {
	s = SanitizeLine(s)
	var b strings.Builder
	n, space := 0, false
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == utf8.RuneError {
			continue
		}
		if r == ' ' {
			if space || b.Len() == 0 {
				continue
			}
			space = true
		} else {
			space = false
		}
		if n == NotifyMaxRunes-1 {
			b.WriteString("…")
			break
		}
		b.WriteRune(r)
		n++
	}
	return strings.TrimRight(b.String(), " ")
}
