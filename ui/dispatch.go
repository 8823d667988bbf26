package ui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/protocol"
)

// dispatch sends one action on channel (optimistically: the client applies
// it at once) and returns its clientSeq; the error says what could not be
// sent, for the status line.
func (a *app) dispatch(channel string, v protocol.StateActionVariant) (int64, error) {
	if a.client == nil {
		return 0, errNoClient
	}
	act := protocol.NewStateAction(v)
	seq, err := a.client.Dispatch(channel, act)
	if err != nil {
		return 0, fmt.Errorf("could not send %s: %w", act.Kind(), err)
	}
	a.log.Debug("dispatch", "channel", channel, "type", act.Kind(), "clientSeq", seq)
	return seq, nil
}

// dispatchThen sends one action and reports done on the status line, or
// the error when it could not be sent.
func (a *app) dispatchThen(channel string, v protocol.StateActionVariant, done string) tea.Cmd {
	if _, err := a.dispatch(channel, v); err != nil {
		return reportError(err)
	}
	return reportInfo(done)
}

// panelMemo is one memoized panel rendering.
type panelMemo struct {
	key   string
	lines []string
}
