// Package pick decides which AHP host to talk to, the same way for the
// terminal UI and for the scriptable commands: a --host URL (with its
// connection token from a file, the URL or the environment), a host saved
// by name in hosts.yml, the one VS Code's local registry lists, or the
// demo. It checks the URL's form and transport before anything dials, and
// builds the client options that dial it without ever showing the token.
// A registry host is dialled only while it is still the user's: every
// dial, the first and each reconnect, re-reads the registry and checks
// the peer's uid (host/dial.VerifyPeer) before any token is sent.
//
// It imports host/dial, host/registry, host/saved, protocol/client and
// views (the one sanitizer); never ui.
package pick
