package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
)

const waitLimit = 10 * time.Second

// logSink is a slog.Handler that forwards every record's message to a
// channel, so tests can wait for a logged event instead of sleeping.
type logSink struct{ ch chan string }

func newLogSink() *logSink { return &logSink{ch: make(chan string, 1024)} }

func (s *logSink) Enabled(context.Context, slog.Level) bool { return true }
func (s *logSink) Handle(_ context.Context, r slog.Record) error {
	var sb strings.Builder
	sb.WriteString(r.Message)
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&sb, " %s=%v", a.Key, a.Value)
		return true
	})
	select {
	case s.ch <- sb.String():
	default:
	}
	return nil
}
func (s *logSink) WithAttrs([]slog.Attr) slog.Handler { return s }
func (s *logSink) WithGroup(string) slog.Handler      { return s }

func (s *logSink) waitFor(t *testing.T, substr string) string {
	t.Helper()
	timeout := time.After(waitLimit)
	for {
		select {
		case m := <-s.ch:
			if strings.Contains(m, substr) {
				return m
			}
		case <-timeout:
			t.Fatalf("no log line containing %q", substr)
		}
	}
}

// testHandler implements the methods the tests use.
type testHandler struct {
	mu      sync.Mutex
	notes   []int
	release chan struct{} // "block" waits on it
	started chan struct{} // "block" signals it entered
	noteCh  chan int
}

func newTestHandler() *testHandler {
	return &testHandler{release: make(chan struct{}), started: make(chan struct{}, 16), noteCh: make(chan int, 100000)}
}

func (h *testHandler) Handle(ctx context.Context, req *Request) (any, error) {
	switch req.Method {
	case "echo":
		return req.Params, nil
	case "add":
		var p struct{ A, B int }
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return nil, NewError(InvalidParams, err.Error())
		}
		return p.A + p.B, nil
	case "block":
		h.started <- struct{}{}
		<-h.release
		return "released", nil
	case "panic":
		panic("boom")
	case "fail":
		return nil, errors.New("plain failure")
	case "authRequired":
		return nil, NewErrorData(AuthRequired, "need a token", map[string]any{"resources": []any{}})
	case "seq":
		var n struct{ N int }
		_ = json.Unmarshal(req.Params, &n)
		h.noteCh <- n.N
		return nil, nil
	}
	return nil, ErrMethodNotFound
}

type pair struct {
	client, server *Conn
	clientLog      *logSink
	serverLog      *logSink
	clientH        *testHandler
	serverH        *testHandler
}

type transportKind string

const (
	overPipe      transportKind = "pipe"
	overWebSocket transportKind = "websocket"
)

var kinds = []transportKind{overPipe, overWebSocket}

// newPair connects two started Conns over the given transport and closes
// them when the test ends.
func newPair(t *testing.T, kind transportKind) *pair {
	t.Helper()
	p := &pair{clientLog: newLogSink(), serverLog: newLogSink(), clientH: newTestHandler(), serverH: newTestHandler()}
	ct, st := transportPair(t, kind, AcceptOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	p.client = NewConn(ct, p.clientH, ConnOptions{Logger: slog.New(p.clientLog)})
	p.server = NewConn(st, p.serverH, ConnOptions{Logger: slog.New(p.serverLog)})
	p.client.Start(ctx)
	p.server.Start(ctx)
	t.Cleanup(func() {
		close(p.clientH.release)
		close(p.serverH.release)
		p.client.Close()
		p.server.Close()
	})
	return p
}

// wsPair returns both ends of a real WebSocket on 127.0.0.1.
func wsPair(t *testing.T, dopts DialOptions, aopts AcceptOptions) (client, server Transport) {
	t.Helper()
	accepted := make(chan Transport, 1)
	hold := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tr, err := Accept(w, r, aopts)
		if err != nil {
			t.Errorf("Accept: %v", err)
			return
		}
		accepted <- tr
		<-hold // keep the handler (and the hijacked conn) alive
	}))
	t.Cleanup(func() { close(hold); srv.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	c, err := Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http"), dopts)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	select {
	case s := <-accepted:
		t.Cleanup(func() { s.Close("test over"); c.Close("test over") })
		return c, s
	case <-ctx.Done():
		t.Fatal("server never accepted")
	}
	return nil, nil
}

func callCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	t.Cleanup(cancel)
	return ctx
}

func TestCallResponse(t *testing.T) {
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			p := newPair(t, kind)
			ctx := callCtx(t)
			var sum int
			if err := p.client.Call(ctx, "add", map[string]int{"A": 2, "B": 3}, &sum); err != nil || sum != 5 {
				t.Fatalf("add = %d, %v", sum, err)
			}
			var echoed map[string]string
			if err := p.client.Call(ctx, "echo", map[string]string{"k": "v"}, &echoed); err != nil || echoed["k"] != "v" {
				t.Fatalf("echo = %v, %v", echoed, err)
			}
			err := p.client.Call(ctx, "nope", nil, nil)
			if !errors.Is(err, ErrMethodNotFound) {
				t.Fatalf("unknown method: %v", err)
			}
			err = p.client.Call(ctx, "add", []int{1}, &sum)
			var rpcErr *Error
			if !errors.As(err, &rpcErr) || rpcErr.Code != InvalidParams {
				t.Fatalf("bad params: %v", err)
			}
			err = p.client.Call(ctx, "fail", nil, nil)
			if !errors.As(err, &rpcErr) || rpcErr.Code != InternalError || rpcErr.Message != "plain failure" {
				t.Fatalf("plain error: %v", err)
			}
			err = p.client.Call(ctx, "authRequired", nil, nil)
			if !errors.As(err, &rpcErr) || rpcErr.Code != AuthRequired || string(rpcErr.Data) != `{"resources":[]}` {
				t.Fatalf("auth required: %v (data %s)", err, rpcErr.Data)
			}
		})
	}
}

func TestServerToClientRequest(t *testing.T) {
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			p := newPair(t, kind)
			var sum int
			if err := p.server.Call(callCtx(t), "add", map[string]int{"A": 40, "B": 2}, &sum); err != nil || sum != 42 {
				t.Fatalf("server→client add = %d, %v", sum, err)
			}
		})
	}
}

func TestHandlerPanicAnswered(t *testing.T) {
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			p := newPair(t, kind)
			ctx := callCtx(t)
			err := p.client.Call(ctx, "panic", nil, nil)
			var rpcErr *Error
			if !errors.As(err, &rpcErr) || rpcErr.Code != InternalError {
				t.Fatalf("panic: want -32603, got %v", err)
			}
			p.serverLog.waitFor(t, "handler panicked")
			var sum int
			if err := p.client.Call(ctx, "add", map[string]int{"A": 1, "B": 1}, &sum); err != nil || sum != 2 {
				t.Fatalf("conn broken after panic: %d, %v", sum, err)
			}
		})
	}
}

func TestNotificationOrderUnderLoad(t *testing.T) {
	const n = 3000
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			p := newPair(t, kind)
			ctx := callCtx(t)
			// Calls run alongside so responses and request handlers interleave
			// with the notification stream.
			var wg sync.WaitGroup
			for g := 0; g < 4; g++ {
				wg.Go(func() {
					for i := 0; i < 50; i++ {
						var sum int
						if err := p.server.Call(ctx, "add", map[string]int{"A": i, "B": g}, &sum); err != nil || sum != i+g {
							t.Errorf("call during notifications: %d, %v", sum, err)
							return
						}
					}
				})
			}
			for i := 0; i < n; i++ {
				if err := p.server.Notify(ctx, "seq", map[string]int{"N": i}); err != nil {
					t.Fatalf("notify %d: %v", i, err)
				}
			}
			wg.Wait()
			for want := 0; want < n; want++ {
				select {
				case got := <-p.clientH.noteCh:
					if got != want {
						t.Fatalf("notification %d arrived at position %d", got, want)
					}
				case <-time.After(waitLimit):
					t.Fatalf("only %d of %d notifications arrived", want, n)
				}
			}
		})
	}
}

func TestConcurrentCallsBothWays(t *testing.T) {
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			p := newPair(t, kind)
			ctx := callCtx(t)
			var wg sync.WaitGroup
			for g := 0; g < 16; g++ {
				for _, c := range []*Conn{p.client, p.server} {
					wg.Go(func() {
						for i := 0; i < 40; i++ {
							var sum int
							if err := c.Call(ctx, "add", map[string]int{"A": g, "B": i}, &sum); err != nil || sum != g+i {
								t.Errorf("add(%d,%d) = %d, %v", g, i, sum, err)
								return
							}
						}
					})
				}
			}
			wg.Wait()
		})
	}
}

func TestCallContextCancelRemovesWaiter(t *testing.T) {
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			p := newPair(t, kind)
			ctx, cancel := context.WithCancel(callCtx(t))
			errc := make(chan error, 1)
			go func() { errc <- p.client.Call(ctx, "block", nil, nil) }()
			select {
			case <-p.serverH.started:
			case <-time.After(waitLimit):
				t.Fatal("handler never started")
			}
			cancel()
			select {
			case err := <-errc:
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("want context.Canceled, got %v", err)
				}
			case <-time.After(waitLimit):
				t.Fatal("Call did not return after cancel")
			}
			p.client.mu.Lock()
			left := len(p.client.pending)
			p.client.mu.Unlock()
			if left != 0 {
				t.Fatalf("%d waiters left after cancel", left)
			}
			// The late response must be ignored, not crash or misroute.
			p.serverH.release <- struct{}{}
			p.clientLog.waitFor(t, "unknown id")
			var sum int
			if err := p.client.Call(callCtx(t), "add", map[string]int{"A": 1, "B": 2}, &sum); err != nil || sum != 3 {
				t.Fatalf("conn broken after cancel: %d, %v", sum, err)
			}
		})
	}
}

// rawPeer gives a test direct access to the far end's frames.
type rawPeer struct {
	t  *testing.T
	tr Transport
}

func (r rawPeer) send(frame string) {
	r.t.Helper()
	if err := r.tr.Write(callCtx(r.t), []byte(frame)); err != nil {
		r.t.Fatalf("raw write: %v", err)
	}
}

func (r rawPeer) recv() Message {
	r.t.Helper()
	b, err := r.tr.Read(callCtx(r.t))
	if err != nil {
		r.t.Fatalf("raw read: %v", err)
	}
	m, err := Decode(b)
	if err != nil {
		r.t.Fatalf("conn sent an invalid frame %s: %v", b, err)
	}
	return m
}

// transportPair returns both ends of a transport of the given kind.
func transportPair(t *testing.T, kind transportKind, aopts AcceptOptions) (client, server Transport) {
	t.Helper()
	if kind == overPipe {
		return Pipe()
	}
	return wsPair(t, DialOptions{}, aopts)
}

func newRawPair(t *testing.T, kind transportKind, aopts AcceptOptions) (*Conn, rawPeer, *logSink) {
	ct, st := transportPair(t, kind, aopts)
	sink := newLogSink()
	h := newTestHandler()
	c := NewConn(ct, h, ConnOptions{Logger: slog.New(sink)})
	c.Start(t.Context())
	t.Cleanup(func() { close(h.release); c.Close() })
	return c, rawPeer{t, st}, sink
}

func TestMalformedAndUnknownFramesIgnored(t *testing.T) {
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			c, peer, log := newRawPair(t, kind, AcceptOptions{})
			// The raw peer never reads, so it must close first or the Conn's
			// close handshake waits out its 5s timeout.
			t.Cleanup(func() { peer.tr.Close("test over") })
			peer.send(`{"jsonrpc":"2.0","id":999,"result":1}`)
			log.waitFor(t, "unknown id")

			peer.send(`{"jsonrpc": nope`)
			resp, ok := peer.recv().(*Response)
			if !ok || resp.ID != nil || resp.Error == nil || resp.Error.Code != ParseError {
				t.Fatalf("parse error answer: %+v", resp)
			}
			peer.send(`[{"jsonrpc":"2.0","id":1,"method":"add"}]`)
			resp, ok = peer.recv().(*Response)
			if !ok || resp.Error == nil || resp.Error.Code != InvalidRequest || !strings.Contains(resp.Error.Message, "batch") {
				t.Fatalf("batch answer: %+v", resp)
			}
			peer.send(`{"jsonrpc":"2.0","id":5,"method":""}`)
			resp, ok = peer.recv().(*Response)
			if !ok || resp.ID == nil || *resp.ID != Int64ID(5) || resp.Error.Code != InvalidRequest {
				t.Fatalf("empty method answer: %+v", resp)
			}
			// A broken response is only logged: answering it could loop.
			peer.send(`{"jsonrpc":"2.0","id":6}`)
			log.waitFor(t, "malformed frame")

			peer.send(`{"jsonrpc":"2.0","id":"s-1","method":"add","params":{"A":2,"B":2}}`)
			resp, ok = peer.recv().(*Response)
			if !ok || resp.Error != nil || *resp.ID != StringID("s-1") || string(resp.Result) != "4" {
				t.Fatalf("conn stopped working after bad frames: %+v", resp)
			}
			if c.Err() != nil {
				t.Fatalf("conn closed: %v", c.Err())
			}
		})
	}
}

func TestOversizeFrameClosesWithClearError(t *testing.T) {
	const limit = 1024
	ct, st := wsPair(t, DialOptions{}, AcceptOptions{ReadLimit: limit})
	server := NewConn(st, nil, ConnOptions{})
	client := NewConn(ct, nil, ConnOptions{})
	server.Start(t.Context())
	client.Start(t.Context())
	t.Cleanup(func() { client.Close(); server.Close() })

	// Exactly at the limit still passes.
	atLimit := `"` + strings.Repeat("a", limit-len(`{"jsonrpc":"2.0","method":"x","params":[]}`)-2) + `"`
	if err := client.Notify(callCtx(t), "x", json.RawMessage("["+atLimit+"]")); err != nil {
		t.Fatal(err)
	}
	if err := client.Notify(callCtx(t), "x", []string{strings.Repeat("a", 2*limit)}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []*Conn{server, client} {
		select {
		case <-c.Done():
		case <-time.After(waitLimit):
			t.Fatal("oversize frame did not close the connection")
		}
	}
	serr := server.Err()
	if !errors.Is(serr, ErrFrameTooBig) || !strings.Contains(serr.Error(), "1024-byte read limit") {
		t.Fatalf("server error is not clear: %v", serr)
	}
	if got := websocket.CloseStatus(client.Err()); got != websocket.StatusMessageTooBig {
		t.Fatalf("client saw close status %v (%v), want StatusMessageTooBig", got, client.Err())
	}
}

func TestCloseReasonReachesPeer(t *testing.T) {
	p := newPair(t, overWebSocket)
	p.client.Close()
	select {
	case <-p.server.Done():
	case <-time.After(waitLimit):
		t.Fatal("server did not notice the close")
	}
	if err := p.server.Err(); websocket.CloseStatus(err) != websocket.StatusNormalClosure || !strings.Contains(err.Error(), `"closing"`) {
		t.Fatalf("server close error: %v", err)
	}
	if !errors.Is(p.client.Err(), ErrConnClosedLocally) {
		t.Fatalf("client Err = %v", p.client.Err())
	}
	if err := p.client.Call(callCtx(t), "add", nil, nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("call after close: %v", err)
	}
}

func TestPendingCallFailsOnClose(t *testing.T) {
	p := newPair(t, overPipe)
	errc := make(chan error, 1)
	go func() { errc <- p.client.Call(callCtx(t), "block", nil, nil) }()
	<-p.serverH.started
	p.server.Close()
	select {
	case err := <-errc:
		if !errors.Is(err, ErrClosed) {
			t.Fatalf("want ErrClosed, got %v", err)
		}
	case <-time.After(waitLimit):
		t.Fatal("pending call hung after close")
	}
}

func TestStartContextCancelCloses(t *testing.T) {
	a, b := Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	c := NewConn(a, nil, ConnOptions{})
	c.Start(ctx)
	defer b.Close("done")
	cancel()
	select {
	case <-c.Done():
	case <-time.After(waitLimit):
		t.Fatal("conn did not close when its context ended")
	}
	if !errors.Is(c.Err(), context.Canceled) {
		t.Fatalf("Err = %v", c.Err())
	}
}

func TestWriteTimesOutWhenPeerNeverReads(t *testing.T) {
	t.Run("websocket", func(t *testing.T) {
		ct, _ := wsPair(t, DialOptions{WriteTimeout: 300 * time.Millisecond}, AcceptOptions{})
		frame := []byte(`{"jsonrpc":"2.0","method":"x","params":["` + strings.Repeat("a", 1<<20) + `"]}`)
		start := time.Now()
		var err error
		// The kernel buffers a few MiB before the write blocks.
		for i := 0; i < 256 && err == nil; i++ {
			err = ct.Write(context.Background(), frame)
		}
		if err == nil {
			t.Fatal("256 MiB written to a peer that never reads")
		}
		if !strings.Contains(err.Error(), "timed out") {
			t.Fatalf("want a timeout error, got %v", err)
		}
		if d := time.Since(start); d > waitLimit {
			t.Fatalf("took %v", d)
		}
	})
	t.Run("conn over pipe", func(t *testing.T) {
		a, b := Pipe()
		defer b.Close("done")
		c := NewConn(a, nil, ConnOptions{WriteTimeout: 100 * time.Millisecond})
		c.Start(t.Context())
		err := c.Notify(context.Background(), "x", nil)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("want deadline exceeded, got %v", err)
		}
		select {
		case <-c.Done():
		case <-time.After(waitLimit):
			t.Fatal("a stalled peer should close the conn")
		}
	})
}

// abortRecorder is a Pipe end that reports how the Conn let go of it.
type abortRecorder struct {
	Transport
	how chan string
}

func (r *abortRecorder) Close(reason string) error {
	r.how <- "close"
	return r.Transport.Close(reason)
}

func (r *abortRecorder) Abort() error {
	r.how <- "abort"
	return r.Transport.Close("aborted")
}

// A Conn whose owner's context ends drops its transport at once (the peer is
// presumed dead and would never answer a close handshake); an explicit Close
// still closes politely.
func TestContextEndAbortsTransportCloseIsPolite(t *testing.T) {
	for _, tc := range []struct {
		name string
		end  func(c *Conn, cancel context.CancelFunc)
		want string
	}{
		{"context ended", func(_ *Conn, cancel context.CancelFunc) { cancel() }, "abort"},
		{"Close", func(c *Conn, _ context.CancelFunc) { _ = c.Close() }, "close"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := Pipe()
			defer b.Close("test over")
			rec := &abortRecorder{Transport: a, how: make(chan string, 4)}
			c := NewConn(rec, nil, ConnOptions{})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			c.Start(ctx)
			tc.end(c, cancel)
			select {
			case got := <-rec.how:
				if got != tc.want {
					t.Fatalf("transport was let go by %s, want %s", got, tc.want)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("transport was never closed")
			}
		})
	}
}
