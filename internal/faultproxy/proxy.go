// Package faultproxy is a TCP proxy on 127.0.0.1 that injects connection
// faults between a client and a host, for tests of reconnect behaviour.
//
// It works below WebSocket: it forwards the bytes each Read returns as one
// chunk, so a "server write" is whatever the host's TCP write delivered in one
// piece. The faults are the ones a real network produces:
//
//   - Drop: every open connection is reset at once, mid-whatever.
//   - Stall: open connections stop forwarding in both directions but stay
//     open — no bytes, no close — so only a ping timeout can notice.
//   - Delay: open connections hold every chunk for a duration before
//     forwarding it (order is kept).
//   - CutNextServerWrite: the next host→client chunk is forwarded only half,
//     then the connection is closed, leaving the client with half a frame.
//   - Refuse: new connections are accepted and closed at once (host down).
//
// Faults apply to the connections open when they are injected; connections
// accepted later are clean, so a client that reconnects gets a working link.
// That is what the tests need: the old link fails, the new one works.
package faultproxy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"
)

// maxQueued bounds the bytes a stalled or delayed direction holds before the
// proxy stops reading from its source: beyond it, TCP flow control pushes
// back on the sender, as a congested link would.
const maxQueued = 8 << 20

// dialTimeout bounds the dial to the upstream for each accepted connection.
const dialTimeout = 5 * time.Second

// Stats counts what the proxy did, for test reports.
type Stats struct {
	Accepted int64 // client connections accepted and forwarded
	Refused  int64 // client connections closed on accept (Refuse, or upstream unreachable)
	Drops    int64 // connections reset by Drop
	Stalls   int64 // connections stalled by Stall
	Delays   int64 // connections given a delay by Delay
	Cuts     int64 // connections cut mid-chunk by CutNextServerWrite
}

// Proxy forwards TCP connections from its listener to an upstream address.
// Create it with Start; all methods are safe for concurrent use.
type Proxy struct {
	ln net.Listener
	wg sync.WaitGroup

	mu       sync.Mutex
	upstream string
	refuse   bool
	conns    map[*link]struct{}
	cut      *cutRequest
	stats    Stats
	closed   bool
	changed  chan struct{} // closed and replaced whenever Accepted or the open count changes
	closeErr error

	// queued, when set (by this package's tests, before the first
	// connection), is told of every chunk a link queues, so a test can
	// order its steps after the proxy read its bytes without waiting
	// on a clock.
	queued func(toClient bool)
}

type cutRequest struct {
	min  int
	done chan struct{}
}

// Start listens on 127.0.0.1 with an ephemeral port and forwards every
// accepted connection to upstream (host:port).
func Start(upstream string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("faultproxy: listen on 127.0.0.1: %w", err)
	}
	p := &Proxy{
		ln:       ln,
		upstream: upstream,
		conns:    make(map[*link]struct{}),
		changed:  make(chan struct{}),
	}
	p.wg.Add(1)
	go p.acceptLoop()
	return p, nil
}

// Addr is the proxy's listening address (127.0.0.1:PORT).
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// SetUpstream points connections accepted from now on at addr; open ones
// keep their upstream. Use it when the host is replaced by a new process on
// another port.
func (p *Proxy) SetUpstream(addr string) {
	p.mu.Lock()
	p.upstream = addr
	p.mu.Unlock()
}

// Refuse makes the proxy close new connections on accept while on is true,
// as if the host were unreachable.
func (p *Proxy) Refuse(on bool) {
	p.mu.Lock()
	p.refuse = on
	p.mu.Unlock()
}

// Drop resets every open connection (TCP RST on the client side) and
// returns how many it dropped.
func (p *Proxy) Drop() int {
	ls := p.snapshot()
	for _, l := range ls {
		l.kill(true)
	}
	p.count(func(s *Stats) { s.Drops += int64(len(ls)) })
	return len(ls)
}

// Stall stops every open connection from forwarding in either direction
// while leaving it open, and returns how many it stalled. Bytes keep being
// read (up to a bound) so a side that closes is still noticed.
func (p *Proxy) Stall() int {
	ls := p.snapshot()
	for _, l := range ls {
		l.setStalled(true)
	}
	p.count(func(s *Stats) { s.Stalls += int64(len(ls)) })
	return len(ls)
}

// Resume undoes Stall on the connections still open.
func (p *Proxy) Resume() {
	for _, l := range p.snapshot() {
		l.setStalled(false)
	}
}

// Delay makes every open connection hold each chunk for d before forwarding
// it, in both directions, and returns how many connections it affected.
// Chunks already queued keep their deadline.
func (p *Proxy) Delay(d time.Duration) int {
	ls := p.snapshot()
	for _, l := range ls {
		l.setDelay(d)
	}
	p.count(func(s *Stats) { s.Delays += int64(len(ls)) })
	return len(ls)
}

// CutNextServerWrite arms a one-shot cut: the next host→client chunk of at
// least min bytes, on any connection, is forwarded only in its first half,
// then that connection is closed. The returned channel is closed once the cut
// happened, so a test can wait for it instead of sleeping. Arming again
// replaces an unfired cut (whose channel then never closes).
func (p *Proxy) CutNextServerWrite(min int) <-chan struct{} {
	if min < 2 {
		min = 2
	}
	c := &cutRequest{min: min, done: make(chan struct{})}
	p.mu.Lock()
	p.cut = c
	p.mu.Unlock()
	return c.done
}

// Open is the number of connections currently being forwarded.
func (p *Proxy) Open() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.conns)
}

// Stats returns the counters so far.
func (p *Proxy) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stats
}

// WaitAccepted blocks until the proxy has accepted at least n connections in
// total, or ctx is done.
func (p *Proxy) WaitAccepted(ctx context.Context, n int64) error {
	return p.wait(ctx, func() bool { return p.stats.Accepted >= n },
		func() string { return fmt.Sprintf("accepted %d of %d connections", p.stats.Accepted, n) })
}

// WaitOpen blocks until exactly n connections are open, or ctx is done.
func (p *Proxy) WaitOpen(ctx context.Context, n int) error {
	return p.wait(ctx, func() bool { return len(p.conns) == n },
		func() string { return fmt.Sprintf("%d connections open, want %d", len(p.conns), n) })
}

func (p *Proxy) wait(ctx context.Context, ok func() bool, state func() string) error {
	for {
		p.mu.Lock()
		if ok() {
			p.mu.Unlock()
			return nil
		}
		ch := p.changed
		p.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			p.mu.Lock()
			s := state()
			p.mu.Unlock()
			return fmt.Errorf("faultproxy: %s: %w", s, ctx.Err())
		}
	}
}

// Close stops accepting, closes every connection and waits for all the
// proxy's goroutines to exit. It is safe to call more than once.
func (p *Proxy) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return p.closeErr
	}
	p.closed = true
	p.closeErr = p.ln.Close()
	p.mu.Unlock()
	for _, l := range p.snapshot() {
		l.kill(false)
	}
	p.wg.Wait()
	return p.closeErr
}

func (p *Proxy) snapshot() []*link {
	p.mu.Lock()
	defer p.mu.Unlock()
	ls := make([]*link, 0, len(p.conns))
	for l := range p.conns {
		ls = append(ls, l)
	}
	return ls
}

func (p *Proxy) count(f func(*Stats)) {
	p.mu.Lock()
	f(&p.stats)
	p.mu.Unlock()
}

// notifyLocked wakes WaitAccepted/WaitOpen callers; p.mu must be held.
func (p *Proxy) notifyLocked() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// takeCut hands the armed cut to a connection whose chunk has n bytes, or nil.
func (p *Proxy) takeCut(n int) *cutRequest {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.cut
	if c == nil || n < c.min {
		return nil
	}
	p.cut = nil
	p.stats.Cuts++
	return c
}

func (p *Proxy) acceptLoop() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// Transient accept errors (EMFILE) must not end the proxy; a
			// short pause keeps the loop from spinning on them.
			time.Sleep(10 * time.Millisecond)
			continue
		}
		p.mu.Lock()
		refuse, upstream, closed := p.refuse, p.upstream, p.closed
		p.mu.Unlock()
		if refuse || closed {
			p.count(func(s *Stats) { s.Refused++ })
			abort(c)
			continue
		}
		p.wg.Add(1)
		go p.serve(c, upstream)
	}
}

func (p *Proxy) serve(client net.Conn, upstream string) {
	defer p.wg.Done()
	up, err := net.DialTimeout("tcp", upstream, dialTimeout)
	if err != nil {
		p.count(func(s *Stats) { s.Refused++ })
		abort(client)
		return
	}
	l := newLink(p, client, up)
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		abort(client)
		abort(up)
		return
	}
	p.conns[l] = struct{}{}
	p.stats.Accepted++
	p.notifyLocked()
	p.mu.Unlock()

	l.run()

	p.mu.Lock()
	delete(p.conns, l)
	p.notifyLocked()
	p.mu.Unlock()
}

// abort closes c with a TCP reset where possible, as a crashed peer or a
// middlebox timing out would.
func abort(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = c.Close()
}
