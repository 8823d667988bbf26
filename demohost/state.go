package demohost

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"sort"
	"strings"
	"time"

	"github.com/ahptui/ahptui/protocol"
)

const rootURI = "ahp-root://"

type session struct {
	uri       string
	state     protocol.SessionState
	createdAt time.Time
	chats     []string
	// summary is the last SessionSummary announced on the root channel.
	summary protocol.SessionSummary
	// srvGen counts state changes per MCP server id so a delayed scripted
	// transition notices it was overtaken (stopped, restarted, toggled).
	srvGen map[string]int
	// held are the servers whose start waits for the session's first
	// turn (Config.HoldStartsUntilRun).
	held map[string]bool
}

type chat struct {
	uri     string
	session string
	state   protocol.ChatState
	run     *turnRun
	turnSeq int
	// queuedBy maps a queued message id to the clientId that queued it,
	// so the turn it starts belongs to that client (see turnRun.owner).
	queuedBy map[string]string
	// resume is the rest of a turn that stopped at a resumable error, run
	// when a client dispatches chat/turnResume for it.
	resume *resumeScript
}

type resumeScript struct {
	turnID  string
	started time.Time
	owner   string
	steps   []step
}

// initState builds the root state and, unless disabled, the demo session.
// base is http://127.0.0.1:PORT, the host's own origin, under which the
// protected MCP resources are named.
func (h *Host) initState(base string) {
	zero := int64(0)
	canFork, canSide := true, true
	mc := &protocol.MultipleChatsCapability{Fork: &canFork}
	if !h.wire.older() {
		// Side chats are 0.7's; the demo makes them on the 1.0 wire only,
		// like the other chats of issue 23 (sidechats.go).
		mc.SideChat = &canSide
	}
	h.root = protocol.RootState{
		Agents: []protocol.AgentInfo{{
			Provider:    Provider,
			DisplayName: "Demo agent",
			Description: DemoHint(),
			Models:      []protocol.SessionModelInfo{{ID: "demo-1", Provider: Provider, Name: "Demo model"}},
			// Forks copy turns and side chats point at one, which the host
			// has; several working directories need an agent that
			// understands them.
			Capabilities: &protocol.AgentCapabilities{MultipleChats: mc},
		}},
		ActiveSessions: &zero,
		Config:         rootConfig(),
	}
	h.servers, h.resources = demoServers(base, h.auth)
	if h.wire.older() {
		// A start that holds new turns is 1.0's (blocking); an older
		// client cannot be told why its message waits, nor move the start
		// to the background, so the host does not hold turns for it.
		for id, sp := range h.servers {
			sp.blocking = false
			h.servers[id] = sp
		}
	}
	h.initAgentAuthLocked(base)
	if !h.cfg.NoDemoSession {
		hist := h.createSessionLocked(HistorySessionURI, HistorySessionTitle, DemoWorkingDirectory, true)
		h.seedHistoryLocked(hist)
		h.seedChangesetsLocked(hist)
		h.seedTerminalLocked(hist)
		h.seedSideChatsLocked(hist)
		h.createSessionLocked(DemoSessionURI, DemoSessionTitle, DemoWorkingDirectory, true)
	}
}

// channelExists reports whether uri names live state.
func (h *Host) channelExists(uri string) bool {
	if uri == rootURI {
		return true
	}
	if _, ok := h.sessions[uri]; ok {
		return true
	}
	if _, ok := h.chats[uri]; ok {
		return true
	}
	if h.terminals[uri] != nil {
		return true
	}
	return h.changesetLocked(uri) != nil || h.extraStateLocked(uri) != nil
}

// snapshotLocked returns the channel's snapshot at the current serverSeq.
func (h *Host) snapshotLocked(uri string) (protocol.Snapshot, bool) {
	var st protocol.SnapshotStateVariant
	switch {
	case uri == rootURI:
		st = h.root
	case h.sessions[uri] != nil:
		st = h.sessions[uri].state
	case h.chats[uri] != nil:
		st = h.chats[uri].state
	case h.terminals[uri] != nil:
		st = *h.terminals[uri]
	case h.changesetLocked(uri) != nil:
		st = *h.changesetLocked(uri)
	case h.extraStateLocked(uri) != nil:
		st = h.extraStateLocked(uri)
	default:
		return protocol.Snapshot{}, false
	}
	return protocol.Snapshot{Resource: uri, State: protocol.SnapshotState{Variant: st}, FromSeq: h.seq}, true
}

// applyLocked reduces one action into the channel's state, sequences it,
// keeps it for replay and sends it to the channel's subscribers. origin is
// nil for host actions. It returns false when the channel does not exist.
func (h *Host) applyLocked(channel string, v protocol.StateActionVariant, origin *protocol.ActionOrigin) bool {
	action := protocol.NewStateAction(v)
	switch {
	case channel == rootURI:
		h.root = protocol.Reduce(h.root, action, h.reduceRules()).(protocol.RootState)
	case h.sessions[channel] != nil:
		s := h.sessions[channel]
		s.state = protocol.Reduce(s.state, action, h.reduceRules()).(protocol.SessionState)
		if strings.HasPrefix(action.Kind(), "session/mcpServer") {
			// A blocking start may have ended or moved to the background.
			h.wakeRunsLocked(s)
		}
	case h.chats[channel] != nil:
		c := h.chats[channel]
		c.state = protocol.Reduce(c.state, action, h.reduceRules()).(protocol.ChatState)
	case h.terminals[channel] != nil:
		t := h.terminals[channel]
		*t = protocol.Reduce(*t, action, h.reduceRules()).(protocol.TerminalState)
	case h.changesetLocked(channel) != nil:
		cs := h.changesetLocked(channel)
		*cs = protocol.Reduce(*cs, action, h.reduceRules()).(protocol.ChangesetState)
	default:
		return false
	}
	h.seq++
	env := protocol.ActionEnvelope{Channel: channel, Action: action, ServerSeq: h.seq, Origin: origin}
	h.publishLocked(env, "")
	switch {
	case h.chats[channel] != nil:
		h.syncChatSummaryLocked(h.chats[channel])
	case h.sessions[channel] != nil:
		h.syncSessionSummaryLocked(h.sessions[channel])
	}
	return true
}

// rejectLocked echoes a refused client action with its reason. The echo is
// sequenced like any envelope (so replay after a reconnect still settles
// the client's pending action) but only the dispatching client sees it.
func (h *Host) rejectLocked(channel string, action protocol.StateAction, origin protocol.ActionOrigin, reason string) {
	h.seq++
	env := protocol.ActionEnvelope{Channel: channel, Action: action, ServerSeq: h.seq, Origin: &origin, RejectionReason: &reason}
	h.publishLocked(env, origin.ClientID)
}

func (h *Host) publishLocked(env protocol.ActionEnvelope, onlyClient string) {
	params, err := json.Marshal(env)
	if err != nil {
		h.log.Error("demohost: encode action envelope", "type", env.Action.Kind(), "err", err)
		return
	}
	e := replayEntry{channel: env.Channel, origin: onlyClient, seq: env.ServerSeq, params: params}
	if u, ok := env.Action.Variant.(protocol.UnknownStateAction); ok {
		e.unknownAction = u.Discriminator
	}
	frame, err := h.encodeNotification("action", json.RawMessage(params))
	switch {
	case errors.Is(err, errNotForPeer):
		e.notForPeer = true
	case err != nil:
		h.log.Error("demohost: encode action", "type", env.Action.Kind(), "err", err)
		return
	}
	if env.Origin != nil {
		e.clientID, e.clientSeq = env.Origin.ClientID, env.Origin.ClientSeq
		sent := append(h.sentTo[e.clientID], e)
		if len(sent) > echoMemory {
			sent = append(sent[:0:0], sent[len(sent)-echoMemory:]...)
		}
		h.sentTo[e.clientID] = sent
	}
	h.replay.push(e, h.cfg.ReplayBuffer)
	if !e.notForPeer {
		h.broadcastLocked(env.Channel, onlyClient, frame, &e)
	}
}

// broadcastLocked validates a frame once and queues it for every subscriber
// of channel (only those whose clientId is onlyClient, when set).
func (h *Host) broadcastLocked(channel, onlyClient string, frame []byte, env *replayEntry) {
	validated := false
	for c := range h.conns {
		if !c.subs[channel] || (onlyClient != "" && c.clientID != onlyClient) {
			continue
		}
		if !validated {
			h.validateFrameLocked(c.id, Outbound, frame, env)
			validated = true
		}
		c.send(frame)
	}
}

func (h *Host) notifyRootLocked(method string, params any) {
	frame, err := h.encodeNotification(method, params)
	if errors.Is(err, errNotForPeer) {
		return
	}
	if err != nil {
		h.log.Error("demohost: encode notification", "method", method, "err", err)
		return
	}
	h.broadcastLocked(rootURI, "", frame, nil)
}

// createSessionLocked makes a session with the scripted customizations and
// a default chat, working in dir ("" for none). Seeded sessions exist
// before anyone connects, so they skip the creating phase; they also keep
// to the four servers of the tour, whose MCP strip fits one row of an
// 80-column terminal. Sessions clients create get the Indexer too.
func (h *Host) createSessionLocked(uri, title, dir string, seeded bool) *session {
	now := h.clock()
	s := &session{uri: uri, createdAt: now, srvGen: map[string]int{}}
	s.state = protocol.SessionState{
		Provider:       Provider,
		Title:          title,
		Status:         protocol.SessionStatusIdle,
		Lifecycle:      protocol.SessionLifecycleCreating,
		ActiveClients:  []protocol.SessionActiveClient{},
		Chats:          []protocol.ChatSummary{},
		Customizations: demoCustomizations(h.servers, !seeded),
		Config:         defaultSessionConfig(),
	}
	if dir != "" {
		s.state.WorkingDirectories = []protocol.URI{dir}
	}
	if seeded {
		s.state.Lifecycle = protocol.SessionLifecycleReady
	}
	h.sessions[uri] = s

	chatURI := defaultChatURI(uri)
	c := &chat{uri: chatURI, session: uri, state: protocol.ChatState{
		Resource:   chatURI,
		Title:      "Chat",
		Status:     protocol.SessionStatusIdle,
		ModifiedAt: isoTime(now),
		Origin:     &protocol.ChatOrigin{Variant: protocol.ChatUserOrigin{}},
		Turns:      []protocol.Turn{},
	}}
	h.chats[chatURI] = c
	s.chats = append(s.chats, chatURI)
	s.state.Chats = []protocol.ChatSummary{chatSummary(c.state)}
	s.state.DefaultChat = &chatURI

	s.summary = h.sessionSummaryLocked(s)
	h.notifyRootLocked("root/sessionAdded", protocol.SessionAddedParams{Channel: rootURI, Summary: s.summary})
	h.applyLocked(rootURI, protocol.RootActiveSessionsChangedAction{ActiveSessions: int64(len(h.sessions))}, nil)

	if !seeded {
		h.after(func() {
			if h.sessions[uri] == s {
				h.applyLocked(uri, protocol.SessionReadyAction{}, nil)
			}
		})
	}
	h.startAllServersLocked(s)
	return s
}

// wakeRunsLocked wakes the turns running in the session's chats.
func (h *Host) wakeRunsLocked(s *session) {
	for _, uri := range s.chats {
		if ch := h.chats[uri]; ch != nil && ch.run != nil {
			ch.run.wake()
		}
	}
}

// defaultChatURI is the URI of a session's default chat. The demo spells
// its chats as VS Code's agent host does, ahp-chat://<chat id>/<the
// session URI in unpadded base64url>, the default chat's id being
// "default"; createChat takes only chat URIs of that shape (chatURIOf), so
// a client that mints another shape fails here as it would there.
func defaultChatURI(sessionURI string) string { return chatURIOf("default", sessionURI) }

// chatURIOf is the URI of chat id in session sessionURI.
func chatURIOf(id, sessionURI string) string {
	return "ahp-chat://" + id + "/" + base64.RawURLEncoding.EncodeToString([]byte(sessionURI))
}

// chatIDIn is the chat id of chatURI when it names a chat of sessionURI
// in the shape chatURIOf spells; ok is false for any other shape.
func chatIDIn(chatURI, sessionURI string) (id string, ok bool) {
	rest, ok := strings.CutPrefix(chatURI, "ahp-chat://")
	if !ok {
		return "", false
	}
	id, enc, ok := strings.Cut(rest, "/")
	if !ok || id == "" || strings.ContainsAny(id, "?#%") || enc != base64.RawURLEncoding.EncodeToString([]byte(sessionURI)) {
		return "", false
	}
	return id, true
}

func chatSummary(c protocol.ChatState) protocol.ChatSummary {
	return protocol.ChatSummary{Resource: c.Resource, Title: c.Title, Status: c.Status, Activity: c.Activity,
		ModifiedAt: c.ModifiedAt, Origin: c.Origin, Interactivity: c.Interactivity, WorkingDirectories: c.WorkingDirectories}
}

// syncChatSummaryLocked keeps the session's chat catalogue in step with the
// chat's own summary fields, as the chat-channel spec requires of producers.
func (h *Host) syncChatSummaryLocked(c *chat) {
	s := h.sessions[c.session]
	if s == nil {
		return
	}
	var old *protocol.ChatSummary
	for i := range s.state.Chats {
		if s.state.Chats[i].Resource == c.uri {
			old = &s.state.Chats[i]
		}
	}
	if old == nil {
		return
	}
	cur := c.state
	d, changed := summaryFields{old.Title, old.Status, old.Activity, old.ModifiedAt}.
		changes(summaryFields{cur.Title, cur.Status, cur.Activity, cur.ModifiedAt})
	ch := protocol.PartialChatSummary{Title: d.title, Status: d.status, Activity: d.activity, ModifiedAt: d.modifiedAt}
	if changed {
		h.applyLocked(s.uri, protocol.SessionChatUpdatedAction{Chat: c.uri, Changes: ch}, nil)
	} else {
		h.syncSessionSummaryLocked(s)
	}
}

// summaryFields are what a chat catalogue entry and a session summary both
// announce when they change. One comparison serves both notifications so
// they cannot drift apart on what counts as a change.
type summaryFields struct {
	title      string
	status     protocol.SessionStatus
	activity   *string
	modifiedAt string
}

// summaryDelta is the partial-summary form of the fields that changed: nil
// for a field that did not.
type summaryDelta struct {
	title      *string
	status     *protocol.SessionStatus
	activity   *string
	modifiedAt *string
}

// changes reports which of cur's fields differ from old's, pointing into a
// copy of cur, and whether any did.
func (old summaryFields) changes(cur summaryFields) (d summaryDelta, changed bool) {
	if old.title != cur.title {
		d.title, changed = &cur.title, true
	}
	if old.status != cur.status {
		d.status, changed = &cur.status, true
	}
	if a := strPtr(cur.activity); strPtr(old.activity) != a {
		// A partial summary cannot carry "absent", so a cleared activity
		// travels as "" rather than leaving the old text in catalogues.
		d.activity, changed = &a, true
	}
	if old.modifiedAt != cur.modifiedAt {
		d.modifiedAt, changed = &cur.modifiedAt, true
	}
	return d, changed
}

func strPtr(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// sessionSummaryLocked derives the catalogue entry: activity bits from the
// default chat, InputNeeded promoted from any chat or the session's
// aggregate, read/archived flags from the session itself.
func (h *Host) sessionSummaryLocked(s *session) protocol.SessionSummary {
	const activityBits = protocol.SessionStatusIdle | protocol.SessionStatusError | protocol.SessionStatusInProgress | protocol.SessionStatusInputNeeded
	var status protocol.SessionStatus
	modified := isoTime(s.createdAt)
	var activity *string
	for i, cu := range s.chats {
		c := h.chats[cu]
		if c == nil {
			continue
		}
		if i == 0 || (s.state.DefaultChat != nil && *s.state.DefaultChat == cu) {
			status = c.state.Status & activityBits
			activity = c.state.Activity
		}
		if c.state.Status&protocol.SessionStatusInputNeeded == protocol.SessionStatusInputNeeded {
			status |= protocol.SessionStatusInputNeeded
		}
		if c.state.Status&protocol.SessionStatusError != 0 {
			status |= protocol.SessionStatusError
		}
		if c.state.ModifiedAt > modified {
			modified = c.state.ModifiedAt
		}
	}
	if len(s.state.InputNeeded) > 0 {
		status |= protocol.SessionStatusInputNeeded
	}
	if status == 0 {
		status = protocol.SessionStatusIdle
	}
	status |= s.state.Status & (protocol.SessionStatusIsRead | protocol.SessionStatusIsArchived)
	return protocol.SessionSummary{
		Provider: s.state.Provider, Title: s.state.Title, Status: status, Activity: activity,
		WorkingDirectories: s.state.WorkingDirectories, Resource: s.uri,
		CreatedAt: isoTime(s.createdAt), ModifiedAt: modified,
	}
}

// syncSessionSummaryLocked announces changed summary fields on the root
// channel (root/sessionSummaryChanged carries only what changed).
func (h *Host) syncSessionSummaryLocked(s *session) {
	cur := h.sessionSummaryLocked(s)
	old := s.summary
	d, changed := summaryFields{old.Title, old.Status, old.Activity, old.ModifiedAt}.
		changes(summaryFields{cur.Title, cur.Status, cur.Activity, cur.ModifiedAt})
	ch := protocol.PartialSessionSummary{Title: d.title, Status: d.status, Activity: d.activity, ModifiedAt: d.modifiedAt}
	s.summary = cur
	if changed {
		h.notifyRootLocked("root/sessionSummaryChanged", protocol.SessionSummaryChangedParams{Channel: rootURI, Session: s.uri, Changes: ch})
	}
}

// disposeSessionLocked tears a session down with its chats.
func (h *Host) disposeSessionLocked(s *session) {
	for _, cu := range s.chats {
		if c := h.chats[cu]; c != nil && c.run != nil {
			c.run.stop()
			c.run = nil
		}
		delete(h.chats, cu)
	}
	delete(h.sessions, s.uri)
	for c := range h.conns {
		delete(c.subs, s.uri)
		for _, cu := range s.chats {
			delete(c.subs, cu)
		}
	}
	h.notifyRootLocked("root/sessionRemoved", protocol.SessionRemovedParams{Channel: rootURI, Session: s.uri})
	h.applyLocked(rootURI, protocol.RootActiveSessionsChangedAction{ActiveSessions: int64(len(h.sessions))}, nil)
}

// sortedSummariesLocked lists sessions most recently modified first.
func (h *Host) sortedSummariesLocked() []protocol.SessionSummary {
	out := make([]protocol.SessionSummary, 0, len(h.sessions))
	for _, s := range h.sessions {
		out = append(out, h.sessionSummaryLocked(s))
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].ModifiedAt != out[j].ModifiedAt {
			return out[i].ModifiedAt > out[j].ModifiedAt
		}
		return out[i].Resource < out[j].Resource
	})
	return out
}

// after runs f under h.mu once StepDelay has passed, unless the host closes.
// Callers hold h.mu, which orders this Add before Close's Wait.
func (h *Host) after(f func()) { h.afterSteps(1, f) }

// afterSteps is after with n steps of delay.
func (h *Host) afterSteps(n int, f func()) { h.afterDuration(time.Duration(n)*h.cfg.StepDelay, f) }

// afterDuration runs f under h.mu after d (wall clock), unless the host
// closes first. Callers hold h.mu.
func (h *Host) afterDuration(d time.Duration, f func()) { h.afterDurationCtx(h.ctx, d, f) }

// afterDurationCtx is afterDuration bounded by ctx (derived from h.ctx):
// work that belongs to one connection passes the connection's context, so
// its timer goroutine ends with the connection instead of outliving it.
func (h *Host) afterDurationCtx(ctx context.Context, d time.Duration, f func()) {
	if h.closed {
		return
	}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		if !sleepCtx(ctx, d) {
			return
		}
		h.mu.Lock()
		defer h.mu.Unlock()
		if h.closed {
			return
		}
		f()
	}()
}

// replayRing keeps the newest envelopes for reconnect. Once full, a push
// overwrites the oldest slot: O(1) per action, where copying the buffer
// down cost a ReplayBuffer-sized copy on every action.
type replayRing struct {
	buf   []replayEntry
	start int // index of the oldest entry
	n     int
}

// push appends e, dropping the oldest entry when limit entries are held.
func (r *replayRing) push(e replayEntry, limit int) {
	if r.n < limit {
		if len(r.buf) < limit && r.start == 0 {
			r.buf = append(r.buf, e)
			r.n++
			return
		}
		r.buf[(r.start+r.n)%len(r.buf)] = e
		r.n++
		return
	}
	r.buf[r.start] = e
	r.start = (r.start + 1) % len(r.buf)
}

func (r *replayRing) len() int { return r.n }

// at returns the i-th oldest entry.
func (r *replayRing) at(i int) replayEntry { return r.buf[(r.start+i)%len(r.buf)] }

func (r *replayRing) reset() { *r = replayRing{} }
