package ui

import (
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/views"
)

// inbox is the overlay listing what waits on the user (I), oldest first:
// the rows are the wait tracker's items (waiting.go), stamped with when
// this client first saw each. enter opens the selected one in place.
type inbox struct {
	open bool
	sel  int
}

// openInbox shows the inbox with its oldest item selected.
func (m *Model) openInbox() {
	m.inbox.open, m.inbox.sel = true, 0
}

// inboxRows is what the inbox draws, in the tracker's order.
func (m *Model) inboxRows() []views.InboxRow {
	now := m.clock()
	rows := make([]views.InboxRow, len(m.waits.items))
	for i, w := range m.waits.items {
		rows[i] = views.InboxRow{Host: hostName(w.host), Session: w.title, What: w.kind.String(), Detail: w.detail, Waited: now.Sub(w.since)}
	}
	return rows
}

// keyInbox drives the open inbox: move, open in place, close.
func (m *Model) keyInbox(msg tea.KeyPressMsg) tea.Cmd {
	k, g := m.keys.Inbox, m.keys.Global
	n := len(m.waits.items)
	switch {
	case key.Matches(msg, k.Close):
		m.inbox.open = false
	case cursorKey(msg, k.Up, k.Down):
		m.inbox.sel = moveCursor(msg, k.Up, m.inbox.sel, n)
	case key.Matches(msg, k.Open):
		if n == 0 {
			return reportInfo("nothing is waiting for you")
		}
		m.inbox.open = false
		return m.openWaitOn(m.waits.items[min(m.inbox.sel, n-1)])
	case key.Matches(msg, g.Quit):
		return m.quitAsking()
	case key.Matches(msg, g.Help):
		m.openHelp()
	}
	return nil
}

// openWait opens w where it waits: a card through the chat's jump (what
// ! does), a server in the MCP panel, a stopped turn at the chat's
// bottom, another session by opening it.
func (m *Model) openWait(w waitItem) tea.Cmd {
	switch {
	case w.at.item != "":
		return m.chatPanel.jumpTo(w.at)
	case strings.HasPrefix(w.server, agentPromptServer):
		// The prompt sits at the top of the open chat.
		m.focus = focusChat
		m.chatPanel.sel = chatSel{prompt: true}
		m.chatPanel.scroll, m.chatPanel.pin = 0, true
		return nil
	case w.server != "" && w.session == m.openSession:
		if i := slices.IndexFunc(m.signin.servers(), func(r mcpRow) bool { return r.ID == w.server }); i >= 0 {
			if !m.showMCP {
				m.showMCP = true
				m.resize(m.width, m.height)
			}
			m.mcp.sel, m.focus = i, focusMCP
		}
		return nil
	case w.session != m.openSession:
		m.focus = focusChat
		return m.requestSession(w.session)
	case w.at.chat != "" && w.at.chat != m.openChat:
		m.focus = focusChat
		return m.requestChat(w.at.chat)
	}
	m.focus = focusChat
	m.chatPanel.sel = chatSel{}
	m.chatPanel.scroll, m.chatPanel.pin = 0, true
	return nil
}
