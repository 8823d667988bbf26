package ui

import (
	"context"
	"errors"
	"net"
	"strings"

	"github.com/ahptui/ahptui/authpkce"
	"github.com/ahptui/ahptui/protocol/client"
	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

// adviceRule is one kind of error and what the user can do about it.
type adviceRule struct {
	is     func(error) bool
	advice string
}

func isErr(target error) func(error) bool {
	return func(err error) bool { return errors.Is(err, target) }
}

func asErr[T error]() func(error) bool {
	return func(err error) bool {
		var t T
		return errors.As(err, &t)
	}
}

// adviceRules is the one table of advice: lower layers wrap errors with a
// short context each and say nothing about keys or flags, and the status
// line adds what the user can do here. The first rule that matches wins.
var adviceRules = []adviceRule{
	{isErr(context.DeadlineExceeded), "the host did not answer in time: press ctrl+r to reconnect"},
	{isErr(jsonrpc.ErrClosed), "the connection closed: press ctrl+r to reconnect"},
	{asErr[*client.PermissionDeniedError](), "the host does not allow this for you"},
	{isErr(authpkce.ErrTimeout), "accept the prompt again to start a new sign-in"},
	{isErr(authpkce.ErrAccessDenied), "sign in again and allow the access asked for"},
	{isErr(authpkce.ErrStateMismatch), "start the sign-in again from its prompt"},
	{isErr(authpkce.ErrInsecureServer), "the host's authorization server must use https"},
	{isErr(authpkce.ErrResourceNotAdvertised), "the host did not declare that resource; ask its owner"},
	{asErr[*net.OpError](), connectAdvice},
}

// connectAdvice is what a failed connection says when nothing more
// specific applies.
const connectAdvice = "ctrl+r retries"

// advice is what the user can do about err, or "" when the error says
// all there is.
func advice(err error) string {
	var uv *client.UnsupportedProtocolVersionError
	if errors.As(err, &uv) {
		return "use an ahptui release that speaks one of those, or upgrade the host"
	}
	for _, r := range adviceRules {
		if r.is(err) {
			return r.advice
		}
	}
	return ""
}

// withAdvice is err's text for the status line, followed by the advice
// for its kind (unless the text already gives it).
func withAdvice(err error) string {
	text := err.Error()
	if a := advice(err); a != "" && !strings.Contains(text, a) {
		text += "; " + a
	}
	return text
}
