package ui

import (
	"errors"
	"fmt"
	"slices"

	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
	"github.com/ahptui/ahptui/views"
)

// What a sign-in unblocks: the commands a -32007 held back, run once
// more, and the turn that failed for want of the token.

// afterSignIn runs what a sign-in to resources (the flow's and the one
// the token went out for, which may be spelled differently) unblocks:
// the commands a -32007 held back (each once), and says how to go on with
// a turn that failed for want of the token. done starts the report.
func (si *signIn) afterSignIn(done string, resources ...string) tea.Cmd {
	var cmds []tea.Cmd
	kept := si.agent.retries[:0:0]
	for _, r := range si.agent.retries {
		if len(r.resources) == 0 || slices.ContainsFunc(resources, func(res string) bool { return slices.Contains(r.resources, res) }) {
			cmds = append(cmds, r.cmd)
			continue
		}
		kept = append(kept, r)
	}
	si.agent.retries = kept
	switch {
	case si.hasChat && views.ResumableTurn(si.chat) != "":
		done += fmt.Sprintf("; press %s in the chat to resume the turn that stopped", si.keys.Chat.ResumeTurn.Help().Key)
	case si.hasChat && si.chat.ActiveTurn == nil && len(si.chat.Turns) > 0 && si.chat.Turns[len(si.chat.Turns)-1].State == protocol.TurnStateError:
		done += "; send your last message again (this host cannot resume a turn)"
	}
	if len(cmds) > 0 {
		done += "; retrying what needed it"
	}
	return tea.Batch(append(cmds, reportInfo(done))...)
}

// withAuthRetry runs cmd; when its answer failed with -32007, the answer
// comes wrapped with cmd, to run once more after the sign-in.
func withAuthRetry(cmd tea.Cmd) tea.Cmd {
	return func() tea.Msg {
		msg := cmd()
		var ae *client.AuthRequiredError
		if err := answerErr(msg); err == nil || !errors.As(err, &ae) {
			return msg
		}
		r := authRetryMsg{inner: msg, retry: cmd}
		for _, p := range ae.Resources {
			r.resources = append(r.resources, p.Resource)
		}
		return r
	}
}

// answerErr is the error a command's answer carries.
func answerErr(msg tea.Msg) error {
	switch m := msg.(type) {
	case opDoneMsg:
		return m.err
	case subscribedMsg:
		return m.err
	}
	return nil
}

// onAuthRetry keeps the failed command for after the sign-in, routes its
// answer (which opens the sign-in prompt) and brings the prompt within
// reach of the keys.
func (m *Model) onAuthRetry(msg authRetryMsg) tea.Cmd {
	m.signin.agent.retries = append(m.signin.agent.retries, authRetry{resources: msg.resources, cmd: msg.retry})
	cmd := m.route(msg.inner)
	if len(m.signin.prompts) > 0 && m.modal == modalNone && m.focus != focusComposer {
		m.focus = focusChat
		m.chatPanel.sel = chatSel{prompt: true}
	}
	return cmd
}

// failed reports a command's error, unless it asks for sign-in: then the
// prompt it opens is the report (one message, so the two cannot race).
func (m *Model) failed(err error, channel string) tea.Cmd {
	if cmd := m.signin.maybeAuthError(err, channel); cmd != nil {
		return cmd
	}
	return reportError(err)
}

// onAgentAuth routes the answers of the agents' sign-in commands.
func (m *Model) onAgentAuth(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case authRetryMsg:
		return m.onAuthRetry(msg)
	case tokenPushedMsg:
		return m.signin.onTokenPushed(msg)
	}
	return nil
}
