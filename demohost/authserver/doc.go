// Package authserver is the OAuth 2 authorization server embedded in the demo
// host: authorization code + PKCE (S256 only), refresh tokens, RFC 8707
// resource indicators recorded as the token audience, RFC 7591 dynamic client
// registration, RFC 7662 introspection, RFC 8414 metadata and a consent page
// a person (or ApproveHeadless in tests) approves or denies.
//
// The OAuth machinery is this package's own (DESIGN.md says why it is not
// ory/fosite any more): opaque random codes and tokens held in memory by
// their SHA-256, one grant per approval that a reused code or rotated
// refresh token revokes whole, the consent step and the loopback-only
// client policy. It listens on 127.0.0.1 with an ephemeral port.
//
// Clients must send redirect_uri (only http://127.0.0.1:PORT/callback is
// accepted, any port), PKCE S256, and a state of at least 8 characters.
// Authorization redirects are 303 See Other.
//
// It never logs tokens or secrets and imports no ahptui package; in
// particular never ui, views, keymap or authpkce (tests exercise it with
// golang.org/x/oauth2 instead).
package authserver
