package dial

import (
	"net"
	"strings"
)

// IsLoopback reports whether h, a URL's host name, names this machine
// (localhost, 127.0.0.0/8, ::1): plain ws:// to it never crosses a
// network. One test for the commands' transport check (host/pick) and the
// saved sign-in policy (host/trust).
func IsLoopback(h string) bool {
	if strings.EqualFold(strings.TrimSuffix(h, "."), "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
