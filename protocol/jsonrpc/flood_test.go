package jsonrpc

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// floodGoroutineBudget is how many goroutines the whole test binary may
// run while a Conn is flooded: the Conn's own three, its handlers (capped
// by MaxConcurrentRequests), the peer's and the runtime's. A goroutine per
// request would pass it within the first few hundred frames.
const floodGoroutineBudget = 100

// peakGoroutines samples runtime.NumGoroutine from the caller's loop.
type peakGoroutines struct{ max int }

func (p *peakGoroutines) sample() {
	if n := runtime.NumGoroutine(); n > p.max {
		p.max = n
	}
}

// TestRequestFloodFromPeerThatNeverReads: a peer sends requests and never
// reads the answers. The answers wait in the one reply writer's queue, not
// in a goroutine each; when it is full the reader waits, and the write
// timeout closes the connection. The goroutine count stays flat all along.
func TestRequestFloodFromPeerThatNeverReads(t *testing.T) {
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			ct, st := transportPair(t, kind, AcceptOptions{})
			const maxReplies = 64
			const writeTimeout = 300 * time.Millisecond
			// Big answers fill the socket's kernel buffers within a few
			// hundred requests, so the writer stalls as it would behind
			// tens of thousands of small ones.
			refusal := NewError(PermissionDenied, strings.Repeat("no ", 10_000))
			c := NewConn(ct, HandlerFunc(func(context.Context, *Request) (any, error) {
				return nil, refusal
			}), ConnOptions{MaxConcurrentRequests: 4, MaxQueuedReplies: maxReplies, WriteTimeout: writeTimeout})
			c.Start(t.Context())
			t.Cleanup(func() { c.Close() })

			var peak peakGoroutines
			ctx := callCtx(t)
			sent := 0
			// Over a pipe the reply writer blocks on the first answer; over
			// a socket the kernel takes a few MiB of answers first. Either
			// way the writer stalls long before 250k requests, and the
			// peer's writes stall once the reader waits for it.
			ctx, cancel := context.WithTimeout(ctx, 2*time.Second+waitLimit)
			defer cancel()
			for sent = 0; sent < 250_000; sent++ {
				frame := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resourceRead","params":{"uri":"file:///etc/passwd"}}`, sent)
				if err := st.Write(ctx, []byte(frame)); err != nil {
					break // the Conn closed on us
				}
				if sent%256 == 0 {
					peak.sample()
				}
				select {
				case <-c.Done():
				default:
					continue
				}
				break
			}
			select {
			case <-c.Done():
			case <-ctx.Done():
				t.Fatalf("%d requests never read: the connection is still open", sent)
			}
			if err := c.Err(); !errors.Is(err, ErrClosed) || !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("Err() = %v, want a write timeout", err)
			}
			peak.sample()
			t.Logf("closed after %d requests; peak goroutines %d", sent, peak.max)
			if peak.max > floodGoroutineBudget {
				t.Errorf("peak goroutines %d, budget %d", peak.max, floodGoroutineBudget)
			}
		})
	}
}

// TestRequestFloodFromPeerThatReads: a peer that reads its answers while
// it floods is answered every time on a connection that stays open, by
// handlers and refusals alike, without a goroutine per request.
func TestRequestFloodFromPeerThatReads(t *testing.T) {
	ct, st := wsPair(t, DialOptions{}, AcceptOptions{})
	c := NewConn(ct, HandlerFunc(func(context.Context, *Request) (any, error) {
		return nil, NewError(PermissionDenied, "no")
	}), ConnOptions{MaxConcurrentRequests: 2})
	c.Start(t.Context())
	t.Cleanup(func() { c.Close() })

	const n = 5_000
	ctx, cancel := context.WithTimeout(context.Background(), 6*waitLimit)
	defer cancel()
	var answered, refusedBusy atomic.Int64
	readDone := make(chan error, 1)
	go func() {
		for answered.Load() < n {
			b, err := st.Read(ctx)
			if err != nil {
				readDone <- err
				return
			}
			m, err := Decode(b)
			r, ok := m.(*Response)
			if err != nil || !ok || r.Error == nil {
				readDone <- fmt.Errorf("answer %s: %v", b, err)
				return
			}
			if r.Error.Code == InternalError {
				refusedBusy.Add(1)
			}
			answered.Add(1)
		}
		readDone <- nil
	}()
	var peak peakGoroutines
	for i := range n {
		if err := st.Write(ctx, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"resourceList"}`, i)); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		if i%256 == 0 {
			peak.sample()
		}
	}
	if err := <-readDone; err != nil {
		t.Fatal(err)
	}
	if err := c.Err(); err != nil {
		t.Fatalf("connection closed under a flood its peer reads: %v", err)
	}
	t.Logf("%d answers (%d refused as busy); peak goroutines %d", answered.Load(), refusedBusy.Load(), peak.max)
	if peak.max > floodGoroutineBudget {
		t.Errorf("peak goroutines %d, budget %d", peak.max, floodGoroutineBudget)
	}
}

// TestNotificationQueueCap: while the notification handler is stuck, the
// queue takes notifications up to its byte cap; one more closes the
// connection with ErrQueueFull, and what was queued is still delivered, in
// order, once the handler moves again. Tiny frames count their overhead.
func TestNotificationQueueCap(t *testing.T) {
	for _, tc := range []struct {
		name  string
		frame string
	}{
		{"big frames", `{"jsonrpc":"2.0","method":"n","params":["` + strings.Repeat("x", 64<<10) + `"]}`},
		{"tiny frames", `{"jsonrpc":"2.0","method":"n"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ct, st := wsPair(t, DialOptions{}, AcceptOptions{})
			const capBytes = 1 << 20
			cost := int64(len(tc.frame)) + queuedNotificationOverhead
			maxSends := int(10*capBytes/cost) + 10
			release := make(chan struct{})
			delivered := make(chan struct{}, maxSends)
			c := NewConn(ct, HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
				<-release
				delivered <- struct{}{}
				return nil, nil
			}), ConnOptions{MaxQueuedNotificationBytes: capBytes})
			c.Start(t.Context())
			t.Cleanup(func() { c.Close() })

			ctx := callCtx(t)
			sent := 0
			for ; sent < maxSends && c.Err() == nil; sent++ {
				if st.Write(ctx, []byte(tc.frame)) != nil {
					break
				}
			}
			select {
			case <-c.Done():
			case <-ctx.Done():
				t.Fatalf("%d notifications (%d bytes each) queued without closing", sent, len(tc.frame))
			}
			if err := c.Err(); !errors.Is(err, ErrQueueFull) {
				t.Fatalf("Err() = %v, want ErrQueueFull", err)
			}
			// The reader closed the connection itself, so it queues nothing
			// more: what is queued now, plus the one the handler holds, is
			// what must still be delivered.
			c.qmu.Lock()
			queued, queuedBytes := len(c.queue), c.qbytes
			c.qmu.Unlock()
			if queuedBytes > capBytes {
				t.Errorf("%d bytes queued, cap %d", queuedBytes, capBytes)
			}
			if queued < int(capBytes/cost)-1 {
				t.Errorf("closed with only %d queued; the cap holds %d", queued, capBytes/cost)
			}
			close(release)
			for i := range queued + 1 {
				select {
				case <-delivered:
				case <-ctx.Done():
					t.Fatalf("only %d of %d queued notifications delivered after the close", i, queued+1)
				}
			}
			t.Logf("closed after %d notifications, %d queued (%d KiB)", sent, queued, queuedBytes>>10)
		})
	}
}

// TestDialUsesItsOwnHTTPClient: whatever a dependency puts in
// http.DefaultTransport never sees the upgrade request, and a redirect
// answer is not followed.
func TestDialUsesItsOwnHTTPClient(t *testing.T) {
	var hijacked atomic.Int64
	orig := http.DefaultTransport
	http.DefaultTransport = roundTripFunc(func(r *http.Request) (*http.Response, error) {
		hijacked.Add(1)
		return orig.RoundTrip(r)
	})
	t.Cleanup(func() { http.DefaultTransport = orig })

	ct, st := wsPair(t, DialOptions{}, AcceptOptions{})
	ct.Close("done")
	st.Close("done")
	if n := hijacked.Load(); n != 0 {
		t.Errorf("the dial went through http.DefaultTransport %d times", n)
	}

	var followed atomic.Int64
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		followed.Add(1)
		tr, err := Accept(w, r, AcceptOptions{})
		if err == nil {
			tr.Close("should not be here")
		}
	}))
	t.Cleanup(target.Close)
	redirector := httptest.NewServer(http.RedirectHandler(target.URL, http.StatusTemporaryRedirect))
	t.Cleanup(redirector.Close)
	_, err := Dial(callCtx(t), "ws"+strings.TrimPrefix(redirector.URL, "http"), DialOptions{})
	if err == nil {
		t.Fatal("Dial followed a redirect to another host and succeeded")
	}
	if followed.Load() != 0 {
		t.Error("the redirect target received the upgrade request")
	}
	if !strings.Contains(err.Error(), "HTTP 307") {
		t.Errorf("Dial error %q does not name the redirect status", err)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
