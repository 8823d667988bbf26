package ui

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// answerDelay is how long a question or card the host raised ignores keys
// after it takes them: keys typed in that second were meant for what had
// the keys before (a sentence, the previous card's y), never an answer.
const answerDelay = time.Second

// typingGuard drops keys that reach an answer the host put under them
// while the user was typing. Every key it drops arms it again, so a
// sentence typed on never answers; a pause of answerDelay does.
type typingGuard struct {
	until time.Time
	// tick asks for one redraw when the guard ends, so the keys it held
	// back are offered (help line) once they work.
	tick bool
}

// arm starts the guard at now.
func (g *typingGuard) arm(now time.Time) {
	g.until, g.tick = now.Add(answerDelay), true
}

// holds reports whether a key at now is dropped; a dropped key re-arms it.
func (g *typingGuard) holds(now time.Time) bool {
	if g.until.IsZero() || !now.Before(g.until) {
		return false
	}
	g.arm(now)
	return true
}

// active reports whether keys would be dropped at now (without re-arming).
func (g *typingGuard) active(now time.Time) bool {
	return !g.until.IsZero() && now.Before(g.until)
}

// typed reports whether msg is what typing a message sends: text, or
// enter to send it.
func typed(msg tea.KeyPressMsg) bool {
	return msg.Text != "" || msg.Code == tea.KeyEnter
}

// guardEndedMsg redraws once a guard's second has passed.
type guardEndedMsg struct{}

// redraw is the tick that redraws when the guard ends, once per arming.
func (g *typingGuard) redraw(now time.Time) tea.Cmd {
	if !g.tick {
		return nil
	}
	g.tick = false
	return tea.Tick(max(0, g.until.Sub(now)), func(time.Time) tea.Msg { return guardEndedMsg{} })
}

// typing reports that a text field has the keys: whatever target the
// key routing (Model.under) gives them to declares itself one
// (keyTarget.textField) — the composer, the input form, the sign-in
// paste and agent token fields, a terminal being typed into. A question
// the host raises waits behind it (askShown) rather than take what is
// typed.
func (m *Model) typing() bool { return m.under().to.textField() }

// askShown reports whether the question in front (pendingAsk) is on
// screen and takes the keys: no dialog is open and no text field has the
// keys.
func (m *Model) askShown() bool { return m.asksOver(m.under()) }

// questionWaits is the status line's word while a question waits behind
// what has the keys, "" otherwise: how to leave it for the question.
func (m *Model) questionWaits() string {
	if _, ok := m.signin.pendingAsk(); !ok || m.askShown() {
		return ""
	}
	k := m.keys
	switch m.under().to {
	case toComposer:
		return "a question waits: press " + k.Composer.Cancel.Help().Key + " to leave the text field and answer it"
	case toTerminalInput:
		return "a question waits: press " + k.Terminal.Leave.Help().Key + " to stop typing into the terminal and answer it"
	case toForm:
		return "a question waits: press " + k.Input.Close.Help().Key + " to put the form away and answer it"
	case toToken, toPaste:
		return "a question waits: press " + k.Paste.Cancel.Help().Key + " to close the field and answer it"
	}
	return "a question waits: close this dialog to answer it"
}

// settleGuards stamps when a question is first drawn: its keys work
// answerDelay later.
func (m *Model) settleGuards() {
	if m.askShown() && m.signin.asks[0].guard.until.IsZero() {
		m.signin.asks[0].guard.arm(m.clock())
	}
	// The terminal pane covers the status line: it says it itself, in
	// the few cells its header has left.
	m.terms.waits = ""
	if m.under().to == toTerminalInput && m.questionWaits() != "" {
		m.terms.waits = "a question waits: " + m.keys.Terminal.Leave.Help().Key + " to see it"
	}
}

// guardTicks is the redraw the chat's guard asks for when it ends (its
// card's keys are offered then); a question's guard needs none.
func (m *Model) guardTicks() tea.Cmd {
	return m.chatPanel.guard.redraw(m.clock())
}
