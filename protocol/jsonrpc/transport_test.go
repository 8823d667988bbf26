package jsonrpc

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

func TestPipeCloseUnblocks(t *testing.T) {
	a, b := Pipe()
	readErr := make(chan error, 1)
	go func() {
		_, err := a.Read(context.Background())
		readErr <- err
	}()
	writeErr := make(chan error, 1)
	go func() { writeErr <- b.Write(context.Background(), []byte("{}")) }()
	if err := <-readErr; err != nil {
		t.Fatalf("read: %v", err)
	}
	if err := <-writeErr; err != nil {
		t.Fatalf("write: %v", err)
	}
	go func() {
		_, err := a.Read(context.Background())
		readErr <- err
	}()
	b.Close("bye")
	select {
	case err := <-readErr:
		if !errors.Is(err, ErrClosed) || !strings.Contains(err.Error(), "bye") {
			t.Fatalf("read after peer close: %v", err)
		}
	case <-time.After(waitLimit):
		t.Fatal("Close did not unblock Read")
	}
	if err := a.Write(context.Background(), []byte("{}")); !errors.Is(err, ErrClosed) {
		t.Fatalf("write after close: %v", err)
	}
}

func TestWebSocketBinaryFrameRejected(t *testing.T) {
	ct, st := wsPair(t, DialOptions{}, AcceptOptions{})
	// Reach under the Transport to send what a foreign peer would.
	if err := ct.(*wsTransport).c.Write(callCtx(t), websocket.MessageBinary, []byte("{}")); err != nil {
		t.Fatal(err)
	}
	// The client keeps reading, as a live peer would, so the server's close
	// handshake completes.
	clientErr := make(chan error, 1)
	go func() {
		_, err := ct.Read(callCtx(t))
		clientErr <- err
	}()
	if _, err := st.Read(callCtx(t)); !errors.Is(err, ErrClosed) || !strings.Contains(err.Error(), "binary") {
		t.Fatalf("server read: %v", err)
	}
	err := <-clientErr
	if websocket.CloseStatus(err) != websocket.StatusUnsupportedData {
		t.Fatalf("client saw %v, want StatusUnsupportedData", err)
	}
}

func TestCallBeforeStartFails(t *testing.T) {
	a, b := Pipe()
	defer b.Close("done")
	c := NewConn(a, nil, ConnOptions{})
	if err := c.Call(callCtx(t), "ping", nil, nil); err == nil || !strings.Contains(err.Error(), "Start") {
		t.Fatalf("want a Start error, got %v", err)
	}
}

// Bodies may carry bearer tokens (authenticate); even debug logs must not
// contain them.
func TestLogsNeverContainBodies(t *testing.T) {
	const secret = "tok-SECRET-123"
	p := newPair(t, overPipe)
	ctx := callCtx(t)
	_ = p.client.Call(ctx, "echo", map[string]string{"token": secret}, nil)
	_ = p.client.Call(ctx, "nope", map[string]string{"token": secret}, nil)
	_ = p.client.Notify(ctx, "seq", map[string]any{"N": 0, "token": secret})
	select {
	case <-p.serverH.noteCh:
	case <-time.After(waitLimit):
		t.Fatal("notification not delivered")
	}
	p.client.Close()
	<-p.server.Done()
	for _, sink := range []*logSink{p.clientLog, p.serverLog} {
		for {
			select {
			case m := <-sink.ch:
				if strings.Contains(m, secret) {
					t.Fatalf("log line leaks a body: %s", m)
				}
				continue
			default:
			}
			break
		}
	}
}

func TestCancelledCallLeavesConnOpen(t *testing.T) {
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			p := newPair(t, kind)
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			if err := p.client.Call(ctx, "add", map[string]int{"A": 1}, nil); !errors.Is(err, context.Canceled) {
				t.Fatalf("want context.Canceled, got %v", err)
			}
			var sum int
			if err := p.client.Call(callCtx(t), "add", map[string]int{"A": 1, "B": 1}, &sum); err != nil || sum != 2 {
				t.Fatalf("conn unusable after a cancelled call: %d, %v", sum, err)
			}
		})
	}
}

func TestTooManyConcurrentRequestsAnswered(t *testing.T) {
	a, b := Pipe()
	h := newTestHandler()
	server := NewConn(a, h, ConnOptions{MaxConcurrentRequests: 2})
	client := NewConn(b, nil, ConnOptions{})
	server.Start(t.Context())
	client.Start(t.Context())
	t.Cleanup(func() { close(h.release); client.Close(); server.Close() })

	errs := make(chan error, 2)
	for range 2 {
		go func() { errs <- client.Call(callCtx(t), "block", nil, nil) }()
		<-h.started
	}
	err := client.Call(callCtx(t), "block", nil, nil)
	var rpcErr *Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != InternalError || !strings.Contains(rpcErr.Message, "too many") {
		t.Fatalf("third request: %v", err)
	}
	h.release <- struct{}{}
	h.release <- struct{}{}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatalf("blocked call: %v", err)
		}
	}
	// Slots are given back once handlers finish.
	var sum int
	if err := client.Call(callCtx(t), "add", map[string]int{"A": 2, "B": 2}, &sum); err != nil || sum != 4 {
		t.Fatalf("after release: %d, %v", sum, err)
	}
}
