package ui

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/ahptui/ahptui/authpkce"
	"github.com/ahptui/ahptui/protocol/client"
	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

// Advice is added once, by kind, however deep the error is wrapped, and
// not to an error whose text already gives it.
func TestWithAdvice(t *testing.T) {
	wrap := func(err error) error { return fmt.Errorf("create session failed: %w", fmt.Errorf("dial: %w", err)) }
	for _, tc := range []struct {
		name string
		err  error
		want string // "" means the text is the error's alone
	}{
		{"timeout", wrap(context.DeadlineExceeded), "press ctrl+r to reconnect"},
		{"closed", wrap(jsonrpc.ErrClosed), "press ctrl+r to reconnect"},
		{"refused", wrap(&net.OpError{Op: "dial", Err: errors.New("connection refused")}), connectAdvice},
		{"sign-in timed out", wrap(authpkce.ErrTimeout), "accept the prompt again"},
		{"version", &client.UnsupportedProtocolVersionError{Supported: []string{"9.0.0"}}, "upgrade the host"},
		{"unknown kind", errors.New("something else"), ""},
		{"already advised", fmt.Errorf("x; %s: %w", connectAdvice, &net.OpError{Op: "dial", Err: errors.New("refused")}), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := withAdvice(tc.err)
			if tc.want == "" {
				if got != tc.err.Error() {
					t.Fatalf("withAdvice = %q, want the error's text alone", got)
				}
				return
			}
			if !strings.HasPrefix(got, tc.err.Error()) || !strings.Contains(got[len(tc.err.Error()):], tc.want) {
				t.Fatalf("withAdvice = %q, want the error then %q", got, tc.want)
			}
		})
	}
}
