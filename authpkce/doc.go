// Package authpkce turns an AHP auth challenge (McpAuthRequirement, an
// auth/required notification, an AuthRequired error) into a bearer token:
// authorization-server discovery, client identity (pre-registered or RFC 7591
// dynamic registration), the OAuth 2.1 authorization-code + PKCE flow through
// the user's browser and a 127.0.0.1 loopback redirect (or a pasted
// redirect), the device grant, refresh, revocation, and a locked 0600 token
// store (or the OS keyring) whose grants are bound to host and issuer.
//
// It must never import protocol, ui, views, keymap or demohost: callers pass
// plain values in and get tokens back.
//
// # Use
//
//	a, err := authpkce.New(authpkce.Config{})   // tokens in os.UserConfigDir()/ahptui
//	g, err := a.Start(ctx, authpkce.GrantRequest{
//		Requirement: authpkce.Requirement{Reason: ..., Resource: prm, RequiredScopes: ..., OAuthClient: ...},
//		Advertised:  resourcesTheHostAdvertised,
//		Host:        theHostURL,
//	})
//	show(g.URL(), g.ServerHost()) // empty URL when answered from the cache or a refresh
//	g.Complete(ctx, pasted)       // optional: the address the browser landed on
//	<-g.Done()                    // or select on it next to other events
//	res, err := g.Result()        // push res.AccessToken for res.Resource with `authenticate`
//
// A saved grant is bound to the host it was obtained on and to its issuer.
// Before pushing one to a host (after a reconnect, on a new host), ask
// a.Lookup(hostURL, Want{Resource, Issuer, Scopes}): DecisionSilent pushes,
// DecisionAsk asks the user and records the answer with a.Answer,
// DecisionNever pushes nothing. a.Grants and a.Forget back a sign-ins view;
// a.StartDevice runs the device grant (RFC 8628) where Grant.DeviceOffered.
//
// Errors wrap the Err* sentinels (errors.Is) with a short context per
// layer; what to advise the user is the UI's to say. They never contain a
// token or a client secret, and Token, CachedToken, Result and Client
// redact their secrets in fmt, slog and JSON.
//
// Reasons: `required` reuses a cached token that covers the scopes;
// `expired` tries a silent refresh first; `insufficientScope` always goes to
// the browser for the requested scopes.
//
// # Tests
//
// The integration tests run against a real ory/hydra v2.3.0. Build it once
// (cached outside the repository) with .ci/build-hydra.sh, which prints the
// binary's path; the tests find it through $AHPTUI_HYDRA or that cache path.
// Without it they skip, unless CI=true, where they fail. -short skips them.
// The device grant is tested against zitadel/oidc's OP (a test-only
// import), and the store's locking with two re-executed test processes.
package authpkce
