package ui

import (
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/views"
)

// TestMCPSignInOffersPaste is issue 36 item 8: g on an MCP server that
// needs a sign-in offered the browser (and a device code) only. The
// sign-in sheet now offers t, as the agent's sign-in does: the browser
// flow ends, a masked field takes the token, and enter pushes it with
// authenticate for the resource the host advertised. The token is never
// drawn; the host's refusal of a bad one says so.
func TestMCPSignInOffersPaste(t *testing.T) {
	rig := newSignInRig(t)
	d := newDriverOn(t, rig.host(), rig.auth())
	res, g := startGitHubSignIn(d)
	if !strings.Contains(ansi.Strip(d.m.Render()), "t paste a token") {
		t.Fatalf("the sign-in sheet offers no token:\n%s", ansi.Strip(d.m.Render()))
	}
	d.keys("t")
	if g.phase == grantWaiting || d.m.signin.waitingGrant() != nil {
		t.Fatal("t left the browser sign-in waiting")
	}
	if !d.m.signin.tokenOpen() || !strings.Contains(ansi.Strip(d.m.Render()), views.TokenSheetTitle) {
		t.Fatalf("t opened no token field:\n%s", ansi.Strip(d.m.Render()))
	}
	const tok = "ghp_notAValidDemoToken0123456789abcdef"
	d.send(tea.PasteMsg{Content: tok})
	if scr := ansi.Strip(d.m.Render()); strings.Contains(scr, tok) || !strings.Contains(scr, "Token: ••••") {
		t.Fatalf("the field does not mask the token:\n%s", scr)
	}
	d.rec.mu.Lock()
	before := len(d.rec.authed)
	d.rec.mu.Unlock()
	d.keys("enter")
	d.until("the token pushed for the server's resource", func() bool {
		d.rec.mu.Lock()
		defer d.rec.mu.Unlock()
		return slices.Contains(d.rec.authed[before:], res)
	})
	d.until("the host's refusal said", statusHas(d.m, "the host refused the token"))
	if strings.Contains(ansi.Strip(d.m.Render()), tok) || strings.Contains(d.m.status.text, tok) {
		t.Fatal("the token is on the screen")
	}
}
