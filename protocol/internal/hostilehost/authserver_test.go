package hostilehost_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ahptui/ahptui/authpkce"
	"github.com/ahptui/ahptui/protocol/internal/hostilehost"
)

// TestHostileAuthServerScenarios runs the hostile authorization server's
// scenarios (issue 21, findings 2 and 3) against authpkce as the UI uses
// it: the default HTTP client, an AHP host on this machine.
func TestHostileAuthServerScenarios(t *testing.T) {
	const resource = "https://mcp.example/hostile"
	const host = "ws://127.0.0.1:9/"
	request := func(as *hostilehost.AuthServer, client bool) authpkce.GrantRequest {
		r := authpkce.GrantRequest{
			Requirement: authpkce.Requirement{Reason: authpkce.ReasonRequired, Resource: authpkce.ProtectedResourceMetadata{
				Resource: resource, AuthorizationServers: []string{as.Issuer()}}},
			Advertised: []string{resource},
			Host:       host,
		}
		if client {
			r.Requirement.OAuthClient = &authpkce.Client{ClientID: "hostile-client"}
		}
		return r
	}
	start := func(t *testing.T, s hostilehost.ASScenario) (*hostilehost.AuthServer, *authpkce.Authenticator, context.Context) {
		as, err := hostilehost.StartAuthServer(s)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { as.Close() })
		a, err := authpkce.New(authpkce.Config{MemoryOnly: true, Timeout: time.Minute, OpenBrowser: func(string) error { return nil }})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		t.Cleanup(cancel)
		return as, a, ctx
	}

	t.Run("registration at another local service", func(t *testing.T) {
		as, a, ctx := start(t, hostilehost.ASRegisterElsewhere)
		_, err := a.Start(ctx, request(as, false))
		if !errors.Is(err, authpkce.ErrNeedsConfirmation) {
			t.Errorf("Start = %v, want the user asked first", err)
		}
		if n := as.TrapHits(); n != 0 {
			t.Errorf("the other local service got %d requests", n)
		}
	})
	t.Run("metadata redirect to a local admin URL", func(t *testing.T) {
		as, a, ctx := start(t, hostilehost.ASRedirectToAdmin)
		if _, err := a.Start(ctx, request(as, true)); err == nil {
			t.Error("Start signed in through a redirect")
		}
		if n := as.TrapHits(); n != 0 {
			t.Errorf("the redirect was followed: %d requests to the admin URL", n)
		}
	})
	t.Run("device code relayed from another origin", func(t *testing.T) {
		as, a, ctx := start(t, hostilehost.ASDeviceElsewhere)
		g, err := a.StartDevice(ctx, request(as, true))
		if err != nil {
			t.Fatalf("StartDevice: %v", err)
		}
		defer g.Cancel()
		if g.Device().VerificationURI != hostilehost.RelayedVerificationURI {
			t.Fatalf("verification address %q", g.Device().VerificationURI)
		}
		if g.ServerIsIssuer() || g.Issuer() != as.Issuer() {
			t.Errorf("ServerIsIssuer %v, Issuer %q: the sheet must warn and name %s", g.ServerIsIssuer(), g.Issuer(), as.Issuer())
		}
	})
}
