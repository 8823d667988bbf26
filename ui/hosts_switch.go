package ui

import (
	"slices"

	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/protocol"
)

// activate makes host i the one the chat, MCP and changes panels show,
// and whose client every action goes to. What was open on the host left
// is unsubscribed there; its sign-in manager is put aside with its grant
// flows cancelled (a token is bound to the host that asked for it, and a
// flow must not finish into another host's client), and host i's own
// is taken up: sign-ins read Config.Host, now host i's. Host i's watch
// ends but for keep, the session about to open there; the host left is
// watched once its panels have unsubscribed.
func (m *Model) activate(i int, keep string) tea.Cmd {
	hs := m.hosts
	if i == hs.active || i < 0 || i >= len(hs.list) {
		return nil
	}
	left := hs.active
	leave := m.leaveHost()
	m.signin.putAside()
	hs.list[hs.active].signin = m.signin
	hs.active = i
	hc := hs.list[i]
	si := hc.signin
	if si == nil {
		si = &signIn{app: m.app, chatPanel: m.chatPanel, grants: map[string]*grantFlow{}, savedTried: map[savedKey]bool{}, hostHolds: map[string]bool{}}
	}
	hc.signin = nil
	cmd := tea.Batch(tea.Sequence(leave, m.syncWatch(left)), m.handOver(i, keep))
	m.signin, m.chatPanel.signin, m.mcp.signin = si, si, si
	m.cfg.Host, m.cfg.RegistryHost, m.cfg.Connect = hc.cfg.Host, hc.cfg.RegistryHost, hc.cfg.Connect
	m.client, m.root, m.connTries = hc.client, protocol.RootState{}, hc.tries
	if hc.client != nil {
		if r, ok := hc.client.Root(); ok {
			m.root = r
		}
	}
	m.status.conn = hc.conn
	sl := m.sessions
	sl.list, sl.sel, sl.created, sl.unlisted, sl.confirm = slices.Clone(hc.list), 0, "", "", ""
	sl.listedOnce, sl.autoOpened, sl.truncated = hc.listedOnce, true, false
	if hc.client != nil {
		// Saved sign-ins this host may have (once per connection).
		cmd = tea.Batch(cmd, m.signin.pushSavedTokens())
	}
	return tea.Batch(cmd, reportInfo("now on "+hostName(hc.cfg.Host)))
}

// putAside ends the flows of a host no longer active: cancelled, so none
// finishes into another host's client, and none still waits on a browser
// when the host is active again (its cancellation's message may come
// while another host's sign-in manager is in place, and drop there).
func (si *signIn) putAside() {
	si.cancelGrants()
	for _, g := range si.grants {
		if g.phase == grantStarting || g.phase == grantWaiting || g.phase == grantPushing {
			si.endFlow(g, grantCancelled, nil)
		}
	}
}

// leaveHost closes what the active host has open (session, chat,
// changeset, form, dialogs) and returns the command that unsubscribes it
// there; the grant flows of its sign-in manager are cancelled.
func (m *Model) leaveHost() tea.Cmd {
	c, ctx := m.client, m.ctx
	chans := []string{m.changes.channel, m.openChat, m.openSession}
	m.chatPanel.leaveDraft() // the draft stays with its host's chat
	m.signin.cancelGrants()
	m.openSession, m.hasSess, m.openChat, m.hasChat, m.writeIn = "", false, "", false, ""
	m.sess, m.chat, m.failedSession = protocol.SessionState{}, protocol.ChatState{}, ""
	*m.changes = changesView{app: m.app, confirm: -1}
	m.chatPanel.reset()
	m.mcp.reset()
	m.form, m.modal = nil, modalNone
	m.keys.SetTurnRunning(false)
	m.keys.SetTurnResumable(false)
	if m.focus != focusSessions {
		m.focus = focusSessions
	}
	if c == nil {
		return nil
	}
	return func() tea.Msg {
		for _, ch := range chans {
			if ch != "" {
				_ = c.Unsubscribe(ctx, ch)
			}
		}
		return nil
	}
}

// openWaitOn opens w of another host: that host becomes active, then the
// item opens as on one host.
func (m *Model) openWaitOn(w waitItem) tea.Cmd {
	if m.hosts == nil {
		return m.openWait(w)
	}
	for i, hc := range m.hosts.list {
		if hc.cfg.Host == w.host && i != m.hosts.active {
			cmd := m.activate(i, w.session)
			m.hosts.cur = hostCursor{host: i, header: true}
			return tea.Batch(cmd, m.openWait(w))
		}
	}
	return m.openWait(w)
}

// othersWaiting lists what waits on the user on the hosts not active:
// in each session whose summary says input-needed or error, what its
// watched state says waits (hosts_watch.go), else "needs input".
func (m *Model) othersWaiting(out []waitItem) []waitItem {
	for i, hc := range m.hosts.list {
		if i == m.hosts.active {
			continue
		}
		for _, s := range hc.list {
			if waitsThere(s.Status) {
				out = hostWaits(hc, s, out)
			}
		}
	}
	return out
}

// quietFresh drops from fresh what a host's first listing brought (it
// waited before we saw that host), and ends every host's first listing.
func (m *Model) quietFresh(fresh []waitItem) []waitItem {
	quiet := map[string]bool{}
	for _, hc := range m.hosts.list {
		if hc.baseline {
			quiet[hc.cfg.Host], hc.baseline = true, false
		}
	}
	if len(quiet) == 0 {
		return fresh
	}
	return slices.DeleteFunc(fresh, func(w waitItem) bool { return quiet[w.host] })
}

// lastBlockerHere reports whether ! has nothing further on the active
// host (nothing waits, or the card selected is the last that does), so
// the next ! goes to another host's.
func (m *Model) lastBlockerHere() bool {
	if m.hosts == nil {
		return false
	}
	bs := m.chatPanel.jumpTargets()
	if len(bs) == 0 {
		return true
	}
	b := bs[len(bs)-1]
	return b.session == m.openSession && b.item != "" && b.item == m.chatPanel.sel.item
}

// nextHostWait opens the oldest wait of another host; with none, ! goes
// round the active host's as before.
func (m *Model) nextHostWait() tea.Cmd {
	for _, w := range m.waits.items {
		if w.host != m.cfg.Host {
			return m.openWaitOn(w)
		}
	}
	return m.chatPanel.nextBlocker()
}

// routeHosts takes the messages of several hosts; ok is false for any
// other message (and for every message with one host).
func (m *Model) routeHosts(msg tea.Msg) (tea.Cmd, bool) {
	if m.hosts == nil {
		return nil, false
	}
	switch msg := msg.(type) {
	case hostConnectedMsg:
		return m.onHostConnected(msg), true
	case hostRetryMsg:
		return m.onHostRetry(msg), true
	case hostEventsMsg:
		return m.onHostEvents(msg), true
	case watchSubscribedMsg:
		return m.onWatchSubscribed(msg), true
	case watchRetryMsg:
		return m.onWatchRetry(msg), true
	case connTickMsg:
		// The headers count a connect's seconds, and the wait for the
		// next try, while any host has one: one tick chain at a time.
		if m.hosts.counting(m.clock()) {
			return connTick(), true
		}
		m.hosts.ticking = false
		return nil, true
	case retryConnect, eventsClosed:
		return nil, true // the single host's; each host retries on its own here
	}
	return nil, false
}

// otherClients is the clients of the hosts not active (the active one's
// is app.client), for quit to close.
func (m *Model) otherClients() []Client {
	if m.hosts == nil {
		return nil
	}
	var out []Client
	for i, hc := range m.hosts.list {
		if i != m.hosts.active && hc.client != nil {
			out = append(out, hc.client)
		}
		hc.gen++ // their waiters' last messages drop
	}
	return out
}

// closeHosts closes the other hosts' clients (Shutdown; the active one's
// is closed with app.client).
func (m *Model) closeHosts() {
	for _, c := range m.otherClients() {
		_ = c.Close()
	}
}

// sessionsView is the session list: grouped by host with several.
func (m *Model) sessionsView(w, h int) []string {
	if m.hosts != nil {
		return m.hostsView(w, h)
	}
	return m.sessions.view(w, h)
}
