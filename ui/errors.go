package ui

import "errors"

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
