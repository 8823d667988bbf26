package authpkce

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"
)

const testResource = "https://mcp.example.test/mcp"

func requirementFor(h *hydraServer, reason Reason, oc *Client, required ...string) Requirement {
	return Requirement{
		Reason: reason,
		Resource: ProtectedResourceMetadata{
			Resource:             testResource,
			ResourceName:         new("Example MCP"),
			AuthorizationServers: []string{h.issuer},
			ScopesSupported:      []string{"files:read", "files:write"},
		},
		RequiredScopes: required,
		OAuthClient:    oc,
	}
}

func grantReq(r Requirement) GrantRequest {
	return GrantRequest{Requirement: r, Advertised: []string{"https://other.example.test", testResource}}
}

type testEnv struct {
	auth *Authenticator
	rec  *recorder
	dir  string
}

func newTestEnv(t *testing.T, dir string, open func(string) error, timeout time.Duration) *testEnv {
	t.Helper()
	rec, hc := newRecorder()
	t.Cleanup(rec.close)
	if dir == "" {
		dir = filepath.Join(t.TempDir(), "config", "ahptui")
	}
	a, err := New(Config{Dir: dir, HTTPClient: hc, OpenBrowser: open, Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	return &testEnv{auth: a, rec: rec, dir: dir}
}

func noBrowser(t *testing.T) func(string) error {
	return func(u string) error {
		t.Errorf("the browser was opened, but the grant should have been silent: %s", u)
		return errors.New("unexpected")
	}
}

func formOf(t *testing.T, body string) url.Values {
	t.Helper()
	v, err := url.ParseQuery(body)
	if err != nil {
		t.Fatalf("request body is not a form: %v", err)
	}
	return v
}

// getPage fetches a loopback page as a browser would.
func getPage(t *testing.T, u string) (int, string) {
	t.Helper()
	c := &http.Client{Timeout: 10 * time.Second}
	defer c.CloseIdleConnections()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestHydraPublicClientPKCE(t *testing.T) {
	h := needHydra(t)
	oc := h.createClient(t, true, "files:read files:write offline_access")
	if oc.ClientSecret != "" {
		t.Fatal("hydra gave the public client a secret")
	}
	browser := newStandIn(t)
	browser.stopAtCallback = true // the test takes the last hop itself
	env := newTestEnv(t, "", browser.Open, time.Minute)

	g, err := env.auth.Start(context.Background(), grantReq(requirementFor(h, ReasonRequired, &oc, "files:read")))
	if err != nil {
		t.Fatal(err)
	}

	// The loopback listener: 127.0.0.1, an ephemeral port, /callback exactly.
	ru, err := url.Parse(g.RedirectURI())
	if err != nil {
		t.Fatal(err)
	}
	if ru.Scheme != "http" || ru.Hostname() != "127.0.0.1" || ru.Port() == "" || ru.Port() == "0" || ru.Path != "/callback" {
		t.Fatalf("redirect URI = %q, want http://127.0.0.1:PORT/callback", g.RedirectURI())
	}
	if dialRefused(g.RedirectURI()) {
		t.Fatal("nothing listens at the redirect URI during the flow")
	}

	// The authorization request, as the browser received it.
	visit := browser.wait()
	if visit.err != nil {
		t.Fatalf("stand-in browser: %v", visit.err)
	}
	if visit.authURL != g.URL() {
		t.Errorf("browser got %q, Grant.URL is %q", visit.authURL, g.URL())
	}
	au, _ := url.Parse(visit.authURL)
	q := au.Query()
	for k, want := range map[string]string{
		"response_type":         "code",
		"client_id":             oc.ClientID,
		"redirect_uri":          g.RedirectURI(),
		"code_challenge_method": "S256",
		"resource":              testResource,
		"scope":                 "files:read",
	} {
		if got := q.Get(k); got != want {
			t.Errorf("authorization request %s = %q, want %q", k, got, want)
		}
	}
	if len(q.Get("code_challenge")) != 43 {
		t.Errorf("code_challenge %q is not a base64url SHA-256", q.Get("code_challenge"))
	}
	if len(q.Get("state")) < 20 {
		t.Errorf("state %q is too short to be unguessable", q.Get("state"))
	}
	if !strings.HasPrefix(visit.authURL, h.public+"/oauth2/auth?") {
		t.Errorf("authorization URL %q is not hydra's authorization endpoint", visit.authURL)
	}

	// hydra sent the browser back with our state.
	cb, err := url.Parse(visit.callback)
	if err != nil || visit.callback == "" {
		t.Fatalf("the browser never reached the callback (%q)", visit.callback)
	}
	if cb.Query().Get("state") != q.Get("state") || cb.Query().Get("code") == "" {
		t.Fatalf("callback %q lacks the state or the code", visit.callback)
	}

	// A request to another path is not the callback and does not end the flow.
	other := *ru
	other.Path = "/favicon.ico"
	if code, _ := getPage(t, other.String()); code != http.StatusNotFound {
		t.Errorf("GET %s = %d, want 404", other.Path, code)
	}
	select {
	case <-g.Done():
		t.Fatal("a request to another path ended the flow")
	default:
	}

	code, body := getPage(t, visit.callback)
	if code != http.StatusOK || !strings.Contains(body, "return to the terminal") {
		t.Errorf("callback page: %d %q", code, body)
	}
	res, err := waitDone(t, g)
	if err != nil {
		t.Fatal(err)
	}
	if res.Source != SourceBrowser || res.Resource != testResource || res.AccessToken == "" {
		t.Fatalf("result = %v", res)
	}
	if !slices.Contains(res.Scopes, "files:read") {
		t.Errorf("granted scopes %q lack files:read", res.Scopes)
	}
	if active, scope := h.introspect(t, res.AccessToken); !active || !strings.Contains(scope, "files:read") {
		t.Errorf("hydra says the token is active=%v scope=%q", active, scope)
	}

	// The token request: PKCE verifier matching the challenge, the resource,
	// a public client (no secret anywhere).
	treqs := env.rec.find("/oauth2/token")
	if len(treqs) != 1 {
		t.Fatalf("%d token requests, want 1", len(treqs))
	}
	f := formOf(t, treqs[0].body)
	if f.Get("grant_type") != "authorization_code" || f.Get("resource") != testResource || f.Get("client_id") != oc.ClientID {
		t.Errorf("token request form %v lacks grant_type/resource/client_id", f)
	}
	if oauth2.S256ChallengeFromVerifier(f.Get("code_verifier")) != q.Get("code_challenge") {
		t.Error("the token request's code_verifier does not match the code_challenge")
	}
	if f.Has("client_secret") || treqs[0].header.Get("Authorization") != "" {
		t.Error("a public client sent a client secret")
	}

	// RFC 8414 first, then the OpenID Connect fallback hydra answers.
	if n := len(env.rec.find("/.well-known/oauth-authorization-server")); n != 1 {
		t.Errorf("%d RFC 8414 metadata requests, want 1", n)
	}
	if n := len(env.rec.find("/.well-known/openid-configuration")); n != 1 {
		t.Errorf("%d OIDC discovery requests, want 1", n)
	}

	// The listener is closed once the grant is done.
	if !dialRefused(g.RedirectURI()) {
		t.Error("the loopback listener is still open after the grant")
	}

	// The token file: 0600 in a 0700 directory.
	st, err := os.Stat(filepath.Join(env.dir, storeFileName))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v, want 0600", st.Mode().Perm())
	}
	if dst, _ := os.Stat(env.dir); dst.Mode().Perm() != 0o700 {
		t.Errorf("token dir mode %v, want 0700", dst.Mode().Perm())
	}

	// A cached token that covers the scopes is reused without a browser.
	g2, err := env.auth.Start(context.Background(), grantReq(requirementFor(h, ReasonRequired, &oc, "files:read")))
	if err != nil {
		t.Fatal(err)
	}
	res2, err := g2.Result()
	if err != nil || res2.Source != SourceCache || res2.AccessToken != res.AccessToken || g2.URL() != "" {
		t.Fatalf("second grant = %v, %v; want the cached token", res2, err)
	}
	if u := <-browser.opened; u != g.URL() {
		t.Errorf("the browser was opened at %q, not the grant's URL", u)
	}
	if len(browser.opened) != 0 {
		t.Error("the cached grant opened the browser")
	}

	toks := env.auth.Tokens()
	if len(toks) != 1 || toks[0].Resource != testResource || toks[0].AccessToken != res.AccessToken {
		t.Errorf("Tokens() = %v", toks)
	}
	checkNoLeaks(t)
}

// dcrGrant signs in through dynamic client registration with a stand-in
// browser that goes all the way.
func dcrGrant(t *testing.T, h *hydraServer, env *testEnv, browser *standIn, r Requirement) (*Grant, Result) {
	t.Helper()
	g, err := env.auth.Start(context.Background(), grantReq(r))
	if err != nil {
		t.Fatal(err)
	}
	v := browser.wait()
	if v.err != nil || v.status != http.StatusOK {
		t.Fatalf("stand-in browser: %v, HTTP %d %s", v.err, v.status, v.body)
	}
	res, err := waitDone(t, g)
	if err != nil {
		t.Fatal(err)
	}
	return g, res
}

func TestHydraDynamicRegistration(t *testing.T) {
	h := needHydra(t)
	browser := newStandIn(t)
	env := newTestEnv(t, "", browser.Open, time.Minute)

	g, res := dcrGrant(t, h, env, browser, requirementFor(h, ReasonRequired, nil))
	regs := env.rec.find("/oauth2/register")
	if len(regs) != 1 {
		t.Fatalf("%d registration requests, want 1", len(regs))
	}
	for _, want := range []string{`"redirect_uris":["` + g.RedirectURI() + `"]`, `"token_endpoint_auth_method":"none"`, `"authorization_code"`} {
		if !strings.Contains(regs[0].body, want) {
			t.Errorf("registration request %s lacks %s", regs[0].body, want)
		}
	}
	if res.ClientID == "" || !slices.Contains(res.Scopes, "files:read") || !slices.Contains(res.Scopes, "files:write") {
		t.Errorf("result = %v; want scopes_supported granted to the registered client", res)
	}

	// Step-up with a new Authenticator on the same directory: the
	// registration is remembered (no second registration), the browser is
	// asked even though a token is cached, and the new port works with the
	// registered loopback redirect (RFC 8252 §7.3).
	browser2 := newStandIn(t)
	env2 := newTestEnv(t, env.dir, browser2.Open, time.Minute)
	g2, res2 := dcrGrant(t, h, env2, browser2, requirementFor(h, ReasonInsufficientScope, nil, "files:write"))
	if n := len(env2.rec.find("/oauth2/register")); n != 0 {
		t.Errorf("%d registration requests on the second grant, want 0", n)
	}
	if res2.Source != SourceBrowser || res2.ClientID != res.ClientID {
		t.Errorf("step-up result = %v, want a browser grant for client %s", res2, res.ClientID)
	}
	if q, _ := url.Parse(g2.URL()); q.Query().Get("scope") != "files:write offline_access" {
		t.Errorf("step-up asked for scope %q", q.Query().Get("scope"))
	}
	checkNoLeaks(t)
}

func TestHydraRefresh(t *testing.T) {
	h := needHydra(t)
	browser := newStandIn(t)
	env := newTestEnv(t, "", browser.Open, time.Minute)
	_, first := dcrGrant(t, h, env, browser, requirementFor(h, ReasonRequired, nil, "files:read"))
	if tok, ok := env.auth.store.token(tokenKey{Issuer: h.issuer, Resource: testResource, ClientID: first.ClientID}); !ok || tok.RefreshToken == "" {
		t.Fatal("no refresh token stored; offline_access was not granted")
	}

	// `expired` must not hand back the cached token, and must not open the
	// browser when the refresh token works.
	env2 := newTestEnv(t, env.dir, noBrowser(t), time.Minute)
	g, err := env2.auth.Start(context.Background(), grantReq(requirementFor(h, ReasonExpired, nil, "files:read")))
	if err != nil {
		t.Fatal(err)
	}
	res, err := g.Result()
	if err != nil {
		t.Fatal(err)
	}
	if res.Source != SourceRefresh || res.AccessToken == first.AccessToken || g.URL() != "" {
		t.Fatalf("expired grant = %v, want a refreshed token", res)
	}
	if active, _ := h.introspect(t, res.AccessToken); !active {
		t.Error("hydra says the refreshed token is not active")
	}
	reqs := env2.rec.find("/oauth2/token")
	if len(reqs) != 1 {
		t.Fatalf("%d token requests, want 1", len(reqs))
	}
	f := formOf(t, reqs[0].body)
	if f.Get("grant_type") != "refresh_token" || f.Get("resource") != testResource || f.Get("refresh_token") == "" {
		t.Errorf("refresh request form lacks grant_type/resource/refresh_token: keys %v", slices.Collect(mapsKeys(f)))
	}
	if toks := env2.auth.Tokens(); len(toks) != 1 || toks[0].AccessToken != res.AccessToken {
		t.Errorf("Tokens() after refresh = %v", toks)
	}

	// A revoked refresh token: the silent refresh fails, the dead token is
	// dropped and the browser is asked instead.
	key := tokenKey{Issuer: h.issuer, Resource: testResource, ClientID: first.ClientID}
	stored, _ := env2.auth.store.token(key)
	resp, err := http.PostForm(h.public+"/oauth2/revoke", url.Values{"token": {stored.RefreshToken}, "client_id": {first.ClientID}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("revoking the refresh token: HTTP %d", resp.StatusCode)
	}
	browser3 := newStandIn(t)
	env3 := newTestEnv(t, env.dir, browser3.Open, time.Minute)
	var shown string
	res3, err := env3.auth.Authenticate(context.Background(), grantReq(requirementFor(h, ReasonExpired, nil, "files:read")),
		func(u string) { shown = u })
	if err != nil {
		t.Fatal(err)
	}
	if v := browser3.wait(); v.authURL != shown || shown == "" {
		t.Errorf("onURL got %q, the browser %q", shown, v.authURL)
	}
	if res3.Source != SourceBrowser || res3.AccessToken == res.AccessToken {
		t.Errorf("after a dead refresh token: %v, want a fresh browser grant", res3)
	}
	if n := len(env3.rec.find("/oauth2/token")); n != 2 {
		t.Errorf("%d token requests, want the failed refresh and the code exchange", n)
	}
	checkNoLeaks(t)
}

func mapsKeys(v url.Values) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range v {
			if !yield(k) {
				return
			}
		}
	}
}

func TestHydraConfidentialClient(t *testing.T) {
	h := needHydra(t)
	oc := h.createClient(t, false, "files:read")
	if oc.ClientSecret == "" {
		t.Fatal("hydra gave the confidential client no secret")
	}
	t.Run("right secret", func(t *testing.T) {
		browser := newStandIn(t)
		// The opener reports failure (no display), yet the user opened the
		// URL by hand: the flow must not have given up.
		browser.openErr = errors.New("no display")
		env := newTestEnv(t, "", browser.Open, time.Minute)
		g, res := dcrGrant(t, h, env, browser, requirementFor(h, ReasonRequired, &oc, "files:read"))
		checkNoLeaks(t) // the opener goroutine has finished: its error is recorded
		if g.BrowserErr() == nil || !strings.Contains(g.BrowserErr().Error(), "no display") {
			t.Errorf("BrowserErr = %v", g.BrowserErr())
		}
		if res.ClientID != oc.ClientID {
			t.Errorf("client %q, want %q", res.ClientID, oc.ClientID)
		}
		reqs := env.rec.find("/oauth2/token")
		if len(reqs) != 1 || !strings.HasPrefix(reqs[0].header.Get("Authorization"), "Basic ") {
			t.Error("the confidential client did not authenticate with client_secret_basic")
		}
		if len(env.rec.find("/oauth2/register")) != 0 {
			t.Error("a pre-registered client was registered dynamically")
		}
	})
	t.Run("token endpoint refuses", func(t *testing.T) {
		bad := Client{ClientID: oc.ClientID, ClientSecret: "not-the-secret-" + oc.ClientSecret[:4]}
		browser := newStandIn(t)
		env := newTestEnv(t, "", browser.Open, time.Minute)
		g, err := env.auth.Start(context.Background(), grantReq(requirementFor(h, ReasonRequired, &bad, "files:read")))
		if err != nil {
			t.Fatal(err)
		}
		v := browser.wait()
		_, err = waitDone(t, g)
		if !errors.Is(err, ErrTokenEndpoint) || !strings.Contains(err.Error(), "invalid_client") {
			t.Fatalf("err = %v, want ErrTokenEndpoint naming invalid_client", err)
		}
		if strings.Contains(err.Error(), bad.ClientSecret) {
			t.Error("the error quotes the client secret")
		}
		if v.status != http.StatusBadRequest || !strings.Contains(v.body, "Sign-in failed") {
			t.Errorf("callback page: %d %q", v.status, v.body)
		}
		if !dialRefused(g.RedirectURI()) {
			t.Error("listener still open")
		}
		if len(env.auth.Tokens()) != 0 {
			t.Error("a failed grant left a token")
		}
		checkNoLeaks(t)
	})
}

func TestHydraStateMismatch(t *testing.T) {
	h := needHydra(t)
	oc := h.createClient(t, true, "files:read")
	browser := newStandIn(t)
	browser.stopAtCallback = true
	env := newTestEnv(t, "", browser.Open, time.Minute)
	g, err := env.auth.Start(context.Background(), grantReq(requirementFor(h, ReasonRequired, &oc, "files:read")))
	if err != nil {
		t.Fatal(err)
	}
	v := browser.wait()
	genuine, err := url.Parse(v.callback)
	if err != nil || v.callback == "" {
		t.Fatalf("no callback: %v", v.err)
	}
	forged := *genuine
	q := forged.Query()
	q.Set("state", "forged-"+q.Get("state"))
	forged.RawQuery = q.Encode()

	code, body := getPage(t, forged.String())
	if code != http.StatusBadRequest || !strings.Contains(body, "does not belong") {
		t.Errorf("forged callback page: %d %q", code, body)
	}
	if len(env.rec.find("/oauth2/token")) != 0 {
		t.Error("a code was exchanged for a callback with a forged state")
	}
	// The forged callback did not end the sign-in: the genuine one does.
	if code, body := getPage(t, genuine.String()); code != http.StatusOK {
		t.Fatalf("genuine callback after a forged one: %d %q", code, body)
	}
	if _, err = waitDone(t, g); err != nil {
		t.Fatalf("sign-in after a forged callback: %v", err)
	}
	if !dialRefused(genuine.String()) {
		t.Error("the listener still accepts callbacks after the sign-in")
	}
	checkNoLeaks(t)
}

func TestHydraAccessDenied(t *testing.T) {
	h := needHydra(t)
	oc := h.createClient(t, true, "files:read")
	h.deny(oc.ClientID)
	browser := newStandIn(t)
	env := newTestEnv(t, "", browser.Open, time.Minute)
	g, err := env.auth.Start(context.Background(), grantReq(requirementFor(h, ReasonRequired, &oc, "files:read")))
	if err != nil {
		t.Fatal(err)
	}
	v := browser.wait()
	_, err = waitDone(t, g)
	if !errors.Is(err, ErrAccessDenied) {
		t.Fatalf("err = %v, want ErrAccessDenied", err)
	}
	if !strings.Contains(v.callback, "error=access_denied") {
		t.Errorf("hydra's callback %q does not carry error=access_denied", v.callback)
	}
	if v.status != http.StatusBadRequest || !strings.Contains(v.body, "denied") {
		t.Errorf("callback page: %d %q", v.status, v.body)
	}
	// The description came from the authorization server with markup in it.
	if strings.Contains(v.body, "<b>refused") || !strings.Contains(v.body, "&lt;b&gt;refused") {
		t.Errorf("callback page does not escape the server's description: %q", v.body)
	}
	if !dialRefused(g.RedirectURI()) {
		t.Error("listener still open")
	}
	checkNoLeaks(t)
}

func TestHydraTimeoutAndCancel(t *testing.T) {
	h := needHydra(t)
	oc := h.createClient(t, true, "files:read")
	// A user who never comes back: the opener shows nothing.
	opened := make(chan string, 1)
	lost := func(u string) error { opened <- u; return errors.New("no browser on this machine") }

	t.Run("timeout", func(t *testing.T) {
		env := newTestEnv(t, "", lost, 300*time.Millisecond)
		g, err := env.auth.Start(context.Background(), grantReq(requirementFor(h, ReasonRequired, &oc)))
		if err != nil {
			t.Fatal(err)
		}
		if u := <-opened; u != g.URL() || u == "" {
			t.Errorf("opener got %q, Grant.URL %q", u, g.URL())
		}
		_, err = waitDone(t, g)
		if !errors.Is(err, ErrTimeout) {
			t.Fatalf("err = %v, want ErrTimeout", err)
		}
		if !dialRefused(g.RedirectURI()) {
			t.Error("listener still open after the timeout")
		}
		checkNoLeaks(t) // the opener's goroutine is gone, so its error is recorded
		if g.BrowserErr() == nil {
			t.Error("the opener's failure was not reported")
		}
	})
	t.Run("cancel", func(t *testing.T) {
		env := newTestEnv(t, "", lost, time.Minute)
		g, err := env.auth.Start(context.Background(), grantReq(requirementFor(h, ReasonRequired, &oc)))
		if err != nil {
			t.Fatal(err)
		}
		<-opened
		g.Cancel()
		_, err = waitDone(t, g)
		if !errors.Is(err, ErrCanceled) {
			t.Fatalf("err = %v, want ErrCanceled", err)
		}
		g.Cancel() // harmless afterwards
		if !dialRefused(g.RedirectURI()) {
			t.Error("listener still open after cancel")
		}
		checkNoLeaks(t)
	})
	t.Run("context", func(t *testing.T) {
		env := newTestEnv(t, "", lost, time.Minute)
		ctx, cancel := context.WithCancel(context.Background())
		g, err := env.auth.Start(ctx, grantReq(requirementFor(h, ReasonRequired, &oc)))
		if err != nil {
			t.Fatal(err)
		}
		<-opened
		cancel()
		if _, err = waitDone(t, g); !errors.Is(err, ErrCanceled) {
			t.Fatalf("err = %v, want ErrCanceled", err)
		}
		checkNoLeaks(t)
	})
}

// A client id the user configured for an authorization server
// (--oauth-client) serves a host that names no oauthClient: the flow
// uses it and registers nothing (a server such as GitHub's offers no
// registration, so this is the only way there).
func TestHydraConfiguredClient(t *testing.T) {
	h := needHydra(t)
	oc := h.createClient(t, true, "files:read files:write offline_access")
	browser := newStandIn(t)
	rec, hc := newRecorder()
	t.Cleanup(rec.close)
	a, err := New(Config{Dir: filepath.Join(t.TempDir(), "ahptui"), HTTPClient: hc, OpenBrowser: browser.Open,
		Timeout: time.Minute, Clients: map[string]string{h.issuer + "/": oc.ClientID}})
	if err != nil {
		t.Fatal(err)
	}
	g, err := a.Start(context.Background(), grantReq(requirementFor(h, ReasonRequired, nil, "files:read")))
	if err != nil {
		t.Fatal(err)
	}
	if v := browser.wait(); v.err != nil || v.status != http.StatusOK {
		t.Fatalf("stand-in browser: %v, HTTP %d %s", v.err, v.status, v.body)
	}
	res, err := waitDone(t, g)
	if err != nil {
		t.Fatal(err)
	}
	if q, _ := url.Parse(g.URL()); q.Query().Get("client_id") != oc.ClientID {
		t.Errorf("authorization URL names client %q, want the configured %q", q.Query().Get("client_id"), oc.ClientID)
	}
	if n := len(rec.find("/oauth2/register")); n != 0 {
		t.Errorf("%d registration requests with a configured client, want 0", n)
	}
	if res.ClientID != oc.ClientID || res.Source != SourceBrowser {
		t.Errorf("result = %+v, want a browser grant for the configured client", res)
	}

	for _, bad := range []map[string]string{{"http://example.com": "x"}, {h.issuer: ""}, {"not a url": "x"}} {
		if _, err := New(Config{Dir: t.TempDir(), Clients: bad}); !errors.Is(err, ErrInvalidRequirement) {
			t.Errorf("Clients %v: err = %v, want ErrInvalidRequirement", bad, err)
		}
	}
}
