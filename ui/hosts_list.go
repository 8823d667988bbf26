package ui

import (
	"slices"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

// The session list grouped by host: a header row per host, then its
// sessions; the cursor, the host keys, and making a host the active one.

// sessionsOf is host i's sessions as the list shows them: the active
// host's are sessionList's (with the session open but not yet listed).
func (m *Model) sessionsOf(i int) []protocol.SessionSummary {
	if i == m.hosts.active {
		return m.sessions.list
	}
	return m.hosts.list[i].list
}

// curIndex is the cursor's session index in its host's list, -1 on the
// header (or a session gone from the list).
func (m *Model) curIndex() int {
	c := m.hosts.cur
	if c.header {
		return -1
	}
	if c.host == m.hosts.active {
		return m.sessions.sel
	}
	return slices.IndexFunc(m.hosts.list[c.host].list, func(s protocol.SessionSummary) bool { return s.Resource == c.uri })
}

// curFlat is the cursor's row in the whole grouped list.
func (m *Model) curFlat() int {
	n := 0
	for i := 0; i < m.hosts.cur.host; i++ {
		n += 1 + len(m.sessionsOf(i))
	}
	return n + 1 + m.curIndex()
}

// setCurFlat moves the cursor to row n of the grouped list (clamped).
func (m *Model) setCurFlat(n int) {
	n = max(0, n)
	for i := range m.hosts.list {
		l := m.sessionsOf(i)
		if n <= len(l) || i == len(m.hosts.list)-1 {
			m.setCur(i, min(n, len(l))-1)
			return
		}
		n -= 1 + len(l)
	}
}

// setCur puts the cursor on host i's session idx, or its header (-1).
func (m *Model) setCur(i, idx int) {
	c := hostCursor{host: i, header: idx < 0}
	if !c.header {
		l := m.sessionsOf(i)
		c.uri = l[idx].Resource
		if i == m.hosts.active {
			m.sessions.sel = idx
		}
	}
	m.hosts.cur = c
}

// hostsView draws the grouped list: only the rows in the window around
// the cursor are built.
func (m *Model) hostsView(w, h int) []string {
	visible := views.HostRowsVisible(h)
	cur := m.curFlat()
	first := max(0, cur-visible+1)
	rows := make([]views.HostListRow, 0, visible)
	total, n, now := 0, 0, m.clock()
	for i, hc := range m.hosts.list {
		l := m.sessionsOf(i)
		total += len(l)
		if n+1+len(l) <= first || len(rows) >= visible {
			n += 1 + len(l)
			continue
		}
		if n >= first {
			words, bad := hc.stateWords(now)
			rows = append(rows, views.HostListRow{Header: &views.HostHeader{Name: hostName(hc.cfg.Host), State: words, Bad: bad,
				Active: i == m.hosts.active, Sessions: len(l)}})
		}
		n++
		for j := max(0, first-n); j < len(l) && len(rows) < visible; j++ {
			rows = append(rows, views.HostListRow{Session: l[j]})
		}
		n += len(l)
	}
	return views.RenderHostSessionsPanel(m.th, rows, cur-first, total, len(m.hosts.list), now, w, h, m.focus == focusSessions)
}

// keyHosts handles the session list's keys with several hosts: moving
// over headers and sessions, the host keys, and any session key on
// another host's row, which makes that host active first.
func (m *Model) keyHosts(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	if m.hosts == nil {
		return nil, false
	}
	k := m.keys.Sessions
	c := m.hosts.cur
	switch {
	case key.Matches(msg, k.Up):
		m.setCurFlat(m.curFlat() - 1)
		return nil, true
	case key.Matches(msg, k.Down):
		m.setCurFlat(m.curFlat() + 1)
		return nil, true
	case key.Matches(msg, k.HostConnect):
		return m.connectHost(c.host), true
	case key.Matches(msg, k.HostDisconnect):
		return m.disconnectHost(c.host), true
	case key.Matches(msg, k.HostRetry):
		return m.retryHost(c.host), true
	}
	if !key.Matches(msg, k.Open, k.Write, k.New, k.Dispose, k.Rename) {
		return nil, false
	}
	var cmd tea.Cmd
	if c.host != m.hosts.active {
		idx := m.curIndex()
		cmd = m.activate(c.host, c.uri)
		if idx >= 0 {
			m.setCur(c.host, idx)
		}
	}
	if c.header && key.Matches(msg, k.Open) {
		return cmd, true
	}
	if c.header && !key.Matches(msg, k.New) {
		return cmd, true // write and dispose need a session row
	}
	more, _ := m.sessions.handleKey(msg)
	return tea.Batch(cmd, more), true
}

// connectHost dials host i again after a disconnect or a failure.
func (m *Model) connectHost(i int) tea.Cmd {
	hc := m.hosts.list[i]
	if hc.client != nil {
		return reportInfo(hostName(hc.cfg.Host) + " is connected")
	}
	hc.down, hc.tries = false, 0
	hc.gen++ // a retry already scheduled or a dial in flight drops
	return tea.Batch(reportInfo("connecting to "+hostName(hc.cfg.Host)+"…"), m.hostConnectCmd(i), m.hostTick())
}

// retryHost dials host i now, skipping its back-off; a connected host
// reconnects (its client's own supervisor).
func (m *Model) retryHost(i int) tea.Cmd {
	hc := m.hosts.list[i]
	if hc.client != nil {
		hc.client.Reconnect()
		return reportInfo("reconnecting to " + hostName(hc.cfg.Host))
	}
	return m.connectHost(i)
}

// disconnectHost closes host i's connection and stops retrying it. Its
// sessions leave the list; the active host's panels empty.
func (m *Model) disconnectHost(i int) tea.Cmd {
	hc := m.hosts.list[i]
	if hc.down {
		return nil
	}
	c := hc.client
	hc.gen++
	hc.down, hc.client, hc.list, hc.listedOnce, hc.tries = true, nil, nil, false, 0
	hc.dropWatch()
	hc.conn = connInfo{state: views.ConnFailed, failedReason: "disconnected"}
	if i == m.hosts.active {
		m.leaveHost()
		m.client, m.root = nil, protocol.RootState{}
		m.sessions.list, m.sessions.sel = nil, 0
		m.status.conn = connInfo{state: views.ConnFailed, failedReason: "disconnected", failedHint: "press c on the host to connect"}
	}
	m.hosts.cur = hostCursor{host: i, header: true}
	cmd := reportInfo("disconnected from " + hostName(hc.cfg.Host))
	if c != nil {
		return tea.Batch(cmd, closeClient(c))
	}
	return cmd
}
