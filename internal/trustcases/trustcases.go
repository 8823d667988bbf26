// Package trustcases is the table of saved sign-in trust cases that the
// UI's tests and the commands' tests both run through their own entry
// point (the UI's pushSavedTokens, the commands' planSaved), expecting the
// same decision: one policy (host/trust), two front-ends that cannot
// drift apart. It also signs in for real, at the demo's authorization
// server, so each case's Authenticator holds a real grant. Test-only.
package trustcases

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ahptui/ahptui/authpkce"
	"github.com/ahptui/ahptui/demohost/authserver"
	"github.com/ahptui/ahptui/host/trust"
)

// Resource is the protected resource every case's grant is for.
const Resource = "https://mcp.example.com/trustcases"

// OtherIssuer is the issuer a host names in IssuerElsewhere cases.
const OtherIssuer = "https://issuer.elsewhere.example"

// Case is one host, one saved grant and what the user said.
type Case struct {
	Name string
	// Host is the token-free URL the client is connected to.
	Host string
	// Registry: the host was found in VS Code's registry; Proven: its
	// entry names a live pid of this user (false: another user's pid, or
	// the entry vanished since). The UI knows both as
	// Config.RegistryHost (found there and proven); the commands as the
	// connection's source.
	Registry, Proven bool
	// GrantHost is where the saved grant was made; "" saves none.
	GrantHost string
	// IssuerElsewhere: the host names OtherIssuer for the resource, not
	// the issuer that issued the grant (authpkce.DecisionNever).
	IssuerElsewhere bool
	// AnsweredNo: the user said no to using the grant on Host before
	// (remembered by authpkce: DecisionNever).
	AnsweredNo bool
	// NotAdvertised: the host advertises another resource, not the
	// grant's.
	NotAdvertised bool
	// UserAllowed: the commands' --allow-saved-tokens; in the UI, a yes
	// to "send saved sign-ins over ws://?" this run.
	UserAllowed bool

	Want     trust.Kind
	Question trust.Question // for Ask
}

// Cases is the table.
var Cases = []Case{
	{Name: "registry host with a live pid of the user", Host: "ws://127.0.0.1:41001/", Registry: true, Proven: true,
		GrantHost: "ws://127.0.0.1:41001/", Want: trust.Push},
	{Name: "registry socket of the user", Host: "ws+unix:///tmp/ahptui-trust/registry.sock", Registry: true, Proven: true,
		GrantHost: "ws+unix:///tmp/ahptui-trust/registry.sock", Want: trust.Push},
	{Name: "registry entry whose pid is another user's", Host: "ws://127.0.0.1:41002/", Registry: true, Proven: false,
		GrantHost: "ws://127.0.0.1:41002/", Want: trust.Ask, Question: trust.SendPlain},
	{Name: "plain ws loopback host not from the registry", Host: "ws://127.0.0.1:41003/",
		GrantHost: "ws://127.0.0.1:41003/", Want: trust.Ask, Question: trust.SendPlain},
	{Name: "unix socket given by hand", Host: "ws+unix:///tmp/ahptui-trust/hand.sock",
		GrantHost: "ws+unix:///tmp/ahptui-trust/hand.sock", Want: trust.Ask, Question: trust.SendPlain},
	{Name: "wss on another host with the same issuer", Host: "wss://b.example.com/",
		GrantHost: "wss://a.example.com/", Want: trust.Ask, Question: trust.UseHere},
	{Name: "same host with another path", Host: "wss://gw.example.com/bob",
		GrantHost: "wss://gw.example.com/alice", Want: trust.Ask, Question: trust.UseHere},
	{Name: "host after its registry entry vanished", Host: "ws://127.0.0.1:41004/", Registry: true, Proven: false,
		GrantHost: "ws://127.0.0.1:41004/", Want: trust.Ask, Question: trust.SendPlain},
	{Name: "grant made on this very host over wss", Host: "wss://a.example.com/",
		GrantHost: "wss://a.example.com/", Want: trust.Push},
	{Name: "resource not advertised", Host: "wss://a.example.com/", NotAdvertised: true,
		GrantHost: "wss://a.example.com/", Want: trust.Refuse},
	{Name: "plain ws loopback the user allowed", Host: "ws://127.0.0.1:41005/", UserAllowed: true,
		GrantHost: "ws://127.0.0.1:41005/", Want: trust.Push},
	{Name: "the user said no here before", Host: "wss://b.example.com/", AnsweredNo: true,
		GrantHost: "wss://a.example.com/", Want: trust.Refuse},
	{Name: "the host names another issuer", Host: "wss://a.example.com/", IssuerElsewhere: true,
		GrantHost: "wss://a.example.com/", Want: trust.Refuse},
	{Name: "plain ws to another machine", Host: "ws://10.0.0.5:41006/",
		GrantHost: "ws://10.0.0.5:41006/", Want: trust.Ask, Question: trust.SendPlain},
	{Name: "no saved sign-in", Host: "wss://a.example.com/", Want: trust.Refuse},
	{Name: "grant from elsewhere on a plain loopback host", Host: "ws://127.0.0.1:41007/",
		GrantHost: "wss://a.example.com/", Want: trust.Ask, Question: trust.UseHere},
}

// Advertised is the protected resource c's host advertises and the issuer
// it names for it; issuer is the authorization server the grants come
// from.
func (c Case) Advertised(issuer string) (resource, named string) {
	resource, named = Resource, issuer
	if c.NotAdvertised {
		resource = Resource + "/other"
	}
	if c.IssuerElsewhere {
		named = OtherIssuer
	}
	return resource, named
}

// Auth is an Authenticator on a fresh token store in a temp dir holding
// c's grant, signed in for real at as (the browser played headless) on
// c.GrantHost, and c's remembered answer.
func Auth(t *testing.T, as *authserver.Server, c Case) *authpkce.Authenticator {
	t.Helper()
	dir := t.TempDir()
	if _, err := authpkce.PrivateDir(dir); err != nil {
		t.Fatal(err)
	}
	urls := make(chan string, 1)
	a, err := authpkce.New(authpkce.Config{Dir: dir, TokenStore: authpkce.TokenStoreFile, HTTPClient: &http.Client{Timeout: 10 * time.Second},
		OpenBrowser: func(u string) error { urls <- u; return nil }})
	if err != nil {
		t.Fatal(err)
	}
	if c.GrantHost == "" {
		return a
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	g, err := a.Start(ctx, authpkce.GrantRequest{
		Requirement: authpkce.Requirement{Reason: authpkce.ReasonRequired,
			Resource:    authpkce.ProtectedResourceMetadata{Resource: Resource, AuthorizationServers: []string{as.Issuer()}, ScopesSupported: as.Scopes()},
			OAuthClient: &authpkce.Client{ClientID: as.PublicClientID()}},
		Advertised: []string{Resource},
		Host:       c.GrantHost,
		// The demo's server is on 127.0.0.1, private to a host elsewhere.
		ConfirmedServers: []string{strings.TrimPrefix(as.Issuer(), "http://")},
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
	if c.AnsweredNo {
		if err := a.Answer(c.Host, Resource, as.Issuer(), false); err != nil {
			t.Fatal(err)
		}
	}
	return a
}

// StartAuthServer is the demo's authorization server for a test.
func StartAuthServer(t *testing.T) *authserver.Server {
	t.Helper()
	as, err := authserver.Start(t.Context(), authserver.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = as.Close() })
	return as
}
