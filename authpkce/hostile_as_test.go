package authpkce

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// hostileAS is an authorization server a hostile host names: an httptest
// server on 127.0.0.1 whose metadata the test writes (it is the hostile
// party, not an imitation of a real server). Every request it receives is
// recorded; handlers beyond the metadata are the test's.
type hostileAS struct {
	srv *httptest.Server
	mux *http.ServeMux

	mu   sync.Mutex
	hits []string // "METHOD path"
}

// newHostileAS serves metadata(issuer) at the RFC 8414 well-known URI
// (nothing when metadata is nil: the test serves it).
func newHostileAS(t *testing.T, metadata func(issuer string) map[string]any) *hostileAS {
	t.Helper()
	h := &hostileAS{mux: http.NewServeMux()}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		h.hits = append(h.hits, r.Method+" "+r.URL.Path)
		h.mu.Unlock()
		h.mux.ServeHTTP(w, r)
	}))
	t.Cleanup(h.srv.Close)
	if metadata != nil {
		h.mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(metadata(h.issuer()))
		})
	}
	return h
}

func (h *hostileAS) issuer() string { return h.srv.URL }

func (h *hostileAS) requests() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.hits...)
}

// baseMetadata is well-formed metadata for issuer with every endpoint on
// the issuer itself; a test overrides what makes it hostile.
func baseMetadata(issuer string) map[string]any {
	return map[string]any{
		"issuer":                           issuer,
		"authorization_endpoint":           issuer + "/authorize",
		"token_endpoint":                   issuer + "/token",
		"code_challenge_methods_supported": []string{"S256"},
	}
}

// hostileRequest asks for a token for a resource whose authorization
// server is as, on AHP host host, with a pre-registered public client.
func hostileRequest(as *hostileAS, host string) GrantRequest {
	const resource = "https://mcp.example/hostile"
	return GrantRequest{
		Requirement: Requirement{
			Reason: ReasonRequired,
			Resource: ProtectedResourceMetadata{
				Resource:             resource,
				AuthorizationServers: []string{as.issuer()},
			},
			OAuthClient: &Client{ClientID: "hostile-client"},
		},
		Advertised: []string{resource},
		Host:       host,
	}
}

// recordingBrowser is an OpenBrowser that keeps what it was asked to open.
type recordingBrowser struct {
	mu     sync.Mutex
	opened []string
	more   chan struct{}
}

func newRecordingBrowser() *recordingBrowser {
	return &recordingBrowser{more: make(chan struct{}, 16)}
}

func (b *recordingBrowser) open(u string) error {
	b.mu.Lock()
	b.opened = append(b.opened, u)
	b.mu.Unlock()
	b.more <- struct{}{}
	return nil
}

// printableASCII: what a shell, an opener and OSC 52 pass on unchanged and
// a terminal shows as it is.
func printableASCII(s string) bool {
	return !strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r >= 0x7f })
}
