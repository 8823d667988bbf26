package authpkce

import (
	"context"
	"crypto/subtle"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"time"
)

// loopback is the 127.0.0.1 listener the browser returns to. With a fixed
// callback port (so one `ssh -L` serves every sign-in) one loopback serves
// every flow in flight, each found by its state; with an ephemeral port
// each flow has its own.
type loopback struct {
	ln     net.Listener
	srv    *http.Server
	served chan struct{}
	shared bool

	refs int // flows that acquired it; guarded by Authenticator.lbMu when shared

	mu    sync.Mutex
	flows []*flow
}

func (lb *loopback) redirectURI() string {
	return fmt.Sprintf("http://127.0.0.1:%d/callback", lb.ln.Addr().(*net.TCPAddr).Port)
}

// acquireLoopback returns the listener for a new flow: the shared one on
// the fixed port (opened by the first flow), or a fresh ephemeral one.
func (a *Authenticator) acquireLoopback() (*loopback, error) {
	if a.callbackPort == 0 {
		lb, err := startLoopback("127.0.0.1:0", false)
		if err == nil {
			lb.refs = 1
		}
		return lb, err
	}
	a.lbMu.Lock()
	defer a.lbMu.Unlock()
	if a.shared == nil {
		lb, err := startLoopback(fmt.Sprintf("127.0.0.1:%d", a.callbackPort), true)
		if err != nil {
			return nil, err
		}
		a.shared = lb
	}
	a.shared.refs++
	return a.shared, nil
}

func startLoopback(addr string, shared bool) (*loopback, error) {
	// Never 0.0.0.0: the authorization code must not be reachable from the
	// network (RFC 8252 §8.3).
	// A busy port reads "bind: address already in use" in err; the
	// sentinel lets the UI say which flag picks another.
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCallbackPort, err)
	}
	lb := &loopback{ln: ln, served: make(chan struct{}), shared: shared}
	lb.srv = &http.Server{
		Handler:           loopbackOnly(lb),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          log.New(io.Discard, "", 0),
	}
	go func() {
		defer close(lb.served)
		_ = lb.srv.Serve(ln) // returns ErrServerClosed after Shutdown
	}()
	return lb, nil
}

func (lb *loopback) add(f *flow) {
	lb.mu.Lock()
	lb.flows = append(lb.flows, f)
	lb.mu.Unlock()
}

// releaseLoopback removes f (nil when the flow never started); the last
// one out closes the listener, after letting the callback page finish
// rendering (never waiting long for it).
func (a *Authenticator) releaseLoopback(lb *loopback, f *flow) {
	if lb.shared {
		a.lbMu.Lock()
		defer a.lbMu.Unlock()
	}
	lb.mu.Lock()
	for i, g := range lb.flows {
		if g == f {
			lb.flows = append(lb.flows[:i], lb.flows[i+1:]...)
			break
		}
	}
	lb.mu.Unlock()
	if lb.refs--; lb.refs > 0 {
		return
	}
	if lb.shared {
		a.shared = nil
	}
	lb.close()
}

func (lb *loopback) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	if lb.srv.Shutdown(ctx) != nil {
		lb.srv.Close()
	}
	cancel()
	<-lb.served
}

// ServeHTTP routes a callback to the flow whose state it carries. One that
// matches none gets the flow's refusal page and ends nothing.
func (lb *loopback) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	state := []byte(r.URL.Query().Get("state"))
	lb.mu.Lock()
	var target *flow
	for _, f := range lb.flows {
		if subtle.ConstantTimeCompare(state, []byte(f.state)) == 1 {
			target = f
		}
	}
	if target == nil && len(lb.flows) > 0 {
		target = lb.flows[0] // its handler refuses the state, path or method
	}
	lb.mu.Unlock()
	if target == nil {
		writePage(w, http.StatusGone, page{
			Title:  "No sign-in in progress",
			Detail: "ahptui is not waiting for a sign-in. Return to the terminal.",
		})
		return
	}
	target.ServeHTTP(w, r)
}
