// Package testhost is an in-test AHP host for the protocol client's
// integration tests. It serves real WebSockets on 127.0.0.1 (via
// protocol/jsonrpc) and keeps authoritative state with protocol.Reduce, and
// it can misbehave on demand: reject dispatches, inject foreign actions,
// drop connections, forget clients, force snapshot reconnects, report
// channels missing, stall pings, fail the next call of a method and send raw
// frames.
//
// Dedupe contract (the one the client relies on after a reconnect): a
// dispatch whose (clientId, clientSeq) the host has already processed is not
// applied again; the host re-sends the envelope it produced the first time
// (same serverSeq, same rejectionReason) to the dispatching connection only.
package testhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

// Options configures a Host.
type Options struct {
	// Versions the host accepts, exact versions or SemVer ranges as a host
	// publishes them in -32005; default ["^1.0.0", "~0.9.0"], what hosts
	// built on the 1.0 spec accept. The host picks the highest offered
	// version inside them; on a connection that picked 0.6 it speaks the
	// 0.6 wire (its frames converted down, the client's up).
	Versions []string
	// ReplayLimit bounds the replay buffer (envelopes); default 1000.
	ReplayLimit int
	// Schemas, if set, gives the checker of a wire (schemacheck's
	// Validator is one). Every frame in both directions is checked, as it
	// is on the socket, against the wire its connection negotiated (the
	// initialize request, the same on every wire, and the frames of a
	// connection that negotiated nothing, against Wire10's); failures are
	// reported with t.Errorf when the test ends.
	Schemas func(protocol.Wire) Checker
	// ReadLimit bounds inbound frames; 0 = jsonrpc default.
	ReadLimit int64
	// AnswerVersion, if set, is the protocolVersion initialize answers
	// whatever was offered: a host that does not follow negotiation.
	AnswerVersion string
}

// Checker validates the frames of one wire. A response does not name its
// method, so it is checked with the method of the request it answers.
type Checker interface {
	ValidateMessage(frame []byte) error
	ValidateResponse(method string, frame []byte) error
}

// Frame is one inbound frame as recorded by the host: its bytes as they
// were on the socket (0.6 shapes on a 0.6 connection).
type Frame struct {
	Conn   int    // connection number, from 1
	Method string // "" for responses
	Raw    []byte
	Wire   protocol.Wire // the connection's wire when it arrived
}

// AuthCall is one authenticate request the host received.
type AuthCall struct {
	Conn      int
	Resource  string
	Token     string
	Scopes    []string
	ExpiresIn *int64 // as the host read it: never on a 0.6 connection
}

type originKey struct {
	clientID  string
	clientSeq int64
}

type hconn struct {
	id       int
	conn     *jsonrpc.Conn
	t        *wireTransport
	clientID string
	subs     map[string]bool
}

// Host is the in-test AHP host. Its methods are safe for concurrent use.
type Host struct {
	t    testing.TB
	opts Options
	srv  *httptest.Server
	// URL is the ws:// address clients dial.
	URL string

	mu            sync.Mutex
	states        map[string]protocol.SnapshotStateVariant
	sessions      []protocol.SessionSummary
	seq           int64
	buffer        []protocol.ActionEnvelope
	known         map[string]bool
	wires         map[string]protocol.Wire // clientId → negotiated wire
	applied       map[originKey]protocol.ActionEnvelope
	conns         map[*hconn]struct{}
	nextConn      int
	missing       map[string]bool
	forceSnapshot bool
	lazy          bool
	rejectNext    map[string]string
	failNext      map[string]*jsonrpc.Error
	stallPing     bool
	dropDispatch  bool
	muteEchoes    bool
	holding       bool
	held          []heldDispatch
	frameSignal   chan struct{}
	dispatched    int
	during        map[string]injection
	refuse        bool
	closed        bool
	auths         []AuthCall
	frames        []Frame

	invalidMu sync.Mutex
	invalid   []string // failures reported when the test ends
}

// New starts a host with a root channel holding an empty RootState. It is
// closed, and invalid inbound frames reported, when the test ends.
func New(t testing.TB, opts Options) *Host {
	t.Helper()
	if len(opts.Versions) == 0 {
		opts.Versions = []string{"^1.0.0", "~0.9.0"}
	}
	if opts.ReplayLimit <= 0 {
		opts.ReplayLimit = 1000
	}
	h := &Host{
		t:           t,
		opts:        opts,
		states:      map[string]protocol.SnapshotStateVariant{protocol.RootChannel: protocol.RootState{Agents: []protocol.AgentInfo{}}},
		sessions:    []protocol.SessionSummary{},
		known:       map[string]bool{},
		wires:       map[string]protocol.Wire{},
		applied:     map[originKey]protocol.ActionEnvelope{},
		conns:       map[*hconn]struct{}{},
		missing:     map[string]bool{},
		rejectNext:  map[string]string{},
		failNext:    map[string]*jsonrpc.Error{},
		frameSignal: make(chan struct{}),
		during:      map[string]injection{},
	}
	h.srv = httptest.NewServer(http.HandlerFunc(h.serveWS))
	h.URL = "ws://" + strings.TrimPrefix(h.srv.URL, "http://")
	t.Cleanup(func() {
		h.Close()
		h.invalidMu.Lock()
		defer h.invalidMu.Unlock()
		for _, msg := range h.invalid {
			t.Errorf("testhost: %s", msg)
		}
	})
	return h
}

// Close drops every connection and stops the server.
func (h *Host) Close() {
	// Closed first: a client reconnecting between the drop and the
	// server's close would otherwise get a connection that outlives it.
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
	h.DropConnections()
	h.srv.Close()
}

func (h *Host) serveWS(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	refuse := h.refuse
	h.mu.Unlock()
	if refuse {
		http.Error(w, "testhost: refusing connections", http.StatusServiceUnavailable)
		return
	}
	t, err := jsonrpc.Accept(w, r, jsonrpc.AcceptOptions{ReadLimit: h.opts.ReadLimit})
	if err != nil {
		return
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		_ = t.Close("testhost: closed")
		return
	}
	h.nextConn++
	hc := &hconn{id: h.nextConn, subs: map[string]bool{}}
	hc.t = &wireTransport{Transport: t, h: h, id: hc.id}
	hc.conn = jsonrpc.NewConn(hc.t, jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		return h.handle(ctx, hc, req)
	}), jsonrpc.ConnOptions{})
	h.conns[hc] = struct{}{}
	h.mu.Unlock()
	hc.conn.Start(context.Background())
	<-hc.conn.Done()
	h.mu.Lock()
	delete(h.conns, hc)
	h.mu.Unlock()
}

func decode[T any](req *jsonrpc.Request) (T, error) {
	var v T
	if err := json.Unmarshal(req.Params, &v); err != nil {
		return v, jsonrpc.NewError(jsonrpc.InvalidParams, err.Error())
	}
	return v, nil
}

func (h *Host) handle(ctx context.Context, hc *hconn, req *jsonrpc.Request) (any, error) {
	h.mu.Lock()
	if e, ok := h.failNext[req.Method]; ok && !req.IsNotification() {
		delete(h.failNext, req.Method)
		h.mu.Unlock()
		return nil, e
	}
	stall := h.stallPing
	h.mu.Unlock()

	switch req.Method {
	case "initialize":
		p, err := decode[protocol.InitializeParams](req)
		if err != nil {
			return nil, err
		}
		return h.initialize(hc, p)
	case "reconnect":
		p, err := decode[protocol.ReconnectParams](req)
		if err != nil {
			return nil, err
		}
		return h.reconnect(hc, p)
	case "ping":
		if stall {
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return struct{}{}, nil
	case "subscribe":
		p, err := decode[protocol.SubscribeParams](req)
		if err != nil {
			return nil, err
		}
		h.mu.Lock()
		defer h.mu.Unlock()
		st, ok := h.states[p.Channel]
		if !ok {
			return nil, jsonrpc.NewError(jsonrpc.NotFound, "no such channel")
		}
		hc.subs[p.Channel] = true
		res := protocol.SubscribeResult{Snapshot: &protocol.Snapshot{Resource: p.Channel, State: protocol.SnapshotState{Variant: st}, FromSeq: h.seq}}
		h.injectDuringLocked("subscribe")
		return res, nil
	case "unsubscribe":
		p, err := decode[protocol.UnsubscribeParams](req)
		if err == nil {
			h.mu.Lock()
			delete(hc.subs, p.Channel)
			h.mu.Unlock()
		}
		return nil, nil
	case "listSessions":
		h.mu.Lock()
		defer h.mu.Unlock()
		return protocol.ListSessionsResult{Items: slices.Clone(h.sessions)}, nil
	case "createSession":
		p, err := decode[protocol.CreateSessionParams](req)
		if err != nil {
			return nil, err
		}
		return h.createSession(p)
	case "disposeSession":
		p, err := decode[protocol.DisposeSessionParams](req)
		if err != nil {
			return nil, err
		}
		return h.disposeSession(p.Channel)
	case "createChat":
		p, err := decode[protocol.CreateChatParams](req)
		if err != nil {
			return nil, err
		}
		h.mu.Lock()
		defer h.mu.Unlock()
		h.states[p.Chat] = newChat(p.Chat)
		return struct{}{}, nil
	case "fetchTurns":
		return protocol.FetchTurnsResult{}, nil
	case "authenticate":
		p, err := decode[protocol.AuthenticateParams](req)
		if err != nil {
			return nil, err
		}
		h.mu.Lock()
		h.auths = append(h.auths, AuthCall{Conn: hc.id, Resource: p.Resource, Token: p.Token, Scopes: p.Scopes, ExpiresIn: p.ExpiresIn})
		h.mu.Unlock()
		return protocol.AuthenticateResult{}, nil
	case "dispatchAction":
		p, err := decode[protocol.DispatchActionParams](req)
		if err == nil {
			h.dispatch(hc, p)
		}
		return nil, nil
	}
	return nil, jsonrpc.ErrMethodNotFound
}

// negotiate applies the spec's rule: the highest offered version inside
// any accepted range (an exact version is a range of one). The transport
// runs it on the initialize request to know the wire of the answer, the
// handler to answer; it is pure, so both agree.
func (h *Host) negotiate(offered []string) (string, error) {
	h.mu.Lock()
	versions := h.opts.Versions
	h.mu.Unlock()
	var accepted []protocol.VersionRange
	for _, s := range versions {
		r, err := protocol.ParseVersionRange(s)
		if err != nil {
			return "", fmt.Errorf("testhost: Options.Versions %q: %w", s, err)
		}
		accepted = append(accepted, r)
	}
	version, ok, err := protocol.NegotiateProtocolVersion(offered, accepted)
	if err != nil {
		return "", jsonrpc.NewError(jsonrpc.InvalidParams, err.Error())
	}
	if h.opts.AnswerVersion != "" {
		version, ok = h.opts.AnswerVersion, true
	}
	if !ok {
		return "", jsonrpc.NewErrorData(jsonrpc.UnsupportedProtocolVersion, "no common protocol version",
			protocol.UnsupportedProtocolVersionErrorData{SupportedVersions: versions})
	}
	return version, nil
}

func (h *Host) initialize(hc *hconn, p protocol.InitializeParams) (any, error) {
	version, err := h.negotiate(p.ProtocolVersions)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.known[p.ClientID] = true
	h.wires[p.ClientID] = protocol.WireOf(version)
	hc.clientID = p.ClientID
	snaps := []protocol.Snapshot{}
	for _, ch := range p.InitialSubscriptions {
		if h.lazy && ch != protocol.RootChannel {
			continue // not loaded: subscribe loads it
		}
		if st, ok := h.states[ch]; ok {
			hc.subs[ch] = true
			snaps = append(snaps, protocol.Snapshot{Resource: ch, State: protocol.SnapshotState{Variant: st}, FromSeq: h.seq})
		}
	}
	res := protocol.InitializeResult{
		ProtocolVersion: version,
		ServerSeq:       h.seq,
		ServerInfo:      &protocol.Implementation{Name: "testhost"},
		Snapshots:       snaps,
	}
	h.injectDuringLocked("initialize")
	return res, nil
}

func (h *Host) reconnect(hc *hconn, p protocol.ReconnectParams) (any, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.known[p.ClientID] {
		return nil, jsonrpc.NewError(jsonrpc.InvalidParams, "unknown clientId: initialize first")
	}
	hc.clientID = p.ClientID
	canReplay := !h.forceSnapshot && p.LastSeenServerSeq <= h.seq &&
		(p.LastSeenServerSeq == h.seq || (len(h.buffer) > 0 && h.buffer[0].ServerSeq <= p.LastSeenServerSeq+1))
	if !canReplay {
		snaps := []protocol.Snapshot{}
		for _, ch := range p.Subscriptions {
			if st, ok := h.states[ch]; ok && !h.missing[ch] {
				hc.subs[ch] = true
				snaps = append(snaps, protocol.Snapshot{Resource: ch, State: protocol.SnapshotState{Variant: st}, FromSeq: h.seq})
			}
		}
		h.injectDuringLocked("reconnect")
		return protocol.ReconnectResult{Variant: protocol.ReconnectSnapshotResult{Snapshots: snaps}}, nil
	}
	missing := []string{}
	for _, ch := range p.Subscriptions {
		if _, ok := h.states[ch]; !ok || h.missing[ch] {
			missing = append(missing, ch)
			continue
		}
		hc.subs[ch] = true
	}
	actions := []protocol.ActionEnvelope{}
	for _, env := range h.buffer {
		if env.ServerSeq > p.LastSeenServerSeq && hc.subs[env.Channel] {
			actions = append(actions, env)
		}
	}
	h.injectDuringLocked("reconnect")
	return protocol.ReconnectResult{Variant: protocol.ReconnectReplayResult{Actions: actions, Missing: missing}}, nil
}

type heldDispatch struct {
	hc *hconn
	p  protocol.DispatchActionParams
}

func (h *Host) dispatch(hc *hconn, p protocol.DispatchActionParams) {
	h.mu.Lock()
	defer h.mu.Unlock()
	defer h.signalLocked()
	h.dispatched++
	if h.dropDispatch {
		return
	}
	if h.holding {
		h.held = append(h.held, heldDispatch{hc, p})
		return
	}
	h.dispatchLocked(hc, p)
}

func (h *Host) dispatchLocked(hc *hconn, p protocol.DispatchActionParams) {
	key := originKey{hc.clientID, p.ClientSeq}
	if env, dup := h.applied[key]; dup {
		_ = hc.conn.Notify(context.Background(), "action", env)
		return
	}
	origin := &protocol.ActionOrigin{ClientID: hc.clientID, ClientSeq: p.ClientSeq}
	reason, reject := h.rejectNext[p.Action.Kind()]
	if reject {
		delete(h.rejectNext, p.Action.Kind())
	}
	st, ok := h.states[p.Channel]
	if !ok {
		reject, reason = true, "no such channel"
	}
	var env protocol.ActionEnvelope
	if reject {
		env = h.appendLocked(p.Channel, p.Action, origin, &reason)
	} else {
		h.states[p.Channel] = protocol.Reduce(st, p.Action, protocol.RulesFor(hc.t.currentWire(), time.Now))
		env = h.appendLocked(p.Channel, p.Action, origin, nil)
	}
	h.applied[key] = env
	if h.muteEchoes {
		// Lose the echo to the origin (as if the connection died first);
		// everyone else still sees it.
		for other := range h.conns {
			if other != hc && other.subs[env.Channel] {
				_ = other.conn.Notify(context.Background(), "action", env)
			}
		}
		return
	}
	h.broadcastLocked(env)
}

// appendLocked sequences an envelope into the replay buffer.
func (h *Host) appendLocked(channel string, action protocol.StateAction, origin *protocol.ActionOrigin, rejection *string) protocol.ActionEnvelope {
	h.seq++
	env := protocol.ActionEnvelope{Channel: channel, Action: action, ServerSeq: h.seq, Origin: origin, RejectionReason: rejection}
	h.buffer = append(h.buffer, env)
	if over := len(h.buffer) - h.opts.ReplayLimit; over > 0 {
		h.buffer = slices.Delete(h.buffer, 0, over)
	}
	return env
}

func (h *Host) broadcastLocked(env protocol.ActionEnvelope) {
	for hc := range h.conns {
		if hc.subs[env.Channel] {
			_ = hc.conn.Notify(context.Background(), "action", env)
		}
	}
}

func (h *Host) notifyRootLocked(method string, params any) {
	for hc := range h.conns {
		if hc.subs[protocol.RootChannel] {
			_ = hc.conn.Notify(context.Background(), method, params)
		}
	}
}

func (h *Host) createSession(p protocol.CreateSessionParams) (any, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.states[p.Channel]; ok {
		return nil, jsonrpc.NewError(jsonrpc.SessionAlreadyExists, "session exists")
	}
	provider := "test"
	if p.Provider != nil {
		provider = *p.Provider
	}
	h.states[p.Channel] = NewSession(provider, "New Session")
	now := time.Now().UTC().Format(time.RFC3339)
	sum := protocol.SessionSummary{Provider: provider, Title: "New Session", Status: protocol.SessionStatusIdle, Resource: p.Channel, CreatedAt: now, ModifiedAt: now}
	h.sessions = append(h.sessions, sum)
	h.notifyRootLocked("root/sessionAdded", protocol.SessionAddedParams{Channel: protocol.RootChannel, Summary: sum})
	return struct{}{}, nil
}

func (h *Host) disposeSession(uri string) (any, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.states[uri]; !ok {
		return nil, jsonrpc.NewError(jsonrpc.SessionNotFound, "no such session")
	}
	delete(h.states, uri)
	h.sessions = slices.DeleteFunc(h.sessions, func(s protocol.SessionSummary) bool { return s.Resource == uri })
	h.notifyRootLocked("root/sessionRemoved", protocol.SessionRemovedParams{Channel: protocol.RootChannel, Session: uri})
	return struct{}{}, nil
}

// NewSession returns a minimal ready SessionState.
func NewSession(provider, title string) protocol.SessionState {
	return protocol.SessionState{
		Provider: provider, Title: title, Status: protocol.SessionStatusIdle,
		Lifecycle: protocol.SessionLifecycleReady, ActiveClients: []protocol.SessionActiveClient{}, Chats: []protocol.ChatSummary{},
	}
}

func newChat(uri string) protocol.ChatState {
	return protocol.ChatState{Resource: uri, Status: protocol.SessionStatusIdle, ModifiedAt: "1970-01-01T00:00:00Z", Turns: []protocol.Turn{}}
}

// NewChat returns a minimal empty ChatState.
func NewChat(uri string) protocol.ChatState { return newChat(uri) }

// ---- test controls ----

// SetState seeds (or replaces) a channel's state without telling clients.
func (h *Host) SetState(channel string, st protocol.SnapshotStateVariant) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.states[channel] = st
}

// State returns the host's state of channel.
func (h *Host) State(channel string) (protocol.SnapshotStateVariant, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	st, ok := h.states[channel]
	return st, ok
}

// AddSession adds a summary to the session list (no notification).
func (h *Host) AddSession(s protocol.SessionSummary) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.sessions = append(h.sessions, s)
}

// Inject applies a host-originated action (no origin) and broadcasts it.
func (h *Host) Inject(channel string, action protocol.StateAction) protocol.ActionEnvelope {
	return h.inject(channel, action, nil)
}

// InjectFrom applies an action as if another client dispatched it.
func (h *Host) InjectFrom(clientID string, clientSeq int64, channel string, action protocol.StateAction) protocol.ActionEnvelope {
	return h.inject(channel, action, &protocol.ActionOrigin{ClientID: clientID, ClientSeq: clientSeq})
}

func (h *Host) inject(channel string, action protocol.StateAction, origin *protocol.ActionOrigin) protocol.ActionEnvelope {
	h.mu.Lock()
	defer h.mu.Unlock()
	if st, ok := h.states[channel]; ok {
		h.states[channel] = protocol.Reduce(st, action, protocol.Rules{})
	}
	env := h.appendLocked(channel, action, origin, nil)
	h.broadcastLocked(env)
	return env
}

type injection struct {
	channel string
	action  protocol.StateAction
}

// InjectDuring makes the next initialize, reconnect or subscribe (method)
// apply and broadcast a host action after computing its result but before
// answering, so the action's envelope reaches the client BEFORE the result
// whose snapshot it follows — the race a client must survive.
func (h *Host) InjectDuring(method, channel string, action protocol.StateAction) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.during[method] = injection{channel, action}
}

func (h *Host) injectDuringLocked(method string) {
	in, ok := h.during[method]
	if !ok {
		return
	}
	delete(h.during, method)
	if st, ok := h.states[in.channel]; ok {
		h.states[in.channel] = protocol.Reduce(st, in.action, protocol.Rules{})
	}
	h.broadcastLocked(h.appendLocked(in.channel, in.action, nil, nil))
}

// NotifyRoot sends a protocol notification to root subscribers.
func (h *Host) NotifyRoot(method string, params any) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.notifyRootLocked(method, params)
}

// SendRaw writes frame as is to every connection: not converted, not
// checked.
func (h *Host) SendRaw(frame []byte) {
	for _, hc := range h.connList() {
		_ = hc.t.Transport.Write(context.Background(), frame)
	}
}

// CallClient sends a request to the newest connection and returns the
// client's answer (nil result discarded).
func (h *Host) CallClient(ctx context.Context, method string, params any) error {
	cs := h.connList()
	if len(cs) == 0 {
		return errors.New("testhost: no connection")
	}
	return cs[len(cs)-1].conn.Call(ctx, method, params, nil)
}

func (h *Host) connList() []*hconn {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]*hconn, 0, len(h.conns))
	for hc := range h.conns {
		out = append(out, hc)
	}
	slices.SortFunc(out, func(a, b *hconn) int { return a.id - b.id })
	return out
}

// SetVersions changes what the host accepts from the next initialize on,
// as a host upgraded or downgraded between two connections would.
func (h *Host) SetVersions(versions []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.opts.Versions = slices.Clone(versions)
}

// RefuseConnections makes new WebSocket upgrades fail (503) while on.
func (h *Host) RefuseConnections(on bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.refuse = on
}

// DropConnections closes every connection (the client sees a dropped
// transport).
func (h *Host) DropConnections() {
	for _, hc := range h.connList() {
		_ = hc.conn.Close()
	}
}

// Restart simulates a host restart: clients, the replay buffer, dedupe
// memory and the sequence counter are forgotten (states survive, as if
// persisted), and every connection drops.
func (h *Host) Restart() {
	h.mu.Lock()
	h.known = map[string]bool{}
	h.buffer = nil
	h.applied = map[originKey]protocol.ActionEnvelope{}
	h.seq = 0
	h.mu.Unlock()
	h.DropConnections()
}

// LoadLazily makes initialize answer with the root's snapshot only, as
// VS Code's agent host does after a restart: it has not loaded a session
// or chat again until a client subscribes to it.
func (h *Host) LoadLazily(on bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.lazy = on
}

// Forget makes the host answer the next reconnect of every known client
// with an error (it no longer knows them).
func (h *Host) Forget() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.known = map[string]bool{}
}

// ForceSnapshot makes reconnect answer with snapshots instead of a replay.
func (h *Host) ForceSnapshot(on bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.forceSnapshot = on
}

// SetMissing makes reconnect report channel as missing (and drop it from
// snapshot results).
func (h *Host) SetMissing(channel string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.missing[channel] = true
}

// RejectNext rejects the next dispatch of actionType with reason.
func (h *Host) RejectNext(actionType, reason string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.rejectNext[actionType] = reason
}

// FailNext answers the next request for method with err.
func (h *Host) FailNext(method string, err *jsonrpc.Error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.failNext[method] = err
}

// DropDispatches makes the host ignore dispatchAction entirely (as if the
// frames were lost).
func (h *Host) DropDispatches(on bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.dropDispatch = on
}

// MuteEchoes makes the host apply dispatches but not echo them to the
// dispatching connection.
func (h *Host) MuteEchoes(on bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.muteEchoes = on
}

// HoldDispatches queues dispatches unprocessed until ReleaseDispatches.
func (h *Host) HoldDispatches() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.holding = true
}

// ReleaseDispatches processes the held dispatches in order and stops
// holding.
func (h *Host) ReleaseDispatches() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.holding = false
	held := h.held
	h.held = nil
	for _, d := range held {
		h.dispatchLocked(d.hc, d.p)
	}
}

func (h *Host) signalLocked() {
	close(h.frameSignal)
	h.frameSignal = make(chan struct{})
}

// WaitDispatched blocks until the host has handled n dispatchAction
// notifications in total (applied, rejected, held, dropped or deduped), or
// ctx ends. Unlike WaitFrames it means the host has acted on them, so a
// following DropDispatches/MuteEchoes change cannot race with them.
func (h *Host) WaitDispatched(ctx context.Context, n int) error {
	for {
		h.mu.Lock()
		done := h.dispatched >= n
		sig := h.frameSignal
		h.mu.Unlock()
		if done {
			return nil
		}
		select {
		case <-sig:
		case <-ctx.Done():
			return fmt.Errorf("testhost: waiting for %d dispatches: %w", n, ctx.Err())
		}
	}
}

// WaitFrames blocks until done(frames) is true for the inbound frames so
// far, or ctx ends. done runs without the host's lock, so it may call the
// host's methods.
func (h *Host) WaitFrames(ctx context.Context, done func([]Frame) bool) error {
	for {
		h.mu.Lock()
		frames := slices.Clone(h.frames)
		sig := h.frameSignal
		h.mu.Unlock()
		if done(frames) {
			return nil
		}
		select {
		case <-sig:
		case <-ctx.Done():
			return fmt.Errorf("testhost: waiting for frames: %w", ctx.Err())
		}
	}
}

// StallPings makes ping requests go unanswered.
func (h *Host) StallPings(on bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.stallPing = on
}

// AuthCalls returns the authenticate requests received, in order.
func (h *Host) AuthCalls() []AuthCall {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.auths)
}

// Frames returns every inbound frame, in arrival order.
func (h *Host) Frames() []Frame {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.frames)
}

// Methods lists the methods received on connection conn, in order.
func (h *Host) Methods(conn int) []string {
	var out []string
	for _, f := range h.Frames() {
		if f.Conn == conn && f.Method != "" {
			out = append(out, f.Method)
		}
	}
	return out
}

// ConnCount is the number of connections accepted so far.
func (h *Host) ConnCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.nextConn
}

// Seq is the host's current serverSeq.
func (h *Host) Seq() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.seq
}
