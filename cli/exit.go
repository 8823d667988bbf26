package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/ahptui/ahptui/hostconn"
	"github.com/ahptui/ahptui/protocol/client"
	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

// Exit codes of every command, documented in --help and README. 0 and 2
// are what the UI's own flags already return; 1 is anything not named here.
const (
	ExitOK          = 0 // done
	ExitFailure     = 1 // something on this machine failed (config dir, a file)
	ExitUsage       = 2 // a flag, an argument or a name the host does not know
	ExitUnreachable = 3 // the host could not be reached, the connection dropped, or --timeout passed
	ExitVersion     = 4 // the host refused every AHP version ahptui speaks
	ExitWaiting     = 5 // the session waits on the user (an approval, an input, a sign-in)
	ExitHostError   = 6 // the host answered with an error or rejected the action
	ExitSignIn      = 7 // a sign-in is needed or failed
)

// exitCodesHelp is the table --help prints under every command.
const exitCodesHelp = `Exit codes:
  0  success
  1  a local failure (config directory, a file)
  2  usage: a flag, an argument, or a session or server the host does not have
  3  the host is unreachable, the connection dropped, or it did not answer within --timeout
  4  the host refused every AHP version ahptui speaks
  5  waiting on the user: an approval, an input or a sign-in (the command that answers it is printed)
  6  the host's error: it answered with an error or rejected the action
  7  sign-in needed or failed
130  interrupted (ctrl-c, SIGINT or SIGTERM); send asks the host to cancel its turn`

// exitError carries the exit code an error ends the command with.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func withCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code, err}
}

func usagef(format string, a ...any) error {
	return withCode(ExitUsage, fmt.Errorf(format, a...))
}

// exitKinds name the codes in --json error objects.
var exitKinds = map[int]string{
	ExitOK: "ok", ExitFailure: "failure", ExitUsage: "usage", ExitUnreachable: "unreachable",
	ExitVersion: "version", ExitWaiting: "waiting", ExitHostError: "host-error", ExitSignIn: "sign-in",
	ExitInterrupted: "interrupted",
}

// exitCode is the code err ends a command with: its own when it carries
// one, else by what it is (a dial error, a version refusal, a host error).
func exitCode(err error) int {
	var ee *exitError
	var de *hostconn.DialError
	var ve *client.UnsupportedProtocolVersionError
	var ae *client.AuthRequiredError
	var he *client.HostError
	var pe *client.PermissionDeniedError
	var je *jsonrpc.Error
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &ee):
		return ee.code
	case errors.As(err, &ve):
		return ExitVersion
	case errors.As(err, &ae):
		return ExitSignIn
	case errors.As(err, &de), errors.Is(err, client.ErrNotConnected), errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, jsonrpc.ErrClosed):
		return ExitUnreachable
	case errors.As(err, &he), errors.As(err, &pe), errors.As(err, &je):
		return ExitHostError
	}
	return ExitFailure
}
