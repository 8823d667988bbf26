package ui

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/zitadel/oidc/v3/example/server/exampleop"
	"github.com/zitadel/oidc/v3/example/server/storage"

	"github.com/ahptui/ahptui/authpkce"
	"github.com/ahptui/ahptui/protocol"
)

// TestDeviceGrantFromSheet runs the device authorization grant (RFC 8628)
// from the sign-in sheet against zitadel/oidc's OpenID Provider, a real
// RFC 8628 server (a test-only dependency; the demo's fosite server has no
// device endpoint). The sheet offers D only because the server advertises
// the grant; D replaces the browser flow with a device code; the sheet
// shows the user code and the verification address on a row of its own;
// approving the code at the server ends in the token pushed to the host.
func TestDeviceGrantFromSheet(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the device poll waits the server's 5 s interval")
	}
	const clientID, secret = "ahptui-device", "device-secret"
	srv := httptest.NewUnstartedServer(nil)
	issuer := "http://" + srv.Listener.Addr().String()
	st := storage.NewStorageWithClients(storage.NewUserStore(issuer), map[string]*storage.Client{
		clientID: storage.DeviceClient(clientID, secret),
	})
	srv.Config.Handler = exampleop.SetupServer(issuer, st, nil, false)
	srv.Start()
	t.Cleanup(srv.Close)

	auth, err := authpkce.New(authpkce.Config{MemoryOnly: true, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	req := fxDeployAuth()
	req.Resource.AuthorizationServers = []string{issuer}
	req.RequiredScopes = []string{"openid"}
	req.OauthClient = &protocol.McpOAuthClient{ClientID: clientID, ClientSecret: ptr(secret)}
	m := fxModel(fxChatState(fxAuthPart()))
	m.cfg.Auth = auth
	rec := &authRecorder{stubClient: m.client.(*stubClient)}
	m.client = rec
	// One driver for the whole test: the flow's wait runs across steps.
	p := &driver{t: t, m: m, msgs: make(chan tea.Msg), done: make(chan struct{})}
	defer close(p.done)

	p.run(m.signin.startGrant(req))
	p.until("the browser flow waits", func() bool { return m.signin.waitingGrant() != nil })
	if !strings.Contains(ansi.Strip(m.Render()), "D device code") {
		t.Fatalf("the sheet does not offer the device code:\n%s", ansi.Strip(m.Render()))
	}
	p.keys("D")
	var dc *authpkce.DeviceCode
	p.until("the device code", func() bool {
		if g := m.signin.waitingGrant(); g != nil && g.grant != nil {
			dc = g.grant.Device()
		}
		return dc != nil
	})
	screen := ansi.Strip(m.Render())
	if !strings.Contains(screen, dc.UserCode) || !strings.Contains(screen, "\n "+dc.VerificationURI) {
		t.Fatalf("the sheet does not show the code %q and %q on a row of its own:\n%s", dc.UserCode, dc.VerificationURI, screen)
	}
	if err := st.CompleteDeviceAuthorization(context.Background(), dc.UserCode, "id1"); err != nil {
		t.Fatal(err)
	}
	p.until("the device token pushed", func() bool {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		return len(rec.pushed) == 1
	})
	if got := rec.pushed[0]; !strings.HasPrefix(got, fxDeploy+"|") || got == fxDeploy+"|" {
		t.Fatalf("pushed %q", got)
	}
}
