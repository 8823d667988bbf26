package authpkce

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// trapService is another local service a hostile authorization server
// points at (an admin endpoint, a database's HTTP port): it must receive
// nothing the user did not agree to.
type trapService struct {
	srv  *httptest.Server
	hits atomic.Int64
}

func newTrap(t *testing.T) *trapService {
	tr := &trapService{}
	tr.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tr.hits.Add(1)
		w.WriteHeader(http.StatusTeapot)
		_, _ = w.Write([]byte("TRAP-BODY admin console"))
	}))
	t.Cleanup(tr.srv.Close)
	return tr
}

func (tr *trapService) host() string { return strings.TrimPrefix(tr.srv.URL, "http://") }

// wantConfirmation: err asks the user about host (ServerConfirmation).
func wantConfirmation(t *testing.T, err error, host string) {
	t.Helper()
	var sc *ServerConfirmation
	if !errors.As(err, &sc) || !errors.Is(err, ErrNeedsConfirmation) {
		t.Fatalf("err = %v, want a ServerConfirmation for %s", err, host)
	}
	if sc.Host != host {
		t.Fatalf("the confirmation names %q, want %q", sc.Host, host)
	}
}

// TestHostileMetadataSSRF: a host-named authorization server's metadata
// cannot make ahptui send requests to other local or private services
// without the user's yes, on the IP actually dialled and on every hop
// (issue 21, finding 2).
func TestHostileMetadataSSRF(t *testing.T) {
	const localHost = "ws://127.0.0.1:9/"          // an AHP host on this machine
	const remoteHost = "wss://agents.example.net/" // an AHP host elsewhere
	newAuth := func(t *testing.T, lookup map[string]netip.Addr) *Authenticator {
		a, err := New(Config{MemoryOnly: true, Timeout: time.Minute, OpenBrowser: func(string) error { return nil },
			LookupIP: func(ctx context.Context, host string) ([]netip.Addr, error) {
				if ip, ok := lookup[host]; ok {
					return []netip.Addr{ip}, nil
				}
				return nil, errors.New("no such host")
			}})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	ctx := misuseCtx(t)

	t.Run("registration at another local service", func(t *testing.T) {
		trap := newTrap(t)
		as := newHostileAS(t, func(iss string) map[string]any {
			md := baseMetadata(iss)
			md["registration_endpoint"] = trap.srv.URL + "/admin/users"
			return md
		})
		req := hostileRequest(as, localHost)
		req.Requirement.OAuthClient = nil // so ahptui registers
		_, err := newAuth(t, nil).Start(ctx, req)
		wantConfirmation(t, err, trap.host())
		if n := trap.hits.Load(); n != 0 {
			t.Fatalf("the other local service got %d requests before the user agreed", n)
		}
		// Agreed: the request goes, and its failure names no status or body.
		req.ConfirmedServers = []string{trap.host()}
		_, err = newAuth(t, nil).Start(ctx, req)
		if trap.hits.Load() != 1 || !errors.Is(err, ErrRegistration) {
			t.Fatalf("after the yes: %d requests, err %v", trap.hits.Load(), err)
		}
		noOracle(t, err, "418", "TRAP-BODY", "teapot")
	})

	t.Run("metadata redirect to a local admin URL", func(t *testing.T) {
		trap := newTrap(t)
		as := newHostileAS(t, nil)
		as.mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, trap.srv.URL+"/admin/shutdown?confirm=yes", http.StatusFound)
		})
		as.mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, trap.srv.URL+"/admin/shutdown?confirm=yes", http.StatusFound)
		})
		_, err := newAuth(t, nil).Start(ctx, hostileRequest(as, localHost))
		if err == nil {
			t.Fatal("Start followed the redirect to a sign-in")
		}
		if n := trap.hits.Load(); n != 0 {
			t.Fatalf("the redirect was followed: the local admin URL got %d requests", n)
		}
		noOracle(t, err, "302", trap.host(), "admin")
	})

	t.Run("registration on a private address", func(t *testing.T) {
		as := newHostileAS(t, func(iss string) map[string]any {
			md := baseMetadata(iss)
			md["registration_endpoint"] = "https://10.20.30.40/register"
			return md
		})
		req := hostileRequest(as, localHost)
		req.Requirement.OAuthClient = nil
		short, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		_, err := newAuth(t, nil).Start(short, req)
		wantConfirmation(t, err, "10.20.30.40")
	})

	t.Run("carrier-grade NAT issuer", func(t *testing.T) {
		req := GrantRequest{
			Requirement: Requirement{Resource: ProtectedResourceMetadata{
				Resource: "https://mcp.example/r", AuthorizationServers: []string{"https://cgnat.example"}}},
			Advertised: []string{"https://mcp.example/r"},
			Host:       remoteHost,
		}
		_, err := newAuth(t, map[string]netip.Addr{"cgnat.example": netip.MustParseAddr("100.64.7.9")}).Start(ctx, req)
		wantConfirmation(t, err, "cgnat.example")
	})

	t.Run("a remote host names a loopback issuer", func(t *testing.T) {
		as := newHostileAS(t, baseMetadata)
		_, err := newAuth(t, nil).Start(ctx, hostileRequest(as, remoteHost))
		wantConfirmation(t, err, strings.TrimPrefix(as.issuer(), "http://"))
		if hits := as.requests(); len(hits) != 0 {
			t.Fatalf("the loopback issuer got requests before the user agreed: %v", hits)
		}
	})

	t.Run("DNS rebinding: checked on the IP dialled", func(t *testing.T) {
		as := newHostileAS(t, baseMetadata)
		port := as.srv.Listener.Addr().(interface{ AddrPort() netip.AddrPort }).AddrPort().Port()
		// The lookup the pre-check makes says a public address; the one
		// the dialer makes says 127.0.0.1 (localhost is the stand-in for a
		// name whose records change between the two).
		iss := "http://localhost:" + itoa(int(port))
		req := GrantRequest{
			Requirement: Requirement{Resource: ProtectedResourceMetadata{
				Resource: "https://mcp.example/r", AuthorizationServers: []string{iss}},
				OAuthClient: &Client{ClientID: "c"}},
			Advertised: []string{"https://mcp.example/r"},
			Host:       remoteHost,
		}
		_, err := newAuth(t, map[string]netip.Addr{"localhost": netip.MustParseAddr("203.0.113.7")}).Start(ctx, req)
		if !errors.Is(err, ErrNeedsConfirmation) {
			t.Fatalf("Start = %v, want ErrNeedsConfirmation from the dialled address", err)
		}
		if hits := as.requests(); len(hits) != 0 {
			t.Fatalf("the rebound name reached 127.0.0.1: %v", hits)
		}
	})
}

// noOracle: an error shown to the user does not echo a response's status,
// body or where a refused request went, so it cannot serve as a port
// scanner's answer.
func noOracle(t *testing.T, err error, leaks ...string) {
	t.Helper()
	for _, l := range append(leaks, "connection refused", "HTTP ") {
		if strings.Contains(err.Error(), l) {
			t.Errorf("the error %q reveals %q", err, l)
		}
	}
}

func itoa(n int) string {
	var b []byte
	for n > 0 || len(b) == 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}

// TestHostileRefreshAndRevocationTargets: a saved grant's refresh and its
// revocation go only where the policy lets them: a token or revocation
// endpoint on another local service gets nothing without the user's yes
// (issue 21, finding 2: neither was checked).
func TestHostileRefreshAndRevocationTargets(t *testing.T) {
	const host = "ws://127.0.0.1:9/"
	trap := newTrap(t)
	as := newHostileAS(t, func(iss string) map[string]any {
		md := baseMetadata(iss)
		md["token_endpoint"] = trap.srv.URL + "/token"
		md["revocation_endpoint"] = trap.srv.URL + "/admin/revoke"
		return md
	})
	a, err := New(Config{MemoryOnly: true, Timeout: time.Minute, OpenBrowser: func(string) error { return nil }})
	if err != nil {
		t.Fatal(err)
	}
	req := hostileRequest(as, host)
	hid, err := HostID(host)
	if err != nil {
		t.Fatal(err)
	}
	key := tokenKey{Host: hid, Issuer: as.issuer(), Resource: req.Requirement.Resource.Resource, ClientID: "hostile-client"}
	if err := a.store.putToken(key, Token{AccessToken: "at-secret", RefreshToken: "rt-secret", Expiry: time.Now().Add(-time.Hour)}, time.Now()); err != nil {
		t.Fatal(err)
	}
	ctx := misuseCtx(t)
	req.Requirement.Reason = ReasonExpired
	_, err = a.Start(ctx, req)
	wantConfirmation(t, err, trap.host())
	if n := trap.hits.Load(); n != 0 {
		t.Fatalf("the refresh token went to another local service: %d requests", n)
	}

	f, err := a.Forget(ctx, StoredGrant{Host: hid, Issuer: as.issuer(), Resource: key.Resource, ClientID: key.ClientID})
	if err != nil {
		t.Fatal(err)
	}
	if f.Revoked || !errors.Is(f.RevokeErr, ErrNeedsConfirmation) {
		t.Errorf("Forget: revoked %v, RevokeErr %v; want no revocation at a service the user never agreed to", f.Revoked, f.RevokeErr)
	}
	if n := trap.hits.Load(); n != 0 {
		t.Fatalf("the tokens went to another local service for revocation: %d requests", n)
	}
}
