package ui

import (
	"errors"
	"strconv"
	"strings"

	"github.com/ahptui/ahptui/protocol/client"
)

var (
	errNoAgents  = errors.New("the host offers no agents to create a session with")
	errNoChat    = errors.New("no chat open: pick a session and press enter")
	errNoURL     = errors.New("no sign-in URL yet: accept the grant first")
	errNoSignIn  = errors.New("this server does not need sign-in")
	errNoClient  = errors.New("not connected: wait for ready, or press ctrl+r")
	errNoHost    = errors.New("no host configured: start with --host ws://… or --demo")
	errNothingTo = errors.New("nothing here waits for an answer: ! jumps to what does, [ ] pick a card")
)

// refused reports whether err only answers a key that cannot act now
// (one of the errors above): the status line shows it, but it is not an
// error the session ended on, so main does not print it on exit.
func refused(err error) bool {
	for _, e := range []error{errNoAgents, errNoChat, errNoURL, errNoSignIn, errNoClient, errNothingTo} {
		if err == e {
			return true
		}
	}
	return false
}

// shownError is err as the status line and the message history show it.
// A host may put its own stack trace in an error's message (VS Code's
// agent host sends a JavaScript error whole: "Error: …" then a
// "    at …" line a frame): the user reads the message, its lines before
// the stack; the log (--log) keeps the whole text. Any other error is
// shown as it is.
func (a *app) shownError(err error) error {
	var he *client.HostError
	if err == nil || !errors.As(err, &he) {
		return err
	}
	msg, cut := cutStack(he.Message)
	if !cut {
		return err
	}
	a.log.Info("host error", "code", he.Code, "message", he.Message)
	short := *he
	short.Message = msg
	return &stackless{err: err, short: &short, text: strings.Replace(err.Error(), he.Error(), short.Error(), 1)}
}

// wholeText is shown (err's text, with advice) with the host's message
// whole where HostError.Error cut it (at about 300 bytes, for one line):
// what the message history (L) keeps, wrapped there, so a long host
// error can be read to its end (issue 36; README says L holds it whole).
// The stack a stackless error left out stays out: it is in the log.
func wholeText(err error, shown string) string {
	var he *client.HostError
	var sl *stackless
	switch {
	case errors.As(err, &sl):
		he = sl.short
	case !errors.As(err, &he):
		return shown
	}
	cut := he.Error()
	i := strings.Index(cut, ": ")
	if i < 0 {
		return shown
	}
	return strings.Replace(shown, cut, cut[:i+2]+strconv.Quote(he.Message), 1)
}

// stackless is a host error shown without the host's stack trace; it
// unwraps to the error, so the advice for it still applies.
type stackless struct {
	err   error
	short *client.HostError // the host's error without its stack
	text  string
}

func (e *stackless) Error() string { return e.text }
func (e *stackless) Unwrap() error { return e.err }

// cutStack is msg up to the first line of a stack trace after the first
// line ("    at f (file.js:1:2)", as V8 prints a frame), and whether
// there was one.
func cutStack(msg string) (string, bool) {
	lines := strings.Split(msg, "\n")
	for i := 1; i < len(lines); i++ {
		l := strings.TrimRight(lines[i], "\r")
		t := strings.TrimLeft(l, " \t")
		if len(t) < len(l) && strings.HasPrefix(t, "at ") {
			return strings.TrimRight(strings.Join(lines[:i], "\n"), " \t\r\n"), true
		}
	}
	return msg, false
}
