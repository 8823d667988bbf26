package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

// decodedWires are the wires this build speaks: 1.0 natively, 0.8, 0.7 and 0.6 through
// the conversion at the link (wire.go).
var decodedWires = []protocol.Wire{protocol.Wire10, protocol.Wire08, protocol.Wire07, protocol.Wire06}

// SupportedProtocolVersions are the AHP versions this client implements,
// most preferred first, as offered in initialize.
var SupportedProtocolVersions = protocol.ProtocolVersionsFor(decodedWires...)

// Defaults for zero Options fields.
const (
	DefaultPingInterval     = 15 * time.Second
	DefaultPingTimeout      = 10 * time.Second
	DefaultReconnectInitial = 250 * time.Millisecond
	DefaultReconnectMax     = 10 * time.Second
	DefaultGiveUpAfter      = 2 * time.Minute
	// handshakeTimeout bounds dial + initialize/reconnect + resync of one
	// attempt, so a host that accepts the socket and then stalls cannot
	// stall the reconnect loop.
	handshakeTimeout = 30 * time.Second
	// maxSessionPages bounds listSessions paging against a host whose
	// cursors never end.
	maxSessionPages = 1000
)

// maxListedSessions and maxListedSessionBytes bound the whole session list
// across pages, like the event queue's byte cap: pages of 16 MiB with
// fresh cursors grew the heap to gigabytes within one handshake, on every
// reconnect. Past either cap the list keeps what fits and is reported
// truncated. The byte cap counts the host's JSON. Variables only so a
// test can lower them; nothing else writes them.
var (
	maxListedSessions     = 10000
	maxListedSessionBytes = 16 << 20
)

// Options configures Dial. Zero durations take the Default* values.
type Options struct {
	URL        string                  // ws://... or wss://...
	ClientID   string                  // stable per installation; see ClaimClientID
	ClientInfo protocol.Implementation // {Name:"ahptui", Version:...}
	// Clock is read for the 0.6 wire's optimistic reductions (chat
	// modifiedAt) and for a token's remaining lifetime (expiresIn); default
	// time.Now.
	Clock protocol.Clock
	// Dial opens the transport; default is a WebSocket (jsonrpc.Dial) with
	// MaxFrameBytes as its read limit. A custom Dial enforces its own limit.
	Dial func(ctx context.Context, url string) (jsonrpc.Transport, error)

	PingInterval time.Duration // keep-alive period
	PingTimeout  time.Duration // a ping unanswered this long drops the connection

	ReconnectInitial time.Duration // first backoff (jittered, doubling)
	ReconnectMax     time.Duration // backoff cap
	// GiveUpAfter bounds the total time spent reconnecting, including the
	// dial and handshake of the attempt in flight (each attempt's handshake
	// timeout is cut to what is left of it); then the client reports
	// StatusFailed and waits for Reconnect.
	GiveUpAfter time.Duration
	// HandshakeTimeout bounds one attempt's dial and handshake; 0 means
	// 30s. ahptui sets 10s so a host that never answers is reported soon.
	HandshakeTimeout time.Duration

	MaxFrameBytes int64        // inbound frame limit; 0 = jsonrpc.DefaultReadLimit
	Logger        *slog.Logger // never logs tokens or frame bodies; nil discards
}

func (o Options) withDefaults() Options {
	if o.Clock == nil {
		o.Clock = time.Now
	}
	if o.PingInterval <= 0 {
		o.PingInterval = DefaultPingInterval
	}
	if o.PingTimeout <= 0 {
		o.PingTimeout = DefaultPingTimeout
	}
	if o.ReconnectInitial <= 0 {
		o.ReconnectInitial = DefaultReconnectInitial
	}
	if o.ReconnectMax <= 0 {
		o.ReconnectMax = DefaultReconnectMax
	}
	if o.ReconnectMax < o.ReconnectInitial {
		o.ReconnectMax = o.ReconnectInitial
	}
	if o.GiveUpAfter <= 0 {
		o.GiveUpAfter = DefaultGiveUpAfter
	}
	if o.HandshakeTimeout <= 0 {
		o.HandshakeTimeout = handshakeTimeout
	}
	if o.MaxFrameBytes <= 0 {
		o.MaxFrameBytes = jsonrpc.DefaultReadLimit
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Dial == nil {
		limit := o.MaxFrameBytes
		o.Dial = func(ctx context.Context, url string) (jsonrpc.Transport, error) {
			return jsonrpc.Dial(ctx, url, jsonrpc.DialOptions{ReadLimit: limit})
		}
	}
	return o
}

// Client is a connection to one AHP host plus the mirror of the channels it
// subscribes to. It is safe for concurrent use.
//
// Dispatched actions carry a clientSeq that is unique for this clientId
// across process restarts (it starts at the wall clock in microseconds), so
// a host can dedupe by (clientId, clientSeq). After a reconnect every action
// the host has not echoed is re-dispatched with its ORIGINAL clientSeq: a
// host that already applied it (which the client cannot know after a
// snapshot reconnect) is expected to dedupe, not apply it twice, and to
// answer the duplicate with an echo to this client carrying the original
// serverSeq; the mirror recognises an own echo at or below the snapshot's
// fromSeq as "already included" and just drops the pending action.
type Client struct {
	opts    Options
	log     *slog.Logger
	offered []string
	events  *eventQueue
	ctx     context.Context
	cancel  context.CancelFunc
	kick    chan struct{} // Reconnect(): skip backoff / leave Failed
	wake    chan struct{} // outbox has work
	wg      sync.WaitGroup

	mu              sync.Mutex
	changed         chan struct{} // closed and replaced on every status change
	closed          bool
	cur             *link // current transport connection, nil while down
	status          ConnStatus
	protocolVersion string
	wire            protocol.Wire
	serverInfo      *protocol.Implementation
	mirror          *mirror
	lastSeen        int64 // highest serverSeq applied (global across channels)
	nextSeq         int64
	tokens          []authToken
	outbox          []outbound
}

// authToken is a token pushed with authenticate, kept to re-push after a
// reconnect (auth is per connection). Never logged.
type authToken struct {
	resource string
	token    string
	scopes   []string
	expiry   time.Time // zero: lifetime unknown
}

// params is the authenticate command for t at now. expiresIn (1.0) is the
// remaining lifetime in whole seconds, at least 1, and absent when unknown;
// a 0.6 or 0.9 host is sent none (encodeParams drops it).
func (t authToken) params(now time.Time) protocol.AuthenticateParams {
	p := protocol.AuthenticateParams{Resource: t.resource, Token: t.token, Scopes: append([]string(nil), t.scopes...)}
	if !t.expiry.IsZero() {
		secs := int64(math.Ceil(t.expiry.Sub(now).Seconds()))
		p.ExpiresIn = &secs
		if secs < 1 {
			*p.ExpiresIn = 1
		}
	}
	return p
}

// outbound is a dispatch waiting for the sender goroutine.
type outbound struct {
	link *link
	p    pendingAction
}

// link is one transport connection and its handshake state. Fields other
// than conn/cancel are guarded by Client.mu.
type link struct {
	conn   *jsonrpc.Conn
	ctx    context.Context
	cancel context.CancelCauseFunc
	// syncing: the initialize/reconnect result is not applied yet, so
	// envelopes are held to apply after it, in order.
	syncing bool
	held    []protocol.ActionEnvelope
	// ready: handshake done; commands and dispatches may use this link.
	ready bool
	// subscribing holds envelopes for channels whose subscribe is in flight:
	// they may overtake the snapshot and must apply after it.
	subscribing map[string][]protocol.ActionEnvelope
	// heldBytes is the host payload in held and subscribing, bounded like
	// the event queue (a host can send actions without end while it holds
	// back a handshake or subscribe result).
	heldBytes int64
	// wire is the shape of this link's traffic; wireKnown is closed once
	// it is set (see wire.go).
	wire      protocol.Wire
	wireKnown chan struct{}
}

// releaseHeldLocked forgets the held bytes once nothing is held any more
// (Client.mu held): they count what waits, not what a link ever held.
func (l *link) releaseHeldLocked() {
	if !l.syncing && len(l.subscribing) == 0 {
		l.heldBytes = 0
	}
}

// drop ends the link, recording why for the reconnect loop.
func (l *link) drop(cause error) { l.cancel(cause) }

// cause says why the link ended.
func (l *link) cause() error {
	if err := context.Cause(l.ctx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	if err := l.conn.Err(); err != nil {
		return err
	}
	return errors.New("connection closed")
}

// Dial connects, initializes (subscribing to ahp-root://) and lists
// sessions, then keeps the connection alive and reconnects on its own. A
// host error comes back typed (see errors.go), e.g.
// *UnsupportedProtocolVersionError. Dial does not retry a failed first
// connection: the caller decides (it usually reports the error and exits).
func Dial(ctx context.Context, opts Options) (*Client, error) {
	if opts.URL == "" {
		return nil, errors.New("ahp: no host URL: pass ws://host:port or wss://host:port")
	}
	if !validClientID(opts.ClientID) {
		return nil, errors.New("ahp: no valid client id: use LoadOrCreateClientID")
	}
	opts = opts.withDefaults()
	if opts.ClientInfo.Name == "" {
		opts.ClientInfo.Name = "ahptui"
	}
	lctx, cancel := context.WithCancel(context.Background())
	c := &Client{
		opts:    opts,
		log:     opts.Logger,
		offered: append([]string(nil), SupportedProtocolVersions...),
		events:  newEventQueue(),
		ctx:     lctx,
		cancel:  cancel,
		kick:    make(chan struct{}, 1),
		wake:    make(chan struct{}, 1),
		mirror:  newMirror(opts.Clock),
		nextSeq: time.Now().UnixMicro(),
		status:  StatusConnecting,
		changed: make(chan struct{}),
	}
	c.events.push(ConnectionEvent{Status: StatusConnecting})
	l, err := c.connect(ctx, true)
	if err != nil {
		c.cancel()
		c.events.abandon()
		return nil, err
	}
	c.wg.Add(2)
	go c.sender()
	go c.supervise(l)
	return c, nil
}

// Events returns the client's event stream, in order and never dropped
// while the client is open; it is closed after Close.
func (c *Client) Events() <-chan Event { return c.events.out }

// ProtocolVersion is the version the host selected.
func (c *Client) ProtocolVersion() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.protocolVersion
}

// Wire is the wire the negotiated version implies: what a caller that
// cares about version differences (which actions exist, which fields are
// sent) switches on, rather than on the version string.
func (c *Client) Wire() protocol.Wire {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.wire
}

// ServerInfo is the host's implementation identity, if it sent one (host
// text: sanitize before display).
func (c *Client) ServerInfo() *protocol.Implementation {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.serverInfo == nil {
		return nil
	}
	si := *c.serverInfo
	return &si
}

// Status is the current connection status.
func (c *Client) Status() ConnStatus {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.status
}

// ClientID is the clientId sent to the host.
func (c *Client) ClientID() string { return c.opts.ClientID }

// readyLink returns the link commands may use. While the client is
// connecting or reconnecting it waits (bounded by ctx) for the handshake to
// finish, so a command issued during a short outage just completes late;
// after StatusFailed it fails at once with ErrNotConnected.
func (c *Client) readyLink(ctx context.Context) (*link, error) {
	for {
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			return nil, ErrClientClosed
		}
		if c.cur != nil && c.cur.ready {
			l := c.cur
			c.mu.Unlock()
			return l, nil
		}
		if c.status == StatusFailed {
			c.mu.Unlock()
			return nil, ErrNotConnected
		}
		changed := c.changed
		c.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, fmt.Errorf("%w: %w", ErrNotConnected, context.Cause(ctx))
		case <-c.ctx.Done():
			return nil, ErrClientClosed
		}
	}
}

// call runs a command on the current connection, typing host errors.
func (c *Client) call(ctx context.Context, method string, params, result any) error {
	l, err := c.readyLink(ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return c.callOn(ctx, l, method, params, result)
}

// callOn runs a command on l in l's wire: params are converted down and
// the result up on the 0.6 wire.
func (c *Client) callOn(ctx context.Context, l *link, method string, params, result any) error {
	w := c.linkWire(l)
	raw, err := encodeParams(w, c.ProtocolVersion(), method, params)
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	var res json.RawMessage
	if err := c.callRaw(ctx, l, method, raw, &res); err != nil {
		return err
	}
	if result == nil {
		return nil
	}
	if err := decodeResult(w, method, res, result); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

// callRaw runs a command with params and result as they are on the wire.
func (c *Client) callRaw(ctx context.Context, l *link, method string, params json.RawMessage, result *json.RawMessage) error {
	if err := l.conn.Call(ctx, method, params, result); err != nil {
		return fmt.Errorf("%s: %w", method, asHostError(err, c.offered))
	}
	return nil
}

// notifyOn sends a notification on l in l's wire.
func (c *Client) notifyOn(ctx context.Context, l *link, method string, params any) error {
	raw, err := encodeParams(c.linkWire(l), c.ProtocolVersion(), method, params)
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return l.conn.Notify(ctx, method, raw)
}

// Subscribe adds channel to the mirror. For a state-bearing channel the
// snapshot is in the mirror (and a ChannelStateEvent queued) when it
// returns. Subscribing twice is a no-op.
func (c *Client) Subscribe(ctx context.Context, channel string) error {
	if protocol.ChannelKind(channel) == "" {
		return fmt.Errorf("subscribe %s: not a channel URI this client understands", quoteHost(channel))
	}
	l, err := c.readyLink(ctx)
	if err != nil {
		return fmt.Errorf("subscribe %s: %w", channel, err)
	}
	c.mu.Lock()
	if c.mirror.subscribed(channel) {
		c.mu.Unlock()
		return nil
	}
	if c.cur != l {
		c.mu.Unlock()
		return fmt.Errorf("subscribe %s: connection dropped, retry: %w", channel, ErrNotConnected)
	}
	if _, busy := l.subscribing[channel]; busy {
		c.mu.Unlock()
		return fmt.Errorf("subscribe %s: already in progress", channel)
	}
	l.subscribing[channel] = []protocol.ActionEnvelope{}
	c.mu.Unlock()

	var res protocol.SubscribeResult
	err = c.callOn(ctx, l, "subscribe", protocol.SubscribeParams{Channel: channel}, &res)

	c.mu.Lock()
	defer c.mu.Unlock()
	buf := l.subscribing[channel]
	delete(l.subscribing, channel)
	l.releaseHeldLocked()
	if err != nil {
		if errors.Is(err, jsonrpc.ErrClosed) && !c.closed {
			// The link dropped under the call: the client reconnects, so
			// this is the same "retry" as a drop after the answer.
			return fmt.Errorf("subscribe %s: connection dropped, retry: %w (%w)", channel, ErrNotConnected, err)
		}
		return err
	}
	if c.cur != l || c.closed {
		// The connection dropped mid-subscribe: the new one does not know
		// about this channel.
		return fmt.Errorf("subscribe %s: connection dropped, retry: %w", channel, ErrNotConnected)
	}
	if res.Snapshot == nil {
		c.mirror.addStateless(channel)
		return nil
	}
	if res.Snapshot.Resource != channel {
		c.log.Warn("ahp: subscribe snapshot names another resource; using the requested channel", "channel", channel)
	}
	st := res.Snapshot.State.Variant
	if st == nil {
		return fmt.Errorf("subscribe %s: host sent a snapshot without state", channel)
	}
	c.mirror.setSnapshot(channel, st, res.Snapshot.FromSeq)
	c.events.push(ChannelStateEvent{Channel: channel})
	for _, env := range buf {
		c.applyLocked(env)
	}
	return nil
}

// Unsubscribe removes channel from the mirror and tells the host. Pending
// actions on it are forgotten without an event: they were already sent, the
// host will still apply or reject them, and the caller has chosen to stop
// watching the outcome (a ChannelDroppedEvent or ActionRejectedEvent here
// would claim something the host never said).
func (c *Client) Unsubscribe(ctx context.Context, channel string) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return ErrClientClosed
	}
	known := c.mirror.subscribed(channel)
	c.mirror.drop(channel)
	l := c.cur
	c.mu.Unlock()
	if !known || l == nil || !l.ready {
		return nil
	}
	if err := c.notifyOn(ctx, l, "unsubscribe", protocol.UnsubscribeParams{Channel: channel}); err != nil {
		return fmt.Errorf("unsubscribe %s: %w", channel, err)
	}
	return nil
}

// ListSessions fetches every page of the session list, up to the caps on
// items and bytes (past them, the sessions that fit; the handshake's
// SessionsListedEvent says when the list was truncated).
func (c *Client) ListSessions(ctx context.Context) ([]protocol.SessionSummary, error) {
	l, err := c.readyLink(ctx)
	if err != nil {
		return nil, fmt.Errorf("listSessions: %w", err)
	}
	sessions, _, err := c.listSessionsOn(ctx, l)
	return sessions, err
}

func (c *Client) listSessionsOn(ctx context.Context, l *link) ([]protocol.SessionSummary, bool, error) {
	out := []protocol.SessionSummary{}
	var cursor *string
	seen := map[string]bool{}
	size := 0
	w := c.linkWire(l)
	for range maxSessionPages {
		raw, err := encodeParams(w, c.ProtocolVersion(), "listSessions", protocol.ListSessionsParams{Cursor: cursor})
		if err != nil {
			return nil, false, fmt.Errorf("listSessions: %w", err)
		}
		var page json.RawMessage
		if err := c.callRaw(ctx, l, "listSessions", raw, &page); err != nil {
			return nil, false, err
		}
		var res protocol.ListSessionsResult
		if err := decodeResult(w, "listSessions", page, &res); err != nil {
			return nil, false, fmt.Errorf("listSessions: %w", err)
		}
		if size+len(page) > maxListedSessionBytes || len(out)+len(res.Items) > maxListedSessions {
			out = appendWhatFits(out, res.Items, size)
			c.log.Warn("ahp: the session list is longer than ahptui keeps; it is truncated",
				"sessions", len(out), "max_sessions", maxListedSessions, "max_bytes", maxListedSessionBytes)
			return out, true, nil
		}
		size += len(page)
		out = append(out, res.Items...)
		if res.NextCursor == nil || *res.NextCursor == "" || seen[*res.NextCursor] {
			return out, false, nil
		}
		seen[*res.NextCursor] = true
		cursor = res.NextCursor
	}
	c.log.Warn("ahp: listSessions paging stopped at the page limit", "pages", maxSessionPages)
	return out, true, nil
}

// appendWhatFits adds items to out, one at a time, while the list stays
// within both caps; size is the bytes out already holds. An item's size is
// its JSON, which is what the page spent on it.
func appendWhatFits(out, items []protocol.SessionSummary, size int) []protocol.SessionSummary {
	for _, it := range items {
		if len(out) >= maxListedSessions {
			break
		}
		b, err := json.Marshal(it)
		if err != nil || size+len(b) > maxListedSessionBytes {
			break
		}
		size += len(b)
		out = append(out, it)
	}
	return out
}

// CreateSession asks the host to create a session (p.Channel is the new
// session's URI, chosen by the client). The host announces it with
// root/sessionAdded.
func (c *Client) CreateSession(ctx context.Context, p protocol.CreateSessionParams) error {
	return c.call(ctx, "createSession", p, nil)
}

// ResolveSessionConfig asks the host which settings a new session takes,
// given the values chosen so far; the answer's values hold the host's
// defaults and go in createSession's config.
func (c *Client) ResolveSessionConfig(ctx context.Context, p protocol.ResolveSessionConfigParams) (protocol.ResolveSessionConfigResult, error) {
	var res protocol.ResolveSessionConfigResult
	err := c.call(ctx, "resolveSessionConfig", p, &res)
	return res, err
}

// SessionConfigCompletions asks the host for the values of a session
// setting the schema marks enumDynamic that match p.Query (empty: the
// host's default or recent ones). Every AHP version ahptui speaks defines
// the command; a host that lacks it answers method-not-found.
func (c *Client) SessionConfigCompletions(ctx context.Context, p protocol.SessionConfigCompletionsParams) (protocol.SessionConfigCompletionsResult, error) {
	var res protocol.SessionConfigCompletionsResult
	err := c.call(ctx, "sessionConfigCompletions", p, &res)
	return res, err
}

// DisposeSession asks the host to dispose a session.
func (c *Client) DisposeSession(ctx context.Context, session string) error {
	return c.call(ctx, "disposeSession", protocol.DisposeSessionParams{Channel: session}, nil)
}

// CreateChat asks the host to create a chat in a session.
func (c *Client) CreateChat(ctx context.Context, p protocol.CreateChatParams) error {
	return c.call(ctx, "createChat", p, nil)
}

// FetchTurns asks the host to page older turns into a chat; they arrive as
// a chat/turnsLoaded action before the result.
func (c *Client) FetchTurns(ctx context.Context, p protocol.FetchTurnsParams) (protocol.FetchTurnsResult, error) {
	var res protocol.FetchTurnsResult
	err := c.call(ctx, "fetchTurns", p, &res)
	return res, err
}

// Authenticate pushes a bearer token for a protected resource. A token the
// host does not refuse is remembered and pushed again after every
// reconnect, before pending actions are re-dispatched (auth is per
// connection); a token the host refuses is returned as a typed error and
// forgotten. While the client is reconnecting the token is only remembered
// (nil is returned) and goes out with the next handshake; a refusal then is
// reported as a HostErrorEvent.
//
// expiry is when the token stops being valid (zero when unknown); a 1.0 host
// is told the remaining lifetime as expiresIn on every push.
func (c *Client) Authenticate(ctx context.Context, resource, token string, scopes []string, expiry time.Time) error {
	if resource == "" {
		return errors.New("authenticate: resource is required")
	}
	if token == "" {
		return c.revokeToken(ctx, resource)
	}
	tok := authToken{resource: resource, token: token, scopes: append([]string(nil), scopes...), expiry: expiry}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return ErrClientClosed
	}
	l := c.cur
	if l == nil || !l.ready {
		c.rememberTokenLocked(tok)
		c.mu.Unlock()
		return nil
	}
	c.mu.Unlock()
	if err := c.callOn(ctx, l, "authenticate", tok.params(c.opts.Clock()), nil); err != nil {
		if !isHostAnswer(err) {
			// The connection dropped (or ctx ended) before the host
			// answered: keep the token so the next handshake pushes it.
			c.mu.Lock()
			c.rememberTokenLocked(tok)
			c.mu.Unlock()
		}
		return err
	}
	c.mu.Lock()
	c.rememberTokenLocked(tok)
	c.mu.Unlock()
	return nil
}

// ForgetToken drops the token remembered for resource, so no later
// handshake pushes it again; the host keeps what it was already given on
// this connection (see Authenticate with an empty token for a 1.0 host).
func (c *Client) ForgetToken(resource string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tokens = slices.DeleteFunc(c.tokens, func(t authToken) bool { return t.resource == resource })
}

// revokeToken is Authenticate with an empty token: AHP 1.0 defines it as
// revoking the resource's authentication on the host. The remembered
// token is dropped first, whatever the host answers, so a reconnect never
// pushes a token the user asked to forget. Only the 1.0 wire defines the
// empty token; on 0.6 nothing is sent.
func (c *Client) revokeToken(ctx context.Context, resource string) error {
	c.ForgetToken(resource)
	c.mu.Lock()
	l := c.cur
	ready := l != nil && l.ready
	c.mu.Unlock()
	if !ready {
		return nil // the next handshake has nothing to push
	}
	if protocol.WireOf(c.ProtocolVersion()) != protocol.Wire10 {
		return fmt.Errorf("authenticate: AHP %s cannot revoke a token on the host", c.ProtocolVersion())
	}
	return c.callOn(ctx, l, "authenticate", protocol.AuthenticateParams{Resource: resource, Token: ""}, nil)
}

func (c *Client) rememberTokenLocked(t authToken) {
	for i := range c.tokens {
		if c.tokens[i].resource == t.resource {
			c.tokens[i] = t
			return
		}
	}
	c.tokens = append(c.tokens, t)
}

// Dispatch applies action to channel's optimistic state at once (queuing a
// ChannelStateEvent) and sends it to the host without waiting (dispatchAction
// is a notification). The host's echo confirms it; a rejection rolls it back
// and queues an ActionRejectedEvent. While reconnecting, the action waits and
// is sent after the handshake. It fails only if the channel has no state in
// the mirror (subscribe first) or the client is closed.
func (c *Client) Dispatch(channel string, action protocol.StateAction) (clientSeq int64, err error) {
	if action.Variant == nil {
		return 0, errors.New("dispatch: empty action")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return 0, ErrClientClosed
	}
	if err := checkSendable(c.wire, c.protocolVersion, action); err != nil {
		return 0, fmt.Errorf("dispatch %s: %w", action.Kind(), err)
	}
	p := pendingAction{channel: channel, clientSeq: c.nextSeq, action: action}
	if !c.mirror.applyLocal(p) {
		return 0, fmt.Errorf("dispatch %s to %s: channel is not subscribed (or has no state): subscribe first", action.Kind(), quoteHost(channel))
	}
	c.nextSeq++
	c.events.push(ChannelStateEvent{Channel: channel})
	if c.cur != nil && c.cur.ready {
		c.outbox = append(c.outbox, outbound{link: c.cur, p: p})
		c.signal()
	}
	return p.clientSeq, nil
}

func (c *Client) signal() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// sender writes queued dispatches in order, off the caller's goroutine. A
// dispatch meant for a link that is gone is skipped: the reconnect
// re-dispatches every pending action.
func (c *Client) sender() {
	defer c.wg.Done()
	for {
		select {
		case <-c.wake:
		case <-c.ctx.Done():
			return
		}
		for {
			c.mu.Lock()
			if len(c.outbox) == 0 {
				c.mu.Unlock()
				break
			}
			o := c.outbox[0]
			c.outbox[0] = outbound{}
			c.outbox = c.outbox[1:]
			live := o.link == c.cur && o.link.ready
			c.mu.Unlock()
			if !live {
				continue
			}
			params, err := encodeParams(c.linkWire(o.link), c.ProtocolVersion(), "dispatchAction", protocol.DispatchActionParams{
				Channel: o.p.channel, ClientSeq: o.p.clientSeq, Action: o.p.action,
			})
			if err != nil {
				// Dispatch checked the wire it knew; a reconnect may have
				// landed on a host speaking an older one.
				c.settleUnsendable(o.p, err)
				continue
			}
			if err := o.link.conn.Notify(c.ctx, "dispatchAction", params); err != nil {
				c.log.Info("ahp: dispatch not sent; it is re-sent after reconnect", "clientSeq", o.p.clientSeq, "error", err.Error())
			}
		}
	}
}

// settleUnsendable rolls back a pending action the link's wire cannot
// carry, as if the host had rejected it: it would otherwise wait for an
// echo that never comes.
func (c *Client) settleUnsendable(p pendingAction, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.mirror.removePending(p.channel, p.clientSeq) {
		return
	}
	c.events.push(ChannelStateEvent{Channel: p.channel})
	c.events.push(ActionRejectedEvent{Channel: p.channel, Action: p.action, ClientSeq: p.clientSeq,
		Reason: "not sent: " + err.Error()})
}

// Reconnect drops the transport and takes the normal reconnect path; after
// StatusFailed it starts reconnecting again.
func (c *Client) Reconnect() {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	l := c.cur
	c.mu.Unlock()
	if l != nil {
		l.drop(errors.New("reconnect requested"))
	}
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

// Root returns the optimistic root state.
func (c *Client) Root() (protocol.RootState, bool) {
	s, ok := c.State(protocol.RootChannel)
	r, isRoot := s.(protocol.RootState)
	return r, ok && isRoot
}

// Session returns the optimistic state of a session channel.
func (c *Client) Session(uri string) (protocol.SessionState, bool) {
	s, ok := c.State(uri)
	r, isSession := s.(protocol.SessionState)
	return r, ok && isSession
}

// Chat returns the optimistic state of a chat channel.
func (c *Client) Chat(uri string) (protocol.ChatState, bool) {
	s, ok := c.State(uri)
	r, isChat := s.(protocol.ChatState)
	return r, ok && isChat
}

// Terminal returns a subscribed terminal's current state.
func (c *Client) Terminal(uri string) (protocol.TerminalState, bool) {
	s, ok := c.State(uri)
	r, isTerm := s.(protocol.TerminalState)
	return r, ok && isTerm
}

// State returns the optimistic state of any subscribed channel: a
// RootState, SessionState, ChatState, TerminalState, ChangesetState,
// AnnotationsState, ResourceWatchState or UnknownSnapshotState. It is an
// immutable snapshot: never modify it (slices and maps included).
func (c *Client) State(channel string) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.mirror.state(channel)
	if !ok {
		return nil, false
	}
	return s, true
}

// Channels lists the subscribed channels (order unspecified).
func (c *Client) Channels() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.mirror.channelList()
}

// PendingCount is the number of actions dispatched to channel that the
// host has not echoed yet (e.g. for an "unsynced" marker).
func (c *Client) PendingCount(channel string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ch, ok := c.mirror.channels[channel]; ok {
		return len(ch.pending)
	}
	return 0
}

// LastSeenServerSeq is the highest serverSeq applied; reconnect resumes
// from it.
func (c *Client) LastSeenServerSeq() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lastSeen
}

// Close ends the client: it closes the connection, stops reconnecting and
// closes the Events channel (undelivered events are discarded).
func (c *Client) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.status = StatusFailed
	l := c.cur
	c.cur = nil
	c.mu.Unlock()
	c.cancel()
	if l != nil {
		_ = l.conn.Close()
	}
	c.wg.Wait()
	c.events.abandon()
	return nil
}

// ---- inbound traffic ----

// handler answers one link's requests and notifications.
func (c *Client) handler(l *link) jsonrpc.Handler {
	return jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		if req.IsNotification() {
			c.onNotification(l, req)
			return nil, nil
		}
		return nil, answerHostRequest(req.Method)
	})
}

// answerHostRequest refuses every host → client request: ahptui publishes
// no client-side resources and never lets the host read local files, but
// every request is answered so the host is never left waiting.
func answerHostRequest(method string) error {
	switch method {
	case "resourceRead", "resourceWrite", "resourceList", "resourceCopy", "resourceDelete",
		"resourceMove", "resourceResolve", "resourceMkdir", "resourceRequest", "createResourceWatch":
		return jsonrpc.NewError(jsonrpc.PermissionDenied, "ahptui serves no client-side resources")
	}
	return jsonrpc.ErrMethodNotFound
}

// readNotifications are the notifications onNotification turns into
// events; every other one is ignored before it is converted or decoded.
var readNotifications = map[string]bool{
	"action": true, "root/sessionAdded": true, "root/sessionRemoved": true,
	"root/sessionSummaryChanged": true, "auth/required": true,
}

func (c *Client) onNotification(l *link, req *jsonrpc.Request) {
	w, ok := c.awaitWire(l)
	if !ok {
		return
	}
	if !readNotifications[req.Method] {
		// Not one this client reads (an x- extension's, a later
		// version's, progress): nothing to convert or decode.
		c.log.Debug("ahp: ignored notification", "method", quoteHost(req.Method))
		return
	}
	params, err := upParams(w, req.Method, req.Params)
	if err != nil {
		if req.Method == "action" {
			c.badEnvelope(l, req.Params, err)
			return
		}
		c.badNotification(l, req, err)
		return
	}
	switch req.Method {
	case "action":
		var env protocol.ActionEnvelope
		if err := json.Unmarshal(params, &env); err != nil {
			c.badEnvelope(l, params, err)
			return
		}
		onlyDefined(w, &env)
		c.onEnvelope(l, env, len(params))
	case "root/sessionAdded":
		var p protocol.SessionAddedParams
		if c.decodeNotification(l, req, params, &p) {
			c.pushIfCurrent(l, SessionAddedEvent{Summary: p.Summary}, len(req.Params))
		}
	case "root/sessionRemoved":
		var p protocol.SessionRemovedParams
		if c.decodeNotification(l, req, params, &p) {
			c.pushIfCurrent(l, SessionRemovedEvent{Session: p.Session}, len(req.Params))
		}
	case "root/sessionSummaryChanged":
		var p protocol.SessionSummaryChangedParams
		if c.decodeNotification(l, req, params, &p) {
			c.pushIfCurrent(l, SessionSummaryChangedEvent{Session: p.Session, Changes: p.Changes}, len(req.Params))
		}
	case "auth/required":
		var p protocol.AuthRequiredParams
		if c.decodeNotification(l, req, params, &p) {
			c.pushIfCurrent(l, AuthRequiredEvent{Params: p}, len(req.Params))
		}
	}
}

// decodeNotification decodes req's params, converted to 1.0, into v.
func (c *Client) decodeNotification(l *link, req *jsonrpc.Request, params json.RawMessage, v any) bool {
	if err := json.Unmarshal(params, v); err != nil {
		c.badNotification(l, req, err)
		return false
	}
	return true
}

// badNotification reports a notification that did not convert or decode;
// it is ignored.
func (c *Client) badNotification(l *link, req *jsonrpc.Request, err error) {
	c.log.Warn("ahp: ignored malformed notification", "method", quoteHost(req.Method), "error", err.Error())
	c.pushIfCurrent(l, HostErrorEvent{Err: fmt.Errorf("host sent a malformed %s notification (ignored): %w", quoteHost(req.Method), err)}, len(req.Params))
}

func (c *Client) pushIfCurrent(l *link, e Event, size int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cur == l {
		c.pushHostLocked(l, e, size)
	}
}

// pushHostLocked queues an event the host can cause without end (its
// size is the host payload behind it). Past the queue's cap the link is
// dropped instead: the reader must not wait for the UI, memory must not
// grow with the host's sending, and the reconnect resends the state the
// refused events were about.
func (c *Client) pushHostLocked(l *link, e Event, size int) {
	if c.events.pushHost(e, size) {
		return
	}
	if l.ctx.Err() == nil {
		c.log.Warn("ahp: events are not being read; dropping the connection", "limit", maxQueuedEventBytes)
		l.drop(fmt.Errorf("%w (over %d MiB waiting)", ErrEventQueueFull, maxQueuedEventBytes>>20))
	}
}

// badEnvelope handles an action notification that does not decode: it is
// ignored, but its serverSeq (if readable) still counts as seen, or the next
// reconnect would ask for it again forever.
func (c *Client) badEnvelope(l *link, raw json.RawMessage, err error) {
	c.log.Warn("ahp: ignored malformed action envelope", "bytes", len(raw), "error", err.Error())
	var seq struct {
		ServerSeq int64 `json:"serverSeq"`
	}
	_ = json.Unmarshal(raw, &seq)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cur != l {
		return
	}
	if !l.syncing && seq.ServerSeq > c.lastSeen {
		c.lastSeen = seq.ServerSeq
	}
	c.pushHostLocked(l, HostErrorEvent{Err: fmt.Errorf("host sent an action this client cannot decode (ignored): %w", err)}, len(raw))
}

func (c *Client) onEnvelope(l *link, env protocol.ActionEnvelope, size int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cur != l {
		return
	}
	buf, subscribing := l.subscribing[env.Channel]
	if l.syncing || subscribing {
		if l.heldBytes += int64(size) + queuedEventOverhead; l.heldBytes > maxQueuedEventBytes {
			if l.ctx.Err() == nil {
				l.drop(fmt.Errorf("%w (over %d MiB of actions held during a handshake or subscribe)", ErrEventQueueFull, maxQueuedEventBytes>>20))
			}
			return
		}
	}
	switch {
	case l.syncing:
		l.held = append(l.held, env)
	case subscribing:
		l.subscribing[env.Channel] = append(buf, env)
	default:
		c.applyLocked(env)
	}
}

// applyLocked runs one envelope through reconciliation and queues the
// resulting events. c.mu must be held.
func (c *Client) applyLocked(env protocol.ActionEnvelope) {
	if env.ServerSeq > c.lastSeen {
		c.lastSeen = env.ServerSeq
	}
	out := c.mirror.applyEnvelope(env, c.opts.ClientID)
	if !out.known {
		c.log.Debug("ahp: ignored action for a channel not mirrored", "channel", quoteHost(env.Channel), "serverSeq", env.ServerSeq)
		return
	}
	if out.changed {
		c.events.push(ChannelStateEvent{Channel: env.Channel})
	}
	if out.confirmed != nil {
		c.events.push(ActionConfirmedEvent{
			Channel:   env.Channel,
			Action:    out.confirmed.action,
			ClientSeq: out.confirmed.clientSeq,
		})
	}
	if out.rejected != nil {
		c.events.push(ActionRejectedEvent{
			Channel:   env.Channel,
			Action:    out.rejected.action,
			ClientSeq: out.rejected.clientSeq,
			Reason:    out.reason,
		})
	}
}

// setStatusLocked records and announces a status change.
func (c *Client) setStatusLocked(e ConnectionEvent) {
	c.status = e.Status
	c.events.push(e)
	close(c.changed)
	c.changed = make(chan struct{})
}

func joinURIs(uris []string) string { return strings.Join(uris, ", ") }
