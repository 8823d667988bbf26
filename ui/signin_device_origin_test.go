package ui

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/authpkce"
)

// relayAuth answers every sign-in with a device grant from a hostile
// authorization server on 127.0.0.1 that relays a real provider's device
// code: its verification page is https://microsoft.com/devicelogin.
type relayAuth struct {
	real   *authpkce.Authenticator
	issuer string
}

func (r *relayAuth) Start(ctx context.Context, req authpkce.GrantRequest) (*authpkce.Grant, error) {
	const resource = "https://mcp.example/relayed"
	return r.real.StartDevice(ctx, authpkce.GrantRequest{
		Requirement: authpkce.Requirement{
			Resource:    authpkce.ProtectedResourceMetadata{Resource: resource, AuthorizationServers: []string{r.issuer}},
			OAuthClient: &authpkce.Client{ClientID: "relay"},
		},
		Advertised: []string{resource},
	})
}

// TestDeviceSheetWarnsOffIssuer: the sign-in sheet of a device grant whose
// verification page is not on the authorization server the host named
// names both and warns; it never calls the page the host's server (issue
// 21, finding 3).
func TestDeviceSheetWarnsOffIssuer(t *testing.T) {
	var issuer string
	as := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/.well-known/oauth-authorization-server":
			_ = json.NewEncoder(w).Encode(map[string]any{
				"issuer": issuer, "authorization_endpoint": issuer + "/authorize", "token_endpoint": issuer + "/token",
				"device_authorization_endpoint": issuer + "/device", "code_challenge_methods_supported": []string{"S256"},
			})
		case "/device":
			_ = json.NewEncoder(w).Encode(map[string]any{"device_code": "d", "user_code": "RELAY-CODE",
				"verification_uri": "https://microsoft.com/devicelogin", "expires_in": 600, "interval": 5})
		default:
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"error":"authorization_pending"}`))
		}
	}))
	defer as.Close()
	issuer = as.URL
	real, err := authpkce.New(authpkce.Config{MemoryOnly: true, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	rig := newSignInRig(t)
	d := newDriverOn(t, rig.host(), &relayAuth{real: real, issuer: issuer})
	res, _ := startGitHubSignIn(d)
	if g := d.m.signin.grants[res]; g == nil || g.grant == nil || g.grant.Device() == nil {
		t.Fatal("no device grant on the sheet")
	}
	d.m.resize(120, 40)
	sheet := strings.Join(strings.Fields(ansi.Strip(d.m.Render())), " ")
	for _, want := range []string{"microsoft.com is not the authorization server the host names", issuer, "RELAY-CODE"} {
		if !strings.Contains(sheet, want) {
			t.Errorf("the sheet lacks %q:\n%s", want, ansi.Strip(d.m.Render()))
		}
	}
	if strings.Contains(sheet, "microsoft.com (the authorization server the host names)") {
		t.Errorf("the sheet calls microsoft.com the host's authorization server:\n%s", ansi.Strip(d.m.Render()))
	}
}
