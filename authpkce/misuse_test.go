package authpkce

// OAuth misuse: what a hostile host, a hostile web page or a confused
// authorization server can try against the loopback flow, played against
// the real demo authorization server (demohost/authserver),
// which needs no external binary. Every refusal must carry a message that
// says what happened.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ahptui/ahptui/demohost/authserver"
)

const (
	misuseResource      = "https://mcp.example/github"
	misuseOtherResource = "https://mcp.example/deploy"
	// misuseWait bounds every wait in these tests; a flow that should
	// complete does so in well under a second on loopback.
	misuseWait = 20 * time.Second
)

// spyRequest is one request the authenticator's HTTP client sent.
type spyRequest struct {
	Method, Host, Path, Query, Authorization, Body string
}

// spyTransport records every request the authenticator makes (destination,
// Authorization header and body) before passing it to a real transport.
type spyTransport struct {
	rt   http.RoundTripper
	mu   sync.Mutex
	reqs []spyRequest
}

func (s *spyTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
		req.Body.Close()
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, spyRequest{
		Method: req.Method, Host: req.URL.Host, Path: req.URL.Path, Query: req.URL.RawQuery,
		Authorization: req.Header.Get("Authorization"), Body: string(body),
	})
	s.mu.Unlock()
	return s.rt.RoundTrip(req)
}

func (s *spyTransport) requests() []spyRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.reqs)
}

// misuseEnv is one authorization server plus one authenticator whose HTTP
// client is spied on and whose "browser" hands the URL to the test.
type misuseEnv struct {
	as   *authserver.Server
	a    *Authenticator
	spy  *spyTransport
	urls chan string
}

func newMisuseEnv(t *testing.T, opts ...func(*Config)) *misuseEnv {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	as, err := authserver.Start(ctx, authserver.Config{})
	if err != nil {
		t.Fatalf("start authorization server: %v", err)
	}
	t.Cleanup(func() { as.Close() })
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	env := &misuseEnv{as: as, spy: &spyTransport{rt: tr}, urls: make(chan string, 4)}
	cfg := Config{
		MemoryOnly: true,
		HTTPClient: &http.Client{Transport: env.spy, Timeout: misuseWait, CheckRedirect: refuseInsecureRedirect},
		OpenBrowser: func(u string) error {
			env.urls <- u
			return nil
		},
		Timeout: misuseWait,
	}
	for _, o := range opts {
		o(&cfg)
	}
	env.a, err = New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

func (e *misuseEnv) request(resource string, reason Reason) GrantRequest {
	return GrantRequest{
		Requirement: Requirement{
			Reason: reason,
			Resource: ProtectedResourceMetadata{
				Resource:             resource,
				AuthorizationServers: []string{e.as.Issuer()},
				ScopesSupported:      []string{"mcp:read"},
			},
			OAuthClient: &Client{ClientID: e.as.PublicClientID()},
		},
		Advertised: []string{resource},
	}
}

// start begins a grant that must go to the browser and returns it with the
// authorization URL the "browser" was given.
func (e *misuseEnv) start(t *testing.T, ctx context.Context, req GrantRequest) (*Grant, string) {
	t.Helper()
	g, err := e.a.Start(ctx, req)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(g.Cancel)
	if g.URL() == "" {
		t.Fatal("grant was answered without the browser; the test needs a browser flow")
	}
	select {
	case u := <-e.urls:
		return g, u
	case <-ctx.Done():
		t.Fatal("the browser was never opened")
		return nil, ""
	}
}

// approve plays the user approving consent and returns the redirect the
// authorization server sent back, without following it.
func approve(t *testing.T, ctx context.Context, authURL string) *url.URL {
	t.Helper()
	loc, err := authserver.ApproveHeadless(ctx, nil, authURL)
	if err != nil {
		t.Fatalf("approve consent: %v", err)
	}
	if err := authserver.RedirectError(loc); err != nil {
		t.Fatalf("authorization server refused before consent: %v", err)
	}
	return loc
}

// visit plays the browser following a redirect to the loopback callback.
func visit(t *testing.T, ctx context.Context, u string, host string) (int, string, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, Timeout: misuseWait}).Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), nil
}

func misuseCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), misuseWait)
	t.Cleanup(cancel)
	return ctx
}

// fullFlow runs one successful browser grant and returns its result and
// the callback URL that completed it.
func (e *misuseEnv) fullFlow(t *testing.T, ctx context.Context, resource string) (Result, *url.URL) {
	t.Helper()
	g, authURL := e.start(t, ctx, e.request(resource, ReasonRequired))
	loc := approve(t, ctx, authURL)
	if code, body, err := visit(t, ctx, loc.String(), ""); err != nil || code != http.StatusOK {
		t.Fatalf("callback: %d %v %s", code, err, body)
	}
	res, err := g.Wait(ctx)
	if err != nil {
		t.Fatalf("grant: %v", err)
	}
	if res.AccessToken == "" {
		t.Fatal("grant finished without an access token")
	}
	return res, loc
}

func wantRefusal(t *testing.T, err, sentinel error, words ...string) {
	t.Helper()
	if !errors.Is(err, sentinel) {
		t.Fatalf("err = %v, want %v", err, sentinel)
	}
	for _, w := range words {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("message %q does not say %q", err, w)
		}
	}
}

// A callback URL that already completed one sign-in is worthless: its
// listener is gone, and another flow rejects its state before it ever
// reaches the token endpoint.
func TestMisuseStateReplay(t *testing.T) {
	env := newMisuseEnv(t)
	ctx := misuseCtx(t)
	_, used := env.fullFlow(t, ctx, misuseResource)

	if code, _, err := visit(t, ctx, used.String(), ""); err == nil {
		t.Fatalf("replayed callback reached a listener (HTTP %d); the loopback port must close after the flow", code)
	}

	g, _ := env.start(t, ctx, env.request(misuseOtherResource, ReasonRequired))
	replay := *used
	replay.Host = hostPort(t, g.RedirectURI())
	code, body, err := visit(t, ctx, replay.String(), "")
	if err != nil || code != http.StatusBadRequest {
		t.Fatalf("replay into a new flow: HTTP %d %v", code, err)
	}
	if !strings.Contains(body, "does not belong") {
		t.Errorf("page does not say why: %s", body)
	}
	// The replay was ignored, not fatal: the new sign-in still waits.
	select {
	case <-g.Done():
		t.Fatal("a replayed callback ended the new sign-in")
	default:
	}
	g.Cancel()
	_, err = g.Wait(ctx)
	wantRefusal(t, err, ErrCanceled)
	if n := countPath(env.spy.requests(), authserver.TokenPath); n != 1 {
		t.Errorf("%d token requests, want 1 (the first flow's); the replayed code must never be exchanged", n)
	}
}

// A stray callback with a wrong state gets an error page and no token
// request, but does not end the sign-in: the genuine callback arriving
// afterwards completes it.
func TestMisuseStateMismatch(t *testing.T) {
	env := newMisuseEnv(t)
	ctx := misuseCtx(t)
	g, authURL := env.start(t, ctx, env.request(misuseResource, ReasonRequired))
	loc := approve(t, ctx, authURL)

	forged := *loc
	q := forged.Query()
	q.Set("state", q.Get("state")+"x")
	forged.RawQuery = q.Encode()
	if code, _, err := visit(t, ctx, forged.String(), ""); err != nil || code != http.StatusBadRequest {
		t.Fatalf("forged state: HTTP %d %v, want 400", code, err)
	}
	if n := countPath(env.spy.requests(), authserver.TokenPath); n != 0 {
		t.Errorf("%d token requests after a state mismatch, want 0", n)
	}
	if code, body, err := visit(t, ctx, loc.String(), ""); err != nil || code != http.StatusOK {
		t.Fatalf("the genuine callback after a stray one: HTTP %d %v %s", code, err, body)
	}
	if res, err := g.Wait(ctx); err != nil || res.AccessToken == "" {
		t.Fatalf("sign-in after a stray callback: %v", err)
	}
}

// The listener binds 127.0.0.1 only: another local interface cannot reach
// it, and a request naming a non-loopback Host (DNS rebinding from a web
// page) is refused without using up the flow's one callback.
func TestMisuseNonLoopbackCallback(t *testing.T) {
	env := newMisuseEnv(t)
	ctx := misuseCtx(t)
	g, authURL := env.start(t, ctx, env.request(misuseResource, ReasonRequired))
	port := portOf(t, g.RedirectURI())

	tried := 0
	for _, ip := range localNonLoopbackIPs(t) {
		tried++
		addr := net.JoinHostPort(ip.String(), port)
		if c, err := net.DialTimeout("tcp", addr, 2*time.Second); err == nil {
			c.Close()
			t.Errorf("connected to the callback listener via %s; it must listen on 127.0.0.1 only", addr)
		}
	}
	t.Logf("tried %d non-loopback local addresses", tried)

	loc := approve(t, ctx, authURL)
	for _, host := range []string{"evil.example:" + port, "evil.example", "192.0.2.1:" + port, "127.0.0.1.evil.example:" + port} {
		code, body, err := visit(t, ctx, loc.String(), host)
		if err != nil || code != http.StatusForbidden {
			t.Errorf("Host %q: HTTP %d %v, want 403", host, code, err)
		}
		if strings.Contains(body, loc.Query().Get("code")) {
			t.Errorf("Host %q: page reflects the code", host)
		}
	}
	select {
	case <-g.Done():
		_, err := g.Result()
		t.Fatalf("a request with a foreign Host ended the flow: %v", err)
	default:
	}
	if code, _, err := visit(t, ctx, loc.String(), ""); err != nil || code != http.StatusOK {
		t.Fatalf("genuine callback after the refused ones: HTTP %d %v", code, err)
	}
	if _, err := g.Wait(ctx); err != nil {
		t.Fatalf("grant: %v", err)
	}
}

// loopbackOnly refuses a request from a non-loopback peer even if it got
// through (e.g. a future listener bound more widely).
func TestLoopbackOnlyRemoteAddr(t *testing.T) {
	reached := false
	h := loopbackOnly(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached = true }))
	for _, tc := range []struct {
		remote, host string
		ok           bool
	}{
		{"127.0.0.1:5555", "127.0.0.1:80", true},
		{"[::1]:5555", "localhost:80", true},
		{"192.0.2.1:5555", "127.0.0.1:80", false},
		{"10.0.0.2:1", "127.0.0.1:80", false},
		{"garbage", "127.0.0.1:80", false},
		{"127.0.0.1:5555", "attacker.example:80", false},
		{"127.0.0.1:5555", "", false},
	} {
		reached = false
		req := httptest.NewRequest(http.MethodGet, "/callback", nil)
		req.RemoteAddr, req.Host = tc.remote, tc.host
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if reached != tc.ok || (!tc.ok && rec.Code != http.StatusForbidden) {
			t.Errorf("remote %q host %q: reached=%v code=%d, want reached=%v", tc.remote, tc.host, reached, rec.Code, tc.ok)
		}
	}
}

// An authorization response delivered to any port but the flow's own never
// completes it, and a code sent to another port (by a tampered
// redirect_uri) cannot be exchanged without the flow's PKCE verifier.
func TestMisuseRedirectToOtherPort(t *testing.T) {
	env := newMisuseEnv(t)
	ctx := misuseCtx(t)
	g, authURL := env.start(t, ctx, env.request(misuseResource, ReasonRequired))

	// An attacker listening on another loopback port.
	stolen := make(chan url.Values, 4)
	thief := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		stolen <- r.URL.Query()
	}))
	defer thief.Close()

	// 1. The genuine response, delivered to the wrong port.
	loc := approve(t, ctx, authURL)
	wrong := *loc
	wrong.Host = strings.TrimPrefix(thief.URL, "http://")
	if _, _, err := visit(t, ctx, wrong.String(), ""); err != nil {
		t.Fatal(err)
	}
	select {
	case <-stolen:
	case <-ctx.Done():
		t.Fatal("the misdirected callback never arrived")
	}
	select {
	case <-g.Done():
		t.Fatal("the flow finished although its callback went to another port")
	case <-time.After(200 * time.Millisecond): // a finished flow closes done at once
	}

	// 2. The authorization URL tampered to send the code to the thief.
	au, _ := url.Parse(authURL)
	q := au.Query()
	q.Set("redirect_uri", thief.URL+"/callback")
	au.RawQuery = q.Encode()
	loc2, err := authserver.ApproveHeadless(ctx, nil, au.String())
	if err != nil {
		t.Fatal(err)
	}
	if authserver.RedirectError(loc2) != nil || !strings.HasPrefix(loc2.String(), thief.URL) {
		t.Logf("the authorization server refused the tampered redirect_uri: %s", loc2.Redacted())
	} else {
		// The server allows any loopback port, so the thief got a code;
		// without the verifier it must be worthless.
		form := url.Values{
			"grant_type": {"authorization_code"}, "code": {loc2.Query().Get("code")},
			"redirect_uri": {thief.URL + "/callback"}, "client_id": {env.as.PublicClientID()},
			"code_verifier": {"x" + strings.Repeat("a", 50)},
		}
		resp, err := http.PostForm(env.as.TokenEndpoint(), form)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK || strings.Contains(string(body), "access_token") {
			t.Errorf("stolen code exchanged without the verifier: %s", body)
		}
		t.Logf("stolen code refused at the token endpoint: HTTP %d", resp.StatusCode)
	}
	select {
	case <-g.Done():
		t.Fatal("the flow finished from a code it never received")
	default:
	}
	if n := countPath(env.spy.requests(), authserver.TokenPath); n != 0 {
		t.Errorf("%d token requests, want 0", n)
	}
	g.Cancel()
	_, err = g.Wait(ctx)
	wantRefusal(t, err, ErrCanceled)
}

// authpkce cannot read the audience of an opaque access token, so what it
// can do is ask only for the resource the host named: RFC 8707 `resource`
// on the authorization and the token request, and never reuse a token
// across resources. The authorization server then binds the token's
// audience to it, which the test checks by introspection.
func TestMisuseAudienceBinding(t *testing.T) {
	env := newMisuseEnv(t)
	ctx := misuseCtx(t)
	g, authURL := env.start(t, ctx, env.request(misuseResource, ReasonRequired))
	au, _ := url.Parse(authURL)
	if got := au.Query()["resource"]; !slices.Equal(got, []string{misuseResource}) {
		t.Errorf("authorization request resource = %q, want exactly %q", got, misuseResource)
	}
	loc := approve(t, ctx, authURL)
	if code, _, err := visit(t, ctx, loc.String(), ""); err != nil || code != http.StatusOK {
		t.Fatalf("callback: %d %v", code, err)
	}
	res, err := g.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var tokenReqs int
	for _, r := range env.spy.requests() {
		if r.Path != authserver.TokenPath {
			continue
		}
		tokenReqs++
		form, _ := url.ParseQuery(r.Body)
		if got := form["resource"]; !slices.Equal(got, []string{misuseResource}) {
			t.Errorf("token request resource = %q, want exactly %q", got, misuseResource)
		}
	}
	if tokenReqs != 1 {
		t.Errorf("%d token requests, want 1", tokenReqs)
	}
	in, err := env.as.Introspect(ctx, res.AccessToken)
	if err != nil || !in.Active {
		t.Fatalf("introspect: %+v %v", in, err)
	}
	if !slices.Equal(in.Audience, []string{misuseResource}) {
		t.Errorf("token audience = %q, want %q", in.Audience, misuseResource)
	}
	if res.Resource != misuseResource {
		t.Errorf("result is for %q, want %q", res.Resource, misuseResource)
	}

	// The token for one resource is never handed out for another.
	g2, _ := env.start(t, ctx, env.request(misuseOtherResource, ReasonRequired))
	if g2.URL() == "" {
		t.Error("a token for another resource was reused from the cache")
	}
	g2.Cancel()
}

// Requirements that would send the user's credentials somewhere unsafe are
// refused before any network traffic, each with a message saying why.
func TestMisuseRefusedRequirements(t *testing.T) {
	env := newMisuseEnv(t)
	ctx := misuseCtx(t)
	tests := []struct {
		name     string
		mutate   func(*GrantRequest)
		sentinel error
		words    []string
	}{
		{"plain http to a remote AS", func(r *GrantRequest) {
			r.Requirement.Resource.AuthorizationServers = []string{"http://as.example.com"}
		}, ErrInsecureServer, []string{"plain http", "https"}},
		{"plain http to a private address", func(r *GrantRequest) {
			r.Requirement.Resource.AuthorizationServers = []string{"http://10.0.0.1:8080"}
		}, ErrInsecureServer, []string{"plain http"}},
		{"plain http to a loopback lookalike", func(r *GrantRequest) {
			r.Requirement.Resource.AuthorizationServers = []string{"http://127.0.0.1.nip.io"}
		}, ErrInsecureServer, []string{"plain http"}},
		{"resource the host never advertised", func(r *GrantRequest) {
			r.Advertised = []string{misuseOtherResource}
		}, ErrResourceNotAdvertised, []string{"never advertised", misuseResource}},
		{"nothing advertised", func(r *GrantRequest) {
			r.Advertised = nil
		}, ErrResourceNotAdvertised, []string{"never advertised"}},
		{"AS with credentials", func(r *GrantRequest) {
			r.Requirement.Resource.AuthorizationServers = []string{"https://user:pw@as.example.com"}
		}, ErrInvalidRequirement, []string{"credentials"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(env.spy.requests())
			req := env.request(misuseResource, ReasonRequired)
			tt.mutate(&req)
			g, err := env.a.Start(ctx, req)
			if err == nil {
				g.Cancel()
				t.Fatal("accepted")
			}
			wantRefusal(t, err, tt.sentinel, tt.words...)
			if strings.Contains(err.Error(), "pw@") {
				t.Errorf("message repeats the credentials: %v", err)
			}
			if after := len(env.spy.requests()); after != before {
				t.Errorf("%d requests sent before refusing", after-before)
			}
		})
	}
	// CheckAdvertised on its own, as the UI calls it before asking.
	wantRefusal(t, CheckAdvertised("https://x.example/\x1b[2J", []string{misuseResource}), ErrResourceNotAdvertised, "never advertised")
	if err := CheckAdvertised("https://x.example/\x1b[2J", nil); strings.ContainsRune(err.Error(), 0x1b) {
		t.Errorf("refusal carries the host's escape sequence: %q", err)
	}
}

// Every request the authenticator sends (discovery, token, refresh) goes to
// the authorization server; the access token is never sent anywhere (it is
// for the host, which the caller pushes it to), and the refresh token only
// to the token endpoint.
func TestMisuseTokenDestinations(t *testing.T) {
	env := newMisuseEnv(t)
	ctx := misuseCtx(t)
	res, _ := env.fullFlow(t, ctx, misuseResource)
	refreshed, err := env.a.Authenticate(ctx, env.request(misuseResource, ReasonExpired), nil)
	if err != nil {
		t.Fatalf("refresh: %v", err)
	}
	if refreshed.Source != SourceRefresh {
		t.Fatalf("second grant came from %v, want a refresh", refreshed.Source)
	}
	asHost := hostPort(t, env.as.Issuer())
	reqs := env.spy.requests()
	if len(reqs) < 3 {
		t.Fatalf("only %d requests recorded; the spy is not on the authenticator's client", len(reqs))
	}
	sawRefresh := false
	for _, r := range reqs {
		if r.Host != asHost {
			t.Errorf("%s %s%s left for a host that is not the authorization server (%s)", r.Method, r.Host, r.Path, asHost)
		}
		for _, tok := range []string{res.AccessToken, refreshed.AccessToken} {
			if strings.Contains(r.Authorization+r.Query+r.Body, tok) {
				t.Errorf("%s %s%s carries an access token", r.Method, r.Host, r.Path)
			}
		}
		if strings.Contains(r.Body, "grant_type=refresh_token") {
			sawRefresh = true
			if r.Path != authserver.TokenPath {
				t.Errorf("refresh token sent to %s", r.Path)
			}
		}
	}
	if !sawRefresh {
		t.Error("no refresh request recorded")
	}
}

// A whole flow (success, a state mismatch and a refresh) with every log
// sink of the process turned up — slog's default at debug level as JSON,
// the standard logger and stderr — leaves no access or refresh token in
// any of them, even when the caller logs the results.
func TestMisuseNoTokenInLogs(t *testing.T) {
	dir := t.TempDir()
	logPath := filepath.Join(dir, "debug.jsonl")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	errPath := filepath.Join(dir, "stderr.txt")
	errFile, err := os.Create(errPath)
	if err != nil {
		t.Fatal(err)
	}
	defer errFile.Close()

	oldDefault, oldStderr, oldLogOut := slog.Default(), os.Stderr, log.Writer()
	slog.SetDefault(slog.New(slog.NewJSONHandler(logFile, &slog.HandlerOptions{Level: slog.LevelDebug})))
	os.Stderr = errFile
	log.SetOutput(errFile)
	defer func() {
		slog.SetDefault(oldDefault)
		os.Stderr = oldStderr
		log.SetOutput(oldLogOut)
	}()

	env := newMisuseEnv(t)
	ctx := misuseCtx(t)
	res, _ := env.fullFlow(t, ctx, misuseResource)
	refreshed, err := env.a.Authenticate(ctx, env.request(misuseResource, ReasonExpired), nil)
	if err != nil {
		t.Fatalf("refresh: %v", err)
	}
	// A failing flow too: its errors are what a UI logs.
	g, authURL := env.start(t, ctx, env.request(misuseOtherResource, ReasonRequired))
	loc := approve(t, ctx, authURL)
	q := loc.Query()
	q.Set("iss", "https://mix-up.example")
	loc.RawQuery = q.Encode()
	visit(t, ctx, loc.String(), "")
	_, flowErr := g.Wait(ctx)
	if !errors.Is(flowErr, ErrIssuerMismatch) {
		t.Fatalf("forged iss: %v", flowErr)
	}

	// What a careless caller would log.
	slog.Debug("grant", "result", res, "refreshed", refreshed, "tokens", env.a.Tokens(), "err", flowErr)
	slog.Info("grant", slog.Any("result", &res), slog.Any("list", []Result{res, refreshed}))
	log.Printf("grant %v %+v %#v %s", res, refreshed, env.a.Tokens(), flowErr)

	// The refresh token never leaves the store; read it from there.
	var secrets []string
	for _, st := range env.a.store.all() {
		secrets = append(secrets, st.AccessToken, st.RefreshToken)
	}
	secrets = append(secrets, res.AccessToken, refreshed.AccessToken)
	logFile.Sync()
	errFile.Sync()
	for _, p := range []string{logPath, errPath} {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(data) == 0 {
			t.Fatalf("%s is empty: the logging under test did not happen", p)
		}
		for _, s := range secrets {
			if s != "" && bytes.Contains(data, []byte(s)) {
				t.Errorf("%s contains a token", filepath.Base(p))
			}
		}
	}
}

func countPath(reqs []spyRequest, path string) int {
	n := 0
	for _, r := range reqs {
		if r.Path == path {
			n++
		}
	}
	return n
}

func hostPort(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

func portOf(t *testing.T, raw string) string {
	t.Helper()
	_, port, err := net.SplitHostPort(hostPort(t, raw))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := strconv.Atoi(port); err != nil {
		t.Fatal(err)
	}
	return port
}

// localNonLoopbackIPs lists this machine's own non-loopback addresses.
func localNonLoopbackIPs(t *testing.T) []net.IP {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Logf("no interface addresses: %v", err)
		return nil
	}
	var out []net.IP
	for _, a := range addrs {
		ipn, ok := a.(*net.IPNet)
		if !ok || ipn.IP.IsLoopback() || ipn.IP.IsLinkLocalUnicast() {
			continue
		}
		out = append(out, ipn.IP)
	}
	return out
}

// A fixed callback port serves two sign-ins in flight at once, each
// completed by its own callback (routed by state); the port is released
// when the last one ends, and a busy port is a clear error.
func TestMisuseFixedCallbackPort(t *testing.T) {
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	env := newMisuseEnv(t, func(c *Config) { c.CallbackPort = port })
	ctx := misuseCtx(t)
	g1, u1 := env.start(t, ctx, env.request(misuseResource, ReasonRequired))
	g2, u2 := env.start(t, ctx, env.request(misuseOtherResource, ReasonRequired))
	want := fmt.Sprintf("http://127.0.0.1:%d/callback", port)
	if g1.RedirectURI() != want || g2.RedirectURI() != want {
		t.Fatalf("redirect URIs %q and %q, want both %q", g1.RedirectURI(), g2.RedirectURI(), want)
	}
	// Completed in the other order than started.
	for _, c := range []struct {
		g   *Grant
		url string
	}{{g2, u2}, {g1, u1}} {
		loc := approve(t, ctx, c.url)
		if code, body, err := visit(t, ctx, loc.String(), ""); err != nil || code != http.StatusOK {
			t.Fatalf("callback: %d %v %s", code, err, body)
		}
		if res, err := c.g.Wait(ctx); err != nil || res.AccessToken == "" {
			t.Fatalf("grant: %v", err)
		}
	}
	if !dialRefused(want) {
		t.Error("the fixed port is still open after both sign-ins ended")
	}

	// Busy: someone else holds the port.
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, err = env.a.Start(ctx, env.request(misuseResource, ReasonInsufficientScope))
	wantRefusal(t, err, ErrCallbackPort, strconv.Itoa(port), "in use")

	if _, err := New(Config{MemoryOnly: true, CallbackPort: 70000}); !errors.Is(err, ErrCallbackPort) {
		t.Errorf("port 70000: %v", err)
	}
}

// The paste fallback: the address the browser landed on, pasted, finishes
// the same flow with the same checks. A pasted address for another port,
// host or path, or with a wrong state, is refused without ending the flow.
func TestMisusePastedRedirect(t *testing.T) {
	env := newMisuseEnv(t)
	ctx := misuseCtx(t)
	g, authURL := env.start(t, ctx, env.request(misuseResource, ReasonRequired))
	loc := approve(t, ctx, authURL)
	if hostPort(t, loc.String()) != hostPort(t, g.RedirectURI()) {
		t.Fatalf("the authorization server redirected to %s, not %s", loc, g.RedirectURI())
	}
	tamper := func(f func(u *url.URL)) string {
		u := *loc
		f(&u)
		return u.String()
	}
	for _, c := range []struct {
		name, pasted string
		want         error
	}{
		{"another port", tamper(func(u *url.URL) { u.Host = "127.0.0.1:1" }), ErrPastedURL},
		{"another host", tamper(func(u *url.URL) { u.Host = "localhost:" + portOf(t, g.RedirectURI()) }), ErrPastedURL},
		{"another path", tamper(func(u *url.URL) { u.Path = "/other" }), ErrPastedURL},
		{"https", tamper(func(u *url.URL) { u.Scheme = "https" }), ErrPastedURL},
		{"not a URL", "%zz", ErrPastedURL},
		{"wrong state", tamper(func(u *url.URL) {
			q := u.Query()
			q.Set("state", "forged")
			u.RawQuery = q.Encode()
		}), ErrStateMismatch},
	} {
		if err := g.Complete(ctx, c.pasted); !errors.Is(err, c.want) {
			t.Errorf("%s: Complete = %v, want %v", c.name, err, c.want)
		}
	}
	select {
	case <-g.Done():
		t.Fatal("a refused paste ended the sign-in")
	default:
	}
	if n := countPath(env.spy.requests(), authserver.TokenPath); n != 0 {
		t.Fatalf("%d token requests before the right paste", n)
	}
	// Surrounding blanks from a terminal selection are fine.
	if err := g.Complete(ctx, "  "+loc.String()+"\n"); err != nil {
		t.Fatalf("Complete with the real address: %v", err)
	}
	res, err := g.Wait(ctx)
	if err != nil || res.AccessToken == "" {
		t.Fatalf("grant after paste: %v", err)
	}
	if err := g.Complete(ctx, loc.String()); err == nil {
		t.Error("a second paste of the same address was accepted")
	}
	if code, _, err := visit(t, ctx, loc.String(), ""); err == nil && code == http.StatusOK {
		t.Error("the loopback accepted the callback after the paste finished the sign-in")
	}
	if got := doneGrant(Result{}).Complete(ctx, loc.String()); !errors.Is(got, ErrPastedURL) {
		t.Errorf("Complete on a finished cache grant: %v", got)
	}
}

// An issuer on a private or link-local address needs the user's yes
// (ServerConfirmation) before anything is sent to it; loopback needs none;
// a host name is judged by what it resolves to.
func TestMisusePrivateAuthorizationServer(t *testing.T) {
	resolved := map[string][]netip.Addr{
		"intranet.example": {netip.MustParseAddr("192.168.1.20")},
		"public.example":   {netip.MustParseAddr("203.0.113.5")},
	}
	env := newMisuseEnv(t, func(c *Config) {
		c.LookupIP = func(_ context.Context, host string) ([]netip.Addr, error) {
			if a, ok := resolved[host]; ok {
				return a, nil
			}
			return nil, errors.New("no such host")
		}
		// Nothing may actually reach these addresses.
		c.HTTPClient = offline
	})
	ctx := misuseCtx(t)
	for _, c := range []struct {
		issuer  string
		confirm bool
	}{
		{"https://10.1.2.3", true},
		{"https://172.16.0.1:8443", true},
		{"https://192.168.0.10", true},
		{"https://169.254.169.254", true},
		{"https://[fd00::1]", true},
		{"https://[fe80::1]", true},
		{"https://intranet.example", true},
		{"https://public.example", false},
		{"https://203.0.113.9", false},
	} {
		req := env.request(misuseResource, ReasonRequired)
		req.Requirement.Resource.AuthorizationServers = []string{c.issuer}
		_, err := env.a.Start(ctx, req)
		var sc *ServerConfirmation
		if got := errors.As(err, &sc); got != c.confirm {
			t.Errorf("%s: err %v, want confirmation %v", c.issuer, err, c.confirm)
			continue
		}
		if !c.confirm {
			continue
		}
		if !errors.Is(err, ErrNeedsConfirmation) || sc.Host != strings.TrimPrefix(c.issuer, "https://") {
			t.Errorf("%s: %v (host %q)", c.issuer, err, sc.Host)
		}
		// Confirmed: Start goes on to discovery (refused by the offline
		// client here), and asks no more.
		req.ConfirmedServers = []string{sc.Host}
		if _, err := env.a.Start(ctx, req); errors.Is(err, ErrNeedsConfirmation) || !errors.Is(err, ErrDiscovery) {
			t.Errorf("%s confirmed: %v, want a discovery error", c.issuer, err)
		}
	}
}

// The sign-in URL reaches the log (a user over SSH may copy it from
// there); the tokens and the code never do.
func TestMisuseSignInURLLogged(t *testing.T) {
	var buf bytes.Buffer
	var mu sync.Mutex
	env := newMisuseEnv(t, func(c *Config) {
		c.Logger = slog.New(slog.NewTextHandler(lockedWriter{&mu, &buf}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	ctx := misuseCtx(t)
	res, loc := env.fullFlow(t, ctx, misuseResource)
	mu.Lock()
	logged := buf.String()
	mu.Unlock()
	if !strings.Contains(logged, "sign-in started") || !strings.Contains(logged, `url="`+env.as.AuthorizationEndpoint()+"?") {
		t.Fatalf("log lacks the sign-in URL: %s", logged)
	}
	for _, secret := range []string{res.AccessToken, loc.Query().Get("code")} {
		if strings.Contains(logged, secret) {
			t.Fatalf("log carries a secret: %s", logged)
		}
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// --allow-unadvertised-pkce: a server whose metadata lists no PKCE
// methods is used only with the override, and S256 is still sent; one
// listing only plain stays refused even then.
func TestMisusePKCEOverride(t *testing.T) {
	without := mutatedAS(func(_ string, md map[string]any) { delete(md, "code_challenge_methods_supported") })(t)
	plainOnly := mutatedAS(func(_ string, md map[string]any) { md["code_challenge_methods_supported"] = []string{"plain"} })(t)
	for _, c := range []struct {
		issuer   string
		override bool
		want     error
	}{
		{without, false, ErrPKCE},
		{without, true, nil},
		{plainOnly, true, ErrPKCE},
	} {
		a, err := New(Config{MemoryOnly: true, TrustUnadvertisedPKCE: c.override, OpenBrowser: func(string) error { return nil }})
		if err != nil {
			t.Fatal(err)
		}
		req := plainRequirement(c.issuer)
		req.Requirement.OAuthClient = &Client{ClientID: "pre"}
		g, err := a.Start(context.Background(), req)
		if !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
			t.Fatalf("%s override=%v: %v, want %v", c.issuer, c.override, err, c.want)
		}
		if g != nil {
			if u, _ := url.Parse(g.URL()); u.Query().Get("code_challenge_method") != "S256" {
				t.Errorf("override sent %q", g.URL())
			}
			g.Cancel()
			<-g.Done()
		}
	}
}

// Forgetting a grant revokes it at the authorization server (RFC 7009):
// the token is inactive afterwards, the grant is gone from the store, and
// the caller is told to clear it on the host too.
func TestForgetRevokes(t *testing.T) {
	env := newMisuseEnv(t)
	ctx := misuseCtx(t)
	res, _ := env.fullFlow(t, ctx, misuseResource)
	if in, err := env.as.Introspect(ctx, res.AccessToken); err != nil || !in.Active {
		t.Fatalf("fresh token not active: %+v %v", in, err)
	}
	gs := env.a.Grants()
	if len(gs) != 1 {
		t.Fatalf("Grants() = %+v", gs)
	}
	f, err := env.a.Forget(ctx, gs[0])
	if err != nil || !f.Revoked || f.RevokeErr != nil || !f.ClearOnHost || f.Resource != misuseResource {
		t.Fatalf("Forget = %+v, %v", f, err)
	}
	if in, err := env.as.Introspect(ctx, res.AccessToken); err != nil || in.Active {
		t.Fatalf("revoked token still active: %+v %v", in, err)
	}
	if len(env.a.Grants()) != 0 {
		t.Fatal("the forgotten grant is still listed")
	}
	if n := countPath(env.spy.requests(), authserver.RevokePath); n == 0 {
		t.Error("no revocation request was sent")
	}
}

// Metadata of a public issuer that sends the browser (or the token
// request) to a private address needs the same confirmation; once given,
// the sign-in starts. Nothing is sent to the private address here: the
// browser is a stub and no code comes back.
func TestMisusePrivateEndpoint(t *testing.T) {
	for _, field := range []string{"authorization_endpoint", "token_endpoint"} {
		issuer := mutatedAS(func(_ string, md map[string]any) { md[field] = "https://10.9.9.9:8443/" + field })(t)
		a, err := New(Config{MemoryOnly: true, OpenBrowser: func(string) error { return nil }})
		if err != nil {
			t.Fatal(err)
		}
		req := plainRequirement(issuer)
		req.Requirement.OAuthClient = &Client{ClientID: "pre"}
		_, err = a.Start(context.Background(), req)
		var sc *ServerConfirmation
		if !errors.As(err, &sc) || sc.Host != "10.9.9.9:8443" {
			t.Fatalf("%s on a private address: %v", field, err)
		}
		req.ConfirmedServers = []string{sc.Host}
		g, err := a.Start(context.Background(), req)
		if err != nil {
			t.Fatalf("%s confirmed: %v", field, err)
		}
		g.Cancel()
		<-g.Done()
	}
}
