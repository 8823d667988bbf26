package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// Handler answers the peer's requests and receives its notifications.
//
// For a request (req.ID != nil) the returned result is encoded as the
// response's result (a json.RawMessage is sent as is, nil as null); a non-nil
// err becomes the response's error: its code if it is (or wraps) an *Error,
// InternalError otherwise. Return ErrMethodNotFound for unknown methods.
// Request handlers run concurrently, each in its own goroutine (at most
// ConnOptions.MaxConcurrentRequests at once); their answers are written by
// the connection's one reply writer, so a handler never waits on a peer
// that does not read.
//
// For a notification (req.ID == nil) the return values are ignored.
// Notifications are delivered one at a time, in arrival order, on a single
// goroutine, so a slow notification handler delays later notifications (but
// never responses). A notification handler may call Conn.Call.
//
// ctx is cancelled when the connection closes. Handlers must not keep req
// after returning.
type Handler interface {
	Handle(ctx context.Context, req *Request) (result any, err error)
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(ctx context.Context, req *Request) (any, error)

// Handle implements Handler.
func (f HandlerFunc) Handle(ctx context.Context, req *Request) (any, error) { return f(ctx, req) }

// ConnOptions configures a Conn.
type ConnOptions struct {
	// Logger receives connection events: method names, ids and sizes, never
	// params or results (they may carry tokens). nil discards logs.
	Logger *slog.Logger
	// WriteTimeout bounds each outbound frame on top of the caller's ctx;
	// 0 means DefaultWriteTimeout, negative disables it.
	WriteTimeout time.Duration
	// MaxConcurrentRequests caps the peer's requests being handled at once;
	// beyond it a request is refused with InternalError ("too many
	// concurrent requests") instead of spawning another goroutine, so a
	// flooding peer cannot exhaust memory. 0 means
	// DefaultMaxConcurrentRequests, negative means no limit.
	MaxConcurrentRequests int
	// MaxQueuedReplies caps the answers (handler results and refusals)
	// waiting for the one reply writer. When it is full the reader waits
	// for the writer: a peer's requests then go at the pace it reads the
	// answers, and a peer that stops reading is closed by the write
	// timeout. 0 means DefaultMaxQueuedReplies.
	MaxQueuedReplies int
	// MaxQueuedNotificationBytes caps the notifications received but not
	// yet handled, counted as their frame bytes plus a fixed per-item
	// overhead (so a flood of tiny frames counts too). Past it the
	// connection is closed with an error wrapping ErrQueueFull; the reader
	// never waits for a slow handler. 0 means
	// DefaultMaxQueuedNotificationBytes.
	MaxQueuedNotificationBytes int64
	// MaxArrayElements caps the array elements (nested included) of one
	// inbound frame; a frame over it closes the connection with an error
	// wrapping ErrFrameTooBig, as an oversize frame does, because its
	// decoded size is unbounded by its byte size. 0 means
	// DefaultMaxArrayElements, negative means no limit.
	MaxArrayElements int
}

// DefaultMaxConcurrentRequests is far above what an AHP peer needs (requests
// are user-paced) yet bounds a runaway peer.
const DefaultMaxConcurrentRequests = 1024

// DefaultMaxQueuedReplies lets a burst of requests be read on while the
// writer catches up, yet bounds a peer that never reads to a few hundred
// KiB of answers.
const DefaultMaxQueuedReplies = 1024

// DefaultMaxQueuedNotificationBytes lets a burst of a few full-size frames
// wait for a busy handler, and no more.
const DefaultMaxQueuedNotificationBytes int64 = 32 << 20

// queuedNotificationOverhead is what one queued notification costs beyond
// its frame bytes (the decoded Request, its slice slot), so a flood of tiny
// frames is bounded by the same byte cap.
const queuedNotificationOverhead = 256

// ErrQueueFull reports that the peer sent notifications faster than they
// were handled, past the queue's cap, so the connection was closed.
var ErrQueueFull = errors.New("jsonrpc: peer outpaced the connection's queue")

// Conn is one JSON-RPC peer over a Transport. Create it with NewConn, then
// Start it; it is safe for concurrent use.
type Conn struct {
	t            Transport
	h            Handler
	log          *slog.Logger
	writeTimeout time.Duration

	nextID atomic.Int64

	maxInFlight int64
	inFlight    atomic.Int64
	maxElements int

	// replies feeds the one reply writer (replyLoop); its capacity is
	// MaxQueuedReplies.
	replies chan *Response

	mu      sync.Mutex
	pending map[ID]chan *Response
	started bool

	// notifications waiting for the ordered delivery goroutine, and their
	// cost against qmax (see MaxQueuedNotificationBytes).
	qmu    sync.Mutex
	queue  []queuedNotification
	qbytes int64
	qmax   int64
	qready chan struct{} // capacity 1: "queue is non-empty or closed"
	qdone  bool

	ctx    context.Context // handler context, cancelled on close
	cancel context.CancelFunc

	closeOnce sync.Once
	// abortTransport makes shutdown drop the transport without a close
	// handshake (set when the owner's context ended).
	abortTransport atomic.Bool
	done           chan struct{}
	err            error // why it closed; written once before done closes
}

// ErrConnClosedLocally is Conn.Err after Close was called.
var ErrConnClosedLocally = fmt.Errorf("%w locally", ErrClosed)

// NewConn wraps t. h may be nil, in which case every request is answered with
// MethodNotFound and notifications are dropped.
func NewConn(t Transport, h Handler, opts ConnOptions) *Conn {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	wt := opts.WriteTimeout
	if wt == 0 {
		wt = DefaultWriteTimeout
	}
	maxInFlight := int64(opts.MaxConcurrentRequests)
	if maxInFlight == 0 {
		maxInFlight = DefaultMaxConcurrentRequests
	}
	maxElements := opts.MaxArrayElements
	if maxElements == 0 {
		maxElements = DefaultMaxArrayElements
	}
	maxReplies := opts.MaxQueuedReplies
	if maxReplies <= 0 {
		maxReplies = DefaultMaxQueuedReplies
	}
	qmax := opts.MaxQueuedNotificationBytes
	if qmax <= 0 {
		qmax = DefaultMaxQueuedNotificationBytes
	}
	if h == nil {
		h = HandlerFunc(func(context.Context, *Request) (any, error) { return nil, ErrMethodNotFound })
	}
	return &Conn{
		t:            t,
		h:            h,
		log:          log,
		writeTimeout: wt,
		maxInFlight:  maxInFlight,
		maxElements:  maxElements,
		replies:      make(chan *Response, maxReplies),
		pending:      make(map[ID]chan *Response),
		qmax:         qmax,
		qready:       make(chan struct{}, 1),
		done:         make(chan struct{}),
	}
}

// Start launches the reader, the reply writer and the notification
// goroutine. Cancelling ctx
// closes the connection; handlers receive a context derived from it. Start
// must be called once; later calls do nothing.
func (c *Conn) Start(ctx context.Context) {
	c.mu.Lock()
	if c.started {
		c.mu.Unlock()
		return
	}
	c.started = true
	c.ctx, c.cancel = context.WithCancel(ctx)
	c.mu.Unlock()

	context.AfterFunc(c.ctx, func() {
		err := ctx.Err()
		if err == nil {
			return // cancelled by our own shutdown
		}
		// The owner gave up on this connection (for instance its peer stopped
		// answering pings): no one will answer a polite close handshake, so
		// drop the socket at once instead of holding it for the handshake's
		// timeout.
		c.abortTransport.Store(true)
		c.shutdown(fmt.Errorf("%w: context ended: %w", ErrClosed, err), "client context ended")
	})
	go c.readLoop()
	go c.replyLoop()
	go c.notifyLoop()
}

// Done is closed when the connection has closed.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err says why the connection closed (nil while open). It wraps ErrClosed,
// ErrFrameTooBig when an oversize frame ended it, and ErrQueueFull when the
// peer's notifications outpaced their handler past the queue's cap.
func (c *Conn) Err() error {
	select {
	case <-c.done:
		return c.err
	default:
		return nil
	}
}

// Close closes the connection and its transport. Pending calls fail with an
// error wrapping ErrClosed. Over WebSocket it waits for the peer to answer
// the close frame, up to coder/websocket's 5s handshake timeout.
func (c *Conn) Close() error {
	c.shutdown(ErrConnClosedLocally, "closing")
	return nil
}

func (c *Conn) shutdown(why error, reason string) {
	c.closeOnce.Do(func() {
		c.err = why
		close(c.done)
		c.mu.Lock()
		cancel := c.cancel
		c.mu.Unlock()
		if cancel != nil {
			cancel()
		}
		if a, ok := c.t.(Aborter); ok && c.abortTransport.Load() {
			_ = a.Abort()
		} else {
			_ = c.t.Close(reason)
		}
		c.qmu.Lock()
		c.qdone = true
		c.qmu.Unlock()
		c.signalQueue()
		c.log.Info("jsonrpc: connection closed", "reason", why.Error())
	})
}

// Call sends a request and waits for its response, decoding the result into
// result (which may be nil to discard it). A JSON-RPC error from the peer is
// returned as an *Error. Cancelling ctx abandons the wait; a late response is
// then logged and dropped.
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
	// A caller that has already given up sends nothing: over a pipe the
	// write and even the answer can beat the select below to a cancelled
	// context, and the call would seem to succeed (a CI flake).
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("jsonrpc: call %s abandoned: %w", method, err)
	}
	raw, err := encodeParams(params)
	if err != nil {
		return fmt.Errorf("jsonrpc: call %s: %w", method, err)
	}
	id := Int64ID(c.nextID.Add(1))
	ch := make(chan *Response, 1)
	c.mu.Lock()
	if !c.started {
		c.mu.Unlock()
		// Nobody would read the response: fail now rather than hang.
		return fmt.Errorf("jsonrpc: call %s before Conn.Start", method)
	}
	select {
	case <-c.done:
		c.mu.Unlock()
		return fmt.Errorf("jsonrpc: call %s: %w", method, c.err)
	default:
	}
	c.pending[id] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
	}()

	if err := c.write(ctx, &Request{ID: &id, Method: method, Params: raw}); err != nil {
		return fmt.Errorf("jsonrpc: call %s: %w", method, err)
	}
	c.log.Debug("jsonrpc: call sent", "method", method, "id", id.String())

	select {
	case resp := <-ch:
		if resp.Error != nil {
			return resp.Error
		}
		if result == nil {
			return nil
		}
		if err := json.Unmarshal(resp.Result, result); err != nil {
			return fmt.Errorf("jsonrpc: call %s: decode result: %w", method, err)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("jsonrpc: call %s abandoned: %w", method, ctx.Err())
	case <-c.done:
		return fmt.Errorf("jsonrpc: call %s: %w", method, c.err)
	}
}

// Notify sends a notification; it returns once the frame is written.
func (c *Conn) Notify(ctx context.Context, method string, params any) error {
	raw, err := encodeParams(params)
	if err != nil {
		return fmt.Errorf("jsonrpc: notify %s: %w", method, err)
	}
	select {
	case <-c.done:
		return fmt.Errorf("jsonrpc: notify %s: %w", method, c.err)
	default:
	}
	if err := c.write(ctx, &Request{Method: method, Params: raw}); err != nil {
		return fmt.Errorf("jsonrpc: notify %s: %w", method, err)
	}
	return nil
}

func encodeParams(params any) (json.RawMessage, error) {
	switch p := params.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		return p, nil
	}
	b, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("cannot encode params: %w", err)
	}
	return b, nil
}

func (c *Conn) write(ctx context.Context, m Message) error {
	frame, err := Encode(m)
	if err != nil {
		return err
	}
	wctx, cancel := withWriteTimeout(ctx, c.writeTimeout)
	defer cancel()
	if err := c.t.Write(wctx, frame); err != nil {
		// A dead transport, or a peer that did not take a frame within our
		// write timeout, ends the connection. The caller's own
		// cancellation or deadline only fails this write.
		ourTimeout := wctx.Err() != nil && ctx.Err() == nil
		if ourTimeout || errors.Is(err, ErrClosed) {
			c.shutdown(fmt.Errorf("%w: write failed: %w", ErrClosed, err), "write failed")
		}
		return err
	}
	return nil
}

func (c *Conn) readLoop() {
	for {
		// Not c.ctx: cancelling a WebSocket read tears the socket down
		// before Close can send the close frame and reason. Close (via
		// shutdown) is what unblocks this read.
		frame, err := c.t.Read(context.Background())
		if err != nil {
			c.shutdown(err, "read failed")
			return
		}
		if err := checkArrayElements(frame, c.maxElements); err != nil {
			c.log.Warn("jsonrpc: closing: frame has too many array elements", "bytes", len(frame), "limit", c.maxElements)
			c.shutdown(fmt.Errorf("%w (%w)", err, ErrClosed), "frame has too many array elements")
			return
		}
		msg, err := Decode(frame)
		if err != nil {
			c.rejectFrame(err, len(frame))
			continue
		}
		switch m := msg.(type) {
		case *Response:
			c.deliverResponse(m)
		case *Request:
			if m.ID == nil {
				c.enqueue(m, len(frame))
				continue
			}
			c.log.Debug("jsonrpc: request received", "method", m.Method, "id", m.ID.String(), "bytes", len(frame))
			if n := c.inFlight.Add(1); c.maxInFlight > 0 && n > c.maxInFlight {
				c.inFlight.Add(-1)
				c.log.Debug("jsonrpc: refused request: too many in flight", "method", m.Method, "id", m.ID.String())
				c.reply(&Response{ID: m.ID, Error: NewError(InternalError, "too many concurrent requests; retry later")})
				continue
			}
			go c.handleRequest(m)
		}
	}
}

// rejectFrame logs a bad frame and, when the peer expects an answer, sends an
// error response. The connection survives: one bad frame from a buggy host
// should not drop the user's session.
func (c *Conn) rejectFrame(err error, size int) {
	var de *DecodeError
	if !errors.As(err, &de) {
		c.log.Warn("jsonrpc: dropped undecodable frame", "bytes", size, "error", err.Error())
		return
	}
	c.log.Warn("jsonrpc: dropped malformed frame", "bytes", size, "code", de.Code, "error", de.Err.Error())
	// JSON-RPC requires an answer to an unparsable or invalid request (with a
	// null id when it is unknown); a broken response gets none, or two peers
	// could trade errors forever.
	if de.Code != ParseError && !de.IsRequest {
		return
	}
	c.reply(&Response{ID: de.ID, Error: NewError(de.Code, de.Err.Error())})
}

// reply queues resp for the reply writer. A full queue means the peer
// sends requests faster than the answers go out: the caller (the reader,
// or a handler) then waits for the writer, which is flow control for a
// peer that reads and, through the write timeout that closes the
// connection, a bound for one that does not. Either way nothing grows with
// the number of requests.
func (c *Conn) reply(resp *Response) {
	select {
	case c.replies <- resp:
	case <-c.done:
	}
}

// replyLoop is the one writer of answers, so a flood of requests costs
// queue slots, never goroutines.
func (c *Conn) replyLoop() {
	for {
		select {
		case resp := <-c.replies:
			// The reply must go out even if the handler's ctx was
			// cancelled; only a closed transport (or the write timeout,
			// which closes it) stops it.
			if err := c.write(context.Background(), resp); err != nil {
				c.log.Debug("jsonrpc: could not send response", "error", err.Error())
			}
		case <-c.done:
			return
		}
	}
}

func (c *Conn) deliverResponse(r *Response) {
	if r.ID == nil {
		msg := ""
		if r.Error != nil {
			msg = r.Error.Error()
		}
		c.log.Warn("jsonrpc: peer reported an error for a message it could not read", "error", msg)
		return
	}
	c.mu.Lock()
	ch, ok := c.pending[*r.ID]
	delete(c.pending, *r.ID)
	c.mu.Unlock()
	if !ok {
		c.log.Warn("jsonrpc: ignored response to unknown id", "id", r.ID.String())
		return
	}
	ch <- r // buffered, and each id is delivered at most once
}

func (c *Conn) handleRequest(req *Request) {
	result, err := c.runHandler(req)
	// The slot is held until the answer is queued: a handler waiting on a
	// full reply queue still counts, or a peer that never reads would get
	// a new goroutine for every request, each parked in reply. (A peer
	// that reads an answer and sends the next request at once may find
	// that slot not yet freed, which matters only to a peer already
	// keeping MaxConcurrentRequests in flight.)
	defer c.inFlight.Add(-1)
	resp := &Response{ID: req.ID}
	if err != nil {
		resp.Error = toWireError(err)
		c.log.Debug("jsonrpc: request failed", "method", req.Method, "id", req.ID.String(), "code", resp.Error.Code)
	} else if raw, ok := result.(json.RawMessage); ok {
		resp.Result = raw
	} else if b, mErr := json.Marshal(result); mErr != nil {
		c.log.Error("jsonrpc: cannot encode handler result", "method", req.Method, "id", req.ID.String(), "error", mErr.Error())
		resp.Error = NewError(InternalError, "internal error: the result could not be encoded")
	} else {
		resp.Result = b
	}
	c.reply(resp)
}

// runHandler calls the handler, turning a panic into InternalError so every
// request still gets its one response.
func (c *Conn) runHandler(req *Request) (result any, err error) {
	defer func() {
		if p := recover(); p != nil {
			c.log.Error("jsonrpc: handler panicked", "method", req.Method, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			result, err = nil, NewError(InternalError, "internal error: the handler failed")
		}
	}()
	return c.h.Handle(c.ctx, req)
}

func toWireError(err error) *Error {
	var e *Error
	if errors.As(err, &e) && e != nil {
		return e
	}
	return NewError(InternalError, err.Error())
}

// queuedNotification is a notification waiting for notifyLoop and what it
// counts against the queue's cap.
type queuedNotification struct {
	req  *Request
	cost int64
}

// enqueue queues a notification of size frame bytes, or closes the
// connection when the queue is over its cap: the reader must not wait for
// the handler (responses would stall behind it), so closing is the only
// bound. What is already queued is still delivered.
func (c *Conn) enqueue(req *Request, size int) {
	cost := int64(size) + queuedNotificationOverhead
	c.qmu.Lock()
	if c.qbytes+cost > c.qmax && len(c.queue) > 0 {
		c.qmu.Unlock()
		c.log.Warn("jsonrpc: closing: notifications arrive faster than they are handled", "method", req.Method, "limit", c.qmax)
		c.shutdown(fmt.Errorf("%w: %w: over %d MiB of notifications unhandled", ErrClosed, ErrQueueFull, c.qmax>>20), "too many unhandled notifications")
		return
	}
	c.queue = append(c.queue, queuedNotification{req: req, cost: cost})
	c.qbytes += cost
	c.qmu.Unlock()
	c.signalQueue()
}

func (c *Conn) signalQueue() {
	select {
	case c.qready <- struct{}{}:
	default:
	}
}

// notifyLoop delivers notifications in arrival order. The reader never waits
// on a handler (responses keep flowing even while the UI is slow); the
// queue's cap (enqueue) bounds what a slow handler lets pile up. After close
// it drains what was already received: the host's last actions before a
// disconnect still matter to the mirror.
func (c *Conn) notifyLoop() {
	for {
		<-c.qready
		for {
			c.qmu.Lock()
			if len(c.queue) == 0 {
				finished := c.qdone
				c.qmu.Unlock()
				if finished {
					return
				}
				break
			}
			n := c.queue[0]
			c.queue[0] = queuedNotification{}
			c.queue = c.queue[1:]
			c.qbytes -= n.cost
			c.qmu.Unlock()
			c.runNotification(n.req)
		}
	}
}

func (c *Conn) runNotification(req *Request) {
	defer func() {
		if p := recover(); p != nil {
			c.log.Error("jsonrpc: notification handler panicked", "method", req.Method, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
		}
	}()
	if _, err := c.h.Handle(c.ctx, req); err != nil {
		c.log.Debug("jsonrpc: notification handler failed", "method", req.Method, "error", err.Error())
	}
}
