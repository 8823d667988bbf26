package authpkce

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// TestDefaultClientIgnoresDefaultTransport: whatever a dependency installs
// as http.DefaultTransport, the Authenticator's own client never goes
// through it: discovery against a real server on 127.0.0.1 succeeds while
// the process-wide transport refuses everything.
func TestDefaultClientIgnoresDefaultTransport(t *testing.T) {
	var intercepted atomic.Int64
	orig := http.DefaultTransport
	http.DefaultTransport = roundTripFunc(func(*http.Request) (*http.Response, error) {
		intercepted.Add(1)
		return nil, errors.New("intercepted by the process-wide transport")
	})
	t.Cleanup(func() { http.DefaultTransport = orig })

	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/.well-known/oauth-authorization-server" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(serverMetadata{
			Issuer: srv.URL, AuthorizationEndpoint: srv.URL + "/authorize", TokenEndpoint: srv.URL + "/token",
			CodeChallengeMethodsSupported: []string{"S256"},
		})
	}))
	t.Cleanup(srv.Close)

	a, err := New(Config{MemoryOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	md, err := discover(withPolicy(ctx, policyFor(srv.URL, "", nil)), a.hc, srv.URL)
	if err != nil {
		t.Fatalf("discovery through the own client: %v", err)
	}
	if md.TokenEndpoint != srv.URL+"/token" {
		t.Errorf("metadata %+v", md)
	}
	if n := intercepted.Load(); n != 0 {
		t.Errorf("%d requests went through http.DefaultTransport", n)
	}
}
