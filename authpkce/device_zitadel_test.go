package authpkce

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/zitadel/oidc/v3/example/server/exampleop"
	"github.com/zitadel/oidc/v3/example/server/storage"
)

// zitadelOP starts zitadel/oidc's OpenID Provider (with its example
// in-memory storage) on 127.0.0.1: a real RFC 8628 server, which hydra
// v2.3.0 and fosite v0.49 are not. It is a test-only dependency.
func zitadelOP(t *testing.T, clientID, secret string) (issuer string, st *storage.Storage) {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	issuer = "http://" + srv.Listener.Addr().String()
	st = storage.NewStorageWithClients(storage.NewUserStore(issuer), map[string]*storage.Client{
		clientID: storage.DeviceClient(clientID, secret),
	})
	srv.Config.Handler = exampleop.SetupServer(issuer, st, nil, false)
	srv.Start()
	t.Cleanup(srv.Close)
	return issuer, st
}

// TestDeviceGrantZitadel runs the device authorization grant end to end:
// StartDevice returns the user code and verification URL the UI shows,
// the user approves that code at the server, the poll returns a token the
// server accepts at its userinfo endpoint, and the grant is saved bound to
// the host like a browser grant. A refused code ends in ErrAccessDenied.
func TestDeviceGrantZitadel(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the device poll waits the server's 5 s interval")
	}
	const clientID, secret = "ahptui-device", "device-secret"
	issuer, st := zitadelOP(t, clientID, secret)
	a, err := New(Config{MemoryOnly: true, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	req := GrantRequest{
		Requirement: Requirement{
			Reason:         ReasonRequired,
			Resource:       ProtectedResourceMetadata{Resource: testResource, AuthorizationServers: []string{issuer}},
			RequiredScopes: []string{"openid"},
			OAuthClient:    &Client{ClientID: clientID, ClientSecret: secret},
		},
		Advertised: []string{testResource},
		Host:       "ws://127.0.0.1:4000/",
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	// A browser grant at this server says the device grant is on offer.
	bg, err := a.Start(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if !bg.DeviceOffered() {
		t.Error("Grant.DeviceOffered is false for a server with device_authorization_endpoint")
	}
	bg.Cancel()
	<-bg.Done()

	g, err := a.StartDevice(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	dc := g.Device()
	if dc == nil || dc.UserCode == "" || !strings.HasPrefix(dc.VerificationURI, issuer+"/device") || g.URL() != dc.VerificationURI {
		t.Fatalf("device code %+v, URL %q", dc, g.URL())
	}
	if g.ServerHost() != strings.TrimPrefix(issuer, "http://") {
		t.Errorf("ServerHost %q", g.ServerHost())
	}
	// The user enters the code at the verification page and approves.
	if err := st.CompleteDeviceAuthorization(ctx, dc.UserCode, "id1"); err != nil {
		t.Fatal(err)
	}
	res, err := g.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Source != SourceDevice || res.AccessToken == "" || res.Host != "ws://127.0.0.1:4000" {
		t.Fatalf("result %v", res)
	}
	uireq, _ := http.NewRequestWithContext(ctx, http.MethodGet, issuer+"/userinfo", nil)
	uireq.Header.Set("Authorization", "Bearer "+res.AccessToken)
	resp, err := http.DefaultClient.Do(uireq)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the server refused its own device token at userinfo: HTTP %d", resp.StatusCode)
	}
	if m := a.Lookup("ws://127.0.0.1:4000", Want{Resource: testResource, Issuer: issuer, Scopes: []string{"openid"}}); m.Decision != DecisionSilent {
		t.Errorf("device grant not reusable on its host: %v", m.Decision)
	}

	// Refused at the server.
	g, err = a.StartDevice(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.DenyDeviceAuthorization(ctx, g.Device().UserCode); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Wait(ctx); !errors.Is(err, ErrAccessDenied) {
		t.Fatalf("denied device code: %v", err)
	}
}

// TestDeviceGrantNotOffered: a server without device_authorization_endpoint
// gets ErrNoDeviceGrant before any user code exists.
func TestDeviceGrantNotOffered(t *testing.T) {
	a, err := New(Config{MemoryOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	req := plainRequirement(fakeAS(t, metadataHandler(goodMetadata)))
	req.Requirement.OAuthClient = &Client{ClientID: "pre"}
	if _, err := a.StartDevice(context.Background(), req); !errors.Is(err, ErrNoDeviceGrant) {
		t.Fatalf("StartDevice: %v", err)
	}
}
