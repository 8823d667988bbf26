package ui

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/keymap"
)

// target resolves where a key goes: the message history when it is open,
// the host's question when one is on screen (askShown), else what has
// the keys under it (under).
func (m *Model) target() keyRoute {
	if m.showMsgs {
		return keyRoute{toMessages, keymap.ContextMessages}
	}
	r := m.under()
	if m.asksOver(r) {
		return keyRoute{toAsk, keymap.ContextConfirm}
	}
	return r
}

// asksOver reports whether the question in front takes the keys from r:
// one waits, no dialog is open, and r is no text field.
func (m *Model) asksOver(r keyRoute) bool {
	_, ok := m.signin.pendingAsk()
	return ok && m.modal == modalNone && !r.to.textField()
}

// under is what has the keys when no question of the host's is on
// screen: a dialog, a sheet, a sign-in field or overlay, then the
// focused panel.
func (m *Model) under() keyRoute {
	switch m.modal {
	case modalConfirmQuit:
		return keyRoute{toQuitConfirm, keymap.ContextConfirm}
	case modalConfirmDispose:
		return keyRoute{toDispose, keymap.ContextConfirm}
	case modalNewSession:
		return keyRoute{toNewSession, keymap.ContextNewSession}
	case modalInput:
		return keyRoute{toForm, keymap.ContextInput}
	case modalWiden:
		return keyRoute{toWiden, keymap.ContextWiden}
	}
	switch {
	case m.signin.list.open && m.signin.list.asking:
		return keyRoute{toSignIns, keymap.ContextConfirm}
	case m.signin.list.open:
		return keyRoute{toSignIns, keymap.ContextSignIns}
	case m.settings.open:
		return keyRoute{toSettings, keymap.ContextSettings}
	case m.queue.open:
		return keyRoute{toQueue, keymap.ContextQueue}
	case m.chats.open:
		return keyRoute{toChats, keymap.ContextChats}
	case m.resources.open:
		return keyRoute{toResources, keymap.ContextResources}
	case m.inbox.open:
		return keyRoute{toInbox, keymap.ContextInbox}
	case m.terms.open && m.terms.input:
		return keyRoute{toTerminalInput, keymap.ContextTerminalInput}
	case m.terms.open && m.terms.channel != "":
		return keyRoute{toTerminal, keymap.ContextTerminal}
	case m.terms.open:
		return keyRoute{toTerminals, keymap.ContextTerminals}
	case m.changes.open && m.changes.confirm >= 0:
		return keyRoute{toChanges, keymap.ContextConfirm}
	case m.changes.open && m.changes.diff != nil:
		return keyRoute{toChanges, keymap.ContextDiff}
	case m.changes.open:
		return keyRoute{toChanges, keymap.ContextChanges}
	case m.signin.tokenOpen():
		return keyRoute{toToken, keymap.ContextPaste}
	}
	if m.signin.waitingGrant() != nil {
		if m.signin.paste.open {
			return keyRoute{toPaste, keymap.ContextPaste}
		}
		// The overlay's keys are its own (grantFooter); the context
		// stays the panel's under it, whose help the overlay replaces.
		return keyRoute{toGrant, m.panelRoute().ctx}
	}
	return m.panelRoute()
}

// panelRoute is the focused panel's route.
func (m *Model) panelRoute() keyRoute {
	switch m.focus {
	case focusComposer:
		return keyRoute{toComposer, keymap.ContextComposer}
	case focusMCP:
		return keyRoute{toMCP, keymap.ContextMCP}
	case focusChat:
		if it, ok := m.chatPanel.selectedItem(); ok && m.chatPanel.itemGrant(it) != "" {
			return keyRoute{toChat, keymap.ContextChatGrant}
		}
		if len(m.signin.prompts) > 0 && m.chatPanel.sel.prompt {
			return keyRoute{toChat, keymap.ContextChatGrant}
		}
		return keyRoute{toChat, keymap.ContextChat}
	}
	return keyRoute{toSessions, keymap.ContextSessions}
}

// context is which keymap.Context has the keyboard right now.
func (m *Model) context() keymap.Context { return m.target().ctx }

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
	// ctrl+l redraws from anywhere but a terminal being typed into,
	// whose shell takes it (it clears that screen).
	if key.Matches(msg, g.Redraw) && m.target().to != toTerminalInput {
		return tea.ClearScreen
	}
	if m.showAll {
		return m.keyFullHelp(msg)
	}
	help := func() tea.Cmd { m.openHelp(); return nil }
	// Sign-in questions and sheets are modal and come first: a token must
	// not go out, nor a browser open, behind a question still on screen.
	// A question waits behind a text field that has the keys (target).
	r := m.target()
	switch r.to {
	case toMessages:
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
	case toAsk:
		return m.signin.keyAsk(msg, m.clock())
	case toSignIns:
		switch {
		case key.Matches(msg, g.Quit):
			return m.quit()
		case key.Matches(msg, g.Help):
			return help()
		}
		return m.signin.keySignIns(msg)
	case toSettings:
		return m.sheetKey(msg, m.settings.handleKey)
	case toQueue:
		return m.sheetKey(msg, m.queue.handleKey)
	case toChats:
		return m.sheetKey(msg, m.chats.handleKey)
	case toResources:
		return m.sheetKey(msg, m.resources.handleKey)
	case toInbox:
		return m.keyInbox(msg)
	case toTerminals, toTerminal, toTerminalInput:
		return m.terms.handleKey(msg, m.quitAsking, help)
	case toChanges:
		return m.changes.handleKey(msg, m.quitAsking, help)
	case toToken:
		return m.signin.keyToken(msg)
	case toGrant, toPaste:
		return m.keyGrantOverlay(msg, m.signin.waitingGrant())
	case toWiden:
		return m.keyWiden(msg)
	case toNewSession:
		return m.sessions.keyNewSession(msg)
	case toQuitConfirm:
		return m.keyConfirmQuit(msg)
	case toDispose:
		return m.sessions.keyConfirm(msg)
	case toForm:
		if key.Matches(msg, g.Reconnect) {
			return m.reconnect()
		}
		return m.formKey(msg)
	case toComposer:
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
	ctx := r.ctx
	if r.to == toChat {
		// A card that took the keys from the composer drops what is still
		// being typed at it (chatPanel.guard): text and enter; ctrl and
		// navigation keys were not typed into a message.
		if typed(msg) && m.chatPanel.guard.holds(m.clock()) {
			return reportInfo("a card just took the keys from the composer: keys typed in its first second are ignored")
		}
		if cmd, done := m.chatPanel.keyUnselected(msg); done {
			return cmd
		}
		ctx = m.panelRoute().ctx // keyUnselected may have selected a card
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
		m.openHelp()
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

// handlePaste gives a bracketed paste to the text field the keys go to
// (target), as typed text: never to a question, nor to a field hidden
// under a sheet or the sign-in overlay.
func (m *Model) handlePaste(msg tea.PasteMsg) tea.Cmd {
	switch m.target().to {
	case toToken, toPaste:
		m.signin.onPaste(msg)
	case toComposer:
		return m.chatPanel.updateComposer(msg)
	case toForm:
		if m.form != nil {
			return m.editForm(msg)
		}
	case toTerminalInput:
		return m.terms.paste(msg.Content)
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
		m.openHelp()
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
		m.openHelp()
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
		last := m.fullHelpLaidOut().MaxOffset()
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
