package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// TestPastedTokenListedInSignIns is issue 36 item 5's S: a token pasted
// for the agent's sign-in served the run, yet S said "No saved sign-ins"
// while it was in use. S now lists it ("in use this run, not saved", the
// token never drawn); x asks, y forgets it: the host is told to drop it
// (the empty-token authenticate) and the agent asks for a sign-in again.
func TestPastedTokenListedInSignIns(t *testing.T) {
	const secret = "agent-secret-5e1d0c9a"
	h := startAgentHost(t, secret, "")
	d := newDriverOn(t, h.Host, nil)
	d.openDemo()
	res := agentResource(d)
	d.until("sign-in needed", func() bool { return screenHas(d.m, "sign-in needed") })
	d.focusChat()
	d.m.chatPanel.sel = chatSel{prompt: true}
	d.keys("t")
	d.send(tea.PasteMsg{Content: secret})
	d.keys("enter")
	if !d.pushed() {
		t.Fatalf("the host refused the pasted token: %s", d.m.status.text)
	}
	d.keys("S")
	scr := ansi.Strip(d.m.Render())
	if strings.Contains(scr, "No saved sign-ins") || !strings.Contains(squash(scr), squash(res)) ||
		!strings.Contains(scr, "in use this run, not saved") {
		t.Fatalf("S does not list the pasted token in use:\n%s", scr)
	}
	if strings.Contains(scr, secret) {
		t.Fatal("S shows the token")
	}
	before := h.count("authenticate")
	d.keys("x")
	if !strings.Contains(ansi.Strip(d.m.Render()), "Forget the token you gave for") {
		t.Fatalf("x asks nothing:\n%s", ansi.Strip(d.m.Render()))
	}
	d.keys("y")
	d.until("the host told to drop it", func() bool { return h.count("authenticate") == before+1 })
	d.until("forgotten", statusHas(d.m, "forgot the token for"))
	if scr := ansi.Strip(d.m.Render()); strings.Contains(scr, "in use this run") {
		t.Fatalf("the forgotten token is still listed:\n%s", scr)
	}
}
