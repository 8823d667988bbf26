package ui

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

// queueSheet is the pending-messages sheet (Q): the open chat's steering
// message and its queued messages, with their text. A message is edited
// in the composer (pendingEdit), removed, or, when queued, moved; each
// change goes to the host as the action AHP defines for it, and the sheet
// shows the chat as the host has it.
type queueSheet struct {
	*app
	chat *chatPanel
	open bool
	sel  int
}

// proseSheetWidth is the widest of the sheets that list prose (pending
// messages, the chat switcher's titles): read best in a column a little
// wider than a dialog.
const proseSheetWidth = 72

// pendingEdit is the pending message the composer holds for editing:
// enter sends it back under the same id (chat/pendingMessageSet), esc
// drops the edit.
type pendingEdit struct {
	chat string
	kind protocol.PendingMessageKind
	id   string
}

// queueRow is one pending message and its kind.
type queueRow struct {
	kind protocol.PendingMessageKind
	msg  protocol.PendingMessage
}

// rows is the open chat's pending messages, the steering one first, read
// from the snapshot each time (the host consumes them under the sheet).
func (q *queueSheet) rows() []queueRow {
	if !q.hasChat {
		return nil
	}
	var out []queueRow
	if s := q.app.chat.SteeringMessage; s != nil {
		out = append(out, queueRow{protocol.PendingMessageKindSteering, *s})
	}
	for _, m := range q.app.chat.QueuedMessages {
		out = append(out, queueRow{protocol.PendingMessageKindQueued, m})
	}
	return out
}

func (q *queueSheet) toggle() tea.Cmd {
	if !q.open && q.openSession == "" {
		return reportError(errNoChat)
	}
	q.open, q.sel = !q.open, 0
	return nil
}

func (q *queueSheet) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	k := q.keys.Queue
	rows := q.rows()
	q.sel = clampCursor(q.sel, len(rows))
	switch {
	case key.Matches(msg, k.Close):
		q.open = false
		return nil
	case cursorKey(msg, k.Up, k.Down):
		q.sel = moveCursor(msg, k.Up, q.sel, len(rows))
		return nil
	}
	if q.sel >= len(rows) {
		return reportInfo("no pending messages: one sent while a turn runs is queued")
	}
	r := rows[q.sel]
	switch {
	case key.Matches(msg, k.Edit):
		return q.edit(r)
	case key.Matches(msg, k.Remove):
		return q.dispatchOn(fmt.Sprintf("removed the %s message", r.kind), protocol.ChatPendingMessageRemovedAction{Kind: r.kind, ID: r.msg.ID})
	case key.Matches(msg, k.MoveUp):
		return q.move(rows, -1)
	case key.Matches(msg, k.MoveDown):
		return q.move(rows, 1)
	}
	return nil
}

// edit puts the message's text in the composer; a draft already there is
// the user's and is not thrown away for it.
func (q *queueSheet) edit(r queueRow) tea.Cmd {
	cp := q.chat
	if strings.TrimSpace(cp.composer.Value()) != "" {
		return reportInfo("the composer holds a draft: send it or clear it before editing a pending message")
	}
	cp.editing = &pendingEdit{chat: q.openChat, kind: r.kind, id: r.msg.ID}
	cp.composer.SetValue(r.msg.Message.Text)
	q.open, cp.focus = false, focusComposer
	return tea.Batch(cp.composer.Focus(), reportInfo(fmt.Sprintf("editing the %s message: %s saves it, %s drops the change",
		r.kind, q.keys.Composer.Send.Help().Key, q.keys.Composer.Cancel.Help().Key)))
}

// move swaps the selected queued message with its neighbour in dir and
// sends the whole new order (chat/queuedMessagesReordered); the steering
// message has no place in that order.
func (q *queueSheet) move(rows []queueRow, dir int) tea.Cmd {
	var order []string
	for _, r := range rows {
		if r.kind == protocol.PendingMessageKindQueued {
			order = append(order, r.msg.ID)
		}
	}
	i := slices.Index(order, rows[q.sel].msg.ID)
	if i < 0 {
		return reportInfo("the steering message goes into the running turn: it has no place in the queue")
	}
	j := i + dir
	if j < 0 || j >= len(order) {
		return nil
	}
	order[i], order[j] = order[j], order[i]
	q.sel += dir
	return q.dispatchOn("", protocol.ChatQueuedMessagesReorderedAction{Order: order})
}

// dispatchOn sends a to the open chat and says done when it went.
func (q *queueSheet) dispatchOn(done string, a protocol.StateActionVariant) tea.Cmd {
	if q.client == nil {
		return reportError(errNoClient)
	}
	if _, err := q.client.Dispatch(q.openChat, protocol.NewStateAction(a)); err != nil {
		return reportError(fmt.Errorf("could not change the pending messages: %w", err))
	}
	if done == "" {
		return nil
	}
	return reportInfo(done)
}

// saveEdit sends the composer's text back as the edited pending message.
// One the host has consumed meanwhile is not set again (a queued id the
// host no longer has would be queued anew, a second time): the text stays
// in the composer and the user is told.
func (cp *chatPanel) saveEdit(text string) tea.Cmd {
	e := cp.editing
	cp.editing = nil
	still := false
	if e.chat == cp.openChat && cp.hasChat {
		if e.kind == protocol.PendingMessageKindSteering {
			still = cp.app.chat.SteeringMessage != nil && cp.app.chat.SteeringMessage.ID == e.id
		} else {
			still = slices.ContainsFunc(cp.app.chat.QueuedMessages, func(m protocol.PendingMessage) bool { return m.ID == e.id })
		}
	}
	if !still {
		return reportInfo(fmt.Sprintf("that %s message already went to the agent: your text stays in the composer", e.kind))
	}
	if _, err := cp.dispatch(cp.openChat, protocol.ChatPendingMessageSetAction{Kind: e.kind, ID: e.id, Message: cp.userMessage(text)}); err != nil {
		return reportError(err)
	}
	cp.composer.Reset()
	return reportInfo(fmt.Sprintf("the %s message is changed", e.kind))
}

// dropEdit leaves an edit unsaved: the composer is emptied of the
// pending message's text, which stays as the host has it.
func (cp *chatPanel) dropEdit() tea.Cmd {
	if cp.editing == nil {
		return nil
	}
	cp.editing = nil
	cp.composer.Reset()
	return reportInfo("the pending message is unchanged")
}

func (q *queueSheet) view(width, height int) string {
	rows := q.rows()
	q.sel = clampCursor(q.sel, len(rows))
	vr := make([]views.QueueRow, len(rows))
	for i, r := range rows {
		vr[i] = views.QueueRow{Steering: r.kind == protocol.PendingMessageKindSteering, Text: r.msg.Message.Text}
	}
	return views.RenderQueueSheet(q.th, q.keys, vr, q.sel, width, height)
}
