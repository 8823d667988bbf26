package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

// hostRequestSlots caps the host's requests the client handles at once. It
// refuses every one without waiting (answerHostRequest), so a few slots
// serve any honest host, and a flooding one costs a few goroutines, not a
// thousand.
const hostRequestSlots = 4

// connect opens a transport and runs the handshake on it. fresh selects
// initialize (first connection); otherwise reconnect is tried first and a
// host that no longer knows us (it answers reconnect with an error, e.g.
// after a restart) gets a fresh initialize with our subscriptions.
//
// ctx bounds the dial and the handshake only; the link lives until it is
// dropped or the client closes.
func (c *Client) connect(ctx context.Context, fresh bool) (*link, error) {
	hctx, cancel := context.WithTimeout(ctx, c.opts.HandshakeTimeout)
	defer cancel()
	t, err := c.opts.Dial(hctx, c.opts.URL)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", c.opts.URL, err)
	}
	lctx, lcancel := context.WithCancelCause(c.ctx)
	l := &link{ctx: lctx, cancel: lcancel, syncing: true, subscribing: map[string][]protocol.ActionEnvelope{},
		wireKnown: make(chan struct{})}
	l.conn = jsonrpc.NewConn(t, c.handler(l), jsonrpc.ConnOptions{Logger: c.log, MaxConcurrentRequests: hostRequestSlots})

	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		lcancel(ErrClientClosed)
		_ = t.Close("client closed")
		return nil, ErrClientClosed
	}
	if !fresh {
		// reconnect resumes the version negotiated before; a host that
		// refuses it is initialized afresh, which negotiates again.
		l.setWireLocked(c.wire)
	}
	c.cur = l
	c.mu.Unlock()
	l.conn.Start(lctx)

	if err := c.handshake(hctx, l, fresh); err != nil {
		c.mu.Lock()
		if c.cur == l {
			c.cur = nil
		}
		c.mu.Unlock()
		lcancel(err) // shuts the conn down without waiting for the peer
		return nil, err
	}
	c.wg.Add(1)
	go c.pinger(l)
	return l, nil
}

// handshake brings a new link to Ready: initialize or reconnect, apply the
// result, re-push tokens, re-dispatch pending actions, list sessions.
func (c *Client) handshake(ctx context.Context, l *link, fresh bool) error {
	if fresh {
		if err := c.initialize(ctx, l, []string{protocol.RootChannel}, false); err != nil {
			return err
		}
	} else if err := c.resume(ctx, l); err != nil {
		return err
	}

	// Auth is per connection: every token goes before any re-dispatched
	// action that may need it. Tokens remembered by Authenticate while this
	// handshake runs are picked up by the loop, so none is skipped.
	pushed := map[[2]string]bool{}
	for {
		c.mu.Lock()
		var todo []authToken
		for _, t := range c.tokens {
			if !pushed[tokenKey(t)] {
				todo = append(todo, t)
			}
		}
		if len(todo) == 0 {
			// Mark ready and queue every pending action in one critical
			// section, so a Dispatch racing with us is queued after them,
			// never lost.
			l.ready = true
			for _, p := range c.mirror.allPending() {
				c.outbox = append(c.outbox, outbound{link: l, p: p})
			}
			c.signal()
			c.mu.Unlock()
			break
		}
		c.mu.Unlock()
		for _, t := range todo {
			pushed[tokenKey(t)] = true
			p := t.params(c.opts.Clock())
			if err := c.callOn(ctx, l, "authenticate", p, nil); err != nil {
				if !isHostAnswer(err) {
					return err
				}
				c.mu.Lock()
				c.forgetTokenLocked(t.resource, t.token)
				c.events.push(HostErrorEvent{Err: fmt.Errorf("host refused the saved token for %s after reconnect; sign in again: %w", quoteHost(t.resource), err)})
				c.mu.Unlock()
			}
		}
	}

	sessions, truncated, err := c.listSessionsOn(ctx, l)
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case err == nil:
		c.events.push(SessionsListedEvent{Sessions: sessions, Truncated: truncated})
	case isHostAnswer(err):
		c.events.push(HostErrorEvent{Err: fmt.Errorf("could not list sessions: %w", err)})
	default:
		l.ready = false
		return err
	}
	if c.cur != l {
		return errors.New("connection replaced during handshake")
	}
	c.setStatusLocked(ConnectionEvent{Status: StatusReady, ProtocolVersion: c.protocolVersion})
	return nil
}

// tokenKey identifies a token version for the re-push loop (scopes do not
// matter: a changed token is a new push).
func tokenKey(t authToken) [2]string { return [2]string{t.resource, t.token} }

func (c *Client) forgetTokenLocked(resource, token string) {
	c.tokens = slices.DeleteFunc(c.tokens, func(t authToken) bool {
		return t.resource == resource && t.token == token
	})
}

// isHostAnswer reports whether err is the host's JSON-RPC error (the
// connection works) rather than a transport failure.
func isHostAnswer(err error) bool {
	var je *jsonrpc.Error
	return errors.As(err, &je)
}

// initialize sends initialize with subs as initialSubscriptions and replaces
// the confirmed state of every channel with the returned snapshots.
//
// resubscribe is set when the host refused reconnect (a restart): a host
// answers initialize with the channels it has loaded, and VS Code's has
// not loaded a session again until someone subscribes to it, so each
// state-bearing channel the result leaves out is subscribed explicitly
// and only one the host then refuses is dropped. Envelopes arriving
// meanwhile wait with the handshake's.
func (c *Client) initialize(ctx context.Context, l *link, subs []string, resubscribe bool) error {
	ci := c.opts.ClientInfo
	p := protocol.InitializeParams{
		ProtocolVersions:     slices.Clone(c.offered),
		ClientID:             c.opts.ClientID,
		ClientInfo:           &ci,
		InitialSubscriptions: subs,
	}
	c.mu.Lock()
	l.unsetWireLocked()
	c.mu.Unlock()
	// initialize's params are the same on every wire; its result is read
	// in the shape of the version it names.
	raw, err := encodeParams(protocol.WireUnknown, "", "initialize", p)
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	var rawRes json.RawMessage
	if err := c.callRaw(ctx, l, "initialize", raw, &rawRes); err != nil {
		return err
	}
	var named struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(rawRes, &named); err != nil {
		return fmt.Errorf("initialize: decode result: %w", err)
	}
	if !slices.Contains(c.offered, named.ProtocolVersion) {
		return fmt.Errorf("host selected AHP %s, which this client did not offer (%s): the host is not following version negotiation",
			quoteHost(named.ProtocolVersion), joinURIs(c.offered))
	}
	wire := protocol.WireOf(named.ProtocolVersion)
	var res protocol.InitializeResult
	if err := decodeResult(wire, "initialize", rawRes, &res); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	c.mu.Lock()
	locked := true
	defer func() {
		if locked {
			c.mu.Unlock()
		}
	}()
	c.protocolVersion = res.ProtocolVersion
	c.wire = wire
	c.mirror.rules = protocol.RulesFor(wire, c.opts.Clock)
	l.setWireLocked(wire)
	c.serverInfo = res.ServerInfo
	// A fresh handshake restarts the host's numbering as far as we know
	// (a restarted host counts from scratch).
	c.lastSeen = res.ServerSeq
	missing := c.installSnapshotsLocked(res.Snapshots, subs, !resubscribe, "the host no longer has it")
	if len(missing) > 0 {
		c.mu.Unlock()
		locked = false
		err := c.resubscribe(ctx, l, missing)
		c.mu.Lock()
		locked = true
		if err != nil {
			return err
		}
	}
	c.flushHeldLocked(l)
	return nil
}

// resubscribe subscribes l to each channel in missing, which the mirror
// still holds from before a host restart: the fresh snapshot replaces the
// old state; a channel the host refuses (or sends no state for) is dropped.
func (c *Client) resubscribe(ctx context.Context, l *link, missing []string) error {
	for _, ch := range missing {
		var res protocol.SubscribeResult
		err := c.callOn(ctx, l, "subscribe", protocol.SubscribeParams{Channel: ch}, &res)
		if err != nil && !isHostAnswer(err) {
			return err
		}
		c.mu.Lock()
		switch {
		case err != nil:
			c.dropChannelLocked(ch, "the host no longer has it after restarting: "+err.Error())
		case res.Snapshot == nil || res.Snapshot.State.Variant == nil:
			c.dropChannelLocked(ch, "the host sent no state for it after restarting")
		default:
			c.mirror.setSnapshot(ch, res.Snapshot.State.Variant, res.Snapshot.FromSeq)
			c.events.push(ChannelStateEvent{Channel: ch})
		}
		c.mu.Unlock()
	}
	return nil
}

// resume sends reconnect and applies a replay or snapshot result, falling
// back to initialize when the host does not know us any more.
func (c *Client) resume(ctx context.Context, l *link) error {
	c.mu.Lock()
	subs := c.mirror.channelList()
	slices.Sort(subs)
	last := c.lastSeen
	c.mu.Unlock()
	if !slices.Contains(subs, protocol.RootChannel) {
		subs = append([]string{protocol.RootChannel}, subs...)
	}

	var res protocol.ReconnectResult
	err := c.callOn(ctx, l, "reconnect", protocol.ReconnectParams{
		ClientID: c.opts.ClientID, LastSeenServerSeq: last, Subscriptions: subs,
	}, &res)
	if err != nil {
		if !isHostAnswer(err) {
			return err
		}
		c.log.Info("ahp: host refused reconnect; starting a fresh session", "error", err.Error())
		return c.initialize(ctx, l, subs, true)
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	switch r := res.Variant.(type) {
	case protocol.ReconnectReplayResult:
		for _, env := range r.Actions {
			onlyDefined(c.wire, &env)
			c.applyLocked(env)
		}
		for _, ch := range r.Missing {
			c.dropChannelLocked(ch, "the host cannot resume it (disposed, or no longer permitted)")
		}
	case protocol.ReconnectSnapshotResult:
		var maxSeq int64 = -1
		for _, s := range r.Snapshots {
			maxSeq = max(maxSeq, s.FromSeq)
		}
		if maxSeq >= 0 {
			// Fresh snapshots carry the host's current position.
			c.lastSeen = maxSeq
		}
		c.installSnapshotsLocked(r.Snapshots, subs, true, "the host sent no snapshot for it on reconnect")
	default:
		c.mu.Unlock()
		c.log.Warn("ahp: unknown reconnect result; starting a fresh session", "type", quoteHost(res.Kind()))
		err := c.initialize(ctx, l, subs, true)
		c.mu.Lock()
		return err
	}
	c.flushHeldLocked(l)
	return nil
}

// installSnapshotsLocked replaces confirmed states with snaps and returns
// the requested state-bearing channels it got none for, which are dropped
// when drop is set; a stateless one stays subscribed.
func (c *Client) installSnapshotsLocked(snaps []protocol.Snapshot, requested []string, drop bool, why string) (missing []string) {
	got := map[string]bool{}
	for _, s := range snaps {
		if !slices.Contains(requested, s.Resource) || s.State.Variant == nil {
			c.log.Warn("ahp: ignored snapshot for a channel not requested", "channel", quoteHost(s.Resource))
			continue
		}
		got[s.Resource] = true
		c.mirror.setSnapshot(s.Resource, s.State.Variant, s.FromSeq)
		c.events.push(ChannelStateEvent{Channel: s.Resource})
	}
	for _, ch := range requested {
		if got[ch] {
			continue
		}
		if _, stateful := c.mirror.state(ch); stateful {
			missing = append(missing, ch)
			if drop {
				c.dropChannelLocked(ch, why)
			}
		}
	}
	return missing
}

// dropChannelLocked forgets a channel the host no longer serves. Its pending
// dispatches can never be echoed now, so each is settled with an
// ActionRejectedEvent (before the ChannelDroppedEvent): otherwise the UI
// would show them as pending for good.
func (c *Client) dropChannelLocked(channel, reason string) {
	if !c.mirror.subscribed(channel) {
		return
	}
	for _, p := range c.mirror.drop(channel) {
		c.events.push(ActionRejectedEvent{
			Channel:   channel,
			Action:    p.action,
			ClientSeq: p.clientSeq,
			Reason:    "the host no longer has this channel: " + reason,
		})
	}
	c.events.push(ChannelDroppedEvent{Channel: channel, Reason: reason})
}

// flushHeldLocked applies envelopes that arrived during the handshake, after
// its result, and lets later ones through directly.
func (c *Client) flushHeldLocked(l *link) {
	held := l.held
	l.held = nil
	l.syncing = false
	l.releaseHeldLocked()
	for _, env := range held {
		c.applyLocked(env)
	}
}

// pinger keeps the link alive and drops it when the host stops answering.
func (c *Client) pinger(l *link) {
	defer c.wg.Done()
	t := time.NewTicker(c.opts.PingInterval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-l.ctx.Done():
			return
		case <-l.conn.Done():
			return
		}
		pctx, cancel := context.WithTimeout(l.ctx, c.opts.PingTimeout)
		err := c.callOn(pctx, l, "ping", protocol.PingParams{}, nil)
		cancel()
		if err != nil && !isHostAnswer(err) && l.ctx.Err() == nil {
			l.drop(fmt.Errorf("host did not answer ping within %s: %w", c.opts.PingTimeout, err))
			return
		}
	}
}

// supervise waits for the current link to end and reconnects.
func (c *Client) supervise(l *link) {
	defer c.wg.Done()
	for {
		select {
		case <-l.conn.Done():
		case <-l.ctx.Done():
		case <-c.ctx.Done():
			return
		}
		// No conn.Close here: the link's cancelled context (or the conn's
		// own failure) is already shutting it down, and Close would wait
		// for a dead peer's close handshake before we could reconnect.
		cause := l.cause()
		// The link is over, however it ended: its context leaves the
		// client's, or every reconnect of a long day left one behind.
		l.drop(cause)
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			return
		}
		if c.cur == l {
			c.cur = nil
		}
		c.outbox = nil // re-dispatched from the mirror after the handshake
		if errors.Is(cause, jsonrpc.ErrFrameTooBig) {
			// The wrapped error names the limit that was hit (the byte
			// limit, or the array-element limit of a frame well inside it),
			// so it is the message; naming the byte limit here would
			// mislead whoever has to raise the right one.
			cause = fmt.Errorf("host sent a frame the client refuses to read, reconnecting: %w", cause)
			c.events.push(HostErrorEvent{Err: cause})
		}
		c.mu.Unlock()

		for {
			nl, err := c.reconnectLoop(cause)
			if err == nil {
				l = nl
				break
			}
			if errors.Is(err, ErrClientClosed) {
				return
			}
			c.mu.Lock()
			if c.closed {
				c.mu.Unlock()
				return
			}
			c.setStatusLocked(ConnectionEvent{Status: StatusFailed, Cause: err})
			c.mu.Unlock()
			select {
			case <-c.kick:
				cause = errors.New("reconnect requested")
			case <-c.ctx.Done():
				return
			}
		}
	}
}

// reconnectLoop retries with jittered exponential backoff until a handshake
// succeeds, the client closes, or GiveUpAfter passes.
func (c *Client) reconnectLoop(cause error) (*link, error) {
	start := time.Now()
	for attempt := 1; ; attempt++ {
		elapsed := time.Since(start)
		if elapsed >= c.opts.GiveUpAfter {
			return nil, fmt.Errorf("gave up reconnecting to %s after %s (%d attempts): %w",
				c.opts.URL, elapsed.Round(time.Millisecond), attempt-1, cause)
		}
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			return nil, ErrClientClosed
		}
		c.setStatusLocked(ConnectionEvent{Status: StatusReconnecting, Attempt: attempt, Cause: cause})
		c.mu.Unlock()

		wait := min(c.backoff(attempt), c.opts.GiveUpAfter-elapsed)
		timer := time.NewTimer(wait)
		select {
		case <-timer.C:
		case <-c.kick:
			timer.Stop()
		case <-c.ctx.Done():
			timer.Stop()
			return nil, ErrClientClosed
		}
		// The attempt's dial and handshake may not outlive the give-up
		// budget: a host that accepts the socket and then stalls would
		// otherwise hold the loop for the whole handshake timeout past it.
		actx, cancel := context.WithDeadline(c.ctx, start.Add(c.opts.GiveUpAfter))
		l, err := c.connect(actx, false)
		cancel()
		if err == nil {
			return l, nil
		}
		if errors.Is(err, ErrClientClosed) || c.ctx.Err() != nil {
			return nil, ErrClientClosed
		}
		var uv *UnsupportedProtocolVersionError
		if errors.As(err, &uv) {
			// Retrying cannot help: the host changed versions under us.
			return nil, err
		}
		c.log.Info("ahp: reconnect attempt failed", "attempt", attempt, "error", err.Error())
		cause = err
	}
}

// backoff is the wait before attempt n: ReconnectInitial doubling up to
// ReconnectMax, with jitter in [d/2, d] so many clients of a restarted host
// do not reconnect in lockstep.
func (c *Client) backoff(attempt int) time.Duration {
	d := c.opts.ReconnectInitial
	for i := 1; i < attempt && d < c.opts.ReconnectMax; i++ {
		d *= 2
	}
	d = min(d, c.opts.ReconnectMax)
	half := d / 2
	return half + rand.N(half+1)
}
