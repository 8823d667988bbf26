package ui

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
)

// TestHostsWatchBounded: a host that is not active has the sessions its
// summaries say wait on the user watched, at most watchCap of them, the
// rest named "needs input" with how many are past the cap; a watched
// session's state says what waits (an approval, with its tool); a session
// that stops waiting is no longer watched.
func TestHostsWatchBounded(t *testing.T) {
	m, _, b := stubHosts(t, "ws://127.0.0.1:4002/")
	waiting := protocol.SessionStatusIdle | protocol.SessionStatusInputNeeded
	var list []protocol.SessionSummary
	for i := range watchCap + 5 {
		list = append(list, summary(fmt.Sprintf("ahp-session:/s%02d", i), fmt.Sprintf("S%02d", i), waiting))
	}
	list = append(list, summary("ahp-session:/calm", "Calm", protocol.SessionStatusIdle))
	b.sessions["ahp-session:/s00"] = protocol.SessionState{Status: waiting, InputNeeded: []protocol.SessionInputRequest{{
		Variant: protocol.SessionToolConfirmationRequest{ID: "r1", Chat: "ahp-chat:/s00", TurnID: "t1",
			ToolCall: protocol.ToolCallConfirmationState{Variant: protocol.ToolCallPendingConfirmationState{ToolCallID: "tc1", ToolName: "write_file"}}}}}}
	update(m, hostEventsMsg{host: 1, evs: []client.Event{client.SessionsListedEvent{Sessions: list}}})
	hc := m.hosts.list[1]
	if len(hc.watch) != watchCap || hc.watchOver != 5 {
		t.Fatalf("%d watched, %d over, want %d and 5", len(hc.watch), hc.watchOver, watchCap)
	}
	if _, ok := hc.watch["ahp-session:/calm"]; ok {
		t.Error("a session that waits on nothing is watched")
	}
	if chans := hc.watch["ahp-session:/s00"]; strings.Join(chans, " ") != "ahp-session:/s00 ahp-chat:/s00" {
		t.Errorf("s00's subscriptions %q, want the session and the chat its approval is in", chans)
	}
	var approval, over int
	for _, w := range m.waits.items {
		switch {
		case w.kind == waitApproval && w.session == "ahp-session:/s00" && w.detail == "write_file" && w.at.item == "tc1":
			approval++
		case w.kind == waitSession && strings.Contains(w.detail, "5 more than the 20 watched"):
			over++
		}
	}
	if approval != 1 || over != 5 {
		t.Fatalf("inbox %+v: want s00's approval and 5 rows saying the cap", m.waits.items)
	}
	st := protocol.SessionStatusIdle
	update(m, hostEventsMsg{host: 1, evs: []client.Event{client.SessionSummaryChangedEvent{Session: "ahp-session:/s00",
		Changes: protocol.PartialSessionSummary{Status: &st}}}})
	if _, ok := hc.watch["ahp-session:/s00"]; ok || len(hc.watch) != watchCap || hc.watchOver != 4 {
		t.Errorf("after s00 stopped waiting: watched %v, %d over", ok, hc.watchOver)
	}
}

// TestHostsInboxApprovalOnAnotherHost: with two demo hosts, an approval
// on the host that is not active shows in the inbox as an approval, with
// its host and session; enter there makes that host active and selects
// the card, and a approves it on that host.
func TestHostsInboxApprovalOnAnotherHost(t *testing.T) {
	d, _, b := twoDemoHosts(t)
	hs := d.m.hosts
	// Someone else's client of host 2 starts a turn that asks approval.
	other, err := client.Dial(t.Context(), client.Options{URL: b.URL(), ClientID: "someone-else", ClientInfo: protocol.Implementation{Name: "other"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = other.Close() })
	go func() {
		for range other.Events() {
		}
	}()
	for _, ch := range []string{demohost.DemoSessionURI, demohost.DemoChatURI} {
		if err := other.Subscribe(t.Context(), ch); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := other.Dispatch(demohost.DemoChatURI, protocol.StateAction{Variant: protocol.ChatTurnStartedAction{TurnID: "other-turn",
		StartedAt: protocol.Timestamp(time.Now()), Message: protocol.Message{Text: "please write the changelog", Origin: protocol.MessageOrigin{Kind: protocol.MessageKindUser}}}}); err != nil {
		t.Fatal(err)
	}
	var w waitItem
	d.until("host 2's approval in the inbox", func() bool {
		for _, it := range d.m.waits.items {
			if it.host == b.URL() && it.kind == waitApproval && it.session == demohost.DemoSessionURI {
				w = it
				return true
			}
		}
		return false
	})
	if w.detail == "" || w.at.item == "" || hs.active != 0 {
		t.Fatalf("the approval %+v (active host %d)", w, hs.active)
	}
	d.keys("I")
	screen := d.m.Render()
	for _, want := range []string{hostName(b.URL()), "approval", w.detail} {
		if !strings.Contains(screen, want) {
			t.Errorf("the inbox lacks %q:\n%s", want, screen)
		}
	}
	for d.m.waits.items[d.m.inbox.sel].id != w.id {
		d.keys("down")
	}
	d.keys("enter")
	if hs.active != 1 || d.m.client != hs.list[1].client {
		t.Fatalf("enter left host %d active", hs.active)
	}
	d.until("the card selected", func() bool { return d.m.hasChat && d.m.chatPanel.sel.item == w.at.item })
	d.keys("a")
	d.until("approved on host 2", func() bool {
		it, ok := d.itemWhere(func(it chatItem) bool { return it.ID == w.at.item })
		return ok && it.Tool.Status() != protocol.ToolCallStatusPendingConfirmation
	})
	d.until("the approval left the inbox", func() bool {
		for _, it := range d.m.waits.items {
			if it.id == w.id {
				return false
			}
		}
		return true
	})
}

// TestHostsModelPickPerHost: the model picked for a new session is kept
// by host and session. Two hosts' sessions may bear one URI (here both
// made with the same id); each host's turns carry its own pick.
func TestHostsModelPickPerHost(t *testing.T) {
	m, _, _ := stubHosts(t, "ws://127.0.0.1:4002/")
	uri := "ahp-session:/fixed-id"
	pick := func(id string) newChoice {
		return newChoice{provider: "copilot", model: &protocol.ModelSelection{ID: id}}
	}
	m.sessions.createSessionCmd(pick("model-one"), nil, nil)
	m.activate(1, "")
	m.sessions.createSessionCmd(pick("model-two"), nil, nil)
	m.openSession = uri
	if got := m.chatPanel.userMessage("hi").Model; got == nil || got.ID != "model-two" {
		t.Fatalf("host 2's turn carries %+v, want model-two", got)
	}
	m.activate(0, "")
	m.openSession = uri
	if got := m.chatPanel.userMessage("hi").Model; got == nil || got.ID != "model-one" {
		t.Fatalf("host 1's turn carries %+v, want model-one (host 2's pick for a session of the same name)", got)
	}
}

// TestHostsWatchRingsOnce: a session of a host that is not active starts
// waiting — its row rings once; its watched state then says what waits
// (the same wait seen closer), which rings nothing more; a second approval
// there is new, and rings.
func TestHostsWatchRingsOnce(t *testing.T) {
	m, _, b := stubHosts(t, "ws://127.0.0.1:4002/")
	const uri = "ahp-session:/w"
	update(m, hostEventsMsg{host: 1, evs: []client.Event{client.SessionsListedEvent{Sessions: []protocol.SessionSummary{
		summary(uri, "Waits", protocol.SessionStatusIdle)}}}})
	waiting := protocol.SessionStatusIdle | protocol.SessionStatusInputNeeded
	if got := update(m, hostEventsMsg{host: 1, evs: []client.Event{client.SessionSummaryChangedEvent{Session: uri,
		Changes: protocol.PartialSessionSummary{Status: &waiting}}}}); len(got) != 1 {
		t.Fatalf("the session starting to wait wrote %q, want one signal", got)
	}
	approval := func(id string) protocol.SessionInputRequest {
		return protocol.SessionInputRequest{Variant: protocol.SessionToolConfirmationRequest{ID: id, Chat: "ahp-chat:/w", TurnID: "t1",
			ToolCall: protocol.ToolCallConfirmationState{Variant: protocol.ToolCallPendingConfirmationState{ToolCallID: id, ToolName: "write_file"}}}}
	}
	b.sessions[uri] = protocol.SessionState{Status: waiting, InputNeeded: []protocol.SessionInputRequest{approval("tc1")}}
	if got := update(m, hostEventsMsg{host: 1, evs: []client.Event{client.ChannelStateEvent{Channel: uri}}}); len(got) != 0 {
		t.Errorf("the watched state of the same wait rang again: %q", got)
	}
	if len(m.waits.items) != 1 || m.waits.items[0].kind != waitApproval {
		t.Fatalf("inbox %+v, want the approval", m.waits.items)
	}
	b.sessions[uri] = protocol.SessionState{Status: waiting, InputNeeded: []protocol.SessionInputRequest{approval("tc1"), approval("tc2")}}
	if got := update(m, hostEventsMsg{host: 1, evs: []client.Event{client.ChannelStateEvent{Channel: uri}}}); len(got) != 1 {
		t.Errorf("a second approval wrote %q, want one signal", got)
	}
}

// TestHostsWatchRetriesRefusedSubscribe: a watch subscribe the host
// refuses is not counted as watched. The inbox says why the session is
// not watched, and the retry (after a backoff, as a quiet host sends no
// events to retry on) subscribes it once the host lets it.
func TestHostsWatchRetriesRefusedSubscribe(t *testing.T) {
	m, _, b := stubHosts(t, "ws://127.0.0.1:4002/")
	const s1 = "ahp-session:/s1"
	b.refuse = map[string]error{s1: errors.New("No agent for session: " + s1)}
	b.sessions[s1] = protocol.SessionState{Status: protocol.SessionStatusInputNeeded}
	waiting := protocol.SessionStatusIdle | protocol.SessionStatusInputNeeded
	// feed hands msg to m and every watch message its commands bring
	// back; it returns whether a retry was scheduled.
	feed := func(msg tea.Msg) (retry bool) {
		_, cmd := m.Update(msg)
		for _, out := range msgsOf(cmd) {
			if w, ok := out.(watchSubscribedMsg); ok {
				_, next := m.Update(w)
				retry = retry || next != nil
			}
		}
		return retry
	}
	if !feed(hostEventsMsg{host: 1, evs: []client.Event{client.SessionsListedEvent{Sessions: []protocol.SessionSummary{summary(s1, "S1", waiting)}}}}) {
		t.Fatal("a refused watch subscribe schedules no retry")
	}
	hc := m.hosts.list[1]
	if _, ok := hc.watch[s1]; ok {
		t.Fatal("a session the host refused to subscribe counts as watched")
	}
	var why string
	for _, w := range m.waits.items {
		if w.session == s1 {
			why = w.detail
		}
	}
	if !strings.Contains(why, "not watched: No agent for session") {
		t.Fatalf("the inbox row of the refused session says %q, want why it is not watched", why)
	}
	b.refuse = nil
	if feed(watchRetryMsg{host: 1, gen: hc.gen}) {
		t.Error("a subscribe that worked scheduled another retry")
	}
	if _, ok := hc.watch[s1]; !ok || hc.watchErrs[s1] != "" {
		t.Fatalf("after the retry: watched %v, error %q", ok, hc.watchErrs[s1])
	}
	if subs := strings.Join(b.subscriptions(), " "); strings.Count(subs, "+"+s1) != 2 {
		t.Errorf("subscriptions %q: want the session asked for twice", subs)
	}
	if feed(watchRetryMsg{host: 1, gen: hc.gen + 1}) || strings.Count(strings.Join(b.subscriptions(), " "), "+"+s1) != 2 {
		t.Error("a retry of an older connection subscribed again")
	}
}

// TestHostsWatchForgetsRefusalNotAskedFor: a session whose subscribe the
// host refused, and which is then past the watch cap, is not watched
// because of the cap; its inbox row says so, not the old refusal.
func TestHostsWatchForgetsRefusalNotAskedFor(t *testing.T) {
	m, _, b := stubHosts(t, "ws://127.0.0.1:4002/")
	const s0 = "ahp-session:/s0"
	b.refuse = map[string]error{s0: errors.New("No agent for session: " + s0)}
	waiting := protocol.SessionStatusIdle | protocol.SessionStatusInputNeeded
	feed := func(list []protocol.SessionSummary) {
		_, cmd := m.Update(hostEventsMsg{host: 1, evs: []client.Event{client.SessionsListedEvent{Sessions: list}}})
		for _, out := range msgsOf(cmd) {
			if w, ok := out.(watchSubscribedMsg); ok {
				m.Update(w)
			}
		}
	}
	detail := func() string {
		for _, w := range m.waits.items {
			if w.session == s0 {
				return w.detail
			}
		}
		return ""
	}
	feed([]protocol.SessionSummary{summary(s0, "S0", waiting)})
	if d := detail(); !strings.Contains(d, "not watched: No agent") {
		t.Fatalf("the refused session's row says %q, want the refusal", d)
	}
	var list []protocol.SessionSummary
	for i := range watchCap {
		list = append(list, summary(fmt.Sprintf("ahp-session:/w%d", i), "W", waiting))
	}
	feed(append(list, summary(s0, "S0", waiting)))
	if d := detail(); strings.Contains(d, "No agent") || !strings.Contains(d, fmt.Sprintf("more than the %d watched", watchCap)) {
		t.Fatalf("past the cap, the refused session's row says %q, want the cap", d)
	}
}
