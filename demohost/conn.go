package demohost

import (
	"bytes"
	"context"
	"errors"
	"regexp"
	"sync"

	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

// conn is one client connection. The host reads its frames on one goroutine
// (so a client's requests are handled in order) and writes through a
// bounded queue drained by a second one, so responses and notifications
// leave in exactly the order the host produced them under its lock: a
// subscribe response always precedes the actions sequenced after its
// snapshot.
type conn struct {
	h  *Host
	id int64
	t  jsonrpc.Transport

	ctx    context.Context
	cancel context.CancelFunc
	out    chan []byte
	once   sync.Once

	// Guarded by h.mu.
	clientID    string
	initialized bool
	dead        bool
	subs        map[string]bool
	// grants holds, per resource, the scopes a token pushed on this
	// connection proved (never the token). Authentication status is per
	// connection (authentication.md), so it dies with the connection and
	// a reconnecting client pushes its tokens again.
	grants map[string][]string
	// grantGen counts tokens accepted per resource, so the expiry timer of
	// a replaced token stands down.
	grantGen map[string]int
}

func newConn(h *Host, id int64, t jsonrpc.Transport) *conn {
	ctx, cancel := context.WithCancel(h.ctx)
	return &conn{h: h, id: id, t: t, ctx: ctx, cancel: cancel,
		out: make(chan []byte, h.cfg.SendQueue), subs: map[string]bool{},
		grants: map[string][]string{}, grantGen: map[string]int{}}
}

// kill ends the connection without blocking; h.mu must be held.
func (c *conn) kill(reason string) {
	if c.dead {
		return
	}
	c.dead = true
	c.h.log.Debug("demohost: closing connection", "conn", c.id, "reason", reason)
	if f := c.h.cfg.OnDisconnect; f != nil {
		f(c.id, reason)
	}
	// Cancelling the context makes coder/websocket close the socket under a
	// blocked Read or Write, so neither goroutine can outlive the host.
	c.cancel()
}

// send queues one frame; h.mu must be held. A full queue means the client
// cannot keep up: it is dropped rather than allowed to stall the host.
func (c *conn) send(frame []byte) {
	if c.dead {
		return
	}
	select {
	case c.out <- frame:
	default:
		c.kill("send queue full: client is not reading")
	}
}

func (c *conn) serve() {
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.writeLoop()
	}()
	c.readLoop()
	c.h.mu.Lock()
	c.kill("client closed the connection")
	delete(c.h.conns, c)
	c.h.mu.Unlock()
	<-done
	_ = c.t.Close("bye")
}

func (c *conn) writeLoop() {
	for {
		select {
		case <-c.ctx.Done():
			return
		case f := <-c.out:
			if c.h.cfg.Tap != nil {
				c.h.cfg.Tap(c.id, Outbound, f)
			}
			if err := c.t.Write(c.ctx, f); err != nil {
				c.h.mu.Lock()
				c.kill("write failed")
				c.h.mu.Unlock()
				return
			}
		}
	}
}

func (c *conn) readLoop() {
	for {
		frame, err := c.t.Read(c.ctx)
		if err != nil {
			return
		}
		if c.h.cfg.Tap != nil {
			c.h.cfg.Tap(c.id, Inbound, redactFrameBytes(frame))
		}
		if c.h.cfg.Validate != nil {
			c.h.mu.Lock()
			c.h.validateLocked(c.id, Inbound, frame)
			c.h.mu.Unlock()
		}
		c.handleFrame(frame)
	}
}

func (c *conn) handleFrame(frame []byte) {
	msg, err := jsonrpc.Decode(frame)
	if err != nil {
		var de *jsonrpc.DecodeError
		if errors.As(err, &de) && (de.IsRequest || de.Code == jsonrpc.ParseError) {
			// A parse error, or a request we could not read, still gets an
			// answer; JSON-RPC says its id is null when it was unreadable.
			resp := &jsonrpc.Response{ID: de.ID, Error: jsonrpc.NewError(de.Code, "the host could not read this frame: "+errorText(de.Err))}
			c.h.mu.Lock()
			c.respondLocked(resp)
			c.h.mu.Unlock()
		}
		return
	}
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return // the host never calls the client, so responses are stray
	}
	// The host reads 1.0 params whatever its clients speak.
	params, err := c.h.wire.upParams(req.Method, req.Params)
	if err != nil {
		if req.ID != nil {
			c.h.mu.Lock()
			c.respondLocked(&jsonrpc.Response{ID: req.ID, Error: invalidParams("%s", errorText(err))})
			c.h.mu.Unlock()
		}
		return
	}
	req.Params = params
	c.h.handleRequest(c, req)
}

// respondLocked encodes and queues a response; h.mu must be held.
func (c *conn) respondLocked(resp *jsonrpc.Response) {
	f, err := jsonrpc.Encode(resp)
	if err != nil {
		f, _ = jsonrpc.Encode(&jsonrpc.Response{ID: resp.ID, Error: jsonrpc.NewError(jsonrpc.InternalError, "the host could not encode its answer")})
	}
	c.h.validateLocked(c.id, Outbound, f)
	c.send(f)
}

func errorText(err error) string {
	if err == nil {
		return "invalid message"
	}
	s := err.Error()
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}

// tokenField is compiled the first time a frame carries a token, not at
// start-up (issue 32).
var tokenField = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`("token"\s*:\s*")((?:[^"\\]|\\.)*)(")`) })

// redactFrameBytes hides bearer tokens (authenticate params) from taps and
// logs; frames without one are returned as they are.
func redactFrameBytes(frame []byte) []byte {
	if !bytes.Contains(frame, []byte(`"token"`)) {
		return frame
	}
	return tokenField().ReplaceAll(frame, []byte(`${1}[redacted]${3}`))
}

func redactFrame(s string) string { return string(redactFrameBytes([]byte(s))) }
