package main

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/ahptui/ahptui/hostconn"
)

// hostForm is the shape --host accepts, quoted in every refusal so the
// user sees what to type instead.
const hostForm = "ws://HOST:PORT/ or wss://HOST[:PORT]/"

// checkHostURL refuses a --host value that cannot name a WebSocket
// endpoint, before any UI starts: a typo ("garbage") or an http:// URL
// would otherwise open the full screen only to show a dial error there.
// It checks the form only; whether ws:// may go to a non-loopback host is
// a separate policy.
func checkHostURL(raw string) error {
	// Every message quotes shown, never raw: a connection token rides in
	// the query, and a stray password in the user info.
	shown := hostconn.Redact(raw)
	if strings.TrimSpace(raw) == "" {
		return fmt.Errorf("--host is empty: give %s", hostForm)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("--host %q is not a URL: give %s", shown, hostForm)
	}
	switch strings.ToLower(u.Scheme) {
	case "ws", "wss":
	case "":
		return fmt.Errorf("--host %q has no scheme: give %s", shown, hostForm)
	case "http", "https":
		return fmt.Errorf("--host %q is an %s URL; AHP runs over WebSocket: give %s", shown, u.Scheme, hostForm)
	default:
		return fmt.Errorf("--host %q has scheme %q; AHP runs over WebSocket: give %s", shown, u.Scheme, hostForm)
	}
	if u.Opaque != "" || u.Hostname() == "" {
		return fmt.Errorf("--host %q names no host: give %s", shown, hostForm)
	}
	if u.User != nil {
		// Credentials in the URL would end up in logs and the status bar.
		return fmt.Errorf("--host %q carries a user name or password; AHP hosts take tokens through sign-in: give %s", shown, hostForm)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("--host %q has port %q, not 1-65535: give %s", shown, p, hostForm)
		}
	}
	return nil
}
