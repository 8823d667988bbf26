package ui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/authpkce"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
	"github.com/ahptui/ahptui/views"
)

// Several hosts in one UI (issue 25). Each host has its own connection
// (its own *client.Client: reconnect supervisor, negotiated version),
// connection state and session list. One of them is active: the app's
// client, root, open session, chat, MCP panel and sign-in manager are that
// host's, exactly as with one host. The others are watched for their
// session lists and what waits on the user there (the inbox), and become
// active when one of their sessions is opened.
//
// Nothing here waits on a host inside Update: connects and event waits
// are commands, one per host, and their messages carry the host's index
// and generation, so a slow, hung or refusing host never delays another,
// and a late message of a host disconnected (or dialled again) drops.

// HostConfig is one host of several (Config.Hosts).
type HostConfig struct {
	// Host is the host's URL without its token (as Config.Host): its
	// header row, the inbox and notifications name it so, and the host's
	// sign-ins are bound to it.
	Host string
	// RegistryHost: found in VS Code's local registry (Config.RegistryHost).
	RegistryHost bool
	// Connect dials the host (Config.Connect).
	Connect func(ctx context.Context) (Client, error)
}

// hostConn is one host's connection and what the list shows of it.
type hostConn struct {
	cfg HostConfig
	// gen counts dials and disconnects: a message of an older one drops.
	gen    int
	client Client
	conn   connInfo
	tries  int  // failed connects since the last success
	down   bool // disconnected by the user: no retry until connect
	// list is the host's sessions, newest first, from its own events
	// (the active host's panel draws sessionList's, which adds the session
	// open but not yet listed).
	list       []protocol.SessionSummary
	listedOnce bool
	// baseline: the host's first listing came in this update; what waits
	// in it waited before we saw it, and rings nothing.
	baseline bool
	// signin is the host's sign-in manager while another host is active.
	signin *signIn
	// watch: the sessions subscribed while another host is active, for
	// what waits in them (hosts_watch.go); watchOver counts those past
	// the cap.
	watch     watchedSessions
	watchOver int
	// watchErrs is why the host refused to subscribe a session, by
	// session, until it is watched; watchFails counts failed rounds in
	// a row, for the retry's backoff, and watchRetry is set while a
	// retry is on its way.
	watchErrs  map[string]string
	watchFails int
	watchRetry bool
}

// hostSet is every host, in the order given, and the list's cursor.
type hostSet struct {
	list   []*hostConn
	active int
	cur    hostCursor
	// ticking: a connTick is on its way (one chain at a time).
	ticking bool
}

// hostCursor is the grouped list's cursor: a host's header, or one of
// its sessions (by resource; the active host's is sessionList.sel).
type hostCursor struct {
	host   int
	header bool
	uri    string
}

type (
	hostConnectedMsg struct {
		host, gen int
		client    Client
		err       error
	}
	hostRetryMsg  struct{ host, gen, try int }
	hostEventsMsg struct {
		host, gen int
		evs       []client.Event
		closed    bool
	}
)

// newHostSet builds the hosts of cfg.Hosts; nil for one host, which keeps
// the single-host app as it was.
func newHostSet(cfg *Config) *hostSet {
	if len(cfg.Hosts) < 2 {
		return nil
	}
	hs := &hostSet{cur: hostCursor{header: true}, ticking: true} // Init sends the first tick
	for _, h := range cfg.Hosts {
		hs.list = append(hs.list, &hostConn{cfg: h, conn: connInfo{state: views.ConnConnecting, attempt: 1}})
	}
	cfg.Host, cfg.RegistryHost, cfg.Connect = cfg.Hosts[0].Host, cfg.Hosts[0].RegistryHost, cfg.Hosts[0].Connect
	return hs
}

// connectHosts dials every host at once, each in its own command.
func (m *Model) connectHosts() tea.Cmd {
	cmds := make([]tea.Cmd, len(m.hosts.list))
	for i := range m.hosts.list {
		cmds[i] = m.hostConnectCmd(i)
	}
	return tea.Batch(cmds...)
}

func (m *Model) hostConnectCmd(i int) tea.Cmd {
	hc := m.hosts.list[i]
	hc.conn = connInfo{state: views.ConnConnecting, attempt: hc.tries + 1, since: m.clock()}
	if i == m.hosts.active {
		m.status.connecting(hc.tries+1, m.clock())
	}
	connect, ctx, gen := hc.cfg.Connect, m.ctx, hc.gen
	return func() tea.Msg {
		if connect == nil {
			return hostConnectedMsg{host: i, gen: gen, err: errNoHost}
		}
		c, err := connect(ctx)
		return hostConnectedMsg{host: i, gen: gen, client: c, err: err}
	}
}

// closeClient closes c off the update loop (a close may wait on the wire).
func closeClient(c Client) tea.Cmd {
	return func() tea.Msg {
		_ = c.Close()
		return nil
	}
}

func (m *Model) onHostConnected(msg hostConnectedMsg) tea.Cmd {
	hs := m.hosts
	if msg.host < 0 || msg.host >= len(hs.list) {
		return nil
	}
	hc := hs.list[msg.host]
	if msg.gen != hc.gen || m.closed || hc.down {
		// Dialled again or disconnected meanwhile: this connection is
		// nobody's.
		if msg.client != nil {
			return closeClient(msg.client)
		}
		return nil
	}
	now := m.clock()
	if msg.err != nil {
		short, full := connFailure(msg.err)
		hc.conn = connInfo{state: views.ConnFailed, failedReason: short}
		if msg.host == hs.active {
			m.status.connectFailed(msg.err, now)
		} else {
			m.status.remember(hostName(hc.cfg.Host)+": "+full, now)
		}
		if !retriesOnItsOwn(msg.err) {
			return nil
		}
		hc.tries++
		delay := min(time.Second<<min(hc.tries-1, 5), connRetryMax)
		hc.conn.nextTry = now.Add(delay)
		if msg.host == hs.active {
			m.status.conn.nextTry = hc.conn.nextTry
		}
		try, host, gen := hc.tries, msg.host, hc.gen
		return tea.Batch(m.hostTick(), tea.Tick(delay, func(time.Time) tea.Msg { return hostRetryMsg{host: host, gen: gen, try: try} }))
	}
	hc.tries, hc.client = 0, msg.client
	hc.dropWatch()
	hc.conn = connInfo{state: views.ConnReady, version: msg.client.ProtocolVersion()}
	wait := m.waitHost(msg.host)
	if msg.host == hs.active {
		return tea.Batch(m.onConnected(connectedMsg{client: msg.client}), wait)
	}
	if hc.signin != nil {
		hc.signin.newConnection()
	}
	return wait
}

// hostAt is host i for a message of its connection gen: nil when there
// is no such host or the message is of an older connection.
func (m *Model) hostAt(i, gen int) *hostConn {
	if i < 0 || i >= len(m.hosts.list) || m.hosts.list[i].gen != gen {
		return nil
	}
	return m.hosts.list[i]
}

func (m *Model) onHostRetry(msg hostRetryMsg) tea.Cmd {
	hc := m.hostAt(msg.host, msg.gen)
	if hc == nil || hc.client != nil || hc.down || m.closed || msg.try != hc.tries {
		return nil
	}
	return tea.Batch(m.hostConnectCmd(msg.host), m.hostTick())
}

// hostTick starts the once-a-second redraw of the headers' counters
// (a connect's seconds, the time to the next try), unless one runs.
func (m *Model) hostTick() tea.Cmd {
	if m.hosts.ticking {
		return nil
	}
	m.hosts.ticking = true
	return connTick()
}

// counting reports whether a header shows a counter that moves.
func (hs *hostSet) counting(now time.Time) bool {
	for _, hc := range hs.list {
		if hc.client == nil && !hc.down && (hc.conn.state == views.ConnConnecting || hc.conn.nextTry.After(now)) {
			return true
		}
	}
	return false
}

// waitHost waits for host i's next events, tagged with its generation.
func (m *Model) waitHost(i int) tea.Cmd {
	hc := m.hosts.list[i]
	if hc.client == nil {
		return nil
	}
	ch, gen := hc.client.Events(), hc.gen
	return func() tea.Msg {
		evs, ok := client.ReceiveEvents(ch, maxEventBatch)
		return hostEventsMsg{host: i, gen: gen, evs: evs, closed: !ok}
	}
}

func (m *Model) onHostEvents(msg hostEventsMsg) tea.Cmd {
	hc := m.hostAt(msg.host, msg.gen)
	if hc == nil {
		return nil
	}
	active := msg.host == m.hosts.active
	if msg.closed {
		hc.client = nil
		hc.dropWatch()
		hc.conn = connInfo{state: views.ConnFailed, failedReason: "the connection closed"}
		if active && !m.closed {
			m.client = nil
			m.status.conn = connInfo{state: views.ConnFailed, failedReason: "the connection closed", failedHint: "press r on the host to retry"}
		}
		return nil
	}
	hc.apply(msg.evs)
	var cmd tea.Cmd
	if active {
		cmd = m.onEvents(msg.evs)
	} else {
		cmd = m.syncWatch(msg.host)
	}
	return tea.Batch(cmd, m.waitHost(msg.host))
}

// apply brings the host's connection state and session list up to date.
func (hc *hostConn) apply(evs []client.Event) {
	dirty := false
	for _, ev := range evs {
		switch e := ev.(type) {
		case client.ConnectionEvent:
			hc.applyConn(e)
		case client.SessionsListedEvent:
			hc.baseline = hc.baseline || !hc.listedOnce
			hc.list, hc.listedOnce, dirty = slices.Clone(e.Sessions), true, true
		case client.SessionAddedEvent:
			hc.list = append(hc.without(e.Summary.Resource), e.Summary)
			dirty = true
		case client.SessionRemovedEvent:
			hc.list = hc.without(e.Session)
		case client.SessionSummaryChangedEvent:
			for i := range hc.list {
				if hc.list[i].Resource == e.Session {
					hc.list[i] = applySummaryChanges(hc.list[i], e.Changes)
					dirty = dirty || e.Changes.ModifiedAt != nil
				}
			}
		}
	}
	if dirty {
		sort.SliceStable(hc.list, func(i, j int) bool { return hc.list[i].ModifiedAt > hc.list[j].ModifiedAt })
	}
}

func (hc *hostConn) applyConn(e client.ConnectionEvent) {
	switch e.Status {
	case client.StatusConnecting:
		hc.conn.state = views.ConnConnecting
	case client.StatusReady:
		v := e.ProtocolVersion
		if v == "" && hc.client != nil {
			v = hc.client.ProtocolVersion()
		}
		hc.conn = connInfo{state: views.ConnReady, version: v}
	case client.StatusReconnecting:
		hc.conn.state, hc.conn.attempt, hc.conn.cause = views.ConnReconnecting, e.Attempt, ""
		if e.Cause != nil {
			hc.conn.cause = firstClause(e.Cause.Error())
			var se shortError
			if errors.As(e.Cause, &se) {
				hc.conn.cause = se.Short()
			}
		}
	case client.StatusFailed:
		hc.conn.state = views.ConnFailed
		if e.Cause != nil {
			hc.conn.failedReason, _ = connFailure(e.Cause)
		}
	}
}

func (hc *hostConn) without(uri string) []protocol.SessionSummary {
	return slices.DeleteFunc(hc.list, func(s protocol.SessionSummary) bool { return s.Resource == uri })
}

// hostName is a host's URL as the list, the inbox and notifications show
// it: no user info, query or fragment (a ?tkn= never shows), one line.
func hostName(host string) string {
	h := authpkce.RedactAddress(host)
	if i := strings.IndexAny(h, "?#"); i >= 0 {
		h = h[:i]
	}
	return views.SanitizeLine(h)
}

// stateWords is a host's connection in the header's words.
func (hc *hostConn) stateWords(now time.Time) (words string, bad bool) {
	c := hc.conn
	switch {
	case hc.down:
		return "disconnected (c connects)", true
	case c.state == views.ConnReady:
		if c.version != "" {
			return "connected · AHP " + c.version, false
		}
		return "connected", false
	case c.state == views.ConnConnecting:
		s := fmt.Sprintf("connecting · attempt %d", max(1, c.attempt))
		if !c.since.IsZero() {
			s += fmt.Sprintf(" · %ds", int(now.Sub(c.since).Seconds()))
		}
		return s, false
	case c.state == views.ConnReconnecting:
		s := fmt.Sprintf("reconnecting · attempt %d", max(1, c.attempt))
		if c.cause != "" {
			s += ": " + c.cause
		}
		return s, false
	}
	s := "failed"
	if c.failedReason != "" {
		s += ": " + c.failedReason
	}
	if !c.nextTry.IsZero() && c.nextTry.After(now) {
		s += fmt.Sprintf(" · retry in %ds", int(c.nextTry.Sub(now).Seconds()+0.999))
	}
	return s, true
}
