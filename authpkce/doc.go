// Package authpkce turns an AHP auth challenge (McpAuthRequirement, an
// auth/required notification, an AuthRequired error) into a bearer token:
// authorization-server discovery, client identity (pre-registered or RFC 7591
// dynamic registration), the OAuth 2.1 authorization-code + PKCE flow through
// the user's browser and a 127.0.0.1 loopback redirect, refresh, and a 0600
// token store.
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
//	})
//	show(g.URL())            // empty when answered from the cache or a refresh
//	<-g.Done()               // or select on it next to other events
//	res, err := g.Result()   // push res.AccessToken for res.Resource with `authenticate`
//
// After a reconnect, re-push every entry of a.Tokens(). Errors wrap the
// Err* sentinels (errors.Is) and say what the user can do next; they never
// contain a token or a client secret, and Token, CachedToken, Result and
// Client redact their secrets in fmt, slog and JSON.
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
package authpkce
