// Package hostilehost is a scripted, hostile AHP host for tests: a real
// WebSocket server on 127.0.0.1 that does just enough of the protocol for a
// client to connect (initialize, reconnect, subscribe, listSessions, ping)
// and lets the test send anything at all down the socket — raw bytes,
// oversize frames, deeply nested JSON, unsolicited responses, envelopes
// with duplicated serverSeq, requests for local files — and see every frame
// the client sends back.
//
// It is built on protocol/jsonrpc's transport and message decoder only, so
// package protocol's own (internal) tests can import it without a cycle:
// states and results are plain JSON.
package hostilehost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

// ProtocolVersion is what the host selects in initialize unless
// Config.ProtocolVersion says otherwise.
const ProtocolVersion = "0.6.0"

// Direction tags a frame for Config.Tap, as demohost names them.
const (
	Inbound  = "in"  // client → host
	Outbound = "out" // host → client
)

// Config scripts the host's honest part.
type Config struct {
	// States maps channel URIs to their state JSON, answered as snapshots
	// to initialize, reconnect and subscribe. A channel not in States gets
	// no snapshot. States may be swapped with Host.SetState while running.
	States map[string]json.RawMessage
	// ServerSeq is the initial serverSeq reported and used as fromSeq.
	ServerSeq int64
	// Answer, when set, replaces the host's reply to a client request;
	// it returns handled=false to let the default reply go out.
	Answer func(c *Conn, req *jsonrpc.Request) (result any, err *jsonrpc.Error, handled bool)
	// Tap sees every frame in both directions (the host keeps no copy of
	// what it gives Tap; Tap must not modify frame).
	Tap func(conn int64, dir string, frame []byte)
	// ReadLimit bounds inbound frames; 0 means jsonrpc.DefaultReadLimit.
	ReadLimit int64
	// ProtocolVersion is what initialize answers, whatever was offered
	// (default ProtocolVersion). The host's JSON is sent as written: a test
	// picks states and frames valid on that version's wire.
	ProtocolVersion string
	// ForgetInbound makes Conn.Inbound stay empty: a flood test's host
	// must not hold the client's hundreds of thousands of answers in the
	// heap the test measures.
	ForgetInbound bool
}

// Host is a running hostile host.
type Host struct {
	cfg   Config
	ln    net.Listener
	srv   *http.Server
	conns chan *Conn
	n     atomic.Int64

	mu     sync.Mutex
	states map[string]json.RawMessage
	seq    int64
	live   map[*Conn]struct{}
	wg     sync.WaitGroup
}

// Start listens on 127.0.0.1 with an ephemeral port.
func Start(cfg Config) (*Host, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("hostilehost: listen: %w", err)
	}
	h := &Host{
		cfg:    cfg,
		ln:     ln,
		conns:  make(chan *Conn, 64),
		states: map[string]json.RawMessage{},
		seq:    cfg.ServerSeq,
		live:   map[*Conn]struct{}{},
	}
	for k, v := range cfg.States {
		h.states[k] = v
	}
	h.srv = &http.Server{Handler: http.HandlerFunc(h.serve), ReadHeaderTimeout: 10 * time.Second}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		_ = h.srv.Serve(ln)
	}()
	return h, nil
}

// URL is the WebSocket address to dial.
func (h *Host) URL() string { return "ws://" + h.ln.Addr().String() + "/" }

// Conns delivers every accepted connection, in order.
func (h *Host) Conns() <-chan *Conn { return h.conns }

// SetState replaces (or with nil removes) the snapshot state of channel.
func (h *Host) SetState(channel string, state json.RawMessage) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if state == nil {
		delete(h.states, channel)
		return
	}
	h.states[channel] = state
}

// SetServerSeq sets the serverSeq later snapshots are taken at.
func (h *Host) SetServerSeq(seq int64) {
	h.mu.Lock()
	h.seq = seq
	h.mu.Unlock()
}

// Close drops every connection and stops the listener.
func (h *Host) Close() error {
	err := h.srv.Close()
	h.mu.Lock()
	live := make([]*Conn, 0, len(h.live))
	for c := range h.live {
		live = append(live, c)
	}
	h.mu.Unlock()
	for _, c := range live {
		c.Close()
	}
	h.wg.Wait()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

func (h *Host) serve(w http.ResponseWriter, r *http.Request) {
	t, err := jsonrpc.Accept(w, r, jsonrpc.AcceptOptions{ReadLimit: h.cfg.ReadLimit, WriteTimeout: 30 * time.Second})
	if err != nil {
		return
	}
	c := &Conn{
		ID:         h.n.Add(1),
		h:          h,
		t:          t,
		pending:    map[string]chan Reply{},
		handshaken: make(chan struct{}),
		done:       make(chan struct{}),
	}
	h.mu.Lock()
	h.live[c] = struct{}{}
	h.mu.Unlock()
	select {
	case h.conns <- c:
	default: // nobody is watching connections; the test does not need them
	}
	c.readLoop(r.Context())
	h.mu.Lock()
	delete(h.live, c)
	h.mu.Unlock()
}

// Reply is the client's answer to a host request: the decoded response
// and the exact frame it came in.
type Reply struct {
	Response *jsonrpc.Response
	Frame    []byte
}

// Conn is one client connection.
type Conn struct {
	ID int64
	h  *Host
	t  jsonrpc.Transport

	mu         sync.Mutex
	pending    map[string]chan Reply
	nextID     int64
	inbound    [][]byte
	methods    []string
	handshaken chan struct{}
	hsOnce     sync.Once
	done       chan struct{}
	err        error
}

// Handshaken is closed once the client's handshake has reached
// listSessions and it was answered: from then on the client is Ready.
func (c *Conn) Handshaken() <-chan struct{} { return c.handshaken }

// Done is closed when the connection ends.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err says why the connection ended.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Methods lists the methods of every client request and notification so far.
func (c *Conn) Methods() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.methods)
}

// Inbound returns copies of every frame the client sent so far.
func (c *Conn) Inbound() [][]byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.inbound)
}

// Close drops the connection.
func (c *Conn) Close() { _ = c.t.Close("hostile host closing") }

// Send writes raw bytes as one frame: anything at all.
func (c *Conn) Send(ctx context.Context, frame []byte) error {
	if c.h.cfg.Tap != nil {
		c.h.cfg.Tap(c.ID, Outbound, frame)
	}
	return c.t.Write(ctx, frame)
}

// Notify sends a notification with params encoded as JSON.
func (c *Conn) Notify(ctx context.Context, method string, params any) error {
	p, err := json.Marshal(params)
	if err != nil {
		return err
	}
	b, err := jsonrpc.Encode(&jsonrpc.Request{Method: method, Params: p})
	if err != nil {
		return err
	}
	return c.Send(ctx, b)
}

// Call sends a host → client request and waits for the client's answer.
func (c *Conn) Call(ctx context.Context, method string, params any) (Reply, error) {
	p, err := json.Marshal(params)
	if err != nil {
		return Reply{}, err
	}
	c.mu.Lock()
	c.nextID++
	id := jsonrpc.StringID("host-" + strconv.FormatInt(c.nextID, 10))
	ch := make(chan Reply, 1)
	c.pending[id.String()] = ch
	c.mu.Unlock()
	b, err := jsonrpc.Encode(&jsonrpc.Request{ID: &id, Method: method, Params: p})
	if err != nil {
		return Reply{}, err
	}
	if err := c.Send(ctx, b); err != nil {
		return Reply{}, err
	}
	select {
	case r := <-ch:
		return r, nil
	case <-ctx.Done():
		return Reply{}, fmt.Errorf("hostilehost: no answer to %s: %w", method, ctx.Err())
	case <-c.done:
		return Reply{}, fmt.Errorf("hostilehost: connection ended before the answer to %s: %w", method, c.Err())
	}
}

func (c *Conn) readLoop(ctx context.Context) {
	defer close(c.done)
	for {
		frame, err := c.t.Read(ctx)
		if err != nil {
			c.mu.Lock()
			c.err = err
			c.mu.Unlock()
			_ = c.t.Close("read failed")
			return
		}
		if c.h.cfg.Tap != nil {
			c.h.cfg.Tap(c.ID, Inbound, frame)
		}
		if !c.h.cfg.ForgetInbound {
			c.mu.Lock()
			c.inbound = append(c.inbound, frame)
			c.mu.Unlock()
		}
		msg, err := jsonrpc.Decode(frame)
		if err != nil {
			continue
		}
		switch m := msg.(type) {
		case *jsonrpc.Response:
			if m.ID == nil {
				continue
			}
			c.mu.Lock()
			ch := c.pending[m.ID.String()]
			delete(c.pending, m.ID.String())
			c.mu.Unlock()
			if ch != nil {
				ch <- Reply{Response: m, Frame: frame}
			}
		case *jsonrpc.Request:
			if !c.h.cfg.ForgetInbound {
				c.mu.Lock()
				c.methods = append(c.methods, m.Method)
				c.mu.Unlock()
			}
			if m.IsNotification() {
				continue
			}
			// Answered inline, in order: the client's handshake is
			// sequential and a test wants its replies deterministic.
			c.answer(ctx, m)
		}
	}
}

func (c *Conn) answer(ctx context.Context, req *jsonrpc.Request) {
	var result any
	var rerr *jsonrpc.Error
	handled := false
	if c.h.cfg.Answer != nil {
		result, rerr, handled = c.h.cfg.Answer(c, req)
	}
	if !handled {
		result, rerr = c.h.defaultAnswer(req)
	}
	resp := &jsonrpc.Response{ID: req.ID, Error: rerr}
	if rerr == nil {
		raw, err := json.Marshal(result)
		if err != nil {
			resp.Error = jsonrpc.NewError(jsonrpc.InternalError, "hostilehost: cannot encode result")
		} else {
			resp.Result = raw
		}
	}
	b, err := jsonrpc.Encode(resp)
	if err != nil {
		return
	}
	_ = c.Send(ctx, b)
	if req.Method == "listSessions" {
		c.hsOnce.Do(func() { close(c.handshaken) })
	}
}

type snapshot struct {
	Resource string          `json:"resource"`
	State    json.RawMessage `json:"state"`
	FromSeq  int64           `json:"fromSeq"`
}

func (h *Host) snapshots(channels []string) []snapshot {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := []snapshot{}
	for _, ch := range channels {
		if st, ok := h.states[ch]; ok {
			out = append(out, snapshot{Resource: ch, State: st, FromSeq: h.seq})
		}
	}
	return out
}

func (h *Host) protocolVersion() string {
	if h.cfg.ProtocolVersion != "" {
		return h.cfg.ProtocolVersion
	}
	return ProtocolVersion
}

func (h *Host) defaultAnswer(req *jsonrpc.Request) (any, *jsonrpc.Error) {
	switch req.Method {
	case "initialize":
		var p struct {
			InitialSubscriptions []string `json:"initialSubscriptions"`
		}
		_ = json.Unmarshal(req.Params, &p)
		h.mu.Lock()
		seq := h.seq
		h.mu.Unlock()
		return map[string]any{
			"protocolVersion": h.protocolVersion(),
			"serverSeq":       seq,
			"serverInfo":      map[string]string{"name": "hostilehost", "version": "0"},
			"snapshots":       h.snapshots(p.InitialSubscriptions),
		}, nil
	case "reconnect":
		var p struct {
			Subscriptions []string `json:"subscriptions"`
		}
		_ = json.Unmarshal(req.Params, &p)
		return map[string]any{"type": "snapshot", "snapshots": h.snapshots(p.Subscriptions)}, nil
	case "subscribe":
		var p struct {
			Channel string `json:"channel"`
		}
		_ = json.Unmarshal(req.Params, &p)
		if s := h.snapshots([]string{p.Channel}); len(s) == 1 {
			return map[string]any{"snapshot": s[0]}, nil
		}
		return map[string]any{}, nil
	case "listSessions":
		return map[string]any{"items": []any{}}, nil
	case "ping", "unsubscribe", "authenticate":
		return map[string]any{}, nil
	case "dispatchAction":
		return map[string]any{}, nil
	}
	return nil, jsonrpc.ErrMethodNotFound
}
