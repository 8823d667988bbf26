package ui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/authpkce"
	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/demohost/authserver"
	"github.com/ahptui/ahptui/protocol"
)

// TestSavedTokenSignsInAgain plays a returning user: the first run signs in
// to GitHub through the (headless) browser and authpkce saves the token in
// a directory; the host restarts on the same address with the same
// authorization server; a second model with a fresh client and a fresh
// Authenticator on the same directory gets GitHub ready with no browser and
// no prompt, and says so on the status line.
//
// It runs with one host, and again with two more demo hosts in the same
// model advertising the same resources with the same issuer: the token
// goes to its own host only.
func TestSavedTokenSignsInAgain(t *testing.T) {
	for _, extra := range []int{0, 2} {
		t.Run(fmt.Sprintf("%d-more-hosts", extra), func(t *testing.T) { savedTokenSignsInAgain(t, extra) })
	}
}

func savedTokenSignsInAgain(t *testing.T, extra int) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	as, err := authserver.Start(ctx, authserver.Config{})
	if err != nil {
		t.Fatalf("authserver: %v", err)
	}
	t.Cleanup(func() { _ = as.Close() })
	dir := t.TempDir()
	newAuthIn := func(browser func(string) error) *authpkce.Authenticator {
		a, err := authpkce.New(authpkce.Config{Dir: dir, Timeout: 20 * time.Second, OpenBrowser: browser})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}

	// First run: sign in through the browser.
	host1, err := demohost.Start(ctx, demohost.Config{StepDelay: -1, Auth: as})
	if err != nil {
		t.Fatalf("demohost: %v", err)
	}
	auth1 := newAuthIn(func(string) error { return errors.New("--no-browser") })
	d1 := newDriverAmong(t, host1, host1.URL(), auth1, true, extra)
	d1.openDemo()
	d1.until("GitHub asks for sign-in", func() bool { r, ok := githubRowOf(d1); return ok && r.StateKind == "authRequired" })
	if got := auth1.Tokens(); len(got) != 0 {
		t.Fatalf("fresh token dir holds %d tokens", len(got))
	}
	res, g := selectGitHubAndSignIn(d1)
	approveInBrowser(t, g.url)
	d1.until("GitHub ready after the browser sign-in", func() bool { r, ok := githubRowOf(d1); return ok && r.StateKind == "ready" })
	d1.grantsStayHome()
	saved := false
	for _, tok := range auth1.Tokens() {
		saved = saved || tok.Resource == res
	}
	if !saved {
		t.Fatalf("no token saved for %s", res)
	}
	d1.stop()
	addr := strings.TrimSuffix(strings.TrimPrefix(host1.URL(), "ws://"), "/")
	if err := host1.Close(); err != nil {
		t.Fatalf("close host: %v", err)
	}

	// Second run: same host address and authorization server, same token
	// directory, new everything else. No browser may open.
	host2, err := demohost.Start(ctx, demohost.Config{StepDelay: -1, Auth: as, Addr: addr})
	if err != nil {
		t.Fatalf("restart demohost on %s: %v", addr, err)
	}
	t.Cleanup(func() { _ = host2.Close() })
	var browserOpened sync.Once
	auth2 := newAuthIn(func(string) error {
		browserOpened.Do(func() { t.Error("the second run opened a browser") })
		return errors.New("--no-browser")
	})
	d2 := newDriverAmong(t, host2, host2.URL(), auth2, true, extra)
	d2.until("GitHub ready with the saved token", func() bool {
		r, ok := githubRowOf(d2)
		return d2.m.hasSess && ok && r.StateKind == "ready" && d2.m.status.text != ""
	})
	if !strings.Contains(d2.m.status.text, "signed in to "+res+" with a saved token") || d2.m.status.isErr {
		t.Fatalf("status %q, want it to say a saved token signed in", d2.m.status.text)
	}
	if len(d2.m.signin.grants) != 0 || len(d2.m.signin.prompts) != 0 {
		t.Fatalf("the second run started a grant or a prompt: grants %v, prompts %v", d2.m.signin.grants, d2.m.signin.prompts)
	}
	if countAuthenticates(d2) == 0 {
		t.Fatal("the saved token was not pushed to its own host")
	}
	d2.grantsStayHome()
}

// fakeSaved is an Authenticator whose Lookup answers from a table and
// records what it was asked; authpkce's own tests cover the policy.
type fakeSaved struct {
	matches map[string]authpkce.Match // by resource
	asked   []string                  // host|resource|issuer|scopes
}

func (f *fakeSaved) Start(context.Context, authpkce.GrantRequest) (*authpkce.Grant, error) {
	return nil, errors.New("fake: no flows")
}

func (f *fakeSaved) Lookup(host string, w authpkce.Want) authpkce.Match {
	f.asked = append(f.asked, host+"|"+w.Resource+"|"+w.Issuer+"|"+strings.Join(w.Scopes, " "))
	return f.matches[w.Resource]
}

// authRecorder is the stub client recording every authenticate.
type authRecorder struct {
	*stubClient
	mu     sync.Mutex
	pushed []string // resource|token
}

func (a *authRecorder) Authenticate(_ context.Context, resource, token string, _ []string, _ time.Time) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.pushed = append(a.pushed, resource+"|"+token)
	return nil
}

// runAll runs a command and every command its batches hold, feeding the
// messages back to the model.
func runAll(m *Model, cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	switch msg := cmd().(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			runAll(m, c)
		}
	case nil:
	default:
		_, next := m.Update(msg)
		runAll(m, next)
	}
}

// TestPushSavedTokensFollowsLookup: a saved token is pushed only when
// authpkce.Lookup says silent, never on ask or never; Lookup is asked with
// this host, the issuer the host names and the required scopes; only for
// advertised resources; once per connection.
func TestPushSavedTokensFollowsLookup(t *testing.T) {
	agentRes := "http://127.0.0.1:4000/agent"
	silent := func(tok string) authpkce.Match {
		return authpkce.Match{Decision: authpkce.DecisionSilent, Token: authpkce.CachedToken{AccessToken: tok, Scopes: []string{"mcp:read"}}}
	}
	for _, tc := range []struct {
		name    string
		matches map[string]authpkce.Match
		agent   bool // root advertises agentRes as a protectedResource
		want    []string
		status  string
	}{
		{"silent", map[string]authpkce.Match{fxGitHub: silent("gh")}, false, []string{fxGitHub + "|gh"}, "with a saved token"},
		{"ask", map[string]authpkce.Match{fxGitHub: {Decision: authpkce.DecisionAsk, Token: authpkce.CachedToken{Host: "ws://elsewhere:1", AccessToken: "gh"}}}, false, nil, ""},
		{"never", map[string]authpkce.Match{fxGitHub: {Decision: authpkce.DecisionNever}}, false, nil, ""},
		{"none", nil, false, nil, ""},
		{"not advertised by this host", map[string]authpkce.Match{agentRes: silent("ag")}, false, nil, ""},
		{"agent protected resource", map[string]authpkce.Match{agentRes: silent("ag")}, true, []string{agentRes + "|ag"}, "with a saved token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := fxModel(fxChatState())
			m.cfg.RegistryHost = true // the plain ws:// question has its own test
			fake := &fakeSaved{matches: tc.matches}
			m.cfg.Auth = fake
			rec := &authRecorder{stubClient: m.client.(*stubClient)}
			m.client = rec
			if tc.agent {
				m.root.Agents[0].ProtectedResources = []protocol.ProtectedResourceMetadata{{Resource: agentRes}}
			}
			runAll(m, m.signin.pushSavedTokens())
			runAll(m, m.signin.pushSavedTokens()) // once per connection
			if strings.Join(rec.pushed, ",") != strings.Join(tc.want, ",") {
				t.Fatalf("pushed %v, want %v", rec.pushed, tc.want)
			}
			if _, asked := m.signin.pendingAsk(); asked != (tc.name == "ask") {
				t.Fatalf("a question is pending = %v on %s", asked, tc.name)
			}
			if tc.status != "" && !strings.Contains(m.status.text, tc.status) {
				t.Fatalf("status %q, want it to contain %q", m.status.text, tc.status)
			}
			if !tc.agent && !slices.Contains(fake.asked, m.cfg.Host+"|"+fxGitHub+"|http://127.0.0.1:4001|mcp:read") {
				t.Fatalf("Lookup asked %q, want host, issuer and scopes of the GitHub row", fake.asked)
			}
		})
	}
}

// stateChanged acts on what concerns sign-in and nothing else: an
// auth-required tool call appearing in the running turn gets its saved
// token pushed, and streamed chunks around it (a new running turn with
// the same parts) push nothing. BenchmarkStreamDelta holds the cost of
// the chunks that do not concern it.
func TestSavedTokensOnAuthChanges(t *testing.T) {
	m := fxModel(calmChat())
	m.cfg.RegistryHost = true // the plain ws:// question has its own test
	m.cfg.Auth = &fakeSaved{matches: map[string]authpkce.Match{fxDeploy: {Decision: authpkce.DecisionSilent,
		Token: authpkce.CachedToken{Resource: fxDeploy, AccessToken: "dep", Scopes: []string{"tools:deploy"}}}}}
	rec := &authRecorder{stubClient: m.client.(*stubClient)}
	m.client = rec
	runAll(m, m.signin.stateChanged()) // the first look: the session's servers
	chunk := func() {
		at := *m.chat.ActiveTurn
		m.chat.ActiveTurn = &at
	}
	chunk()
	if cmd := m.signin.stateChanged(); cmd != nil {
		t.Fatal("a streamed chunk had sign-in work to do")
	}
	m.chat = withBlocker(m.chat, fxAuthPart())
	runAll(m, m.signin.stateChanged())
	if got := strings.Join(rec.pushed, ","); got != fxDeploy+"|dep" {
		t.Fatalf("pushed %q, want the deploy token once the call asks for it", got)
	}
	chunk()
	if cmd := m.signin.stateChanged(); cmd != nil {
		t.Fatal("a chunk after the auth-required call had sign-in work to do")
	}
}

// TestSignInAdvice: authpkce's errors say what happened; the advice the
// status line adds comes from the sentinel they wrap.
func TestSignInAdvice(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("grant: %w", authpkce.ErrTimeout), "start the sign-in again"},
		{fmt.Errorf("loopback: %w", authpkce.ErrCallbackPort), "--callback-port"},
		{&authpkce.ServerConfirmation{Host: "10.0.0.1"}, ""},
		{errors.New("something else"), ""},
	} {
		got := signInAdvice(tc.err)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("signInAdvice(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}
