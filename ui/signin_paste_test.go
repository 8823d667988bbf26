package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// TestMistypedPasteKeepsCodeOffScreen: the user pastes the address the
// browser landed on with a typo; it carries the authorization code and
// state. Neither may appear anywhere (issue 21, finding 8): not in the
// paste field, not in the error under it, not on the status line, not in
// the message history (L).
func TestMistypedPasteKeepsCodeOffScreen(t *testing.T) {
	d, _, landed := signInLandedElsewhere(t)
	code, state := landed.Query().Get("code"), landed.Query().Get("state")
	if code == "" || state == "" {
		t.Fatalf("the redirect carries no code or state: %s", landed.Redacted())
	}
	mistyped := *landed
	mistyped.Path = "/callbak"
	// The code must be nowhere on screen. The state is in the sign-in URL
	// the sheet shows (it went to the browser with it), so for it every
	// message is checked: the paste field, its error, the status line.
	check := func(when string) {
		t.Helper()
		scr := ansi.Strip(d.m.Render())
		// Squashed too: a wrapped line must not hide the code from the grep.
		if strings.Contains(scr, code) || strings.Contains(squash(scr), code) {
			t.Fatalf("%s, the screen shows the code:\n%s", when, scr)
		}
		var msgs []string
		for _, l := range strings.Split(scr, "\n") {
			if strings.Contains(l, "> ") || strings.Contains(l, "pasted") || strings.Contains(l, "redirect") {
				msgs = append(msgs, l)
			}
		}
		msgs = append(msgs, d.m.signin.paste.err, d.m.status.text)
		for _, e := range d.m.status.history {
			msgs = append(msgs, e.Text)
		}
		for _, m := range msgs {
			if strings.Contains(m, state) || strings.Contains(m, code) {
				t.Fatalf("%s, a message shows the code or state: %q", when, m)
			}
		}
	}
	d.keys("p")
	d.send(tea.PasteMsg{Content: mistyped.String()})
	if !strings.Contains(overlayText(d.m), "state=") {
		t.Fatalf("the paste field does not show the pasted address:\n%s", ansi.Strip(d.m.Render()))
	}
	check("while pasting")
	d.keys("enter")
	d.until("the mistyped address refused", func() bool { return d.m.signin.paste.err != "" })
	d.until("the status line to say so", func() bool { return strings.Contains(d.m.status.text, "pasted address") })
	check("after the refusal")
	d.keys("esc", "esc")
	d.keys("L")
	if !d.m.showMsgs {
		t.Fatal("L did not open the message history")
	}
	check("in the message history")
}
