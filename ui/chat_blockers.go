package ui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/host/waits"
	"github.com/ahptui/ahptui/protocol"
)

// blocker is one thing somewhere that waits on the user; turn is "" when
// the host did not say (an input request is found by its id alone).
type blocker struct {
	session, chat, item, turn string
}

func (b blocker) sel() chatSel { return chatSel{item: b.item, turn: b.turn} }

// derive is what waits on the user on the active host, by host/waits
// (the derivation the commands share) over what the panels hold: the
// open session's state, its open chat and the agent's sign-in prompts,
// and the other sessions' summaries (their status alone).
func (cp *chatPanel) derive() []waits.Item {
	open := waits.Session{Summary: protocol.SessionSummary{Resource: cp.openSession}, Open: true}
	if cp.hasSess || cp.hasChat {
		st := cp.sess
		open.State = &st
		// The rows the MCP panel draws, memoized per snapshot: this runs
		// on every update and every frame (the status line's count).
		open.Servers = cp.signin.servers()
	}
	if cp.hasChat {
		open.Chats = []protocol.ChatState{cp.chat}
	}
	for _, p := range cp.signin.prompts {
		open.Prompts = append(open.Prompts, p.resource)
	}
	ss := []waits.Session{open}
	for _, s := range cp.sessions.list {
		if s.Resource == cp.openSession {
			ss[0].Summary = s
			continue
		}
		ss = append(ss, waits.Session{Summary: s})
	}
	return waits.Derive(waits.Host{Name: cp.cfg.Host, Sessions: ss})
}

// blockers is what the status line counts as needing input: what the
// open session's inputNeeded lists, and every other session whose status
// says input-needed.
func (cp *chatPanel) blockers() []blocker {
	var out []blocker
	for _, it := range cp.derive() {
		switch {
		case it.Listed:
			out = append(out, blocker{session: it.Session, chat: it.Chat, item: it.ID(), turn: it.Turn})
		case it.Kind == waits.NeedsInput:
			out = append(out, blocker{session: it.Session})
		}
	}
	return out
}

// waitingHere counts what waits on the user in the open session: the
// approvals and questions quitting would leave unanswered.
func (cp *chatPanel) waitingHere() int {
	n := 0
	for _, b := range cp.jumpTargets() {
		if b.session == cp.openSession && b.item != "" {
			n++
		}
	}
	return n
}

// jumpTargets is what ! goes round: the open session's cards that wait on
// the user (what its inputNeeded lists, and what its chat shows waiting
// before the host lists it), then every other session whose status says
// input-needed.
func (cp *chatPanel) jumpTargets() []blocker {
	var out, others []blocker
	for _, it := range cp.derive() {
		b := blocker{session: it.Session, chat: it.Chat, item: it.ID(), turn: it.Turn}
		switch {
		case it.Session == cp.openSession && b.item != "":
			out = append(out, b)
		case it.Kind == waits.NeedsInput:
			others = append(others, blocker{session: it.Session})
		}
	}
	return append(out, others...)
}

// nextBlocker jumps to the next thing waiting for the user: opens its
// session and chat and selects the card.
func (cp *chatPanel) nextBlocker() tea.Cmd {
	bs := cp.jumpTargets()
	if len(bs) == 0 {
		return reportInfo("nothing is waiting for you")
	}
	// Continue after the selected card; from anywhere else start at the
	// first target, so the first ! lands on what waits here.
	next := 0
	for i, b := range bs {
		if b.session == cp.openSession && b.item != "" && b.item == cp.sel.item && (b.turn == "" || b.turn == cp.sel.turn) {
			next = i + 1
		}
	}
	cp.blockerAt = next % len(bs)
	return cp.jumpTo(bs[cp.blockerAt])
}

// jumpTo opens what b waits on in place: its session and chat, with its
// card selected (an input request's form opened). ! and the inbox's
// enter both come here.
func (cp *chatPanel) jumpTo(b blocker) tea.Cmd {
	cp.focus = focusChat
	if b.session != cp.openSession {
		return cp.requestSession(b.session)
	}
	cp.sel = b.sel()
	cp.scroll = 0
	cp.pin = true
	if b.chat != "" && b.chat != cp.openChat {
		cmd := cp.requestChat(b.chat)
		cp.sel = b.sel()
		return cmd
	}
	// A question is answered in its form: open it, so ! brings back a form
	// that esc put away.
	if it, ok := cp.selectedItem(); ok && it.Kind == itemInput && it.Input.Response == nil {
		return cp.approve()
	}
	return nil
}
