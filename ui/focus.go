package ui

type focus int

const (
	focusSessions focus = iota
	focusChat
	focusComposer
	focusMCP
)

type modal int

const (
	modalNone modal = iota
	modalConfirmDispose
	modalNewSession
	modalInput
	modalConfirmQuit // quitting would lose the composer's draft
	modalWiden       // confirming a value that lets more run without asking (widen.go)
)
