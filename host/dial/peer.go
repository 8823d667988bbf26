package dial

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
)

// ErrNotOurs is a dial refused before anything was sent: the process at
// the other end is not this user's, or the registry that named the host
// no longer lists it.
var ErrNotOurs = errors.New("not your process")

// PeerError is why a peer is not ours; its text never holds a token.
type PeerError struct{ Reason string }

func (e *PeerError) Error() string { return e.Reason }

// PeerIsOurs checks that the process at the other end of conn runs as
// this user: for a Unix socket, the peer's credentials (SO_PEERCRED);
// for TCP to this machine on Linux, the owner of the socket listening on
// the dialled port (/proc/net/tcp and tcp6). It answers before anything
// is written on conn, so a refused peer never sees a token. Where the
// platform cannot tell, it says nil.
func PeerIsOurs(conn net.Conn) error {
	switch c := conn.(type) {
	case *net.UnixConn:
		return unixPeerIsOurs(c)
	case *net.TCPConn:
		return tcpPeerIsOurs(c)
	}
	return &PeerError{Reason: fmt.Sprintf("cannot tell who is at the other end of a %T", conn)}
}

// peerDial opens the connection t's upgrade will run over and checks its
// peer: the Unix socket, else the URL's host and port.
func (t Target) peerDial(ctx context.Context) (net.Conn, error) {
	var d net.Dialer
	if t.Socket != "" {
		return d.DialContext(ctx, "unix", t.Socket)
	}
	addr, err := t.hostPort()
	if err != nil {
		return nil, err
	}
	return d.DialContext(ctx, "tcp", addr)
}

// checkPeer runs t's registry recheck, then dials and verifies the peer.
// Any refusal is a *DialError of kind ErrNotOurs, made before a byte is
// sent.
func (t Target) checkPeer(ctx context.Context) (net.Conn, *DialError) {
	refuse := func(short, reason string) *DialError {
		return &DialError{Kind: ErrNotOurs, URL: t.URL, short: short, Cause: Scrub(reason, t.token) + "; nothing was sent"}
	}
	if t.recheck != nil {
		if err := t.recheck(); err != nil {
			return nil, refuse("gone from the registry", err.Error())
		}
	}
	conn, err := t.peerDial(ctx)
	if err != nil {
		return nil, t.classify(ctx, err, 0)
	}
	if err := PeerIsOurs(conn); err != nil {
		conn.Close()
		return nil, refuse("not your process", err.Error())
	}
	return conn, nil
}

// hostPort is the host:port of t's dial URL (the scheme's port when
// none is given).
func (t Target) hostPort() (string, error) {
	base := t.dialURL
	if base == "" {
		base = t.URL
	}
	u, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "wss" {
			port = "443"
		}
	}
	return net.JoinHostPort(u.Hostname(), port), nil
}

// ourUID is the uid a peer must run as.
func ourUID() int { return os.Geteuid() }

// VerifyPeer returns t dialled only to a process of this user's: before
// the upgrade, and so before the token, each dial (the first and every
// reconnect) runs recheck (nil: none) — the registry re-read — then
// checks the peer of the very connection the upgrade then runs over
// (PeerIsOurs). A --host the user named is not verified.
func (t Target) VerifyPeer(recheck func() error) Target {
	t.verify = true
	t.recheck = recheck
	return t
}

// Verified says whether each dial checks its peer first.
func (t Target) Verified() bool { return t.verify }
