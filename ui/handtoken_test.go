package ui

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/authpkce"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
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

// TestSignInFailureAdviceFitsCause is issue 36 item 5's advice: offline,
// the agent's browser sign-in failed saying to check "the account and
// permissions in the browser", which had nothing to do with it. A sign-in
// that could not reach its authorization server says so, by name; one
// the browser declined keeps the browser advice.
func TestSignInFailureAdviceFitsCause(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	_, dialErr := (&http.Client{Timeout: 5 * time.Second}).Get("http://" + addr + "/.well-known/oauth-authorization-server")
	if dialErr == nil {
		t.Skip("something listens on the closed port")
	}
	meta := protocol.ProtectedResourceMetadata{Resource: "https://api.github.com", AuthorizationServers: []string{"https://github.com/login/oauth"}}
	flow := func(err error, url string) *grantFlow {
		return &grantFlow{resource: meta.Resource, phase: grantFailed, url: url,
			requirement: authpkce.Requirement{Resource: meta}, err: fmt.Errorf("authorization server metadata: %w", err)}
	}
	m := fxModel(fxChatState())
	for _, tc := range []struct {
		name      string
		g         *grantFlow
		want, not string
	}{
		{"offline", flow(dialErr, ""), "Could not reach github.com", "in the browser"},
		{"declined in the browser", flow(authpkce.ErrAccessDenied, "https://github.com/login/oauth/authorize?x"), "in the browser", "Could not reach"},
	} {
		gv := views.GrantView{Phase: views.GrantWaiting, Resource: meta.Resource}
		m.signin.applyFlow(&gv, tc.g)
		out := ansi.Strip(views.RenderGrant(m.th, gv, 200))
		if !strings.Contains(out, tc.want) || strings.Contains(out, tc.not) {
			t.Errorf("%s: the failed sign-in says:\n%s", tc.name, out)
		}
	}
}

// TestKeepPastedTokenAsked is issue 36 item 5's keeping: after the host
// accepts a pasted token, ahptui asks once whether to keep it; enter (the
// default) keeps it for the run only and saves nothing. Asked again in a
// later run, y saves it in the token store bound to this host and the
// authorization server the host advertised; S lists it as kept, and the
// next run pushes it without a paste. Forgetting it in S drops it.
func TestKeepPastedTokenAsked(t *testing.T) {
	const secret = "gho_keptHandToken0123456789abcdef"
	rig := newSignInRig(t)
	h := startAgentHost(t, secret, "https://api.github.com")
	paste := func(d *driver) {
		t.Helper()
		d.openDemo()
		d.until("sign-in needed", func() bool { return screenHas(d.m, "sign-in needed") })
		d.focusChat()
		d.m.chatPanel.sel = chatSel{prompt: true}
		d.keys("t")
		d.send(tea.PasteMsg{Content: secret})
		d.keys("enter")
		if !d.pushed() {
			t.Fatalf("the host refused the pasted token: %s", d.m.status.text)
		}
		d.until("the keep question", func() bool { return screenHas(d.m, "Keep this token?") })
		if scr := ansi.Strip(d.m.Render()); strings.Contains(scr, secret) || !strings.Contains(squash(scr), squash("for host "+h.URL())) {
			t.Fatalf("the question shows the token or names no host:\n%s", scr)
		}
	}
	kept := func(a *authpkce.Authenticator) bool {
		for _, g := range a.Grants() {
			if g.ByHand && g.Resource == "https://api.github.com" {
				return true
			}
		}
		return false
	}

	a1 := rig.auth()
	d1 := newDriverOn(t, h.Host, a1)
	paste(d1)
	d1.answer("enter")
	d1.until("this run only", statusHas(d1.m, "lasts this run only"))
	if kept(a1) {
		t.Fatal("enter (the default) kept the token")
	}
	if _, again := d1.m.signin.pendingAsk(); again {
		t.Fatal("asked twice in one run")
	}
	d1.stop()

	a2 := rig.auth()
	d2 := newDriverOn(t, h.Host, a2)
	paste(d2)
	d2.answer("y")
	d2.until("kept", statusHas(d2.m, "is kept in"))
	if !kept(a2) {
		t.Fatal("y did not keep the token")
	}
	d2.keys("S")
	if scr := ansi.Strip(d2.m.Render()); !strings.Contains(scr, "your token, kept") || strings.Contains(scr, "in use this run, not saved") {
		t.Fatalf("S does not list the kept token once, as kept:\n%s", scr)
	}
	d2.keys("esc")
	d2.stop()

	a3 := rig.auth()
	before := h.count("authenticate")
	d3 := newDriverOn(t, h.Host, a3)
	d3.openDemo()
	d3.until("the kept token pushed without a paste", func() bool { return h.count("authenticate") > before })
	d3.until("no sign-in needed", func() bool { return !screenHas(d3.m, "sign-in needed") })
	d3.keys("S")
	d3.keys("x")
	d3.answer("y")
	d3.until("forgotten", statusHas(d3.m, "forgot the sign-in"))
	if kept(a3) {
		t.Fatal("forget left the kept token saved")
	}
}
