package dial

import (
	"context"
	"errors"
	"net"
)

// The kinds of failure a stream dialer (an SSH transport) names; like the
// other kinds, a *DialError matches exactly one with errors.Is, so the
// UI's status line, the commands' stderr and their exit codes tell them
// apart.
var (
	// ErrHostKey: the SSH host key is unknown or changed, and was not
	// accepted (ssh refused it, or BatchMode could not ask).
	ErrHostKey = errors.New("SSH host key not trusted")
	// ErrSSHAuth: ssh could not authenticate to the box.
	ErrSSHAuth = errors.New("SSH authentication failed")
	// ErrNoRemoteHost: the box lists no live agent host (or no longer
	// lists the one this target names).
	ErrNoRemoteHost = errors.New("no agent host on the remote")
	// ErrRemoteRegistry: the remote's endpoint registry could not be
	// read, or `code agent endpoints` failed.
	ErrRemoteRegistry = errors.New("remote registry unreadable")
	// ErrRelayMissing: the remote's `code` has no `agent relay`.
	ErrRelayMissing = errors.New("remote relay missing")
	// ErrDropped: the transport (the ssh process) ended.
	ErrDropped = errors.New("connection dropped")
)

// StreamDialer opens the byte stream a stream target's WebSocket upgrade
// runs over (an ssh -W or `code agent relay` process's stdio). A failure
// should be a *DialError naming its kind; any other error is reported as
// ErrDial.
type StreamDialer func(ctx context.Context) (net.Conn, error)

// Stream is a target reached over a stream dialer: id is its token-free
// identity (ssh://user@box:22/standalone/INSTANCE), what everything
// shows and binds sign-ins to, never where the stream happens to end
// locally. The upgrade, ?tkn= included, is written into the stream, so
// the token is on no command line.
func Stream(id string, token string, dial StreamDialer) Target {
	return Target{URL: id, token: token, stream: dial,
		// The HTTP request inside the stream names a host all the same;
		// the stream, not this name, says where it goes.
		dialURL: "ws://localhost/"}
}

// IsStream says whether t is reached over a stream dialer.
func (t Target) IsStream() bool { return t.stream != nil }

// streamConn opens t's stream; a failure is a *DialError.
func (t Target) streamConn(ctx context.Context) (net.Conn, error) {
	c, err := t.stream(ctx)
	if err == nil {
		return c, nil
	}
	var de *DialError
	if errors.As(err, &de) {
		return nil, de
	}
	return nil, &DialError{Kind: ErrDial, URL: t.URL, Cause: Scrub(err.Error(), t.token), ctxErr: ctx.Err()}
}

// NewDialError is a failure of kind (one of the Err* kinds) on the host
// named url, with cause (already free of any secret) as its detail.
func NewDialError(kind error, url, cause string) *DialError {
	return &DialError{Kind: kind, URL: url, Cause: cause}
}
