// Package authpkce turns an AHP auth challenge (McpAuthRequirement, an
// auth/required notification, an AuthRequired error) into a bearer token:
// authorization-server discovery, client identity (pre-registered or RFC 7591
// dynamic registration), the OAuth 2.1 authorization-code + PKCE flow through
// the user's browser and a 127.0.0.1 loopback redirect, refresh, and a 0600
// token store.
//
// It must never import protocol, ui, views, keymap or demohost: callers pass
// plain values in and get tokens back.
package authpkce
