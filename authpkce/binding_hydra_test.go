package authpkce

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ahptui/ahptui/protocol/client"
	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

// spyHost is a real AHP host on a 127.0.0.1 WebSocket that answers
// initialize and records every authenticate it receives: the proof of
// which host got which token.
type spyHost struct {
	URL string

	mu    sync.Mutex
	auths []string // resource|token
	inits int
	got   chan string
	ready chan struct{}
}

func newSpyHost(t *testing.T) *spyHost {
	s := &spyHost{got: make(chan string, 8), ready: make(chan struct{}, 8)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tr, err := jsonrpc.Accept(w, r, jsonrpc.AcceptOptions{})
		if err != nil {
			return
		}
		c := jsonrpc.NewConn(tr, jsonrpc.HandlerFunc(s.handle), jsonrpc.ConnOptions{})
		c.Start(context.Background())
		<-c.Done()
	}))
	t.Cleanup(srv.Close)
	s.URL = "ws://" + strings.TrimPrefix(srv.URL, "http://") + "/"
	return s
}

func (s *spyHost) handle(_ context.Context, req *jsonrpc.Request) (any, error) {
	var p map[string]any
	_ = json.Unmarshal(req.Params, &p)
	switch req.Method {
	case "initialize":
		version, _ := p["protocolVersions"].([]any)
		s.mu.Lock()
		s.inits++
		s.mu.Unlock()
		s.ready <- struct{}{}
		return map[string]any{"protocolVersion": version[0], "serverSeq": 0, "snapshots": []any{}}, nil
	case "authenticate":
		res, _ := p["resource"].(string)
		tok, _ := p["token"].(string)
		s.mu.Lock()
		s.auths = append(s.auths, res+"|"+tok)
		s.mu.Unlock()
		s.got <- res + "|" + tok
		return map[string]any{}, nil
	}
	return nil, jsonrpc.ErrMethodNotFound
}

func (s *spyHost) received() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.auths...)
}

// connect dials the host with the real AHP client and waits for its
// initialize, so a token pushed later cannot be lost in a reconnect.
func (s *spyHost) connect(t *testing.T) *client.Client {
	t.Helper()
	id, err := client.LoadOrCreateClientID(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.Dial(context.Background(), client.Options{URL: s.URL, ClientID: id})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	select {
	case <-s.ready:
	case <-time.After(20 * time.Second):
		t.Fatal("the client never initialized on the spy host")
	}
	return c
}

func (s *spyHost) waitAuth(t *testing.T) string {
	t.Helper()
	select {
	case a := <-s.got:
		return a
	case <-time.After(20 * time.Second):
		t.Fatal("the spy host never received authenticate")
		return ""
	}
}

// TestHydraGrantBoundToHost is the acceptance test of grant binding,
// against a real hydra and real AHP hosts: a grant obtained on host A is
// pushed to A silently; host B, naming the same issuer for the resource,
// is asked about once and the answer is kept (a fresh Authenticator on the
// same directory pushes without asking); host C, naming its own
// authorization server for the same resource, gets nothing and its
// decision is never. The push glue below is what ui's pushSavedTokens
// does with a Match.
func TestHydraGrantBoundToHost(t *testing.T) {
	h := needHydra(t)
	oc := h.createClient(t, true, "files:read files:write")
	browser := newStandIn(t)
	env := newTestEnv(t, "", browser.Open, time.Minute)
	hostA, hostB, hostC := newSpyHost(t), newSpyHost(t), newSpyHost(t)
	evilIssuer := fakeAS(t, metadataHandler(goodMetadata))

	req := grantReq(requirementFor(h, ReasonRequired, &oc, "files:read"))
	req.Host = hostA.URL
	g, err := env.auth.Start(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if v := browser.wait(); v.err != nil || v.status != http.StatusOK {
		t.Fatalf("stand-in browser: %v %d", v.err, v.status)
	}
	res, err := waitDone(t, g)
	if err != nil {
		t.Fatal(err)
	}
	if wantHost, _ := HostID(hostA.URL); res.Host != wantHost {
		t.Fatalf("grant saved for host %q, want %q", res.Host, wantHost)
	}

	asked := 0
	push := func(a *Authenticator, host *spyHost, issuer string, answer bool) Decision {
		t.Helper()
		c := host.connect(t)
		w := Want{Resource: testResource, Issuer: issuer, Scopes: []string{"files:read"}}
		m := a.Lookup(host.URL, w)
		d := m.Decision
		if m.Decision == DecisionAsk {
			asked++
			if m.Token.Host == "" || !strings.Contains(hostA.URL, strings.TrimPrefix(m.Token.Host, "ws://")) {
				t.Errorf("the prompt would name host %q as the grant's origin, want %s", m.Token.Host, hostA.URL)
			}
			if err := a.Answer(host.URL, testResource, issuer, answer); err != nil {
				t.Fatal(err)
			}
			if m = a.Lookup(host.URL, w); answer != (m.Decision == DecisionSilent) {
				t.Fatalf("after answering %v: %v", answer, m.Decision)
			}
		}
		if m.Decision == DecisionSilent {
			if err := c.Authenticate(context.Background(), testResource, m.Token.AccessToken, m.Token.Scopes, time.Time{}); err != nil {
				t.Fatal(err)
			}
			host.waitAuth(t)
		}
		return d
	}

	if d := push(env.auth, hostA, h.issuer, false); d != DecisionSilent || asked != 0 {
		t.Fatalf("original host: %v (asked %d), want silent", d, asked)
	}
	if d := push(env.auth, hostB, h.issuer, true); d != DecisionAsk || asked != 1 {
		t.Fatalf("same issuer on another host: %v (asked %d), want ask", d, asked)
	}
	if d := push(env.auth, hostC, evilIssuer, true); d != DecisionNever || asked != 1 {
		t.Fatalf("another issuer: %v (asked %d), want never", d, asked)
	}

	// The answer for B outlives the process.
	again, err := New(Config{Dir: env.dir, HTTPClient: offline})
	if err != nil {
		t.Fatal(err)
	}
	if d := push(again, hostB, h.issuer, false); d != DecisionSilent || asked != 1 {
		t.Fatalf("host B the second time: %v (asked %d), want silent", d, asked)
	}

	tok := testResource + "|" + res.AccessToken
	for _, c := range []struct {
		name string
		host *spyHost
		want []string
	}{{"A", hostA, []string{tok}}, {"B", hostB, []string{tok, tok}}, {"C", hostC, nil}} {
		if got := c.host.received(); strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("host %s received %d tokens %q, want %d", c.name, len(got), got, len(c.want))
		}
	}
	if active, _ := h.introspect(t, res.AccessToken); !active {
		t.Error("the pushed token is not an active hydra token")
	}
}
