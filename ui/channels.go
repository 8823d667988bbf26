package ui

import (
	"errors"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
	"github.com/ahptui/ahptui/views"
)

// ensureChat subscribes to the open session's default chat once the session
// snapshot names it.
func (m *Model) ensureChat() tea.Cmd {
	if !m.hasSess || m.openChat != "" {
		return nil
	}
	target := ""
	if m.sess.DefaultChat != nil {
		target = *m.sess.DefaultChat
	} else if len(m.sess.Chats) > 0 {
		target = m.sess.Chats[0].Resource
	}
	if target == "" {
		return nil
	}
	return m.switchChat(target)
}

func (m *Model) switchChat(target string) tea.Cmd {
	prev := m.openChat
	if prev != "" && prev != target {
		m.chatPanel.leaveDraft()
	}
	m.openChat, m.hasChat = target, false
	m.chatPanel.reset()
	m.chatPanel.restoreDraft()
	c, ctx := m.client, m.ctx
	if c == nil {
		return nil
	}
	if ch, ok := c.Chat(target); ok {
		m.chat, m.hasChat = ch, true
	}
	return withAuthRetry(func() tea.Msg {
		if prev != "" && prev != target {
			_ = c.Unsubscribe(ctx, prev)
		}
		return subscribedMsg{channel: target, err: c.Subscribe(ctx, target)}
	})
}

// reopenChannels subscribes again to the open session and chat whose
// subscribe a dropped connection cut short (m.reopen), once it is ready.
func (m *Model) reopenChannels() tea.Cmd {
	chans := m.reopen
	m.reopen = nil
	c, ctx := m.client, m.ctx
	var cmds []tea.Cmd
	for _, ch := range chans {
		if c == nil || (ch != m.openSession && ch != m.openChat) {
			continue
		}
		cmds = append(cmds, withAuthRetry(func() tea.Msg {
			return subscribedMsg{channel: ch, err: c.Subscribe(ctx, ch)}
		}))
	}
	return tea.Batch(cmds...)
}

func (m *Model) openSessionCmd(uri string) tea.Cmd {
	if m.client == nil {
		return reportError(errors.New("not connected yet: wait for the status bar to say ready"))
	}
	if uri == m.openSession {
		return nil
	}
	prevS, prevC := m.openSession, m.openChat
	m.chatPanel.leaveDraft()
	m.openSession, m.hasSess, m.openChat, m.hasChat = uri, false, "", false
	m.chatPanel.reset()
	m.chatPanel.restoreDraft()
	m.mcp.reset()
	m.sessions.sortSessions(uri) // listed (if the host does not yet) and selected
	c, ctx := m.client, m.ctx
	return withAuthRetry(func() tea.Msg {
		if prevC != "" {
			_ = c.Unsubscribe(ctx, prevC)
		}
		if prevS != "" {
			_ = c.Unsubscribe(ctx, prevS)
		}
		return subscribedMsg{channel: uri, err: c.Subscribe(ctx, uri)}
	})
}

// markRead tells the host the open session was read once it is open
// (session/isReadChanged), so the list's unread dot goes, as it does in
// VS Code when a session is looked at.
func (m *Model) markRead(channel string) tea.Cmd {
	if channel != m.openSession || !m.hasSess || m.sess.Status.Has(protocol.SessionStatusIsRead) {
		return nil
	}
	if _, err := m.dispatch(channel, protocol.SessionIsReadChangedAction{IsRead: true}); err != nil {
		return reportError(err)
	}
	return nil
}

// closeSession forgets the open session and chat when uri is the open
// session, so a session being disposed is not drawn while the host
// removes it.
func (m *Model) closeSession(uri string) {
	m.signin.forgetAdvertised()
	m.chatPanel.dropDrafts(uri)
	if uri == m.openSession {
		m.openSession, m.hasSess, m.openChat, m.hasChat = "", false, "", false
		m.sessions.sortSessions(m.sessions.selected()) // unlisted only while open
	}
}

// onOpDone reports a create or dispose command's end. A session this
// client created opens with the chat focused, as the user is there to
// write its first message (i); the list's keys no longer take theirs.
func (m *Model) onOpDone(msg opDoneMsg) tea.Cmd {
	if msg.err != nil {
		// A create the host refused until the user signs in is sent again
		// after the sign-in (withAuthRetry): its session is still coming.
		var ae *client.AuthRequiredError
		if msg.session != "" && msg.session == m.sessions.created && !errors.As(msg.err, &ae) {
			m.sessions.created = ""
			m.sessions.sortSessions(m.sessions.selected())
		}
		return m.failed(fmt.Errorf("%s failed: %w", msg.what, msg.err), "")
	}
	cmd := reportInfo(doneText(msg.what))
	if msg.session == "" {
		return cmd
	}
	open := m.openSessionCmd(msg.session)
	if m.modal != modalNone {
		return tea.Batch(cmd, open)
	}
	m.focus = focusChat
	return tea.Batch(cmd, open)
}

// creationFailed reports, once, that the open session could not be
// created (lifecycle failed, 1.0's name for 0.6's creationFailed): such a
// session has no chat to show, so without a word the panel just stays
// empty.
func (m *Model) creationFailed() tea.Cmd {
	if !m.hasSess || m.sess.Lifecycle != protocol.SessionLifecycleFailed || m.failedSession == m.openSession {
		return nil
	}
	m.failedSession = m.openSession
	why := "the host gave no reason"
	if e := m.sess.CreationError; e != nil && strings.TrimSpace(e.Message) != "" {
		why = views.SanitizeLine(e.Message)
		if t := views.SanitizeLine(e.ErrorType); t != "" {
			why += " (" + t + ")"
		}
	}
	return reportError(fmt.Errorf("the host could not create session %s: %s", views.SanitizeLine(m.openSession), why))
}
