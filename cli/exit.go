package cli

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/ahptui/ahptui/host/dial"
	"github.com/ahptui/ahptui/host/pick"
	"github.com/ahptui/ahptui/protocol/client"
	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

// Exit codes of every command, documented once: exitCodesHelp (ahptui
// help exit-codes) and docs/cli.md, which a test holds to these. 0 and 2
// are what the UI's own flags already return; 1 is anything not named
// here. ExitInterrupted (130) is in signals.go.
const (
	ExitOK          = 0  // done
	ExitFailure     = 1  // something on this machine failed (config dir, a file)
	ExitUsage       = 2  // a flag or an argument is wrong
	ExitUnreachable = 3  // the host could not be reached, or the connection dropped
	ExitVersion     = 4  // the host refused every AHP version ahptui speaks
	ExitWaiting     = 5  // the session waits on the user (an approval, an input, a sign-in)
	ExitHostError   = 6  // the host answered with an error or rejected the action
	ExitSignIn      = 7  // a sign-in is needed or failed
	ExitNotFound    = 8  // the host has no such session, server, tool call, request or agent
	ExitConflict    = 9  // the state refuses it: a turn is running, none is, nothing waits
	ExitTimeout     = 10 // --timeout passed before the host got there
	ExitForbidden   = 11 // the host refused the connection token (HTTP 403)
	ExitHostKey     = 12 // ssh: the box's host key is unknown or changed
	ExitSSHAuth     = 13 // ssh: authentication to the box failed
	ExitNoRemote    = 14 // ssh: the box lists no agent host (or no longer this one)
	ExitRegistry    = 15 // ssh: the box's registry or `code agent endpoints` unreadable
	ExitRelay       = 16 // ssh: the box's `code` has no `agent relay`
)

// exitCodesHelp is the table ahptui help exit-codes prints; docs/cli.md's
// table says the same (TestDocsExitCodes).
const exitCodesHelp = `Exit codes:
  0  success
  1  a local failure (config directory, a file such as hosts.yml or a token file)
  2  usage: a flag or an argument is wrong
  3  the host is unreachable or did not answer, or the connection dropped
  4  the host refused every AHP version ahptui speaks
  5  waiting on the user: an approval, an input or a sign-in (the command that answers it is printed)
  6  the host's error: it answered with an error or rejected the action
  7  sign-in needed or failed
  8  not found: the host has no such session, MCP server, tool call, input request or agent
  9  conflict: the state refuses it (a turn is running, no turn is running, nothing waits)
 10  timeout: --timeout passed before the host got there
 11  the host refused the connection token (HTTP 403)
 12  ssh: the box's host key is unknown or changed (never accepted on its own; check it with ssh)
 13  ssh: authentication to the box failed (BatchMode: a key or an agent must log in)
 14  ssh: the box lists no live agent host of yours (or no longer the one named)
 15  ssh: the box's agent-host registry, or its code agent endpoints, could not be read
 16  ssh: the box's code CLI has no agent relay
130  interrupted (ctrl-c, SIGINT or SIGTERM) or the turn was cancelled; send asks the host to cancel its turn`

// exitCodesPointer is the line every command's help ends with.
const exitCodesPointer = "Exit codes: ahptui help exit-codes lists them."

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

// notFoundf is an error for a name the host does not have.
func notFoundf(format string, a ...any) error {
	return withCode(ExitNotFound, fmt.Errorf(format, a...))
}

// conflictf is an error for an action the state refuses.
func conflictf(format string, a ...any) error {
	return withCode(ExitConflict, fmt.Errorf(format, a...))
}

// exitKinds name the codes in --json error objects.
var exitKinds = map[int]string{
	ExitOK: "ok", ExitFailure: "failure", ExitUsage: "usage", ExitUnreachable: "unreachable",
	ExitVersion: "version", ExitWaiting: "waiting", ExitHostError: "host-error", ExitSignIn: "sign-in",
	ExitNotFound: "not-found", ExitConflict: "conflict", ExitTimeout: "timeout", ExitForbidden: "forbidden",
	ExitHostKey: "ssh-host-key", ExitSSHAuth: "ssh-auth", ExitNoRemote: "no-remote-host", ExitRegistry: "remote-registry",
	ExitRelay:       "relay-missing",
	ExitInterrupted: "interrupted",
}

// sshCodes are the exit codes of an ssh:// host's named failures (a
// dropped ssh is ExitUnreachable, like any dropped connection).
var sshCodes = map[error]int{
	dial.ErrHostKey: ExitHostKey, dial.ErrSSHAuth: ExitSSHAuth, dial.ErrNoRemoteHost: ExitNoRemote,
	dial.ErrRemoteRegistry: ExitRegistry, dial.ErrRelayMissing: ExitRelay,
}

// exitCode is the code err ends a command with: its own when it carries
// one, else by what it is (a dial error, a version refusal, a host error).
func exitCode(err error) int {
	var ee *exitError
	var de *dial.DialError
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
	case errors.As(err, &de) && de.Kind == dial.ErrHTTPStatus && de.Status == http.StatusForbidden:
		return ExitForbidden
	case errors.As(err, &de) && sshCodes[de.Kind] != 0:
		return sshCodes[de.Kind]
	case errors.Is(err, pick.ErrSavedHosts), errors.Is(err, dial.ErrTokenFile):
		return ExitFailure
	case errors.As(err, &de), errors.Is(err, client.ErrNotConnected), errors.Is(err, jsonrpc.ErrClosed):
		return ExitUnreachable
	case errors.Is(err, context.DeadlineExceeded):
		// A call the command's --timeout ended.
		return ExitTimeout
	case errors.As(err, &he), errors.As(err, &pe), errors.As(err, &je):
		code := int64(0)
		if he != nil {
			code = he.Code
		} else if je != nil {
			code = je.Code
		}
		switch code {
		case jsonrpc.SessionNotFound, jsonrpc.ProviderNotFound, jsonrpc.ContentNotFound, jsonrpc.NotFound:
			return ExitNotFound
		case jsonrpc.TurnInProgress, jsonrpc.SessionAlreadyExists:
			return ExitConflict
		}
		return ExitHostError
	}
	return ExitFailure
}

// connectError is a failed connect as the user reads it: "connect to
// URL: " and the kind-first phrase (dial.Explain), with the Go error
// chain kept for --trace (Run prints it then) and for errors.Is/As.
type connectError struct {
	url, phrase string
	err         error // the cause, its token scrubbed
}

func (e *connectError) Error() string {
	if e.phrase == "" {
		return "connect to " + e.url + ": " + strings.TrimPrefix(e.err.Error(), "connect to "+e.url+": ")
	}
	return "connect to " + e.url + ": " + e.phrase
}

func (e *connectError) Unwrap() error { return e.err }

// chain is the whole cause, for --trace.
func (e *connectError) chain() string { return e.err.Error() }

// connectError is what a failed client.Dial to target ends the command
// with: --timeout passing is a timeout, a refused token forbidden, a
// version refusal version, and any other failure to connect unreachable.
func (a *app) connectError(ctx context.Context, target dial.Target, err error) error {
	err = target.ScrubError(err)
	wait := min(a.timeout, dial.AttemptTimeout)
	phrase, _ := dial.Explain(err, wait)
	code := exitCode(err)
	if code == ExitFailure || code == ExitTimeout {
		// A host that did not answer within one attempt's bound.
		code = ExitUnreachable
	}
	if code == ExitUnreachable && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		// The command's own --timeout ended the connect, not the host.
		code = ExitTimeout
		phrase = fmt.Sprintf("no connection within --timeout %s", round(a.timeout))
		if p, ok := dial.Explain(err, a.timeout); ok {
			phrase = p + " (--timeout)"
		}
	}
	return withCode(code, &connectError{url: target.URL, phrase: phrase, err: err})
}

// round is d as a person writes it.
func round(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(time.Second)
	}
	return d.Round(time.Millisecond)
}
