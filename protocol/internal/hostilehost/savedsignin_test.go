package hostilehost_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ahptui/ahptui/authpkce"
	"github.com/ahptui/ahptui/cli"
	"github.com/ahptui/ahptui/demohost/authserver"
	"github.com/ahptui/ahptui/protocol/internal/hostilehost"
)

// runCLI runs an ahptui command in this process with dir as its config
// dir and an empty environment (no VS Code registry).
func runCLI(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb strings.Builder
	code = cli.Run(append(args, "--config-dir", dir), cli.Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }})
	return out.String(), errb.String(), code
}

// TestSignInBaitCommands is the saved sign-in scenario against the
// commands: a grant made (for real, at the demo's authorization server)
// on a plain ws:// address of this machine, and a host on that address,
// found in no registry, advertising the grant's resource and issuer.
// Any program could hold the address: status sends nothing and says why
// on stderr, naming --allow-saved-tokens; with the flag, it sends it.
func TestSignInBaitCommands(t *testing.T) {
	as, err := authserver.Start(t.Context(), authserver.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = as.Close() })
	const resource = "https://mcp.example.com/bait"
	bait, err := hostilehost.StartSignInBait(hostilehost.BaitConfig{Resource: resource, Issuer: as.Issuer(), Agent: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = bait.Close() })
	dir := t.TempDir()
	signInOn(t, dir, as, resource, bait.URL())

	_, stderr, code := runCLI(t, dir, "status", "--host", bait.URL())
	if code != cli.ExitOK {
		t.Fatalf("status: exit %d\n%s", code, stderr)
	}
	if got := bait.Authenticated(); len(got) != 0 {
		t.Errorf("status sent the saved sign-in to a plain ws:// host not proven the user's: %v", got)
	}
	want := "saved sign-in for " + resource + " not sent to " + bait.URL() + ": "
	if !strings.Contains(stderr, want) || !strings.Contains(stderr, "--allow-saved-tokens") || !strings.Contains(stderr, "plain ws://") {
		t.Errorf("stderr does not say why nothing was sent, nor name the flag:\n%s", stderr)
	}

	_, stderr, code = runCLI(t, dir, "status", "--host", bait.URL(), "--allow-saved-tokens")
	if code != cli.ExitOK {
		t.Fatalf("status --allow-saved-tokens: exit %d\n%s", code, stderr)
	}
	if got := bait.Authenticated(); len(got) != 1 || got[0] != resource {
		t.Errorf("with --allow-saved-tokens the host got authenticate for %v, want %s once", got, resource)
	}
	if strings.Contains(stderr, "not sent") {
		t.Errorf("with the flag stderr still says not sent:\n%s", stderr)
	}
}

// signInOn signs in to resource at as (the browser played headless) on
// host, saving the grant in dir's token store.
func signInOn(t *testing.T, dir string, as *authserver.Server, resource, host string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if _, err := authpkce.PrivateDir(dir); err != nil {
		t.Fatal(err)
	}
	urls := make(chan string, 1)
	a, err := authpkce.New(authpkce.Config{Dir: dir, TokenStore: authpkce.TokenStoreFile, OpenBrowser: func(u string) error { urls <- u; return nil }})
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

// TestDeviceElsewhereCommands: auth login --device against the hostile
// authorization server that relays another origin's device code
// (ASDeviceElsewhere, which the UI's sheet warns about) refuses the page
// and names both origins and --allow-other-origin, showing no code; with
// --allow-other-origin it warns naming both, then shows the code.
func TestDeviceElsewhereCommands(t *testing.T) {
	as, err := hostilehost.StartAuthServer(hostilehost.ASDeviceElsewhere)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = as.Close() })
	const resource = "https://mcp.example/hostile"
	bait, err := hostilehost.StartSignInBait(hostilehost.BaitConfig{Resource: resource, Issuer: as.Issuer(), ClientID: "hostile-client"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = bait.Close() })
	dir := t.TempDir()
	login := []string{"auth", "login", resource, "--device", "--session", hostilehost.BaitSession, "--host", bait.URL(), "--timeout", "3s"}

	_, stderr, code := runCLI(t, dir, login...)
	if code != cli.ExitSignIn {
		t.Errorf("auth login --device on a relayed page: exit %d, want %d\n%s", code, cli.ExitSignIn, stderr)
	}
	for _, want := range []string{"microsoft.com", as.Issuer(), "not the authorization server the host names", "--allow-other-origin"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("the refusal does not name %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "RELAY-CODE") {
		t.Errorf("the relayed code was shown though the page was refused:\n%s", stderr)
	}

	_, stderr, _ = runCLI(t, dir, append(login, "--allow-other-origin")...)
	for _, want := range []string{"warning: microsoft.com is not the authorization server the host names (" + as.Issuer() + ")", hostilehost.RelayedVerificationURI, "RELAY-CODE"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("with --allow-other-origin stderr lacks %q:\n%s", want, stderr)
		}
	}
}
