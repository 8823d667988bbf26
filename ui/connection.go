package ui

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/views"
)

// The root's connection: the first connect, its retries, and what the
// status line says meanwhile (status_connect.go words the failures).

func (m *Model) connectCmd() tea.Cmd {
	if m.hosts != nil {
		return m.connectHosts()
	}
	connect, ctx := m.cfg.Connect, m.ctx
	return func() tea.Msg {
		if connect == nil {
			return connectedMsg{err: errNoHost}
		}
		c, err := connect(ctx)
		return connectedMsg{client: c, err: err}
	}
}

func (m *Model) onConnected(msg connectedMsg) tea.Cmd {
	if msg.err != nil {
		m.status.connectFailed(msg.err, m.clock())
		if !retriesOnItsOwn(msg.err) || m.closed {
			return nil
		}
		// A host that is not up yet (or restarting) is tried again on its
		// own, backing off to every half minute; the bar says when.
		m.connTries++
		delay := min(time.Second<<min(m.connTries-1, 5), connRetryMax)
		m.status.conn.nextTry = m.clock().Add(delay)
		try := m.connTries
		return tea.Tick(delay, func(time.Time) tea.Msg { return retryConnect{try: try} })
	}
	m.connTries = 0
	m.client = msg.client
	m.signin.newConnection()
	m.status.conn = connInfo{state: views.ConnReady, version: m.client.ProtocolVersion()}
	m.status.readies++
	if r, ok := m.client.Root(); ok {
		m.root = r
	}
	if m.hosts != nil { // the host's own waiter (waitHost) brings its events
		return m.signin.pushSavedTokens()
	}
	return tea.Batch(waitEvent(m.client.Events()), m.signin.pushSavedTokens())
}

// connRetryMax is the longest wait between two tries of a first connect.
const connRetryMax = 30 * time.Second
