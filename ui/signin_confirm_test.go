package ui

import (
	"context"
	"net/netip"
	"slices"
	"sync"
	"testing"

	"github.com/ahptui/ahptui/authpkce"
)

// confirmingAuth asks about each server in need, in order, until the
// request confirms them all, then signs in with the real authenticator:
// the issuer on a private address, then an endpoint its metadata names
// on another (issue 21, finding 2).
type confirmingAuth struct {
	real *authpkce.Authenticator
	need []string

	mu   sync.Mutex
	seen [][]string // ConfirmedServers of every Start
}

func (c *confirmingAuth) Start(ctx context.Context, req authpkce.GrantRequest) (*authpkce.Grant, error) {
	c.mu.Lock()
	c.seen = append(c.seen, slices.Clone(req.ConfirmedServers))
	c.mu.Unlock()
	for _, h := range c.need {
		if !slices.Contains(req.ConfirmedServers, h) {
			return nil, &authpkce.ServerConfirmation{Host: h, Addr: netip.MustParseAddr("10.0.0.5")}
		}
	}
	return c.real.Start(ctx, req)
}

// TestPrivateServerYesesAccumulate: when the issuer and then one of its
// endpoints each need the user's yes, the second restart keeps the first
// yes (one question per server, no loop), and a fresh sign-in asks again.
func TestPrivateServerYesesAccumulate(t *testing.T) {
	rig := newSignInRig(t)
	fa := &confirmingAuth{real: rig.auth(), need: []string{"issuer.internal", "register.internal:8443"}}
	d := newDriverOn(t, rig.host(), fa)
	d.openDemo()
	d.until("GitHub asks for sign-in", func() bool { r, ok := githubRowOf(d); return ok && r.StateKind == "authRequired" })
	selectGitHubRow(d)
	d.keys("g")
	answerYes := func(want string) {
		t.Helper()
		d.until("the question about "+want, func() bool { return len(d.m.signin.asks) > 0 })
		a := d.m.signin.asks[0]
		d.m.signin.asks = d.m.signin.asks[1:]
		d.run(a.yes())
	}
	answerYes("issuer.internal")
	answerYes("register.internal:8443")
	r, _ := githubRowOf(d)
	res := r.Auth.Resource.Resource
	d.until("the sign-in URL", func() bool { g := d.m.signin.grants[res]; return g != nil && g.url != "" })
	fa.mu.Lock()
	defer fa.mu.Unlock()
	want := [][]string{nil, {"issuer.internal"}, {"issuer.internal", "register.internal:8443"}}
	if len(fa.seen) != len(want) {
		t.Fatalf("Start was called with %q, want %q", fa.seen, want)
	}
	for i := range want {
		if !slices.Equal(fa.seen[i], want[i]) {
			t.Fatalf("Start was called with %q, want %q", fa.seen, want)
		}
	}
}

// selectGitHubRow focuses the MCP panel on the demo's GitHub server.
func selectGitHubRow(d *driver) {
	d.m.focus = focusMCP
	gh, _ := githubRowOf(d)
	for i, r := range mcpRows(d.m.sess) {
		if r.ID == gh.ID {
			d.m.mcp.sel = i
		}
	}
}
