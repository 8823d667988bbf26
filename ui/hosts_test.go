package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/authpkce"
	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/internal/badhost"
	"github.com/ahptui/ahptui/internal/demotest"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
	"github.com/ahptui/ahptui/views"
)

// twoDemoHosts is a driver on two demo hosts, both connected and their
// sessions listed.
func twoDemoHosts(t *testing.T) (d *driver, a, b *demohost.Host) {
	t.Helper()
	a, b = demotest.Start(t, demohost.Config{}), demotest.Start(t, demohost.Config{})
	d = newHostsDriver(t, []HostConfig{
		{Host: a.URL(), Connect: dialer(a.URL(), 5*time.Second)},
		{Host: b.URL(), Connect: dialer(b.URL(), 5*time.Second)},
	})
	hs := d.m.hosts
	d.until("both listed", func() bool { return hs.list[0].listedOnce && hs.list[1].listedOnce })
	return d, a, b
}

// dialer is a HostConfig's Connect for url with the real client, each
// attempt given up after attempt.
func dialer(url string, attempt time.Duration) func(context.Context) (Client, error) {
	return func(ctx context.Context) (Client, error) {
		ctx, cancel := context.WithTimeout(ctx, attempt)
		defer cancel()
		c, err := client.Dial(ctx, client.Options{URL: url, ClientID: "ui-hosts-test", ClientInfo: protocol.Implementation{Name: "ahptui-test"}})
		if err != nil {
			return nil, err
		}
		return c, nil
	}
}

// newHostsDriver runs a model over several hosts.
func newHostsDriver(t *testing.T, hosts []HostConfig) *driver {
	t.Helper()
	d := &driver{t: t, msgs: make(chan tea.Msg, 64), done: make(chan struct{})}
	n := 0
	d.m = New(Config{Hosts: hosts, Tick: -1, NoColor: true,
		Clock: func() time.Time { return time.Now().Add(time.Duration(d.skew.Load())) },
		NewID: func() string { n++; return "id-" + string(rune('a'+n%26)) + time.Now().Format("150405.000000") }})
	t.Cleanup(d.stop)
	d.send(tea.WindowSizeMsg{Width: 160, Height: 50})
	d.run(d.m.Init())
	return d
}

// TestHostsNeverWaitOnEachOther: two demo hosts, one that never answers
// and one that refuses our versions, in one model. The demo hosts are
// connected and listed while the hung one is still connecting (no host
// waits for another); the refusing one is a failed row naming the
// reason, not retried on its own; a token in a host's name never shows;
// each host has its own client and negotiated version.
func TestHostsNeverWaitOnEachOther(t *testing.T) {
	a, b := demotest.Start(t, demohost.Config{}), demotest.Start(t, demohost.Config{})
	hung, refusing := badhost.Silent(t), badhost.RefusingVersion(t)
	const secret = "SECRETtkn42"
	d := newHostsDriver(t, []HostConfig{
		{Host: a.URL(), Connect: dialer(a.URL(), 5*time.Second)},
		{Host: hung, Connect: dialer(hung, 5*time.Second)},
		{Host: refusing + "?tkn=" + secret, Connect: dialer(refusing, 5*time.Second)},
		{Host: b.URL(), Connect: dialer(b.URL(), 5*time.Second)},
	})
	hs := d.m.hosts
	start := time.Now()
	d.until("both demo hosts listed and the refusal in", func() bool {
		return hs.list[0].listedOnce && hs.list[3].listedOnce && hs.list[2].conn.state == views.ConnFailed
	})
	if took := time.Since(start); took > 4*time.Second {
		t.Errorf("the demo hosts took %v: they waited on the hung host", took)
	}
	if st := hs.list[1].conn.state; st != views.ConnConnecting {
		t.Errorf("the hung host is %v, want still connecting", st)
	}
	if hs.list[0].client == hs.list[3].client || hs.list[0].client == nil {
		t.Error("the demo hosts do not have a client each")
	}
	if v := hs.list[3].conn.version; v != demohost.Version10 {
		t.Errorf("host 4 negotiated %q", v)
	}
	if d.m.client != hs.list[0].client || d.m.cfg.Host != a.URL() {
		t.Error("the first host is not the active one")
	}
	if !hs.list[2].conn.nextTry.IsZero() {
		t.Error("a host that refused our versions is retried on its own")
	}
	screen := d.m.Render()
	for _, want := range []string{hostName(a.URL()), hostName(b.URL()), hostName(hung), "connecting · attempt 1",
		"failed: version refused", "connected · AHP 1.0.0", "4 hosts"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the screen lacks %q:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, secret) || strings.Contains(screen, "tkn") {
		t.Errorf("a connection token is on screen:\n%s", screen)
	}
	// The hung host's attempt gives up, named with its reason, and is
	// tried again on its own.
	d.until("the hung host timed out", func() bool { return hs.list[1].conn.state == views.ConnFailed })
	if w, _ := hs.list[1].stateWords(time.Now()); !strings.Contains(w, "timed out") || hs.list[1].conn.nextTry.IsZero() {
		t.Errorf("the hung host reads %q (next try %v)", w, hs.list[1].conn.nextTry)
	}
}

// moveTo presses down (or up) until the list's cursor is on host i's
// header (idx -1) or its session idx.
func (d *driver) moveTo(i, idx int) {
	d.t.Helper()
	for n := 0; ; n++ {
		if c := d.m.hosts.cur; c.host == i && (idx < 0) == c.header && (idx < 0 || d.m.curIndex() == idx) {
			return
		}
		if n > 200 {
			d.t.Fatalf("never reached host %d row %d (at %+v, index %d)\n%s", i, idx, d.m.hosts.cur, d.m.curIndex(), d.m.Render())
		}
		if c := d.m.hosts.cur; c.host > i || c.host == i && d.m.curIndex() > idx {
			d.keys("up")
		} else {
			d.keys("down")
		}
	}
}

// TestHostsOpenSwitchesActiveHost: opening a session of another host
// makes that host the active one: its client serves the chat, and
// Config.Host (what sign-ins are bound to) is its URL. The session list
// keeps every host's sessions under its header.
func TestHostsOpenSwitchesActiveHost(t *testing.T) {
	d, _, b := twoDemoHosts(t)
	hs := d.m.hosts
	d.until("host 1's sessions", func() bool { return len(d.m.sessions.list) > 0 })
	d.moveTo(1, 0)
	d.keys("enter")
	if hs.active != 1 || d.m.cfg.Host != b.URL() || d.m.client != hs.list[1].client {
		t.Fatalf("enter on host 2's session left host %d active (%s)", hs.active, d.m.cfg.Host)
	}
	d.until("host 2's chat", func() bool { return d.m.hasChat && d.m.hasSess })
	if d.m.signin.cfg.Host != b.URL() {
		t.Errorf("the sign-in manager is bound to %q", d.m.signin.cfg.Host)
	}
	// Host 1's sessions are still listed under its header.
	if len(d.m.sessionsOf(0)) == 0 {
		t.Error("host 1's sessions left the list")
	}
	// Back on host 1: its own client again, host 2's sign-in manager kept.
	s2 := d.m.signin
	d.m.focus = focusSessions
	d.moveTo(0, 0)
	d.keys("enter")
	if hs.active != 0 || d.m.client != hs.list[0].client || hs.list[1].signin != s2 {
		t.Fatalf("back on host 1: active %d, host 2's sign-ins kept: %v", hs.active, hs.list[1].signin == s2)
	}
	d.until("host 1's chat", func() bool { return d.m.hasChat && d.m.hasSess })
}

// TestHostsDisconnectAndConnect: x disconnects the host under the
// cursor (its sessions go, no retry), c connects it again.
func TestHostsDisconnectAndConnect(t *testing.T) {
	d, _, _ := twoDemoHosts(t)
	hs := d.m.hosts
	d.m.focus = focusSessions
	d.moveTo(1, -1)
	d.keys("x")
	if !hs.list[1].down || hs.list[1].client != nil || len(hs.list[1].list) != 0 {
		t.Fatal("x did not disconnect host 2")
	}
	if !strings.Contains(d.m.Render(), "disconnected") {
		t.Errorf("host 2's row does not say disconnected:\n%s", d.m.Render())
	}
	if hs.list[0].client == nil {
		t.Error("disconnecting host 2 dropped host 1")
	}
	d.keys("c")
	d.until("host 2 again", func() bool { return hs.list[1].client != nil && hs.list[1].listedOnce })
	// r on a connected host asks its own client to reconnect.
	d.keys("r")
	d.until("host 2 ready after r", func() bool {
		return hs.list[1].conn.state == views.ConnReady && strings.Contains(d.m.status.text, "reconnecting to")
	})
}

// stubHosts is a model over two stub hosts (no network), both connected,
// signals on in a plain terminal; host 1 is active with no sessions.
func stubHosts(t *testing.T, second string) (*Model, *stubClient, *stubClient) {
	t.Helper()
	a := &stubClient{sessions: map[string]protocol.SessionState{}, chats: map[string]protocol.ChatState{}, events: make(chan client.Event), version: "1.0.0"}
	b := &stubClient{sessions: map[string]protocol.SessionState{}, chats: map[string]protocol.ChatState{}, events: make(chan client.Event), version: "1.0.0"}
	never := func(ctx context.Context) (Client, error) { <-ctx.Done(); return nil, ctx.Err() }
	m := New(Config{Hosts: []HostConfig{{Host: "ws://127.0.0.1:4001/", Connect: never}, {Host: second, Connect: never}},
		Clock: func() time.Time { return fixedNow }, NewID: func() string { return "fixed-id" }, NoColor: true, Tick: -1,
		Notify: true, NotifyTerm: views.NotifyTerm{Term: "xterm-256color"}})
	t.Cleanup(m.Shutdown)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.Update(hostConnectedMsg{host: 0, client: a})
	m.Update(hostConnectedMsg{host: 1, client: b})
	if got := update(m, hostEventsMsg{host: 0, evs: []client.Event{client.SessionsListedEvent{}}}); len(got) != 0 {
		t.Fatalf("host 1's empty listing wrote %q", got)
	}
	return m, a, b
}

func summary(uri, title string, st protocol.SessionStatus) protocol.SessionSummary {
	return protocol.SessionSummary{Resource: uri, Title: title, Status: st, CreatedAt: "2026-01-01T00:00:00Z", ModifiedAt: "2026-01-01T00:00:00Z"}
}

// TestHostsInboxAndSignalAcrossHosts: what waits on a host that is not
// active is in the inbox with its host; what waited when a host first
// listed rings nothing, a new wait there rings (naming the host without
// its token); enter on it makes its host active and opens the session.
func TestHostsInboxAndSignalAcrossHosts(t *testing.T) {
	const secret = "SECRETtkn77"
	m, _, b := stubHosts(t, "ws://127.0.0.1:4002/?tkn="+secret)
	waiting := protocol.SessionStatusIdle | protocol.SessionStatusInputNeeded
	listing := client.SessionsListedEvent{Sessions: []protocol.SessionSummary{
		summary("ahp-session:/old", "Old wait", waiting), summary("ahp-session:/new", "Build it", protocol.SessionStatusIdle)}}
	if got := update(m, hostEventsMsg{host: 1, evs: []client.Event{listing}}); len(got) != 0 {
		t.Errorf("host 2's first listing rang for what waited before: %q", got)
	}
	if n := len(m.waits.items); n != 1 || m.waits.items[0].host != "ws://127.0.0.1:4002/?tkn="+secret {
		t.Fatalf("the inbox has %d items (%+v), want host 2's old wait", n, m.waits.items)
	}
	st := waiting
	got := update(m, hostEventsMsg{host: 1, evs: []client.Event{client.SessionSummaryChangedEvent{Session: "ahp-session:/new",
		Changes: protocol.PartialSessionSummary{Status: &st}}}})
	if len(got) != 1 || !strings.Contains(got[0], "127.0.0.1:4002") || !strings.Contains(got[0], "Build it") {
		t.Fatalf("host 2's new wait wrote %q, want one signal naming host 2 and the session", got)
	}
	if strings.Contains(got[0], secret) || strings.Contains(got[0], "tkn") {
		t.Errorf("the signal carries the token: %q", got[0])
	}
	m.Update(press("I"))
	screen := m.Render()
	for _, want := range []string{"Old wait", "Build it", "127.0.0.1:4002"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the inbox lacks %q:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, secret) {
		t.Errorf("the token is on screen:\n%s", screen)
	}
	for m.waits.items[m.inbox.sel].session != "ahp-session:/new" {
		m.Update(press("down"))
	}
	m.Update(press("enter"))
	if m.hosts.active != 1 || m.client != Client(b) || m.openSession != "ahp-session:/new" {
		t.Fatalf("enter left host %d active, session %q open", m.hosts.active, m.openSession)
	}
}

// TestHostsBangReachesOtherHosts: ! with nothing waiting on the active
// host goes to what waits on another.
func TestHostsBangReachesOtherHosts(t *testing.T) {
	m, _, b := stubHosts(t, "ws://127.0.0.1:4002/")
	update(m, hostEventsMsg{host: 1, evs: []client.Event{client.SessionsListedEvent{Sessions: []protocol.SessionSummary{
		summary("ahp-session:/w", "Waits", protocol.SessionStatusIdle|protocol.SessionStatusInputNeeded)}}}})
	m.focus = focusChat
	m.Update(press("!"))
	if m.hosts.active != 1 || m.client != Client(b) || m.openSession != "ahp-session:/w" {
		t.Fatalf("! left host %d active, session %q open", m.hosts.active, m.openSession)
	}
}

// authSpy is a stub host that counts the tokens pushed to it.
type authSpy struct {
	*stubClient
	auths int
}

func (a *authSpy) Authenticate(context.Context, string, string, []string, time.Time) error {
	a.auths++
	return nil
}

// TestHostsGrantStaysWithItsHost: a sign-in running for host 1 when host
// 2 becomes active never pushes its token to host 2 (nor to host 1, whose
// flow was cancelled); back on host 1 the flow reads cancelled, not
// waiting on a browser for ever; sign-ins are bound to the active host.
func TestHostsGrantStaysWithItsHost(t *testing.T) {
	m, a, b := stubHosts(t, "ws://127.0.0.1:4002/")
	spyA, spyB := &authSpy{stubClient: a}, &authSpy{stubClient: b}
	m.hosts.list[0].client, m.client, m.hosts.list[1].client = spyA, spyA, spyB
	const res = "https://mcp.example/deploy"
	m.signin.grants[res] = &grantFlow{resource: res, phase: grantWaiting}
	m.activate(1, "")
	if m.signin.cfg.Host != "ws://127.0.0.1:4002/" || m.client != Client(spyB) {
		t.Fatalf("after activating host 2 the sign-ins are bound to %q", m.signin.cfg.Host)
	}
	_, cmd := m.Update(grantDoneMsg{resource: res, result: authpkce.Result{CachedToken: authpkce.CachedToken{AccessToken: "tok", Resource: res}}})
	msgsOf(cmd)
	if spyA.auths != 0 || spyB.auths != 0 {
		t.Fatalf("host 1's sign-in pushed a token: host 1 %d, host 2 %d", spyA.auths, spyB.auths)
	}
	m.activate(0, "")
	if g := m.signin.grants[res]; g == nil || g.phase != grantCancelled {
		t.Fatalf("back on host 1 the flow is %+v, want cancelled", g)
	}
	if m.signin.cfg.Host != "ws://127.0.0.1:4001/" {
		t.Errorf("back on host 1 the sign-ins are bound to %q", m.signin.cfg.Host)
	}
}

// TestHostsOneTickChain: the headers' counters redraw once a second
// while a host dials or waits for its next try, one tick chain at a time,
// none once nothing counts, and a new failure starts it again.
func TestHostsOneTickChain(t *testing.T) {
	m, _, _ := stubHosts(t, "ws://127.0.0.1:4002/")
	hc := m.hosts.list[1]
	hc.client = nil
	fail := func() {
		m.Update(hostConnectedMsg{host: 1, gen: hc.gen, err: fmt.Errorf("connection refused")})
	}
	fail()
	if _, cmd := m.Update(connTickMsg{}); cmd == nil || !m.hosts.ticking {
		t.Fatal("the chain stopped while host 2 waits for its next try")
	}
	hc.conn = connInfo{state: views.ConnFailed}
	if _, cmd := m.Update(connTickMsg{}); cmd != nil || m.hosts.ticking {
		t.Fatal("the chain goes on with nothing to count")
	}
	fail()
	if !m.hosts.ticking {
		t.Fatal("a new failure with a next try started no chain")
	}
	if m.hostTick() != nil {
		t.Error("a second chain started beside the running one")
	}
}
