package dial

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

// Explain is the kind-first phrase for a failed connect, for a message a
// person reads whole (the commands' stderr): what went wrong and, where
// one helps, what to check, without the Go error chain. wait is how long
// the handshake was given. ok is false for an error it has no phrase
// for (a version refusal, a sign-in): the caller says those its own way.
//
// Its phrases start with DialError.Short, the status line's (the UI's)
// phrase of the same failure, so both front-ends name a kind the same.
func Explain(err error, wait time.Duration) (phrase string, ok bool) {
	var de *DialError
	switch {
	case err == nil:
		return "", false
	case errors.As(err, &de):
		short := de.Short()
		switch {
		case de.Kind == ErrRefused:
			return short + " (is the host running?)", true
		case de.Kind == ErrNotResolved:
			return short + " (check the host's address)", true
		case de.Kind == ErrTimedOut:
			return fmt.Sprintf("%s: no answer to the connection within %s", short, round(wait)), true
		case de.Kind == ErrHostKey:
			return short + " (" + de.Cause + "; check the key with ssh on a terminal: ahptui never accepts one on its own)", true
		case de.Kind == ErrSSHAuth:
			return short + " (" + de.Cause + "; ssh must log in to the box without a prompt: a key or an agent)", true
		case de.Kind == ErrNoRemoteHost:
			return short + " (" + de.Cause + "; start one on the box: code agent host)", true
		case de.Kind == ErrRemoteRegistry, de.Kind == ErrRelayMissing, de.Kind == ErrDropped:
			return short + " (" + de.Cause + ")", true
		case de.Kind == ErrHTTPStatus && de.Status == http.StatusForbidden:
			return short + " (check the token in the URL, --connection-token-file or AHPTUI_CONNECTION_TOKEN)", true
		}
		return short, true
	case errors.Is(err, context.DeadlineExceeded):
		// The upgrade went through (else a DialError): the host took the
		// connection and then said nothing to initialize.
		return fmt.Sprintf("the host accepted the connection but did not answer within %s", round(wait)), true
	case errors.Is(err, jsonrpc.ErrClosed):
		return "the host accepted the connection but closed it before answering", true
	}
	return "", false
}

// round is d as a person writes it: whole seconds from a second up.
func round(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(time.Second)
	}
	return d.Round(time.Millisecond)
}
