package authpkce

// Tests that need no authorization server, or only a broken one: bad
// input, discovery failures, redaction, the callback handler, the store.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"
)

func TestMetadataURLs(t *testing.T) {
	tests := []struct {
		issuer string
		want   []string
	}{
		{"https://as.example", []string{
			"https://as.example/.well-known/oauth-authorization-server",
			"https://as.example/.well-known/openid-configuration",
		}},
		{"https://as.example/", []string{
			"https://as.example/.well-known/oauth-authorization-server",
			"https://as.example/.well-known/openid-configuration",
		}},
		{"https://as.example/tenant/one", []string{
			"https://as.example/.well-known/oauth-authorization-server/tenant/one",
			"https://as.example/.well-known/openid-configuration/tenant/one",
			"https://as.example/tenant/one/.well-known/openid-configuration",
		}},
	}
	for _, tt := range tests {
		u, err := url.Parse(tt.issuer)
		if err != nil {
			t.Fatal(err)
		}
		if got := metadataURLs(u); strings.Join(got, " ") != strings.Join(tt.want, " ") {
			t.Errorf("metadataURLs(%s) = %q, want %q", tt.issuer, got, tt.want)
		}
	}
}

func TestCheckServerURL(t *testing.T) {
	tests := []struct {
		url  string
		want error
	}{
		{"https://as.example", nil},
		{"http://127.0.0.1:4444/", nil},
		{"http://[::1]:4444", nil},
		{"http://localhost:8080", nil},
		{"http://as.example", ErrInsecureServer},
		{"http://0.0.0.0:4444", ErrInsecureServer},
		{"http://10.0.0.1", ErrInsecureServer},
		{"ftp://as.example", ErrInvalidRequirement},
		{"as.example", ErrInvalidRequirement},
		{"https://as.example/?tenant=1", ErrInvalidRequirement},
		{"https://user:pw@as.example", ErrInvalidRequirement},
	}
	for _, tt := range tests {
		_, err := checkServerURL("authorization server", tt.url)
		if !errors.Is(err, tt.want) || (tt.want == nil && err != nil) {
			t.Errorf("checkServerURL(%q) = %v, want %v", tt.url, err, tt.want)
		}
		if err != nil && strings.Contains(err.Error(), "pw@") {
			t.Errorf("error quotes credentials: %v", err)
		}
	}
}

// fakeAS is a deliberately broken authorization server: each test serves
// one kind of garbage. The happy paths run against hydra instead.
func fakeAS(t *testing.T, handler func(base string, w http.ResponseWriter, r *http.Request)) string {
	t.Helper()
	var base string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handler(base, w, r) }))
	t.Cleanup(srv.Close)
	base = srv.URL
	return base
}

func metadataHandler(md func(base string) map[string]any) func(string, http.ResponseWriter, *http.Request) {
	return func(base string, w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/.well-known/oauth-authorization-server" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(md(base))
	}
}

// mutatedAS starts a fake authorization server whose metadata is
// goodMetadata changed by change, for table cases.
func mutatedAS(change func(base string, md map[string]any)) func(t *testing.T) string {
	return func(t *testing.T) string {
		return fakeAS(t, metadataHandler(func(base string) map[string]any {
			md := goodMetadata(base)
			change(base, md)
			return md
		}))
	}
}

func goodMetadata(base string) map[string]any {
	return map[string]any{
		"issuer":                           base,
		"authorization_endpoint":           base + "/authorize",
		"token_endpoint":                   base + "/token",
		"registration_endpoint":            base + "/register",
		"code_challenge_methods_supported": []string{"S256"},
	}
}

func plainRequirement(issuer string) GrantRequest {
	return GrantRequest{
		Requirement: Requirement{
			Reason:   ReasonRequired,
			Resource: ProtectedResourceMetadata{Resource: testResource, AuthorizationServers: []string{issuer}},
		},
		Advertised: []string{testResource},
	}
}

func TestStartRefusesBadInput(t *testing.T) {
	down := func() string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		return "http://" + addr
	}()
	tests := []struct {
		name     string
		issuer   func(t *testing.T) string
		mutate   func(*GrantRequest)
		want     error
		wantText string
	}{
		{
			name:     "resource the host never advertised",
			issuer:   func(*testing.T) string { return "https://as.example" },
			mutate:   func(r *GrantRequest) { r.Advertised = []string{"https://elsewhere.example"} },
			want:     ErrResourceNotAdvertised,
			wantText: "never advertised",
		},
		{
			name:     "no advertised list at all",
			issuer:   func(*testing.T) string { return "https://as.example" },
			mutate:   func(r *GrantRequest) { r.Advertised = nil },
			want:     ErrResourceNotAdvertised,
			wantText: "never advertised",
		},
		{
			name:   "no authorization server",
			issuer: func(*testing.T) string { return "" },
			mutate: func(r *GrantRequest) { r.Requirement.Resource.AuthorizationServers = nil },
			want:   ErrInvalidRequirement, wantText: "names no authorization server",
		},
		{
			name:   "resource with fragment",
			issuer: func(*testing.T) string { return "https://as.example" },
			mutate: func(r *GrantRequest) {
				r.Requirement.Resource.Resource = testResource + "#x"
				r.Advertised = []string{testResource + "#x"}
			},
			want: ErrInvalidRequirement, wantText: "RFC 8707",
		},
		{
			name:   "oauthClient without id",
			issuer: func(*testing.T) string { return "https://as.example" },
			mutate: func(r *GrantRequest) { r.Requirement.OAuthClient = &Client{} },
			want:   ErrInvalidRequirement, wantText: "clientId",
		},
		{
			name:   "plain http to a remote server",
			issuer: func(*testing.T) string { return "http://as.example" },
			want:   ErrInsecureServer, wantText: "https",
		},
		{
			name:   "authorization server down",
			issuer: func(*testing.T) string { return down },
			want:   ErrDiscovery, wantText: "metadata endpoint failed",
		},
		{
			name: "no metadata anywhere",
			issuer: func(t *testing.T) string {
				return fakeAS(t, func(_ string, w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) })
			},
			want: ErrDiscovery, wantText: "publishes no OAuth or OpenID Connect metadata",
		},
		{
			name: "server error",
			issuer: func(t *testing.T) string {
				return fakeAS(t, func(_ string, w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", 502) })
			},
			want: ErrDiscovery, wantText: "metadata endpoint failed",
		},
		{
			name: "garbage JSON",
			issuer: func(t *testing.T) string {
				return fakeAS(t, func(_ string, w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "application/json")
					fmt.Fprint(w, `{"issuer": [1, 2`)
				})
			},
			want: ErrDiscovery, wantText: "metadata endpoint failed",
		},
		{
			name: "an HTML page instead of metadata",
			issuer: func(t *testing.T) string {
				return fakeAS(t, func(_ string, w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "text/html")
					fmt.Fprint(w, "<html>login</html>")
				})
			},
			want: ErrDiscovery, wantText: "metadata endpoint failed",
		},
		{
			name: "issuer mismatch",
			issuer: mutatedAS(func(base string, md map[string]any) {
				md["issuer"] = "https://evil.example"
			}),
			want: ErrDiscovery, wantText: "says its issuer is",
		},
		{
			name: "issuer differs by a trailing slash",
			issuer: mutatedAS(func(base string, md map[string]any) {
				md["issuer"] = base + "/"
			}),
			want: ErrDiscovery, wantText: "says its issuer is",
		},
		{
			name: "metadata without token endpoint",
			issuer: mutatedAS(func(base string, md map[string]any) {
				delete(md, "token_endpoint")
			}),
			want: ErrDiscovery, wantText: "token_endpoint",
		},
		{
			name: "endpoint on plain http elsewhere",
			issuer: mutatedAS(func(base string, md map[string]any) {
				md["token_endpoint"] = "http://tokens.example/token"
			}),
			want: ErrInsecureServer,
		},
		{
			name: "no PKCE S256",
			issuer: mutatedAS(func(base string, md map[string]any) {
				md["code_challenge_methods_supported"] = []string{"plain"}
			}),
			want: ErrPKCE, wantText: "plain",
		},
		{
			name: "PKCE methods not advertised",
			issuer: mutatedAS(func(base string, md map[string]any) {
				delete(md, "code_challenge_methods_supported")
			}),
			want: ErrPKCE, wantText: "code_challenge_methods_supported",
		},
		{
			name: "neither oauthClient nor registration endpoint",
			issuer: mutatedAS(func(base string, md map[string]any) {
				delete(md, "registration_endpoint")
			}),
			want: ErrNoClientIdentity, wantText: "dynamic client registration",
		},
		{
			name: "registration refused",
			issuer: func(t *testing.T) string {
				return fakeAS(t, func(base string, w http.ResponseWriter, r *http.Request) {
					if r.URL.Path == "/register" {
						w.Header().Set("Content-Type", "application/json")
						w.WriteHeader(http.StatusForbidden)
						fmt.Fprint(w, `{"error":"access_denied","error_description":"registration is closed\u001b[31m"}`)
						return
					}
					metadataHandler(goodMetadata)(base, w, r)
				})
			},
			want: ErrRegistration, wantText: "registration endpoint failed (access_denied)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opened := false
			a, err := New(Config{Dir: t.TempDir(), OpenBrowser: func(string) error { opened = true; return nil }})
			if err != nil {
				t.Fatal(err)
			}
			req := plainRequirement(tt.issuer(t))
			if tt.mutate != nil {
				tt.mutate(&req)
			}
			g, err := a.Start(context.Background(), req)
			if err == nil {
				g.Cancel()
				t.Fatalf("Start succeeded, want %v", tt.want)
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.wantText) {
				t.Errorf("err = %q, want it to mention %q", err, tt.wantText)
			}
			if strings.ContainsAny(err.Error(), "\x1b\r") {
				t.Errorf("err carries control characters: %q", err)
			}
			if opened {
				t.Error("the browser was opened for a request that failed")
			}
			checkNoLeaks(t)
		})
	}
}

func TestSecretsNeverPrinted(t *testing.T) {
	const access, refresh, secret = "AT-very-secret-1", "RT-very-secret-2", "CS-very-secret-3"
	tok := Token{AccessToken: access, RefreshToken: refresh, Scopes: []string{"a"}, Expiry: time.Unix(1e9, 0)}
	ct := CachedToken{Resource: testResource, AccessToken: access, Scopes: []string{"a"}}
	res := Result{CachedToken: ct, Source: SourceBrowser}
	cl := Client{ClientID: "id", ClientSecret: secret}
	values := []any{tok, &tok, ct, &ct, res, cl, &cl, []Token{tok}, map[string]CachedToken{"k": ct}}
	for _, v := range values {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q"} {
			out := fmt.Sprintf(verb, v)
			if strings.Contains(out, "very-secret") {
				t.Errorf("fmt %s of %T leaks a secret: %s", verb, v, out)
			}
		}
		var buf bytes.Buffer
		slog.New(slog.NewJSONHandler(&buf, nil)).Info("token", "v", v)
		slog.New(slog.NewTextHandler(&buf, nil)).Info("token", "v", v)
		if strings.Contains(buf.String(), "very-secret") {
			t.Errorf("slog of %T leaks a secret: %s", v, buf.String())
		}
	}
	if !strings.Contains(fmt.Sprint(tok), "[redacted]") {
		t.Errorf("Token prints as %v; want the redaction visible", tok)
	}
}

// testFlow builds a flow without an authorization server, for the
// handler's own behaviour.
func testFlow(t *testing.T) (*flow, context.CancelFunc) {
	t.Helper()
	conf := &oauth2.Config{ClientID: "c", Endpoint: oauth2.Endpoint{AuthURL: "https://as.example/auth", TokenURL: "https://as.example/token"}}
	ctx, cancel := context.WithCancel(context.Background())
	f := newFlow(ctx, conf, testResource, nil, tokenKey{}, &serverMetadata{Issuer: "https://as.example"})
	return f, cancel
}

// answerOne plays the flow side: it takes the one callback, answers it
// with its own error and hands it to the test.
func answerOne(f *flow) <-chan callback {
	got := make(chan callback, 1)
	go func() {
		cb := <-f.callbacks
		cb.reply <- cb.err
		got <- cb
	}()
	return got
}

func TestCallbackHandler(t *testing.T) {
	f, cancel := testFlow(t)
	defer cancel()

	got := answerOne(f)

	rec := httptest.NewRecorder()
	f.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/other?code=x&state="+f.state, nil))
	if rec.Code != http.StatusNotFound {
		t.Errorf("other path: %d, want 404", rec.Code)
	}
	rec = httptest.NewRecorder()
	f.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/callback?code=x&state="+f.state, nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d, want 405", rec.Code)
	}

	rec = httptest.NewRecorder()
	desc := url.QueryEscape(`<script>alert("x")</script>`)
	f.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/callback?error=server_error&error_description="+desc+"&state="+f.state, nil))
	cb := <-got
	if !errors.Is(cb.err, ErrAuthorization) || !strings.Contains(cb.err.Error(), "server_error") {
		t.Errorf("callback error = %v", cb.err)
	}
	body := rec.Body.String()
	if rec.Code != http.StatusBadRequest || strings.Contains(body, "<script>") || !strings.Contains(body, "&lt;script&gt;") {
		t.Errorf("error page %d does not escape the description: %s", rec.Code, body)
	}
	if rec.Header().Get("Cache-Control") != "no-store" {
		t.Error("callback page may be cached")
	}

	// A second callback does not reach the flow and says it is over.
	rec = httptest.NewRecorder()
	f.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/callback?code=x&state="+f.state, nil))
	if rec.Code != http.StatusConflict || !strings.Contains(rec.Body.String(), "already finished") {
		t.Errorf("second callback: %d %s", rec.Code, rec.Body.String())
	}
}

// TestStrayCallbackKeepsFlow: a callback whose state is not the flow's
// (none, another, a prefix) gets a refusal page and does not end or use up
// the sign-in; the real callback after it still completes it.
func TestStrayCallbackKeepsFlow(t *testing.T) {
	f, cancel := testFlow(t)
	defer cancel()
	got := answerOne(f)
	for _, q := range []string{"code=x", "code=x&state=" + f.state + "x", "code=x&state=" + f.state[:5], "error=access_denied&state=nope"} {
		rec := httptest.NewRecorder()
		f.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/callback?"+q, nil))
		if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "still waiting") {
			t.Errorf("stray %q: %d %s", q, rec.Code, rec.Body.String())
		}
	}
	select {
	case cb := <-got:
		t.Fatalf("a stray callback reached the flow: %+v", cb)
	default:
	}
	rec := httptest.NewRecorder()
	f.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/callback?code=real&state="+f.state, nil))
	if cb := <-got; cb.err != nil || cb.code != "real" || rec.Code != http.StatusOK {
		t.Fatalf("real callback after strays: %+v, page %d", cb, rec.Code)
	}
}

// TestCallbackIssRequired: a server that advertises RFC 9207 must name
// itself in every response; one without iss is refused.
func TestCallbackIssRequired(t *testing.T) {
	f, cancel := testFlow(t)
	defer cancel()
	f.issRequired = true
	got := answerOne(f)
	f.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/callback?code=x&state="+f.state, nil))
	if cb := <-got; !errors.Is(cb.err, ErrIssuerMismatch) {
		t.Fatalf("response without iss: %v", cb.err)
	}
}

func TestCallbackCases(t *testing.T) {
	tests := []struct {
		name  string
		query func(state string) string
		want  error
	}{
		{"access denied", func(s string) string { return "error=access_denied&state=" + s }, ErrAccessDenied},
		{"other error", func(s string) string { return "error=invalid_scope&state=" + s }, ErrAuthorization},
		{"no code", func(s string) string { return "state=" + s }, ErrAuthorization},
		{"good", func(s string) string { return "code=abc&state=" + s }, nil},
		{"iss matches", func(s string) string { return "code=abc&iss=https%3A%2F%2Fas.example&state=" + s }, nil},
		{"iss of another server", func(s string) string { return "code=abc&iss=https%3A%2F%2Fevil.example&state=" + s }, ErrIssuerMismatch},
		{"iss with a trailing slash", func(s string) string { return "code=abc&iss=https%3A%2F%2Fas.example%2F&state=" + s }, ErrIssuerMismatch},
		{"iss twice", func(s string) string {
			return "code=abc&iss=https%3A%2F%2Fas.example&iss=https%3A%2F%2Fevil.example&state=" + s
		}, ErrIssuerMismatch},
		{"iss on an error", func(s string) string { return "error=access_denied&iss=https%3A%2F%2Fevil.example&state=" + s }, ErrIssuerMismatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, cancel := testFlow(t)
			defer cancel()
			got := answerOne(f)
			rec := httptest.NewRecorder()
			f.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/callback?"+tt.query(f.state), nil))
			cb := <-got
			if !errors.Is(cb.err, tt.want) || (tt.want == nil && cb.err != nil) {
				t.Fatalf("err = %v, want %v", cb.err, tt.want)
			}
			if tt.want == nil && (cb.code != "abc" || rec.Code != http.StatusOK) {
				t.Errorf("code %q, page %d", cb.code, rec.Code)
			}
		})
	}
}

func TestCallbackAfterFlowEnded(t *testing.T) {
	f, cancel := testFlow(t)
	cancel() // the flow timed out or was canceled; nobody reads callbacks
	rec := httptest.NewRecorder()
	f.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/callback?code=x&state="+f.state, nil))
	if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "canceled") {
		t.Errorf("late callback: %d %s", rec.Code, rec.Body.String())
	}
}

func TestStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nested", "ahptui")
	s, err := openStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	k := tokenKey{Issuer: "https://as.example", Resource: testResource, ClientID: "c"}
	now := time.Unix(1e9, 0)
	if err := s.putToken(k, Token{AccessToken: "a1", Scopes: []string{"x"}}, now); err != nil {
		t.Fatal(err)
	}
	if err := s.putRegistration(k.Issuer, registration{ClientID: "c", RegisteredAt: now}); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]os.FileMode{dir: 0o700, filepath.Join(dir, storeFileName): 0o600} {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != want {
			t.Errorf("%s mode %v, want %v", path, st.Mode().Perm(), want)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() != storeFileName && e.Name() != storeLockName {
			t.Errorf("store left %s behind, want only %s and %s", e.Name(), storeFileName, storeLockName)
		}
	}

	s2, err := openStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	if tok, ok := s2.token(k); !ok || tok.AccessToken != "a1" {
		t.Errorf("reopened store lost the token: %v", tok)
	}
	if r, ok := s2.registration(k.Issuer, now); !ok || r.ClientID != "c" {
		t.Error("reopened store lost the registration")
	}
	expiring := registration{ClientID: "c", ClientSecretExpiresAt: now.Add(-time.Second).Unix()}
	if expiring.usable(now) {
		t.Error("a registration with an expired secret counts as usable")
	}

	// A corrupt file costs a sign-in, not the program.
	if err := os.WriteFile(filepath.Join(dir, storeFileName), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	s3, err := openStore(dir)
	if err != nil {
		t.Fatalf("corrupt store: %v", err)
	}
	if _, ok := s3.token(k); ok {
		t.Error("a token came out of a corrupt file")
	}
}

func TestMemoryOnlyWritesNothing(t *testing.T) {
	dir := t.TempDir()
	a, err := New(Config{Dir: dir, MemoryOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.store.putToken(tokenKey{Resource: testResource}, Token{AccessToken: "a"}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("MemoryOnly wrote %d files", len(entries))
	}
	if len(a.Tokens()) != 1 {
		t.Error("MemoryOnly lost the token")
	}
}

func TestTokensSkipsExpiredAndKeepsNewestPerResource(t *testing.T) {
	now := time.Unix(2e9, 0)
	a, err := New(Config{MemoryOnly: true, Now: func() time.Time { return now }, HTTPClient: offline})
	if err != nil {
		t.Fatal(err)
	}
	put := func(res, client, access string, expiry time.Time, at time.Time) {
		k := tokenKey{Issuer: "https://as.example", Resource: res, ClientID: client}
		if err := a.store.putToken(k, Token{AccessToken: access, Expiry: expiry}, at); err != nil {
			t.Fatal(err)
		}
	}
	put("https://b.example", "c1", "old", time.Time{}, now.Add(-time.Hour))
	put("https://b.example", "c2", "new", now.Add(time.Hour), now)
	put("https://a.example", "c1", "dead", now.Add(10*time.Second), now) // inside the leeway
	put("https://c.example", "c1", "forever", time.Time{}, now)
	got := a.Tokens()
	var names []string
	for _, c := range got {
		names = append(names, c.Resource+"="+c.AccessToken)
	}
	if want := "https://b.example=new https://c.example=forever"; strings.Join(names, " ") != want {
		t.Errorf("Tokens() = %q, want %q", names, want)
	}
	for _, g := range a.Grants() {
		if g.Resource != "https://b.example" {
			continue
		}
		// The issuer is not reachable: the grant is forgotten all the
		// same, and the failed revocation is reported.
		f, err := a.Forget(context.Background(), g)
		if err != nil || f.Revoked || f.RevokeErr == nil || !f.ClearOnHost || f.Resource != g.Resource {
			t.Fatalf("Forget(%v) = %+v, %v", g, f, err)
		}
	}
	if got := a.Tokens(); len(got) != 1 || got[0].Resource != "https://c.example" {
		t.Errorf("after Forget: %v", got)
	}
}

func TestClean(t *testing.T) {
	in := "bad\x1b[2J\u202eevil\r\ntext" + strings.Repeat("x", 400)
	out := clean(in)
	if strings.ContainsAny(out, "\x1b\r\n\u202e") {
		t.Errorf("clean left control characters: %q", out)
	}
	if !strings.HasPrefix(out, "bad[2Jeviltext") || len(out) > 310 {
		t.Errorf("clean(%q) = %q", in[:20], out[:20])
	}
}

func TestRefuseInsecureRedirect(t *testing.T) {
	tests := []struct {
		to      string
		allowed bool
	}{
		{"https://as.example/next", true},
		{"http://127.0.0.1:9/next", true},
		{"http://as.example/next", false},
		{"ftp://as.example/next", false},
	}
	for _, tt := range tests {
		req := httptest.NewRequest(http.MethodGet, tt.to, nil)
		if err := refuseInsecureRedirect(req, nil); (err == nil) != tt.allowed {
			t.Errorf("redirect to %s: err = %v, allowed want %v", tt.to, err, tt.allowed)
		}
	}
}

func TestCheckBearer(t *testing.T) {
	for typ, ok := range map[string]bool{"": true, "Bearer": true, "bearer": true, "DPoP": false, "mac": false} {
		if err := checkBearer(typ, "https://as.example/token"); (err == nil) != ok {
			t.Errorf("checkBearer(%q) = %v", typ, err)
		}
	}
}

// FuzzCallback feeds the loopback handler arbitrary queries: it must never
// panic, never echo markup unescaped, and never let an error string carry
// control characters to the terminal.
func FuzzCallback(f *testing.F) {
	f.Add("code=abc&state=S")
	f.Add("error=access_denied&error_description=%3Cb%3Eno%3C%2Fb%3E&state=S")
	f.Add("error=%1b%5b2J&state=S")
	f.Add("state=S&code=")
	f.Fuzz(func(t *testing.T, rawQuery string) {
		fl, cancel := testFlow(t)
		defer cancel()
		rawQuery = strings.ReplaceAll(rawQuery, "state=S", "state="+fl.state)
		got := make(chan callback, 1)
		go func() {
			select {
			case cb := <-fl.callbacks:
				cb.reply <- cb.err
				got <- cb
			case <-fl.ctx.Done():
				got <- callback{}
			}
		}()
		req := httptest.NewRequest(http.MethodGet, "/callback", nil)
		req.URL.RawQuery = rawQuery
		rec := httptest.NewRecorder()
		fl.ServeHTTP(rec, req)
		cancel()
		cb := <-got
		if cb.err != nil && strings.ContainsFunc(cb.err.Error(), func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			t.Errorf("error carries control characters: %q", cb.err)
		}
		body := rec.Body.String()
		if i := strings.Index(body, "<body>"); i >= 0 {
			inner := body[i+len("<body>"):]
			inner = strings.NewReplacer("<h1>", "", "</h1>", "", "<p>", "", "</p>", "", "</body></html>", "").Replace(inner)
			if strings.ContainsAny(inner, "<>") {
				t.Errorf("page carries unescaped markup: %q", inner)
			}
		}
	})
}
