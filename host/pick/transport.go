package pick

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/ahptui/ahptui/host/dial"
)

// CheckTransport refuses a plain ws:// URL to a host that is not this
// machine unless insecure is set: sign-in tokens pushed with
// `authenticate` would cross the network in clear, and anyone on the path
// could inject a host that asks for them. Loopback (127.0.0.0/8, ::1,
// localhost) never leaves the machine, so it stays allowed.
func CheckTransport(rawURL string, insecure bool) error {
	if rawURL == "" || insecure {
		return nil
	}
	u, err := url.Parse(rawURL)
	if err != nil || !strings.EqualFold(u.Scheme, "ws") {
		return nil // wss://, or a URL the dialer reports on itself
	}
	if dial.IsLoopback(u.Hostname()) {
		return nil
	}
	return fmt.Errorf("--host %s is plain ws:// to another machine: tokens would travel unencrypted; use wss://, or pass --insecure if you accept that", dial.Redact(rawURL))
}
