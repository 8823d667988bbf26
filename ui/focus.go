package ui

import "github.com/ahptui/ahptui/keymap"

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

// keyTarget is the component a key goes to. target resolves it once per
// key, and both handleKey (who gets the key) and typing (whether a text
// field has it) read that one answer.
type keyTarget int

const (
	toSessions keyTarget = iota
	toChat
	toComposer // text
	toMCP
	toMessages
	toQuitConfirm
	toWiden // the confirmation before a value that lets more run without asking
	toDispose
	toNewSession
	toForm // the input form (an input request, a setting): text
	toAsk  // the host's question (signin.asks[0])
	toSignIns
	toSettings
	toQueue
	toChats
	toResources
	toInbox
	toTerminals
	toTerminal
	toTerminalInput // keys typed into the terminal: text
	toChanges
	toToken    // the agent token field: text
	toGrant    // the sign-in overlay of a waiting flow
	toPaste    // the overlay's pasted-redirect field: text
	numTargets // keep last: tests enumerate the targets below it
)

// textField reports whether free text typed at t lands in a text field.
// Every component that takes free text is a target that says so here:
// a question the host raises waits behind it (askShown), so nothing
// typed there ever answers one.
func (t keyTarget) textField() bool {
	switch t {
	case toComposer, toForm, toTerminalInput, toToken, toPaste:
		return true
	}
	return false
}

// keyRoute is where keys go right now: the target and the keymap.Context
// whose bindings are live there.
type keyRoute struct {
	to  keyTarget
	ctx keymap.Context
}
