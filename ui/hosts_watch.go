package ui

import (
	"fmt"
	"slices"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/host/waits"
	"github.com/ahptui/ahptui/protocol"
)

// What waits on a host that is not active, in the inbox's words: while a
// session's summary says input-needed or error, that session (and the
// chats its state names) is subscribed on its host, and the inbox reads
// its state as it reads the active host's: approvals, sign-ins, input
// requests, failed MCP servers, turns stopped on an error. Once the
// summary stops saying so, the subscriptions end. At most watchCap
// sessions a host are watched; past them a session reads "needs input",
// and its row says how many more wait.

// watchCap bounds the sessions watched on one host that is not active.
const watchCap = 20

// watchedSessions is a host's sessions watched, each with the channels
// subscribed for it (the session first, then chats).
type watchedSessions map[string][]string

// waitsThere reports whether a summary's status says something may wait
// on the user there.
func waitsThere(st protocol.SessionStatus) bool {
	return st.Has(protocol.SessionStatusInputNeeded) || st.Has(protocol.SessionStatusError)
}

// syncWatch brings host i's subscriptions in line with its summaries; the
// active host's sessions are the panels' (nil).
func (m *Model) syncWatch(i int) tea.Cmd {
	hc := m.hosts.list[i]
	if i == m.hosts.active || hc.client == nil {
		return nil
	}
	if hc.watch == nil {
		hc.watch = watchedSessions{}
	}
	want := map[string]bool{}
	hc.watchOver = 0
	for _, s := range hc.list {
		if !waitsThere(s.Status) {
			continue
		}
		if len(want) >= watchCap {
			hc.watchOver++
			continue
		}
		want[s.Resource] = true
	}
	for uri := range hc.watchErrs {
		if !want[uri] {
			delete(hc.watchErrs, uri) // not asked for now: its refusal says nothing
		}
	}
	var sub, unsub []string
	for uri, chans := range hc.watch {
		if !want[uri] {
			unsub = append(unsub, chans...)
			delete(hc.watch, uri)
		}
	}
	for _, s := range hc.list {
		uri := s.Resource
		if !want[uri] {
			continue
		}
		chans, ok := hc.watch[uri]
		if !ok {
			chans, sub = []string{uri}, append(sub, uri)
		}
		if st, ok := hc.client.Session(uri); ok {
			for _, ch := range watchChats(st) {
				if !slices.Contains(chans, ch) {
					chans, sub = append(chans, ch), append(sub, ch)
				}
			}
		}
		hc.watch[uri] = chans
	}
	if len(sub)+len(unsub) == 0 {
		return nil
	}
	c, ctx, gen := hc.client, m.ctx, hc.gen
	return func() tea.Msg {
		for _, ch := range unsub {
			_ = c.Unsubscribe(ctx, ch)
		}
		done := watchSubscribedMsg{host: i, gen: gen, failed: map[string]string{}}
		for _, ch := range sub {
			if err := c.Subscribe(ctx, ch); err != nil {
				done.failed[ch] = err.Error()
			}
		}
		return done
	}
}

type (
	// watchSubscribedMsg ends a watch's subscribe round: the channels
	// the host refused, each with its reason.
	watchSubscribedMsg struct {
		host, gen int
		failed    map[string]string
	}
	watchRetryMsg struct{ host, gen int }
)

// watchRetryFirst and watchRetryMax bound the backoff of a failed watch
// subscribe: 2 s, doubling, at most a minute.
const (
	watchRetryFirst = 2 * time.Second
	watchRetryMax   = time.Minute
)

// dropWatch forgets the host's watch: it becomes active, or its
// connection changes (a retry of the old one drops by its gen).
func (hc *hostConn) dropWatch() {
	hc.watch, hc.watchOver, hc.watchErrs, hc.watchFails, hc.watchRetry = nil, 0, nil, 0, false
}

// onWatchSubscribed forgets the channels a host refused, so they are
// asked for again: at the host's next events, or by one retry after a
// backoff (a quiet host sends none). Until then the inbox says why the
// session is not watched.
func (m *Model) onWatchSubscribed(msg watchSubscribedMsg) tea.Cmd {
	hc := m.hostAt(msg.host, msg.gen)
	if hc == nil {
		return nil
	}
	for uri := range hc.watchErrs {
		_, watched := hc.watch[uri]
		if _, refused := msg.failed[uri]; watched && !refused {
			delete(hc.watchErrs, uri) // subscribed since
		}
	}
	if len(msg.failed) == 0 {
		hc.watchFails = 0
		return nil
	}
	for uri, chans := range hc.watch {
		if why, refused := msg.failed[uri]; refused {
			delete(hc.watch, uri) // the session itself: watch it afresh
			if hc.watchErrs == nil {
				hc.watchErrs = map[string]string{}
			}
			hc.watchErrs[uri] = why
			continue
		}
		hc.watch[uri] = slices.DeleteFunc(chans, func(ch string) bool { _, refused := msg.failed[ch]; return refused })
	}
	hc.watchFails++
	if hc.watchRetry {
		return nil
	}
	hc.watchRetry = true
	delay := min(watchRetryMax, watchRetryFirst<<min(hc.watchFails-1, 5))
	host, gen := msg.host, msg.gen
	return tea.Tick(delay, func(time.Time) tea.Msg { return watchRetryMsg{host: host, gen: gen} })
}

func (m *Model) onWatchRetry(msg watchRetryMsg) tea.Cmd {
	hc := m.hostAt(msg.host, msg.gen)
	if hc == nil {
		return nil
	}
	hc.watchRetry = false
	return m.syncWatch(msg.host)
}

// watchChats is the chats of a watched session that say what waits: each
// its inputNeeded names, and with an error status its default (else its
// latest) chat, whose last turn may have stopped on it.
func watchChats(st protocol.SessionState) []string {
	var out []string
	add := func(ch string) {
		if ch != "" && !slices.Contains(out, ch) {
			out = append(out, ch)
		}
	}
	for _, r := range st.InputNeeded {
		switch v := r.Variant.(type) {
		case protocol.SessionChatInputRequest:
			add(v.Chat)
		case protocol.SessionToolConfirmationRequest:
			add(v.Chat)
		case protocol.SessionToolAuthenticationRequest:
			add(v.Chat)
		}
	}
	if st.Status.Has(protocol.SessionStatusError) {
		add(errorChat(st))
	}
	return out
}

func errorChat(st protocol.SessionState) string {
	if st.DefaultChat != nil {
		return *st.DefaultChat
	}
	if n := len(st.Chats); n > 0 {
		return st.Chats[n-1].Resource
	}
	return ""
}

// handOver ends host i's watch as it becomes active: its subscriptions
// end, but keep's (the session about to open there, which the panels now
// hold and unsubscribe when they leave it).
func (m *Model) handOver(i int, keep string) tea.Cmd {
	hc := m.hosts.list[i]
	var unsub []string
	for uri, chans := range hc.watch {
		if uri != keep {
			unsub = append(unsub, chans...)
		}
	}
	hc.dropWatch()
	if len(unsub) == 0 || hc.client == nil {
		return nil
	}
	c, ctx := hc.client, m.ctx
	return func() tea.Msg {
		for _, ch := range unsub {
			_ = c.Unsubscribe(ctx, ch)
		}
		return nil
	}
}

// hostWaits is what waits in session s of host hc (not active), by
// host/waits: from its watched state (and its chat, when watched), else
// — not watched yet, or past the cap — "needs input" with why.
func hostWaits(hc *hostConn, s protocol.SessionSummary, out []waitItem) []waitItem {
	ws := waits.Session{Summary: s}
	_, watched := hc.watch[s.Resource]
	if watched && hc.client != nil {
		if st, ok := hc.client.Session(s.Resource); ok {
			ws.State = &st
			if ch := errorChat(st); ch != "" {
				if c, ok := hc.client.Chat(ch); ok {
					ws.Chats = []protocol.ChatState{c}
				}
			}
		}
	}
	switch {
	case ws.State != nil:
	case !watched && hc.watchErrs[s.Resource] != "":
		ws.Detail = "not watched: " + hc.watchErrs[s.Resource]
	case !watched && hc.watchOver > 0:
		ws.Detail = fmt.Sprintf("%d more than the %d watched on this host", hc.watchOver, watchCap)
	}
	for _, it := range waits.Derive(waits.Host{Name: hc.cfg.Host, Sessions: []waits.Session{ws}}) {
		out = append(out, waitOf(it))
	}
	return out
}
