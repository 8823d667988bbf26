package ui

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/keymap"
	"github.com/ahptui/ahptui/views"
)

// context is which keymap.Context has the keyboard right now.
func (m *Model) context() keymap.Context {
	if m.showMsgs {
		return keymap.ContextMessages
	}
	switch m.modal {
	case modalConfirmDispose, modalConfirmQuit:
		return keymap.ContextConfirm
	case modalNewSession:
		return keymap.ContextNewSession
	case modalInput:
		return keymap.ContextInput
	case modalWiden:
		return keymap.ContextWiden
	}
	if m.askShown() {
		return keymap.ContextConfirm
	}
	if m.signin.list.open && m.signin.list.asking {
		return keymap.ContextConfirm
	}
	if m.signin.list.open {
		return keymap.ContextSignIns
	}
	if m.settings.open {
		return keymap.ContextSettings
	}
	if m.queue.open {
		return keymap.ContextQueue
	}
	if m.chats.open {
		return keymap.ContextChats
	}
	if m.resources.open {
		return keymap.ContextResources
	}
	if m.inbox.open {
		return keymap.ContextInbox
	}
	if m.terms.open {
		switch {
		case m.terms.input:
			return keymap.ContextTerminalInput
		case m.terms.channel != "":
			return keymap.ContextTerminal
		}
		return keymap.ContextTerminals
	}
	if m.changes.open {
		switch {
		case m.changes.confirm >= 0:
			return keymap.ContextConfirm
		case m.changes.diff != nil:
			return keymap.ContextDiff
		}
		return keymap.ContextChanges
	}
	if m.signin.paste.open && m.signin.waitingGrant() != nil || m.signin.tokenOpen() {
		return keymap.ContextPaste
	}
	switch m.focus {
	case focusComposer:
		return keymap.ContextComposer
	case focusMCP:
		return keymap.ContextMCP
	case focusChat:
		if it, ok := m.chatPanel.selectedItem(); ok && m.chatPanel.itemGrant(it) != "" {
			return keymap.ContextChatGrant
		}
		if len(m.signin.prompts) > 0 && m.chatPanel.sel.prompt {
			return keymap.ContextChatGrant
		}
		return keymap.ContextChat
	}
	return keymap.ContextSessions
}

func (m *Model) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	g := m.keys.Global
	m.status.notice = "" // read: the first key clears it (statusLine.notices)
	if key.Matches(msg, g.Interrupt) {
		// A second ctrl+c in the dialog quits: the user meant it.
		if m.modal == modalConfirmQuit {
			return m.quit()
		}
		return m.quitAsking()
	}
	if m.showAll {
		return m.keyFullHelp(msg)
	}
	if m.showMsgs {
		// Like the help: modal; close (or the key that opened it) leaves.
		switch {
		case key.Matches(msg, m.keys.MessagesClose()), key.Matches(msg, g.Messages):
			m.showMsgs = false
		case key.Matches(msg, g.Quit):
			// The question, if quitting asks one, must not wait unseen
			// behind the history.
			m.showMsgs = false
			return m.quitAsking()
		}
		return nil
	}
	// Sign-in questions and sheets are modal and come first: a token must
	// not go out, nor a browser open, behind a question still on screen.
	// A question waits behind a text field that has the keys (typing).
	if m.askShown() {
		return m.signin.keyAsk(msg, m.clock())
	}
	if m.signin.list.open && m.modal == modalNone {
		switch {
		case key.Matches(msg, g.Quit):
			return m.quit()
		case key.Matches(msg, g.Help):
			m.showAll = true
			return nil
		}
		return m.signin.keySignIns(msg)
	}
	if m.settings.open && m.modal == modalNone {
		return m.sheetKey(msg, m.settings.handleKey)
	}
	if m.queue.open && m.modal == modalNone {
		return m.sheetKey(msg, m.queue.handleKey)
	}
	if m.chats.open && m.modal == modalNone {
		return m.sheetKey(msg, m.chats.handleKey)
	}
	if m.resources.open && m.modal == modalNone {
		return m.sheetKey(msg, m.resources.handleKey)
	}
	if m.inbox.open && m.modal == modalNone {
		return m.keyInbox(msg)
	}
	if m.terms.open && m.modal == modalNone {
		return m.terms.handleKey(msg, m.quitAsking, func() tea.Cmd { m.showAll = true; return nil })
	}
	if m.changes.open && m.modal == modalNone {
		return m.changes.handleKey(msg, m.quitAsking, func() tea.Cmd { m.showAll = true; return nil })
	}
	if m.signin.tokenOpen() && m.modal == modalNone {
		return m.signin.keyToken(msg)
	}
	if g := m.signin.waitingGrant(); g != nil && m.modal == modalNone {
		return m.keyGrantOverlay(msg, g)
	}
	// A card that took the keys from the composer drops what is still
	// being typed at it (chatPanel.guard): text and enter; ctrl and
	// navigation keys were not typed into a message.
	if m.modal == modalNone && m.focus == focusChat && typed(msg) && m.chatPanel.guard.holds(m.clock()) {
		return reportInfo("a card just took the keys from the composer: keys typed in its first second are ignored")
	}
	if m.modal == modalNone && m.focus == focusChat {
		if cmd, done := m.chatPanel.keyUnselected(msg); done {
			return cmd
		}
	}
	ctx := m.context()
	switch ctx {
	case keymap.ContextWiden:
		return m.keyWiden(msg)
	case keymap.ContextNewSession:
		return m.sessions.keyNewSession(msg)
	case keymap.ContextConfirm:
		if m.modal == modalConfirmQuit {
			return m.keyConfirmQuit(msg)
		}
		return m.sessions.keyConfirm(msg)
	case keymap.ContextInput:
		if key.Matches(msg, g.Reconnect) {
			return m.reconnect()
		}
		return m.formKey(msg)
	case keymap.ContextComposer:
		// Focus and reconnect keys work from the composer too; every other
		// key edits the draft.
		switch {
		case key.Matches(msg, g.FocusNext):
			m.cycleFocus(1)
			return nil
		case key.Matches(msg, g.FocusPrev):
			m.cycleFocus(-1)
			return nil
		case key.Matches(msg, g.Reconnect):
			return m.reconnect()
		}
		return m.chatPanel.keyComposer(msg)
	}
	if ctx == keymap.ContextChat || ctx == keymap.ContextChatGrant {
		switch {
		case key.Matches(msg, m.keys.Chat.Queue):
			return m.queue.toggle()
		case key.Matches(msg, m.keys.Chat.SwitchChat):
			return m.chats.toggle()
		case key.Matches(msg, m.keys.Chat.NextBlocker) && m.lastBlockerHere():
			return m.nextHostWait()
		case key.Matches(msg, m.keys.Chat.Resources):
			return m.resources.toggle()
		}
	}
	// Views first, then global keys (keymap.Active's order).
	var cmd tea.Cmd
	handled := true
	switch ctx {
	case keymap.ContextSessions:
		if cmd, handled = m.keyHosts(msg); !handled {
			cmd, handled = m.sessions.handleKey(msg)
		}
	case keymap.ContextChat:
		cmd, handled = m.chatPanel.handleKey(msg)
	case keymap.ContextChatGrant:
		cmd, handled = m.chatPanel.keyGrant(msg)
		if !handled {
			cmd, handled = m.chatPanel.handleKey(msg)
		}
	case keymap.ContextMCP:
		cmd, handled = m.mcp.handleKey(msg)
	}
	if handled {
		return cmd
	}
	switch {
	case key.Matches(msg, g.Quit):
		return m.quitAsking()
	case key.Matches(msg, g.Help):
		m.showAll = true
	case key.Matches(msg, g.Messages):
		m.showMsgs = true
	case key.Matches(msg, g.FocusNext):
		m.cycleFocus(1)
	case key.Matches(msg, g.FocusPrev):
		m.cycleFocus(-1)
	case key.Matches(msg, g.Reconnect):
		return m.reconnect()
	case key.Matches(msg, g.SignIns):
		return m.signin.openSignIns()
	case key.Matches(msg, g.Settings):
		m.settings.toggle()
	case key.Matches(msg, g.Inbox):
		m.openInbox()
	case key.Matches(msg, g.Changes):
		return m.changes.toggle()
	case key.Matches(msg, g.Terminals):
		return m.terms.toggle()
	case key.Matches(msg, g.ToggleMCP):
		m.showMCP = !m.showMCP
		if !m.showMCP && m.focus == focusMCP {
			m.focus = focusChat
		}
		m.resize(m.width, m.height)
	case m.focus == focusMCP && key.Matches(msg, m.keys.Sessions.New):
		// n is the session list's; say where it works rather than nothing.
		return reportInfo(fmt.Sprintf("%s makes a new session from the session list: press %s to go there",
			m.keys.Sessions.New.Help().Key, m.keys.Global.FocusNext.Help().Key))
	case m.focus == focusMCP && key.Matches(msg, m.keys.Chat.FocusComposer) && m.openSession != "":
		m.writeIn, m.focus = m.openSession, focusChat // the open session's composer
	case m.focus == focusChat && msg.Text != "" && m.hasChat:
		// Typed text reaching the transcript was meant for the composer.
		return reportInfo(fmt.Sprintf("the chat has the keys, not the composer: press %s to write a message",
			m.keys.Chat.FocusComposer.Help().Key))
	}
	return nil
}

// sheetKey gives a key to a modal sheet (settings, pending messages)
// after quit, which asks first, and help, which opens over it.
func (m *Model) sheetKey(msg tea.KeyPressMsg, handle func(tea.KeyPressMsg) tea.Cmd) tea.Cmd {
	switch g := m.keys.Global; {
	case key.Matches(msg, g.Quit):
		return m.quitAsking()
	case key.Matches(msg, g.Help):
		m.showAll = true
		return nil
	}
	return handle(msg)
}

func (m *Model) reconnect() tea.Cmd {
	n := m.status.readies
	back := func() bool { return m.status.readies > n } // said until connected again
	if m.hosts != nil {
		return m.retryHost(m.hosts.active)
	}
	if m.client == nil {
		m.status.connecting(m.connTries+1, m.clock())
		return tea.Batch(m.status.update(statusMsg{text: "connecting…", gone: back}, m.clock()), m.connectCmd(), connTick())
	}
	// Said now, not by a command: the connection can be back before a
	// command's message arrives, and the word would then never show.
	m.client.Reconnect()
	return m.status.update(statusMsg{text: "reconnecting on request", gone: back}, m.clock())
}

func (m *Model) focusOrder() []focus {
	order := []focus{focusSessions, focusChat}
	if m.showMCP && !m.layout.MCP.Empty() {
		order = append(order, focusMCP)
	}
	return order
}

func (m *Model) cycleFocus(d int) {
	m.chatPanel.leaveComposer()
	order := m.focusOrder()
	i := 0
	for j, f := range order {
		if f == m.focus {
			i = j
		}
	}
	m.focus = order[(i+d+len(order))%len(order)]
	if m.focus == focusChat {
		m.chatPanel.selectDefaultItem()
	}
}

// keyGrantOverlay handles keys while the sign-in overlay is up. The overlay
// is modal: it covers the panels the other keys act on, so only cancel,
// copy, quit, help and reconnect do anything.
func (m *Model) keyGrantOverlay(msg tea.KeyPressMsg, g *grantFlow) tea.Cmd {
	if cmd, ok := m.signin.keyOverlay(msg, g); ok {
		return cmd
	}
	switch {
	case key.Matches(msg, m.keys.Global.Quit):
		return m.quit()
	case key.Matches(msg, m.keys.Global.Help):
		m.showAll = true
	case key.Matches(msg, m.keys.Global.Reconnect):
		return m.reconnect()
	}
	return nil
}

// keyFullHelp handles keys while the ? overlay is up. It is modal and
// taller than a small screen: the scroll keys move it, close (and quit)
// leave it, and any other key does nothing rather than throw the reader
// out of the list.
func (m *Model) keyFullHelp(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys.HelpScreen
	page := max(1, m.height-4)
	by := 0
	switch {
	case key.Matches(msg, k.Close):
		m.showAll, m.helpOffset = false, 0
	case key.Matches(msg, m.keys.Global.Quit):
		return m.quit()
	case key.Matches(msg, k.Up):
		by = -1
	case key.Matches(msg, k.Down):
		by = 1
	case key.Matches(msg, k.PageUp):
		by = -page
	case key.Matches(msg, k.PageDown):
		by = page
	}
	if by != 0 {
		last := views.FullHelpMaxOffset(m.th, m.help, m.keys, m.width, m.height)
		m.helpOffset = max(0, min(last, m.helpOffset+by))
	}
	return nil
}

// quitAsking quits, unless the composer holds a draft (quitting would
// lose it) or the open session waits on the user: then it asks first.
func (m *Model) quitAsking() tea.Cmd {
	if m.modal == modalNone && (m.chatPanel.composer.Value() != "" || m.chatPanel.waitingHere() > 0) {
		m.modal = modalConfirmQuit
		return nil
	}
	return m.quit()
}

// keyConfirmQuit answers the quit dialog: yes quits, no goes back to the
// draft.
func (m *Model) keyConfirmQuit(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.Confirm.Yes):
		return m.quit()
	case key.Matches(msg, m.keys.Confirm.No):
		m.modal = modalNone
	}
	return nil
}
