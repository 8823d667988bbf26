package ui

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/authpkce"
	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/demohost/authserver"
	"github.com/ahptui/ahptui/protocol"
)

// signInRig is one authorization server shared by demo hosts, and a token
// directory shared by the Authenticators of successive runs.
type signInRig struct {
	t   *testing.T
	ctx context.Context
	as  *authserver.Server
	dir string
}

func newSignInRig(t *testing.T) *signInRig {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	as, err := authserver.Start(ctx, authserver.Config{})
	if err != nil {
		t.Fatalf("authserver: %v", err)
	}
	t.Cleanup(func() { _ = as.Close() })
	return &signInRig{t: t, ctx: ctx, as: as, dir: t.TempDir()}
}

func (r *signInRig) host() *demohost.Host { return r.hostAt("") }

// hostAt starts a demo host on addr (empty: a free port). A host started
// again on the same address with the same authorization server advertises
// the same resources and remembers no sign-in.
func (r *signInRig) hostAt(addr string) *demohost.Host {
	r.t.Helper()
	h, err := demohost.Start(r.ctx, demohost.Config{StepDelay: -1, Auth: r.as, Addr: addr})
	if err != nil {
		r.t.Fatalf("demohost: %v", err)
	}
	r.t.Cleanup(func() { _ = h.Close() })
	return h
}

// auth is a fresh Authenticator on the shared directory that never opens
// a browser (the test plays the browser).
func (r *signInRig) auth() *authpkce.Authenticator {
	r.t.Helper()
	a, err := authpkce.New(authpkce.Config{Dir: r.dir, Timeout: 20 * time.Second,
		OpenBrowser: func(string) error { return errors.New("--no-browser") }})
	if err != nil {
		r.t.Fatal(err)
	}
	return a
}

func githubRowOf(d *driver) (mcpRow, bool) {
	for _, r := range mcpRows(d.m.sess) {
		if r.ID == demohost.GitHubServerID {
			return r, true
		}
	}
	return mcpRow{}, false
}

// startGitHubSignIn opens the demo session, selects GitHub in the MCP panel,
// presses the sign-in key and waits for the sign-in URL; it returns the
// resource and the flow.
// signInLandedElsewhere starts the GitHub MCP server's sign-in on a demo
// driver and approves it in a headless browser whose redirect never
// reaches the loopback: it returns the driver, the sign-in and the address
// the browser landed on, which the user would paste.
func signInLandedElsewhere(t *testing.T) (*driver, *grantFlow, *url.URL) {
	t.Helper()
	rig := newSignInRig(t)
	d := newDriverOn(t, rig.host(), rig.auth())
	_, g := startGitHubSignIn(d)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	landed, err := authserver.ApproveHeadless(ctx, nil, g.url)
	if err != nil {
		t.Fatalf("approve: %v", err)
	}
	return d, g, landed
}

func startGitHubSignIn(d *driver) (string, *grantFlow) {
	d.t.Helper()
	d.openDemo()
	d.until("GitHub asks for sign-in", func() bool { r, ok := githubRowOf(d); return ok && r.StateKind == "authRequired" })
	return selectGitHubAndSignIn(d)
}

// selectGitHubAndSignIn is startGitHubSignIn once GitHub asks for it.
func selectGitHubAndSignIn(d *driver) (string, *grantFlow) {
	d.t.Helper()
	d.m.focus = focusMCP
	for i, r := range mcpRows(d.m.sess) {
		if r.ID == demohost.GitHubServerID {
			d.m.mcp.sel = i
		}
	}
	d.keys("g")
	r, _ := githubRowOf(d)
	res := r.Auth.Resource.Resource
	d.until("sign-in URL", func() bool { g := d.m.signin.grants[res]; return g != nil && g.url != "" })
	return res, d.m.signin.grants[res]
}

func githubReady(d *driver) func() bool {
	return func() bool { r, ok := githubRowOf(d); return ok && r.StateKind == "ready" }
}

// TestAskOnceOnAnotherHost: against a real authorization server, a grant
// obtained on host A is not pushed to host B, which advertises the same
// resource with the same issuer, until the user answers the question
// naming the resource, the issuer and B. The answer is kept: the next
// run on B does what it said without asking. On A the grant is used
// silently all along. B is A's demo host reached as localhost: the
// resource is the same, the host identity is not.
func TestAskOnceOnAnotherHost(t *testing.T) {
	for _, tc := range []struct {
		answer string
		pushed bool
		extra  int // more demo hosts in the same model, same resources
	}{{"y", true, 0}, {"n", false, 0}, {"y", true, 2}, {"n", false, 2}} {
		t.Run(fmt.Sprintf("%s/%d-more-hosts", tc.answer, tc.extra), func(t *testing.T) {
			newDriverAs := func(t *testing.T, host *demohost.Host, name string, auth Authenticator) *driver {
				return newDriverAmong(t, host, name, auth, true, tc.extra)
			}
			rig := newSignInRig(t)
			host := rig.host()
			nameA := host.URL()
			nameB := strings.Replace(nameA, "127.0.0.1", "localhost", 1)
			addr := strings.TrimSuffix(strings.TrimPrefix(nameA, "ws://"), "/")
			// again is a fresh host on the same address: the last one
			// would remember the token it was given.
			again := func() {
				if err := host.Close(); err != nil {
					t.Fatalf("close host: %v", err)
				}
				host = rig.hostAt(addr)
			}

			dA := newDriverAs(t, host, nameA, rig.auth())
			res, g := startGitHubSignIn(dA)
			approveInBrowser(t, g.url)
			dA.until("GitHub ready on A after the browser sign-in", githubReady(dA))
			dA.grantsStayHome()
			dA.stop()
			again()

			dB := newDriverAs(t, host, nameB, rig.auth())
			dB.openDemo()
			dB.until("the question about using the sign-in on B", func() bool { _, ok := dB.m.signin.pendingAsk(); return ok })
			if want := "Use your sign-in to " + res + " (issued by " + hostOf(rig.as.Issuer()) + ") on host " + nameB + "?"; !screenHas(dB.m, want) {
				t.Errorf("the question does not say %q:\n%s", want, ansi.Strip(dB.m.Render()))
			}
			if n := countAuthenticates(dB); n != 0 {
				t.Fatalf("%d authenticate calls went to B before the user answered", n)
			}
			dB.answer(tc.answer)
			if tc.pushed {
				dB.until("GitHub ready on B after yes", githubReady(dB))
			} else if n := countAuthenticates(dB); n != 0 {
				t.Fatalf("%d authenticate calls went to B after no", n)
			}
			dB.grantsStayHome()
			dB.stop()
			again()

			dB2 := newDriverAs(t, host, nameB, rig.auth())
			dB2.openDemo()
			if tc.pushed {
				dB2.until("GitHub ready on B with the kept answer", githubReady(dB2))
			} else {
				dB2.until("B's GitHub row asks for sign-in", func() bool { r, ok := githubRowOf(dB2); return ok && r.StateKind == "authRequired" })
			}
			if _, asked := dB2.m.signin.pendingAsk(); asked {
				t.Fatal("B asked again after the user answered there")
			}
			if got := countAuthenticates(dB2) > 0; got != tc.pushed {
				t.Fatalf("B got the token on the next run = %v, want %v", got, tc.pushed)
			}
			dB2.grantsStayHome()
			dB2.stop()
			again()

			dA2 := newDriverAs(t, host, nameA, rig.auth())
			dA2.openDemo()
			dA2.until("GitHub ready on A without a question", githubReady(dA2))
			if _, asked := dA2.m.signin.pendingAsk(); asked {
				t.Fatal("the host the grant was obtained on asked")
			}
			dA2.grantsStayHome()
		})
	}
}

// countAuthenticates is how many authenticate requests d's client sent.
func countAuthenticates(d *driver) int {
	d.rec.mu.Lock()
	defer d.rec.mu.Unlock()
	return d.rec.auths
}

// squash drops whitespace and frame glyphs, so text the screen wraps (a
// URL broken mid-word included) compares with the text it wraps.
func squash(s string) string {
	return strings.Map(func(r rune) rune {
		if r <= ' ' || strings.ContainsRune("│┃║╭╮╰╯┏┓┗┛╔╗╚╝─━═", r) {
			return -1
		}
		return r
	}, ansi.Strip(s))
}

func screenHas(m *Model, want string) bool { return strings.Contains(squash(m.Render()), squash(want)) }

// TestPasteRedirectCompletesSignIn: the browser's redirect never reaches
// the loopback (another machine); the user pastes the address it landed
// on. A pasted address from another sign-in is refused in the field and
// the sign-in goes on; the real one completes it.
func TestPasteRedirectCompletesSignIn(t *testing.T) {
	d, g, landed := signInLandedElsewhere(t)
	d.keys("p")
	if !d.m.signin.paste.open || !strings.Contains(overlayText(d.m), "Pastetheaddress") {
		t.Fatalf("p did not open the paste field:\n%s", ansi.Strip(d.m.Render()))
	}
	forged := *landed
	q := forged.Query()
	q.Set("state", "not-this-sign-in")
	forged.RawQuery = q.Encode()
	d.send(tea.PasteMsg{Content: forged.String()})
	d.keys("enter")
	d.until("the forged address refused", func() bool { return d.m.signin.paste.err != "" })
	if g.phase != grantWaiting {
		t.Fatalf("a refused paste ended the sign-in: phase %v", g.phase)
	}
	d.keys("esc", "p")
	d.send(tea.PasteMsg{Content: landed.String() + "\n"})
	d.keys("enter")
	d.until("GitHub ready after the pasted address", githubReady(d))
}

// TestForgetRevokes: the sign-ins sheet lists the grant (resource, issuer,
// host); x forgets it and the authorization server no longer accepts the
// token (RFC 7009 revocation, checked by introspection). What reaches the
// demo host depends on the wire it serves: on 1.0 one empty-token
// authenticate revokes the token there and the note says the host dropped
// it; on 0.6 nothing is sent and the note says the host may keep it.
func TestForgetRevokes(t *testing.T) {
	rig := newSignInRig(t)
	host := rig.host()
	auth := rig.auth()
	d := newDriverOn(t, host, auth)
	res, g := startGitHubSignIn(d)
	approveInBrowser(t, g.url)
	d.until("GitHub ready", githubReady(d))
	var token string
	for _, tok := range auth.Tokens() {
		if tok.Resource == res {
			token = tok.AccessToken
		}
	}
	if in, err := rig.as.Introspect(rig.ctx, token); err != nil || !in.Active {
		t.Fatalf("the token is not active before forgetting: %+v, %v", in, err)
	}
	before := countAuthenticates(d)
	d.keys("S")
	hid, _ := authpkce.HostID(host.URL())
	for _, want := range []string{res, "issued by " + rig.as.Issuer(), "on host " + hid, "expires"} {
		if !screenHas(d.m, want) {
			t.Errorf("the sign-ins sheet does not show %q:\n%s", want, ansi.Strip(d.m.Render()))
		}
	}
	on10 := d.m.client.Wire() == protocol.Wire10
	wantNote, wantAuths := "AHP 0.6", 0
	if on10 {
		wantNote, wantAuths = "the host dropped it", 1
		if !screenHas(d.m, "Forgetting also tells this host (AHP 1.0)") {
			t.Errorf("the sheet does not say the 1.0 host is told:\n%s", ansi.Strip(d.m.Render()))
		}
	}
	d.keys("x", "y")
	d.until("forgotten", func() bool { return strings.HasPrefix(d.m.signin.list.note, "forgot") })
	if !strings.Contains(d.m.signin.list.note, "revoked at") || !strings.Contains(d.m.signin.list.note, wantNote) {
		t.Errorf("note %q, want it to say %q", d.m.signin.list.note, wantNote)
	}
	if len(auth.Grants()) != 0 || len(d.m.signin.list.grants) != 0 {
		t.Errorf("the grant is still saved or listed")
	}
	if in, err := rig.as.Introspect(rig.ctx, token); err != nil || in.Active {
		t.Errorf("the authorization server still accepts the forgotten token: %+v, %v", in, err)
	}
	if n := countAuthenticates(d) - before; n != wantAuths {
		t.Errorf("%d authenticate calls went to the host (AHP %s) on forget, want %d", n, d.m.client.ProtocolVersion(), wantAuths)
	}
	d.keys("esc")
	if d.m.signin.list.open {
		t.Error("esc did not close the sheet")
	}
	// The client re-pushes its tokens after every reconnect
	// (protocol/client TestForgottenTokenNotRepushed); the forgotten one
	// must have been dropped from it.
	d.rec.mu.Lock()
	forgot := slices.Clone(d.rec.forgot)
	d.rec.mu.Unlock()
	if !slices.Equal(forgot, []string{res}) {
		t.Errorf("the client was told to forget %q, want [%s]", forgot, res)
	}
}

func TestHostRevokesOnEmptyToken(t *testing.T) {
	// The wire decides, not the major number: 0.9.x and VS Code's 0.10.x
	// are the 1.0 wire.
	for v, want := range map[string]bool{"0.6.0": false, "0.9.1": true, "0.10.0": true, "1.0.0": true, "1.2.0": true} {
		if got := hostRevokesOnEmptyToken(&stubClient{version: v}); got != want {
			t.Errorf("hostRevokesOnEmptyToken(%q) = %v, want %v", v, got, want)
		}
	}
}

// privateAS answers the first Start with a ServerConfirmation and records
// what every Start asked.
type privateAS struct{ confirmed []string }

func (p *privateAS) Start(_ context.Context, r authpkce.GrantRequest) (*authpkce.Grant, error) {
	p.confirmed = append(p.confirmed, strings.Join(r.ConfirmedServers, ","))
	if len(r.ConfirmedServers) == 0 {
		return nil, &authpkce.ServerConfirmation{Host: "auth.lan:8443", Addr: netip.MustParseAddr("192.168.1.20")}
	}
	return nil, errors.New("fake: stop here")
}

// TestPrivateServerAsks: an authorization server on a private address is
// not signed in at until the user says yes to a question naming it; no
// ends there, yes starts again with the server confirmed.
func TestPrivateServerAsks(t *testing.T) {
	for _, tc := range []struct {
		answer string
		want   []string
	}{{"n", []string{""}}, {"y", []string{"", "auth.lan:8443"}}} {
		m := fxModel(fxChatState(fxAuthPart()))
		fake := &privateAS{}
		m.cfg.Auth = fake
		runAll(m, m.signin.startGrant(fxDeployAuth()))
		a, ok := m.signin.pendingAsk()
		if !ok || !strings.Contains(a.view.Question, "auth.lan:8443 (192.168.1.20)") {
			t.Fatalf("no question naming the server: %+v", a.view)
		}
		if !screenHas(m, "Sign in to "+fxDeploy+" at auth.lan:8443") {
			t.Errorf("the question is not on screen:\n%s", ansi.Strip(m.Render()))
		}
		withStepClock(m).skip(2 * answerDelay) // past the question's first second
		_, cmd := m.Update(press(tc.answer))
		runAll(m, cmd)
		if strings.Join(fake.confirmed, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%s: Start asked with ConfirmedServers %q, want %q", tc.answer, fake.confirmed, tc.want)
		}
	}
}

// The copy key says what it did without claiming a copy it cannot know.
func TestCopyKeyIsHonest(t *testing.T) {
	d := newDriver(t, newAuth(t))
	_, g := startGitHubSignIn(d)
	d.keys("u")
	d.until("the copy key reports", func() bool { return d.m.status.text != "" })
	if !strings.Contains(d.m.status.text, "OSC 52") || strings.Contains(d.m.status.text, "copied to") {
		t.Errorf("status after u: %q", d.m.status.text)
	}
	if u, err := url.Parse(g.url); err != nil || !strings.Contains(overlayText(d.m), u.Query().Get("state")) {
		t.Errorf("the URL is not whole in the sheet")
	}
}
