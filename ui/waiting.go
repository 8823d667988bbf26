package ui

import (
	"cmp"
	"slices"
	"time"

	"github.com/ahptui/ahptui/protocol"
)

// waitKind is what waits on the user, in the inbox's words.
type waitKind int

const (
	waitApproval  waitKind = iota // a tool call or its result to confirm
	waitInput                     // an input request to answer
	waitSignIn                    // a tool call or MCP server waiting for sign-in
	waitMCPFailed                 // an MCP server in its error state
	waitTurnError                 // the open chat's latest turn stopped on an error
	waitSession                   // another session whose status says input-needed
)

func (k waitKind) String() string {
	return [...]string{"approval", "input request", "sign-in", "MCP server failed", "turn stopped on an error", "needs input"}[k]
}

// waitItem is one thing that waits on the user, from one host. host
// labels where it came from, so items of several hosts can share one
// inbox; today it is the one connected host (Config.Host, token-free).
type waitItem struct {
	host    string
	session string // the session's resource
	title   string // the session's title, as the host sent it (raw)
	kind    waitKind
	detail  string  // the tool or server name, as the host sent it (raw)
	at      blocker // where it is opened: a chat item, or a session alone
	server  string  // for waitSignIn/waitMCPFailed of a server: its id
	since   time.Time
	id      string // key(), set by observe
}

// key identifies the item across updates, with its host.
func (w waitItem) key() string {
	return w.host + "\x00" + w.kind.String() + "\x00" + w.at.session + "\x00" + w.at.chat + "\x00" + w.at.item + "\x00" + w.at.turn + "\x00" + w.server
}

// agentPromptServer prefixes an agent sign-in prompt's resource in
// waitItem.server, keeping it apart from an MCP server id.
const agentPromptServer = "agent-sign-in:"

// waitTracker remembers when the client first saw each waiting item (the
// inbox's "waited"), and which ones are new since the last update (the
// signals' edge).
type waitTracker struct {
	first map[string]time.Time
	open  string // the open session at the last observation
	items []waitItem
}

// waiting lists what waits on the user now, from this host: the open
// session's approvals, input requests and sign-ins (what ! reaches),
// its failed and sign-in-waiting MCP servers, the open chat's turn
// stopped on an error, and other sessions whose status says
// input-needed. Unordered; observe stamps and sorts.
func (m *Model) waiting() []waitItem {
	host := m.cfg.Host
	var out []waitItem
	cp := m.chatPanel
	add := func(kind waitKind, detail string, b blocker, server string) {
		out = append(out, waitItem{host: host, session: b.session, kind: kind, detail: detail, at: b, server: server})
	}
	for _, b := range cp.jumpTargets() {
		if b.item == "" {
			add(waitSession, "", b, "")
			continue
		}
		if kind, detail, ok := m.classify(b); ok {
			add(kind, detail, b, "")
		}
	}
	if m.hasSess {
		for _, r := range m.signin.servers() {
			switch r.StateKind {
			case "error":
				add(waitMCPFailed, r.Name, blocker{session: m.openSession}, r.ID)
			case "authRequired":
				add(waitSignIn, r.Name, blocker{session: m.openSession}, r.ID)
			}
		}
	}
	// The host's own sign-in requests (auth/required, a -32007, the
	// agent's required resources): the prompts the chat shows.
	for _, p := range m.signin.prompts {
		add(waitSignIn, p.resource, blocker{session: m.openSession}, agentPromptServer+p.resource)
	}
	if m.hasChat && m.chat.ActiveTurn == nil && len(m.chat.Turns) > 0 {
		if t := m.chat.Turns[len(m.chat.Turns)-1]; t.State == protocol.TurnStateError {
			add(waitTurnError, "", blocker{session: m.openSession, chat: m.openChat, turn: t.ID}, "")
		}
	}
	// Titles in one pass over the list, without a map of every session:
	// this runs on every update, streamed chunks included.
	for _, s := range m.sessions.list {
		for i := range out {
			if out[i].session == s.Resource {
				out[i].title = s.Title
			}
		}
	}
	if m.hosts != nil {
		out = m.othersWaiting(out)
	}
	return out
}

// classify names what the open session's blocker b waits for: its card in
// the open chat, else how the session's inputNeeded lists it. ok is false
// when the card shows it answered while inputNeeded still lists it (the
// answer is on its way to the host, or the host is slow to drop it): it
// no longer waits on the user, and reading it as another kind would make
// it a new wait.
func (m *Model) classify(b blocker) (kind waitKind, detail string, ok bool) {
	if b.chat == m.openChat {
		auth := m.signin.waitingServers()
		for _, it := range m.chatPanel.items() {
			if it.ID != b.item {
				continue
			}
			if !it.needsUser(auth) {
				return 0, "", false
			}
			if it.Kind == itemInput {
				return waitInput, "", true
			}
			switch it.Tool.Status() {
			case protocol.ToolCallStatusPendingConfirmation, protocol.ToolCallStatusPendingResultConfirmation:
				return waitApproval, it.Tool.Name(), true
			}
			return waitSignIn, it.Tool.Name(), true
		}
	}
	for _, r := range m.sess.InputNeeded {
		switch v := r.Variant.(type) {
		case protocol.SessionChatInputRequest:
			if v.Request.ID == b.item {
				return waitInput, "", true
			}
		case protocol.SessionToolAuthenticationRequest:
			if v.ToolCall.ToolCallID == b.item {
				return waitSignIn, "", true
			}
		}
	}
	return waitApproval, "", true
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
		return cmp.Or(a.since.Compare(b.since), cmp.Compare(a.id, b.id))
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
	next := make(map[string]time.Time, len(items))
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
