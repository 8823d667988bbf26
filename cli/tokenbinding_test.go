package cli

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ahptui/ahptui/authpkce"
	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/demohost/authserver"
	"github.com/ahptui/ahptui/host/trust"
	"github.com/ahptui/ahptui/internal/demotest"
	"github.com/ahptui/ahptui/protocol/client"
)

// grantOn signs in for resource at as (the browser played headless) as
// the UI does on host, so dir's token store holds a grant bound to host.
func grantOn(t *testing.T, dir string, as *authserver.Server, resource, host string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if _, err := authpkce.PrivateDir(dir); err != nil {
		t.Fatal(err)
	}
	urls := make(chan string, 1)
	a, err := authpkce.New(authpkce.Config{Dir: dir, TokenStore: authpkce.TokenStoreFile, HTTPClient: &http.Client{Timeout: 10 * time.Second},
		OpenBrowser: func(u string) error { urls <- u; return nil }})
	if err != nil {
		t.Fatal(err)
	}
	g, err := a.Start(ctx, authpkce.GrantRequest{
		Requirement: authpkce.Requirement{Reason: authpkce.ReasonRequired,
			Resource:    authpkce.ProtectedResourceMetadata{Resource: resource, AuthorizationServers: []string{as.Issuer()}, ScopesSupported: as.Scopes()},
			OAuthClient: &authpkce.Client{ClientID: as.PublicClientID()}},
		Advertised: []string{resource},
		Host:       host,
	})
	if err != nil {
		t.Fatal(err)
	}
	landed, err := authserver.ApproveHeadless(ctx, nil, <-urls)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(landed.String())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if _, err := g.Wait(ctx); err != nil {
		t.Fatalf("the sign-in: %v", err)
	}
}

// authTap records the resources every authenticate a host receives names.
type authTap struct {
	mu        sync.Mutex
	resources []string
}

func (a *authTap) tap(_ int64, dir demohost.Direction, frame []byte) {
	if dir != demohost.Inbound {
		return
	}
	var m struct {
		Method string `json:"method"`
		Params struct {
			Resource string `json:"resource"`
		} `json:"params"`
	}
	if json.Unmarshal(frame, &m) == nil && m.Method == "authenticate" {
		a.mu.Lock()
		a.resources = append(a.resources, m.Params.Resource)
		a.mu.Unlock()
	}
}

func (a *authTap) seen() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.resources...)
}

// TestGrantsStayOnTheirHost: three demo hosts connected at once. A and B
// share one authorization server, and B names A's agent resource with
// that very issuer — everything a saved grant is matched on but the
// host; C has an authorization server of its own. A sign-in saved on A
// goes to none of them from status on all three, whichever order the
// hosts are given in: A and B are plain ws:// not proven the user's
// (and B is not where the grant was made), so stderr names both with
// --allow-saved-tokens; C, whose issuer is another, is not named.
func TestGrantsStayOnTheirHost(t *testing.T) {
	as, err := authserver.Start(t.Context(), authserver.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { as.Close() })
	var tapA, tapB, tapC authTap
	a := demotest.Start(t, demohost.Config{Auth: as, AgentToken: "static-a", Tap: tapA.tap})
	u, err := url.Parse(a.URL())
	if err != nil {
		t.Fatal(err)
	}
	resource := "http://" + u.Host + demohost.AgentResourcePath
	b := demotest.Start(t, demohost.Config{Auth: as, AgentToken: "static-b", AgentResource: resource, AgentIssuer: as.Issuer(), Tap: tapB.tap})
	c := demotest.Start(t, demohost.Config{AgentToken: "static-c", Tap: tapC.tap})
	// B asks for what A does: the same resource, from the same issuer.
	for _, h := range []*demohost.Host{a, b} {
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		cl, err := client.Dial(ctx, client.Options{URL: h.URL(), ClientID: "0123456789abcdef0123456789abcdef"})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		root, _ := cl.Root()
		cl.Close()
		if w := trust.Wants(root, nil, nil); len(w) != 1 || w[0].Resource != resource || w[0].Issuer != as.Issuer() {
			t.Fatalf("%s asks for %+v, want %s from %s", h.URL(), w, resource, as.Issuer())
		}
	}
	e := newHostsEnv(t)
	grantOn(t, e.dir, as, resource, a.URL())

	for _, order := range [][]string{{a.URL(), b.URL(), c.URL()}, {b.URL(), c.URL(), a.URL()}} {
		before := len(tapA.seen())
		out, errs, code := e.run(t, "status", "--json", "--host", order[0], "--host", order[1], "--host", order[2])
		if code != ExitOK {
			t.Fatalf("status: exit %d %s\n%s", code, errs, out)
		}
		// A is plain ws:// not from VS Code's registry: its own grant
		// waits for --allow-saved-tokens, and stderr says so.
		if got := tapA.seen()[before:]; len(got) != 0 {
			t.Errorf("order %v: A, plain ws:// not proven the user's, was sent authenticate for %v without --allow-saved-tokens", order, got)
		}
		for _, h := range []string{a.URL(), b.URL()} {
			if !strings.Contains(errs, "saved sign-in for "+resource+" not sent to "+h) || !strings.Contains(errs, "--allow-saved-tokens") {
				t.Errorf("order %v: stderr does not say why nothing went to %s:\n%s", order, h, errs)
			}
		}
		if strings.Contains(errs, c.URL()) {
			t.Errorf("order %v: stderr names C, which names another issuer:\n%s", order, errs)
		}
		if got := tapB.seen(); len(got) != 0 {
			t.Errorf("order %v: B, which names the same resource and issuer, was sent A's grant: %v", order, got)
		}
		if got := tapC.seen(); len(got) != 0 {
			t.Errorf("order %v: C was sent a token: %v", order, got)
		}
	}
}
