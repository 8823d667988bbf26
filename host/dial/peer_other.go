//go:build unix && !linux

package dial

import (
	"fmt"
	"net"
	"os"
	"syscall"
)

// unixPeerIsOurs checks the socket file's owner: this platform has no
// SO_PEERCRED in the standard library.
func unixPeerIsOurs(c *net.UnixConn) error {
	path := c.RemoteAddr().String()
	fi, err := os.Lstat(path)
	if err != nil {
		return &PeerError{Reason: fmt.Sprintf("cannot tell who owns the socket %s: %v", path, err)}
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != ourUID() {
		return &PeerError{Reason: fmt.Sprintf("the socket %s is not yours (uid %d)", path, st.Uid)}
	}
	return nil
}

// tcpPeerIsOurs cannot tell on this platform: the registry's pid check
// is all there is.
func tcpPeerIsOurs(*net.TCPConn) error { return nil }
