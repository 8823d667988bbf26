package authpkce

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// offline is an HTTP client for tests that must not reach any network: it
// fails every request before it leaves the process.
var offline = &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
	return nil, errors.New("offline test client: " + r.URL.Redacted())
})}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestHostID(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"ws://Example.COM/ahp", "ws://example.com:80/ahp"},
		{"ws://example.com:80/ahp/", "ws://example.com:80/ahp"},
		{"ws://example.com:80", "ws://example.com:80"},
		{"wss://example.com", "wss://example.com:443"},
		{"wss://example.com:8443/x?y=1#z", "wss://example.com:8443/x"},
		{"wss://gw.example/alice", "wss://gw.example:443/alice"},
		{"wss://gw.example/bob/", "wss://gw.example:443/bob"},
		{"wss://gw.example/Alice", "wss://gw.example:443/Alice"},
		{"ws://example.com/a%20b", "ws://example.com:80/a%20b"},
		{"ws+unix:///run/user/1000/ahp.sock", "ws+unix:///run/user/1000/ahp.sock"},
		{"WS+UNIX:///run/user/1000/ahp.sock?tkn=x", "ws+unix:///run/user/1000/ahp.sock"},
		{"ws+unix://host/run/ahp.sock", ""},
		{"ws+unix://", ""},
		{"ws+unix:///run/../etc/ahp.sock", ""},
		{"ws://127.0.0.1:4000/", "ws://127.0.0.1:4000"},
		{"ws://[::1]:4000", "ws://[::1]:4000"},
		{"ws://example.com./", "ws://example.com:80"},
		{"https://example.com", "wss://example.com:443"},
		{"ssh://alice@Box.example/standalone/i1", "ssh://alice@box.example:22/standalone/i1"},
		{"ssh://alice@box.example:2222/standalone/i1/", "ssh://alice@box.example:2222/standalone/i1"},
		{"ssh://box.example:22/editor/i2", "ssh://box.example:22/editor/i2"},
		{"ssh:///x", ""},
		{"ftp://example.com", ""},
		{"ws://", ""},
		{"not a url", ""},
	} {
		got, err := HostID(tc.in)
		if tc.want == "" {
			if err == nil {
				t.Errorf("HostID(%q) = %q, want an error", tc.in, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("HostID(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// TestLookup is the push policy: silent only on the host the grant was
// obtained on with the issuer it came from; ask on another host naming the
// same issuer (and on grants saved before hosts were recorded); never to a
// host naming another issuer; remembered answers decide the next time.
func TestLookup(t *testing.T) {
	now := time.Unix(2e9, 0)
	const (
		res   = "https://api.example/mcp"
		iss   = "https://as.example"
		evil  = "https://evil.example"
		hostA = "ws://a.example:4000/"
		hostB = "ws://b.example:4000/"
	)
	type saved struct {
		host, issuer, resource, access string
		scopes                         []string
		expiry                         time.Time
	}
	type answer struct {
		host  string
		allow bool
	}
	for _, tc := range []struct {
		name    string
		saved   []saved
		answers []answer
		host    string
		want    Want
		dec     Decision
		access  string
	}{
		{"nothing saved", nil, nil, hostA, Want{res, iss, nil}, DecisionNone, ""},
		{"same host, same issuer", []saved{{hostA, iss, res, "tA", nil, time.Time{}}}, nil, hostA, Want{res, iss, nil}, DecisionSilent, "tA"},
		{"same host spelled differently", []saved{{hostA, iss, res, "tA", nil, time.Time{}}}, nil, "WS://A.example:4000?x=1", Want{res, iss, nil}, DecisionSilent, "tA"},
		{"same host and port, another path", []saved{{hostA, iss, res, "tA", nil, time.Time{}}}, nil, "ws://a.example:4000/other", Want{res, iss, nil}, DecisionAsk, "tA"},
		{"one gateway, two users", []saved{{"wss://gw.example/alice", iss, res, "tAlice", nil, time.Time{}}}, nil, "wss://gw.example/bob", Want{res, iss, nil}, DecisionAsk, "tAlice"},
		{"gateway path spelled differently", []saved{{"wss://gw.example/alice", iss, res, "tAlice", nil, time.Time{}}}, nil, "WSS://GW.example:443/alice/", Want{res, iss, nil}, DecisionSilent, "tAlice"},
		{"id saved before paths counted, empty path", []saved{{"wss://gw.example:443", iss, res, "tOld", nil, time.Time{}}}, nil, "wss://gw.example/", Want{res, iss, nil}, DecisionSilent, "tOld"},
		{"id saved before paths counted, a path", []saved{{"wss://gw.example:443", iss, res, "tOld", nil, time.Time{}}}, nil, "wss://gw.example/bob", Want{res, iss, nil}, DecisionAsk, "tOld"},
		{"unix socket host", []saved{{"ws+unix:///run/user/1000/a.sock", iss, res, "tU", nil, time.Time{}}}, nil, "ws+unix:///run/user/1000/a.sock", Want{res, iss, nil}, DecisionSilent, "tU"},
		{"another unix socket", []saved{{"ws+unix:///run/user/1000/a.sock", iss, res, "tU", nil, time.Time{}}}, nil, "ws+unix:///run/user/1000/b.sock", Want{res, iss, nil}, DecisionAsk, "tU"},
		{"another host, same issuer", []saved{{hostA, iss, res, "tA", nil, time.Time{}}}, nil, hostB, Want{res, iss, nil}, DecisionAsk, "tA"},
		{"another host, allowed before", []saved{{hostA, iss, res, "tA", nil, time.Time{}}}, []answer{{hostB, true}}, hostB, Want{res, iss, nil}, DecisionSilent, "tA"},
		{"another host, refused before", []saved{{hostA, iss, res, "tA", nil, time.Time{}}}, []answer{{hostB, false}}, hostB, Want{res, iss, nil}, DecisionNever, ""},
		{"answer for another host does not count", []saved{{hostA, iss, res, "tA", nil, time.Time{}}}, []answer{{"ws://c.example:4000", true}}, hostB, Want{res, iss, nil}, DecisionAsk, "tA"},
		{"host names another issuer", []saved{{hostA, iss, res, "tA", nil, time.Time{}}}, nil, hostB, Want{res, evil, nil}, DecisionNever, ""},
		{"original host now names another issuer", []saved{{hostA, iss, res, "tA", nil, time.Time{}}}, nil, hostA, Want{res, evil, nil}, DecisionNever, ""},
		{"issuer differs by a trailing slash", []saved{{hostA, iss, res, "tA", nil, time.Time{}}}, nil, hostA, Want{res, iss + "/", nil}, DecisionNever, ""},
		{"host names no issuer", []saved{{hostA, iss, res, "tA", nil, time.Time{}}}, nil, hostA, Want{res, "", nil}, DecisionNever, ""},
		{"saved before hosts were recorded", []saved{{"", iss, res, "old", nil, time.Time{}}}, nil, hostA, Want{res, iss, nil}, DecisionAsk, "old"},
		{"prefix of the resource is not it", []saved{{hostA, iss, res + "/more", "tA", nil, time.Time{}}}, nil, hostA, Want{res, iss, nil}, DecisionNone, ""},
		{"scopes do not cover", []saved{{hostA, iss, res, "tA", []string{"read"}, time.Time{}}}, nil, hostA, Want{res, iss, []string{"read", "write"}}, DecisionNone, ""},
		{"scopes cover", []saved{{hostA, iss, res, "tA", []string{"read", "write"}, time.Time{}}}, nil, hostA, Want{res, iss, []string{"write"}}, DecisionSilent, "tA"},
		{"expired", []saved{{hostA, iss, res, "tA", nil, now.Add(10 * time.Second)}}, nil, hostA, Want{res, iss, nil}, DecisionNone, ""},
		{"own host wins over another", []saved{{hostB, iss, res, "tB", nil, time.Time{}}, {hostA, iss, res, "tA", nil, time.Time{}}}, nil, hostB, Want{res, iss, nil}, DecisionSilent, "tB"},
		{"own host wins over a refusal", []saved{{hostA, iss, res, "tA", nil, time.Time{}}, {hostB, iss, res, "tB", nil, time.Time{}}}, []answer{{hostB, false}}, hostB, Want{res, iss, nil}, DecisionSilent, "tB"},
		{"ssh: same box, same endpoint", []saved{{"ssh://alice@box:22/standalone/i1", iss, res, "tS", nil, time.Time{}}}, nil, "ssh://alice@BOX/standalone/i1/", Want{res, iss, nil}, DecisionSilent, "tS"},
		{"ssh: another endpoint on the box", []saved{{"ssh://alice@box:22/standalone/i1", iss, res, "tS", nil, time.Time{}}}, nil, "ssh://alice@box:22/standalone/i2", Want{res, iss, nil}, DecisionAsk, "tS"},
		{"ssh: another login on the box", []saved{{"ssh://alice@box:22/standalone/i1", iss, res, "tS", nil, time.Time{}}}, nil, "ssh://bob@box:22/standalone/i1", Want{res, iss, nil}, DecisionAsk, "tS"},
		{"ssh: the endpoint through a hand-made forward", []saved{{"ssh://alice@box:22/standalone/i1", iss, res, "tS", nil, time.Time{}}}, nil, "ws://127.0.0.1:40123/", Want{res, iss, nil}, DecisionAsk, "tS"},
		{"bad host URL", []saved{{hostA, iss, res, "tA", nil, time.Time{}}}, nil, "::", Want{res, iss, nil}, DecisionNever, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := New(Config{MemoryOnly: true, Now: func() time.Time { return now }, HTTPClient: offline})
			if err != nil {
				t.Fatal(err)
			}
			for i, s := range tc.saved {
				hid := ""
				if s.host != "" {
					hid, _ = HostID(s.host)
				}
				k := tokenKey{Host: hid, Issuer: s.issuer, Resource: s.resource, ClientID: "c"}
				if err := a.store.putToken(k, Token{AccessToken: s.access, Scopes: s.scopes, Expiry: s.expiry}, now.Add(time.Duration(i)*time.Second)); err != nil {
					t.Fatal(err)
				}
			}
			for _, an := range tc.answers {
				if err := a.Answer(an.host, res, iss, an.allow); err != nil {
					t.Fatal(err)
				}
			}
			m := a.Lookup(tc.host, tc.want)
			if m.Decision != tc.dec || m.Token.AccessToken != tc.access {
				t.Fatalf("Lookup = %v with %q, want %v with %q", m.Decision, m.Token.AccessToken, tc.dec, tc.access)
			}
		})
	}
}

// TestStoreMigratesVersion1 loads a file written before grants were bound
// to hosts: its grant survives, has no host, and is never pushed silently.
func TestStoreMigratesVersion1(t *testing.T) {
	dir := t.TempDir()
	v1 := map[string]any{
		"version":       1,
		"registrations": map[string]any{"https://as.example": map[string]any{"client_id": "dyn", "registered_at": time.Unix(1e9, 0)}},
		"tokens": []map[string]any{{
			"issuer": "https://as.example", "resource": "https://api.example/mcp", "client_id": "dyn",
			"access_token": "legacy", "updated_at": time.Unix(1e9, 0),
		}},
	}
	b, _ := json.Marshal(v1)
	if err := os.WriteFile(filepath.Join(dir, storeFileName), b, 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := New(Config{Dir: dir, HTTPClient: offline})
	if err != nil {
		t.Fatal(err)
	}
	gs := a.Grants()
	if len(gs) != 1 || gs[0].Host != "" || gs[0].ClientID != "dyn" {
		t.Fatalf("Grants() after migration = %+v", gs)
	}
	m := a.Lookup("ws://127.0.0.1:4000", Want{Resource: "https://api.example/mcp", Issuer: "https://as.example"})
	if m.Decision != DecisionAsk || m.Token.AccessToken != "legacy" {
		t.Fatalf("legacy grant: %v %q, want ask", m.Decision, m.Token.AccessToken)
	}
	if err := a.Answer("ws://127.0.0.1:4000", "https://api.example/mcp", "https://as.example", true); err != nil {
		t.Fatal(err)
	}
	var f storeFile
	b, _ = os.ReadFile(filepath.Join(dir, storeFileName))
	if err := json.Unmarshal(b, &f); err != nil || f.Version != storeVersion || len(f.Tokens) != 1 || len(f.Answers) != 1 || f.Registrations["https://as.example"].ClientID != "dyn" {
		t.Fatalf("rewritten file: version %d, %d tokens, %d answers, %v (%v)", f.Version, len(f.Tokens), len(f.Answers), f.Registrations, err)
	}
}

func TestForgetUnknownGrant(t *testing.T) {
	a, err := New(Config{MemoryOnly: true, HTTPClient: offline})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Forget(context.Background(), StoredGrant{Resource: "https://x.example"}); !errors.Is(err, ErrStore) {
		t.Fatalf("Forget of nothing: %v", err)
	}
}
