package pick

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/ahptui/ahptui/host/dial"
	"github.com/ahptui/ahptui/host/ssh"
)

// Form is the shape --host accepts, quoted in every refusal so the
// user sees what to type instead.
const Form = "ws://HOST:PORT/ or wss://HOST[:PORT]/"

// CheckURL refuses a --host value that cannot name a WebSocket
// endpoint, before any UI starts: a typo ("garbage") or an http:// URL
// would otherwise open the full screen only to show a dial error there.
// It checks the form only; whether ws:// may go to a non-loopback host is
// a separate policy.
func CheckURL(raw string) error {
	// Every message quotes shown, never raw: a connection token rides in
	// the query, and a stray password in the user info.
	shown := dial.Redact(raw)
	if strings.TrimSpace(raw) == "" {
		return fmt.Errorf("--host is empty: give %s", Form)
	}
	if ssh.IsSSH(raw) {
		if _, err := ssh.Parse(raw); err != nil {
			return fmt.Errorf("--host %w", err)
		}
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("--host %q is not a URL: give %s", shown, Form)
	}
	switch strings.ToLower(u.Scheme) {
	case "ws", "wss":
	case "":
		return fmt.Errorf("--host %q has no scheme: give %s", shown, Form)
	case "http", "https":
		return fmt.Errorf("--host %q is an %s URL; AHP runs over WebSocket: give %s", shown, u.Scheme, Form)
	default:
		return fmt.Errorf("--host %q has scheme %q; AHP runs over WebSocket: give %s", shown, u.Scheme, Form)
	}
	if u.Opaque != "" || u.Hostname() == "" {
		return fmt.Errorf("--host %q names no host: give %s", shown, Form)
	}
	if u.User != nil {
		// Credentials in the URL would end up in logs and the status bar.
		return fmt.Errorf("--host %q carries a user name or password; AHP hosts take tokens through sign-in: give %s", shown, Form)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("--host %q has port %q, not 1-65535: give %s", shown, p, Form)
		}
	}
	return nil
}
