package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ahptui/ahptui/authpkce"
	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/demohost/authserver"
	"github.com/ahptui/ahptui/host/dial"
)

// The "use your sign-in here?" question appears when a sign-in saved on
// one host is wanted by another naming the same authorization server.
// Two clients of one demo host never see it (one host, and demo sign-ins
// live in this process's memory), so --demo-other-host gives the demo a
// second identity: ahptui reaches it as ws://localhost:PORT while a
// GitHub sign-in was made, just before, on ws://127.0.0.1:PORT — the
// same server and resource under two host names, as a saved grant meets
// a second host in real use.

// quietWhileSeeding wraps acfg's browser opener so it opens nothing while
// the returned flag is set: the seeding sign-in is approved headlessly.
func quietWhileSeeding(acfg *authpkce.Config) *atomic.Bool {
	var seeding atomic.Bool
	open := acfg.OpenBrowser
	if open == nil {
		open = authpkce.OpenSystemBrowser
	}
	acfg.OpenBrowser = func(u string) error {
		if seeding.Load() {
			return nil
		}
		return open(u)
	}
	return &seeding
}

// demoOtherHost signs in to the demo's GitHub server as the host's first
// name, the demo's authorization server approving without a browser, and
// returns the target that reaches the same host by its second name.
func demoOtherHost(ctx context.Context, auth *authpkce.Authenticator, seeding *atomic.Bool, h *demohost.Host) (dial.Target, error) {
	if h == nil {
		return dial.Target{}, errors.New("--demo-other-host needs --demo")
	}
	prm, ok := h.ProtectedResource(demohost.GitHubResourcePath)
	if !ok {
		return dial.Target{}, errors.New("the demo host has no GitHub server to sign in to")
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	seeding.Store(true)
	defer seeding.Store(false)
	g, err := auth.Start(ctx, authpkce.GrantRequest{
		Requirement: authpkce.Requirement{Reason: authpkce.ReasonRequired, Resource: prm, RequiredScopes: demohost.GitHubScopes},
		Advertised:  []string{prm.Resource}, Host: h.URL()})
	if err != nil {
		return dial.Target{}, fmt.Errorf("--demo-other-host: the first host's sign-in: %w", err)
	}
	defer g.Cancel()
	landed, err := authserver.ApproveHeadless(ctx, nil, g.URL())
	if err == nil {
		err = g.Complete(ctx, landed.String())
	}
	if err == nil {
		_, err = g.Wait(ctx)
	}
	if err != nil {
		return dial.Target{}, fmt.Errorf("--demo-other-host: the first host's sign-in: %w", err)
	}
	return dial.Parse(strings.Replace(h.URL(), "://127.0.0.1:", "://localhost:", 1))
}
