package ui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/protocol"
)

// blocker is one thing somewhere that waits on the user; turn is "" when
// the host did not say (an input request is found by its id alone).
type blocker struct {
	session, chat, item, turn string
}

func (b blocker) sel() chatSel { return chatSel{item: b.item, turn: b.turn} }

func (cp *chatPanel) blockers() []blocker {
	var out []blocker
	if cp.hasSess {
		for _, r := range cp.sess.InputNeeded {
			switch v := r.Variant.(type) {
			case protocol.SessionChatInputRequest:
				out = append(out, blocker{cp.openSession, v.Chat, v.Request.ID, ""})
			case protocol.SessionToolConfirmationRequest:
				id := ""
				switch tc := v.ToolCall.Variant.(type) {
				case protocol.ToolCallPendingConfirmationState:
					id = tc.ToolCallID
				case protocol.ToolCallPendingResultConfirmationState:
					id = tc.ToolCallID
				}
				out = append(out, blocker{cp.openSession, v.Chat, id, v.TurnID})
			case protocol.SessionToolAuthenticationRequest:
				out = append(out, blocker{cp.openSession, v.Chat, v.ToolCall.ToolCallID, v.TurnID})
			}
		}
	}
	for _, s := range cp.sessions.list {
		if s.Resource != cp.openSession && s.Status.Has(protocol.SessionStatusInputNeeded) {
			out = append(out, blocker{session: s.Resource})
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

// jumpTargets is blockers plus what the open chat shows as waiting but the
// host has not (yet) listed in the session's inputNeeded, so ! reaches every
// card that offers keys.
func (cp *chatPanel) jumpTargets() []blocker {
	all := cp.blockers()
	var out, others []blocker
	for _, b := range all {
		if b.session == cp.openSession && b.item != "" {
			out = append(out, b)
		} else {
			others = append(others, b)
		}
	}
	if cp.hasChat {
		listed := map[string]bool{}
		for _, b := range out {
			if b.chat == cp.openChat {
				listed[b.sel().key()] = true
			}
		}
		auth := cp.signin.waitingServers()
		for _, it := range cp.items() {
			if it.needsUser(auth) && !listed[it.key()] && !listed[chatSel{item: it.ID}.key()] {
				out = append(out, blocker{cp.openSession, cp.openChat, it.ID, it.TurnID})
			}
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
