package ui

import (
	"context"
	"fmt"
	"slices"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/host/chaturi"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

// chatSwitcher is the chat switcher (c): every chat of the open session
// (from the session's catalogue, so it follows the host), how each came
// to be, its status and what waits in it; enter opens one. Where the
// session's agent lets a client, n makes a blank chat, f forks the open
// chat at a finished turn and s opens a side chat on a turn (createChat):
// the turn of the card selected in the transcript, else the latest; the
// new chat opens when the host has made it.
type chatSwitcher struct {
	*app
	chat *chatPanel
	open bool
	sel  int
}

// chatCreator is the part of the client that creates chats; ui.Client
// leaves it out so the tests' stub clients need not have it.
type chatCreator interface {
	CreateChat(ctx context.Context, p protocol.CreateChatParams) error
}

// chatCreatedMsg is createChat's answer for chat.
type chatCreatedMsg struct {
	chat, what string
	err        error
}

func (cs *chatSwitcher) rows() []protocol.ChatSummary {
	if !cs.hasSess {
		return nil
	}
	return cs.sess.Chats
}

func (cs *chatSwitcher) toggle() tea.Cmd {
	if !cs.open && !cs.hasSess {
		return reportError(errNoChat)
	}
	cs.open = !cs.open
	if cs.open {
		cs.sel = 0
		for i, c := range cs.rows() {
			if c.Resource == cs.openChat {
				cs.sel = i
			}
		}
	}
	return nil
}

// caps is what the open session's agent lets a client create.
func (cs *chatSwitcher) caps() (multi, fork, side bool) {
	if !cs.hasSess {
		return false, false, false
	}
	for _, a := range cs.root.Agents {
		if a.Provider != cs.sess.Provider || a.Capabilities == nil || a.Capabilities.MultipleChats == nil {
			continue
		}
		mc := a.Capabilities.MultipleChats
		return true, mc.Fork != nil && *mc.Fork, mc.SideChat != nil && *mc.SideChat
	}
	return false, false, false
}

func (cs *chatSwitcher) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	k := cs.keys.Chats
	rows := cs.rows()
	cs.sel = clampCursor(cs.sel, len(rows))
	multi, fork, side := cs.caps()
	switch {
	case key.Matches(msg, k.Close):
		cs.open = false
	case cursorKey(msg, k.Up, k.Down):
		cs.sel = moveCursor(msg, k.Up, cs.sel, len(rows))
	case key.Matches(msg, k.Open):
		if cs.sel >= len(rows) {
			return nil
		}
		cs.open = false
		if uri := rows[cs.sel].Resource; uri != cs.openChat {
			return cs.requestChat(uri)
		}
	case key.Matches(msg, k.Waiting):
		return cs.openWaiting(rows)
	case key.Matches(msg, k.New):
		if !multi {
			return reportInfo("this agent keeps one chat a session: it does not let a client create more")
		}
		return cs.create("new chat", nil)
	case key.Matches(msg, k.Fork):
		if !fork {
			return reportInfo("this agent does not fork chats")
		}
		turn := cs.sourceTurn(true)
		if turn == "" {
			return reportInfo("nothing to fork yet: a fork starts from a finished turn")
		}
		return cs.create("fork", &protocol.ChatSource{Variant: protocol.ForkChatSource{Chat: cs.openChat, TurnID: turn}})
	case key.Matches(msg, k.Side):
		if !side {
			return reportInfo("this agent makes no side chats")
		}
		turn := cs.sourceTurn(false)
		if turn == "" {
			return reportInfo("nothing to talk about on the side yet: a side chat starts from a turn")
		}
		return cs.create("side chat", &protocol.ChatSource{Variant: protocol.SideChatSource{Chat: cs.openChat, TurnID: turn}})
	}
	return nil
}

// waitsIn is what waits on the user in each chat of the open session,
// in the order ! takes them.
func (cs *chatSwitcher) waitsIn() map[string][]blocker {
	out := map[string][]blocker{}
	for _, b := range cs.chat.jumpTargets() {
		if b.session == cs.openSession && b.chat != "" && b.item != "" {
			out[b.chat] = append(out[b.chat], b)
		}
	}
	return out
}

// openWaiting (!) opens the selected chat at the first thing waiting in
// it, or else the next chat (in the list's order) where something waits:
// the switcher's way into any chat's approvals and questions.
func (cs *chatSwitcher) openWaiting(rows []protocol.ChatSummary) tea.Cmd {
	waits := cs.waitsIn()
	for i := range rows {
		if bs := waits[rows[(cs.sel+i)%len(rows)].Resource]; len(bs) > 0 {
			cs.open = false
			return cs.chat.jumpTo(bs[0])
		}
	}
	return reportInfo("nothing in this session's chats waits for you")
}

// sourceTurn is the turn a fork (finished set: a completed turn) or a
// side chat starts from: the turn of the card selected in the transcript
// when it qualifies, else the open chat's latest (the running one too,
// for a side chat).
func (cs *chatSwitcher) sourceTurn(finished bool) string {
	if !cs.hasChat {
		return ""
	}
	at := cs.app.chat.ActiveTurn
	if t := cs.chat.sel.turn; t != "" && cs.chat.sel.item != "" && cs.chat.focus == focusChat {
		if slices.ContainsFunc(cs.app.chat.Turns, func(tr protocol.Turn) bool { return tr.ID == t }) ||
			!finished && at != nil && at.ID == t {
			return t
		}
	}
	if !finished && at != nil {
		return at.ID
	}
	if n := len(cs.app.chat.Turns); n > 0 {
		return cs.app.chat.Turns[n-1].ID
	}
	return ""
}

// create asks the host for a chat in the open session, from source.
func (cs *chatSwitcher) create(what string, source *protocol.ChatSource) tea.Cmd {
	cc, ok := cs.client.(chatCreator)
	if cs.client == nil || !ok {
		return reportError(errNoClient)
	}
	ctx := cs.ctx
	p := protocol.CreateChatParams{Channel: cs.openSession, Chat: mintChatURI(cs.openSession, cs.shapeChat(), cs.cfg.NewID()), Source: source}
	cs.open = false
	return tea.Batch(reportInfo("creating a "+what+"…"), withAuthRetry(func() tea.Msg {
		return chatCreatedMsg{chat: p.Chat, what: what, err: cc.CreateChat(ctx, p)}
	}))
}

// shapeChat is the chat whose URI shows how the host spells the open
// session's chats (chaturi.Like).
func (cs *chatSwitcher) shapeChat() string {
	if !cs.hasSess {
		return ""
	}
	return chaturi.Like(cs.sess)
}

// mintChatURI is the URI of a new chat id in session, spelled as the
// host spells like (chaturi.Mint, shared with ahptui chats new/fork).
func mintChatURI(session, like, id string) string { return chaturi.Mint(session, like, id) }

// onCreated opens the chat the host made.
func (cs *chatSwitcher) onCreated(msg chatCreatedMsg) tea.Cmd {
	if msg.err != nil {
		return reportError(fmt.Errorf("could not create a %s: %w", msg.what, msg.err))
	}
	return tea.Batch(reportInfo(msg.what+" created"), cs.requestChat(msg.chat))
}

func (cs *chatSwitcher) view(width, height int) string {
	rows := cs.rows()
	waits := cs.waitsIn()
	vr := make([]views.ChatRow, len(rows))
	for i, c := range rows {
		r := views.ChatRow{Title: c.Title, Status: c.Status, Waiting: len(waits[c.Resource]), Open: c.Resource == cs.openChat,
			ReadOnly: c.Interactivity != nil && *c.Interactivity != protocol.ChatInteractivityFull}
		if c.Origin != nil {
			r.Origin = c.Origin.Kind()
		}
		if c.Activity != nil {
			r.Activity = *c.Activity
		}
		vr[i] = r
	}
	cs.sel = clampCursor(cs.sel, len(rows))
	multi, fork, side := cs.caps()
	return views.RenderChatSwitcher(cs.th, cs.keys, vr, cs.sel, multi, fork, side, width, height)
}
