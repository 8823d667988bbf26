// Package hostpick decides which AHP host to talk to, the same way for the
// terminal UI and for the scriptable commands: a --host URL (with its
// connection token from a file, the URL or the environment), a host saved
// by name in hosts.yml, the one VS Code's local registry lists, or the
// demo. It checks the URL's form and transport before anything dials, and
// builds the client options that dial it without ever showing the token.
//
// It imports hostconn, hostregistry, savedhosts, protocol/client and
// views (the one sanitizer); never ui.
package hostpick
