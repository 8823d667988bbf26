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
