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
	switch m.modal {
	case modalConfirmDispose:
		return keymap.ContextConfirm
	case modalNewSession:
		return keymap.ContextNewSession
	case modalInput:
		return keymap.ContextInput
	}
	switch m.focus {
	case focusComposer:
		return keymap.ContextComposer
	case focusMCP:
		return keymap.ContextMCP
	case focusChat:
		if it, ok := m.selectedItem(); ok && m.itemGrant(it) != "" {
			return keymap.ContextChatGrant
		}
		if len(m.agentPrompts) > 0 && m.itemSel == agentPromptSel {
			return keymap.ContextChatGrant
		}
		return keymap.ContextChat
	}
	return keymap.ContextSessions
}

const agentPromptSel = "\x00agent-grant"

func (m *Model) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	g := m.keys.Global
	if key.Matches(msg, g.Interrupt) {
		return m.quit()
	}
	if m.showAll {
		// The full help overlay is modal: any key closes it, and ? toggles.
		m.showAll = false
		return nil
	}
	if g := m.waitingGrant(); g != nil && m.modal == modalNone {
		return m.keyGrantOverlay(msg, g)
	}
	if m.modal == modalNone && m.focus == focusChat {
		if cmd, done := m.keyUnselected(msg); done {
			return cmd
		}
	}
	ctx := m.context()
	switch ctx {
	case keymap.ContextNewSession:
		return m.keyNewSession(msg)
	case keymap.ContextConfirm:
		return m.keyConfirm(msg)
	case keymap.ContextInput:
		return m.keyInput(msg)
	case keymap.ContextComposer:
		return m.keyComposer(msg)
	}
	// Views first, then global keys (keymap.Active's order).
	var cmd tea.Cmd
	handled := true
	switch ctx {
	case keymap.ContextSessions:
		cmd, handled = m.keySessions(msg)
	case keymap.ContextChat:
		cmd, handled = m.keyChat(msg)
	case keymap.ContextChatGrant:
		cmd, handled = m.keyGrant(msg)
		if !handled {
			cmd, handled = m.keyChat(msg)
		}
	case keymap.ContextMCP:
		cmd, handled = m.keyMCP(msg)
	}
	if handled {
		return cmd
	}
	switch {
	case key.Matches(msg, g.Quit):
		return m.quit()
	case key.Matches(msg, g.Help):
		m.showAll = true
	case key.Matches(msg, g.FocusNext):
		m.cycleFocus(1)
	case key.Matches(msg, g.FocusPrev):
		m.cycleFocus(-1)
	case key.Matches(msg, g.Reconnect):
		return m.reconnect()
	case key.Matches(msg, g.ToggleMCP):
		m.showMCP = !m.showMCP
		if !m.showMCP && m.focus == focusMCP {
			m.focus = focusChat
		}
		m.resize(m.width, m.height)
	case m.focus == focusChat && msg.Text != "" && m.hasChat:
		// Typed text reaching the transcript was meant for the composer.
		m.setStatus(fmt.Sprintf("the chat has the keys, not the composer: press %s to write a message",
			m.keys.Chat.FocusComposer.Help().Key))
	}
	return nil
}

// keyUnselected makes the keys a blocker's card shows work when nothing is
// selected: they act on the newest blocker of the open chat (or the agent's
// sign-in prompt), and when nothing waits they say so instead of doing
// nothing. done reports that the key was fully handled here.
func (m *Model) keyUnselected(msg tea.KeyPressMsg) (cmd tea.Cmd, done bool) {
	if m.itemSel == agentPromptSel && len(m.agentPrompts) > 0 {
		return nil, false
	}
	if _, ok := m.selectedItem(); ok {
		return nil, false
	}
	c, gr := m.keys.Chat, m.keys.Grant
	answers := key.Matches(msg, c.Approve) || key.Matches(msg, c.Deny)
	grants := key.Matches(msg, gr.Accept) || key.Matches(msg, gr.Decline) || key.Matches(msg, gr.CopyURL)
	if !answers && !grants {
		return nil, false
	}
	if it, ok := m.newestBlocker(); ok {
		m.itemSel, m.scroll, m.pin = it.ID, 0, true
		return nil, false
	}
	if grants && len(m.agentPrompts) > 0 {
		m.itemSel = agentPromptSel
		return nil, false
	}
	if grants {
		m.setStatus(errNothingTo.Error())
		return nil, true
	}
	return nil, false
}

func (m *Model) reconnect() tea.Cmd {
	if m.client == nil {
		m.conn = connInfo{state: views.ConnConnecting}
		m.setStatus("connecting…")
		return m.connectCmd()
	}
	m.client.Reconnect()
	m.setStatus("reconnecting on request")
	return nil
}

func (m *Model) focusOrder() []focus {
	order := []focus{focusSessions, focusChat}
	if m.showMCP && !m.layout.MCP.Empty() {
		order = append(order, focusMCP)
	}
	return order
}

func (m *Model) cycleFocus(d int) {
	if m.focus == focusComposer {
		m.composer.Blur()
		m.focus = focusChat
	}
	order := m.focusOrder()
	i := 0
	for j, f := range order {
		if f == m.focus {
			i = j
		}
	}
	m.focus = order[(i+d+len(order))%len(order)]
	if m.focus == focusChat {
		m.selectDefaultItem()
	}
}

func (m *Model) keySessions(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := m.keys.Sessions
	switch {
	case key.Matches(msg, k.Up):
		m.sessSel = max(0, m.sessSel-1)
	case key.Matches(msg, k.Down):
		m.sessSel = min(len(m.sessions)-1, m.sessSel+1)
		m.clampSessSel()
	case key.Matches(msg, k.Open):
		if m.sessSel < len(m.sessions) {
			cmd := m.openSessionCmd(m.sessions[m.sessSel].Resource)
			m.focus = focusChat
			return cmd, true
		}
	case key.Matches(msg, k.New):
		if len(m.newChoices()) == 0 {
			m.setError(errNoAgents)
			return nil, true
		}
		m.modal, m.newSel = modalNewSession, 0
	case key.Matches(msg, k.Dispose):
		if m.sessSel < len(m.sessions) {
			m.modal, m.confirm = modalConfirmDispose, m.sessions[m.sessSel].Resource
		}
	default:
		return nil, false
	}
	return nil, true
}

func (m *Model) keyConfirm(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys.Confirm
	switch {
	case key.Matches(msg, k.Yes):
		uri := m.confirm
		m.modal, m.confirm = modalNone, ""
		return m.disposeCmd(uri)
	case key.Matches(msg, k.No):
		m.modal, m.confirm = modalNone, ""
	}
	return nil
}

// keyNewSession drives the agent/model picker: up/down choose, enter
// creates, esc/n backs out.
func (m *Model) keyNewSession(msg tea.KeyPressMsg) tea.Cmd {
	choices := m.newChoices()
	switch {
	case key.Matches(msg, m.keys.NewSession.Up):
		m.newSel = max(0, m.newSel-1)
	case key.Matches(msg, m.keys.NewSession.Down):
		m.newSel = min(len(choices)-1, m.newSel+1)
	case key.Matches(msg, m.keys.NewSession.Create):
		m.modal = modalNone
		if m.newSel < len(choices) {
			return m.createSessionCmd(choices[m.newSel])
		}
	case key.Matches(msg, m.keys.NewSession.Cancel):
		m.modal = modalNone
	}
	return nil
}

func (m *Model) keyComposer(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys.Composer
	g := m.keys.Global
	switch {
	case key.Matches(msg, k.Send), key.Matches(msg, k.Queue):
		return m.submitComposer()
	case key.Matches(msg, k.Cancel):
		m.composer.Blur()
		m.focus = focusChat
		return nil
	case key.Matches(msg, m.keys.Chat.CancelTurn):
		m.cancelTurn()
		return nil
	case key.Matches(msg, g.FocusNext):
		m.cycleFocus(1)
		return nil
	case key.Matches(msg, g.FocusPrev):
		m.cycleFocus(-1)
		return nil
	case key.Matches(msg, g.Reconnect):
		return m.reconnect()
	}
	var cmd tea.Cmd
	m.composer, cmd = m.composer.Update(msg)
	return cmd
}

func (m *Model) keyChat(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := m.keys.Chat
	page := max(1, m.transcriptHeight()-2)
	switch {
	case key.Matches(msg, k.ScrollUp):
		m.scrollBy(1)
	case key.Matches(msg, k.ScrollDown):
		m.scrollBy(-1)
	case key.Matches(msg, k.PageUp):
		m.scrollBy(page)
	case key.Matches(msg, k.PageDown):
		m.scrollBy(-page)
	case key.Matches(msg, k.Top):
		m.scroll = 1 << 30
	case key.Matches(msg, k.Bottom):
		m.scroll = 0
	case key.Matches(msg, k.FocusComposer):
		if !m.hasChat {
			m.setError(errNoChat)
			return nil, true
		}
		m.focus = focusComposer
		return m.composer.Focus(), true
	case key.Matches(msg, k.NextToolCall):
		m.moveItem(1)
	case key.Matches(msg, k.PrevToolCall):
		m.moveItem(-1)
	case key.Matches(msg, k.Approve):
		return m.approve(), true
	case key.Matches(msg, k.Deny):
		m.deny()
	case key.Matches(msg, k.ToggleExpand):
		m.toggleExpand()
	case key.Matches(msg, k.CancelTurn):
		m.cancelTurn()
	case key.Matches(msg, k.NextBlocker):
		return m.nextBlocker(), true
	case key.Matches(msg, k.SwitchChat):
		return m.nextChat(), true
	default:
		return nil, false
	}
	return nil, true
}

func (m *Model) keyGrant(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := m.keys.Grant
	switch {
	case key.Matches(msg, k.Accept):
		return m.acceptGrant(), true
	case key.Matches(msg, k.Decline):
		m.declineGrant()
	case key.Matches(msg, k.Cancel):
		m.cancelGrant()
	case key.Matches(msg, k.CopyURL):
		if g := m.selectedFlow(); g != nil && g.url != "" {
			m.setStatus("sign-in URL copied to the clipboard")
			return tea.SetClipboard(g.url), true
		}
		m.setError(errNoURL)
	default:
		return nil, false
	}
	return nil, true
}

func (m *Model) keyMCP(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := m.keys.MCP
	rows := mcpRows(m.sess)
	switch {
	case key.Matches(msg, k.Up):
		m.mcpSel = max(0, m.mcpSel-1)
	case key.Matches(msg, k.Down):
		m.mcpSel = max(0, min(len(rows)-1, m.mcpSel+1))
	case key.Matches(msg, k.Start):
		return m.mcpAction(rows, mcpStart), true
	case key.Matches(msg, k.Stop):
		return m.mcpAction(rows, mcpStop), true
	case key.Matches(msg, k.Toggle):
		return m.mcpAction(rows, mcpToggle), true
	case key.Matches(msg, k.SignIn):
		if m.mcpSel < len(rows) && rows[m.mcpSel].Auth != nil {
			return m.startGrant(*rows[m.mcpSel].Auth), true
		}
		m.setError(errNoSignIn)
	default:
		return nil, false
	}
	return nil, true
}

func (m *Model) keyInput(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys.Input
	f := m.form
	if f == nil {
		m.modal = modalNone
		return nil
	}
	switch {
	case key.Matches(msg, k.NextField):
		return f.move(1)
	case key.Matches(msg, k.PrevField):
		return f.move(-1)
	case key.Matches(msg, k.Submit):
		m.submitInput()
		return nil
	case key.Matches(msg, k.Decline):
		m.declineInput()
		return nil
	case key.Matches(msg, m.keys.Global.Reconnect):
		return m.reconnect()
	}
	return f.update(msg)
}
