package ui

import (
	"cmp"
	"slices"
	"time"

	"github.com/ahptui/ahptui/host/waits"
)

// waitKind is what waits on the user, in the inbox's words: host/waits'
// kinds, which the commands share.
type waitKind = waits.Kind

const (
	waitApproval  = waits.Approval   // a tool call or its result to confirm
	waitInput     = waits.Input      // an input request to answer
	waitSignIn    = waits.SignIn     // a tool call, MCP server or the agent waiting for sign-in
	waitMCPFailed = waits.MCPFailed  // an MCP server in its error state
	waitTurnError = waits.TurnError  // the open chat's latest turn stopped on an error
	waitSession   = waits.NeedsInput // another session whose status says input-needed
)

// waitItem is one thing that waits on the user, from one host, with when
// this client first saw it. host labels where it came from, so items of
// several hosts can share one inbox (Config.Host, token-free).
type waitItem struct {
	host    string
	session string // the session's resource
	title   string // the session's title, as the host sent it (raw)
	kind    waitKind
	detail  string  // the tool or server name, as the host sent it (raw)
	at      blocker // where it is opened: a chat item, or a session alone
	server  string  // for waitSignIn/waitMCPFailed of a server: its id
	since   time.Time
	id      waits.Key // key(), set by observe
}

// waitOf is the derivation's item as the inbox holds it.
func waitOf(it waits.Item) waitItem {
	w := waitItem{host: it.Host, session: it.Session, title: it.Title, kind: it.Kind, server: it.Server,
		at: blocker{session: it.Session, chat: it.Chat, item: it.ID(), turn: it.Turn}}
	switch it.Kind {
	case waitApproval, waitSignIn, waitMCPFailed:
		w.detail = it.Name
	case waitSession:
		w.detail = it.Detail
	}
	return w
}

// key identifies the item across updates, with its host.
func (w waitItem) key() waits.Key {
	return waits.Key{Host: w.host, Kind: w.kind, Session: w.at.session, Chat: w.at.chat, ID: w.at.item, Turn: w.at.turn, Server: w.server}
}

// agentPromptServer prefixes an agent sign-in prompt's resource in
// waitItem.server, keeping it apart from an MCP server id.
const agentPromptServer = waits.AgentPrefix

// waitTracker remembers when the client first saw each waiting item (the
// inbox's "waited"), and which ones are new since the last update (the
// signals' edge).
type waitTracker struct {
	first map[waits.Key]time.Time
	open  string // the open session at the last observation
	items []waitItem
}

// waiting lists what waits on the user now: the active host's, as
// host/waits derives it from the panels' state (derive), and the other
// hosts' (othersWaiting). Unordered; observe stamps and sorts.
func (m *Model) waiting() []waitItem {
	var out []waitItem
	for _, it := range m.chatPanel.derive() {
		out = append(out, waitOf(it))
	}
	if m.hosts != nil {
		out = m.othersWaiting(out)
	}
	return out
}

// observe brings the tracker up to date with what waits now and returns
// the items new since the last observation, oldest first. Opening a
// session turns its "needs input" row into its items, and leaving it the
// reverse: that is the same wait seen closer or farther, so those items
// inherit the session's first-seen time and are not new.
func (wt *waitTracker) observe(items []waitItem, open string, now time.Time) []waitItem {
	for i := range items {
		items[i].id = items[i].key()
	}
	oldestFirst := func(a, b waitItem) int {
		return cmp.Or(a.since.Compare(b.since), a.id.Compare(b.id))
	}
	// The common update (a streamed chunk, a key) changes nothing that
	// waits: the same keys get their times back, with no new map.
	same := len(items) == len(wt.first) && open == wt.open
	for i := 0; same && i < len(items); i++ {
		items[i].since, same = wt.first[items[i].id]
	}
	if same {
		slices.SortFunc(items, oldestFirst)
		wt.items = items
		return nil
	}
	// Earliest known wait per session of a host, and whether the session
	// was seen as its "needs input" row or as its items.
	type seen struct {
		since time.Time
		row   bool
	}
	sessionSince := map[[2]string]seen{}
	for _, it := range wt.items {
		k := [2]string{it.host, it.session}
		if s, ok := sessionSince[k]; !ok || it.since.Before(s.since) {
			sessionSince[k] = seen{it.since, it.kind == waitSession}
		}
	}
	switched := open != wt.open
	var fresh []waitItem
	next := make(map[waits.Key]time.Time, len(items))
	for i := range items {
		it := &items[i]
		s, ok := sessionSince[[2]string{it.host, it.session}]
		// The same wait seen closer or farther: the open session
		// switched, or another host's session went from its row to its
		// watched items (hosts_watch.go) or back.
		closer := ok && (switched && (it.session == open || it.session == wt.open) || s.row != (it.kind == waitSession))
		if t, ok := wt.first[it.id]; ok {
			it.since = t
		} else if closer {
			it.since = s.since
		} else {
			it.since = now
			fresh = append(fresh, *it)
		}
		next[it.id] = it.since
	}
	wt.first, wt.open = next, open
	slices.SortFunc(items, oldestFirst)
	slices.SortFunc(fresh, oldestFirst)
	wt.items = items
	return fresh
}
