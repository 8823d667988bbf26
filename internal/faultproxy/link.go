package faultproxy

import (
	"net"
	"sync"
	"time"
)

// link is one proxied connection: two directions, each a reader filling a
// queue and a writer draining it, so a stall or delay never stops the proxy
// from noticing that a side closed.
type link struct {
	p        *Proxy
	client   net.Conn
	upstream net.Conn

	mu      sync.Mutex
	stalled bool
	delay   time.Duration
	dead    bool
	done    chan struct{} // closed by kill
	toCli   *direction    // host → client
	toUp    *direction    // client → host
}

type chunk struct {
	data []byte
	due  time.Time
}

type direction struct {
	src, dst net.Conn
	toClient bool
	q        []chunk // q[0] stays queued until its write returned
	queued   int
	// broken: a write to dst failed, so nothing queued here will be
	// delivered; the link dies through the other direction's reader.
	broken bool
	// finished: src ended and everything queued reached dst, which was
	// then half-closed.
	finished bool
	wake     chan struct{} // cap 1: queue, stall or delay changed
	space    chan struct{} // cap 1: the writer freed queue space
}

func newLink(p *Proxy, client, up net.Conn) *link {
	l := &link{p: p, client: client, upstream: up, done: make(chan struct{})}
	l.toCli = &direction{src: up, dst: client, toClient: true, wake: make(chan struct{}, 1), space: make(chan struct{}, 1)}
	l.toUp = &direction{src: client, dst: up, wake: make(chan struct{}, 1), space: make(chan struct{}, 1)}
	return l
}

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// run forwards until either side fails or the link is killed, then returns
// once all four goroutines have exited.
func (l *link) run() {
	var wg sync.WaitGroup
	for _, d := range []*direction{l.toCli, l.toUp} {
		wg.Add(2)
		go func() { defer wg.Done(); l.read(d) }()
		go func() { defer wg.Done(); l.write(d) }()
	}
	wg.Wait()
}

// kill closes both sides once. reset makes the client side see a TCP RST.
func (l *link) kill(reset bool) {
	l.mu.Lock()
	if l.dead {
		l.mu.Unlock()
		return
	}
	l.dead = true
	close(l.done)
	l.mu.Unlock()
	if reset {
		abort(l.client)
	} else {
		_ = l.client.Close()
	}
	_ = l.upstream.Close()
}

func (l *link) setStalled(on bool) {
	l.mu.Lock()
	l.stalled = on
	l.mu.Unlock()
	signal(l.toCli.wake)
	signal(l.toUp.wake)
}

func (l *link) setDelay(d time.Duration) {
	l.mu.Lock()
	l.delay = d
	l.mu.Unlock()
}

func (l *link) read(d *direction) {
	buf := make([]byte, 32<<10)
	for {
		// Back-pressure: wait for the writer while the queue is full.
		for {
			l.mu.Lock()
			full := d.queued >= maxQueued
			l.mu.Unlock()
			if !full {
				break
			}
			select {
			case <-d.space:
			case <-l.done:
				return
			}
		}
		n, err := d.src.Read(buf)
		l.mu.Lock()
		broken := d.broken
		l.mu.Unlock()
		if n > 0 && !broken { // a broken direction delivers nothing more
			data := append([]byte(nil), buf[:n]...)
			l.mu.Lock()
			d.q = append(d.q, chunk{data: data, due: time.Now().Add(l.delay)})
			d.queued += n
			l.mu.Unlock()
			signal(d.wake)
			if l.p.queued != nil {
				l.p.queued(d.toClient)
			}
		}
		if err != nil {
			// The source closed: forward what is queued first only if
			// nothing is holding it; a stalled link just dies, as a
			// broken path would.
			l.drainThenKill(d)
			return
		}
	}
}

// drainThenKill lets the writer flush the queue (unless stalled) after d's
// source closed, so a half-close from one side still delivers its last
// bytes. The queue counts as empty only once the last write returned: a
// chunk being written is still in it, so the close never overtakes it.
//
// A drained direction only half-closes its destination; the link closes
// once the other direction is done too. Closing it at once would make the
// receiver's next write fail the instant the last bytes arrive, which no
// real path does: a host reading a client's final dispatches must get to
// handle all of them before its echo can bounce off the closed client
// (demohost stops reading when a write fails).
func (l *link) drainThenKill(d *direction) {
	other := l.toCli
	if d == l.toCli {
		other = l.toUp
	}
	for {
		l.mu.Lock()
		if d.broken || l.stalled {
			l.mu.Unlock()
			l.kill(false)
			return
		}
		if len(d.q) == 0 {
			d.finished = true
			both := other.finished
			l.mu.Unlock()
			if both {
				l.kill(false)
				return
			}
			if tc, ok := d.dst.(*net.TCPConn); ok {
				_ = tc.CloseWrite()
				return
			}
			l.kill(false)
			return
		}
		l.mu.Unlock()
		select {
		case <-d.space:
		case <-l.done:
			return
		}
	}
}

func (l *link) write(d *direction) {
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		l.mu.Lock()
		if l.stalled || len(d.q) == 0 {
			l.mu.Unlock()
			select {
			case <-d.wake:
				continue
			case <-l.done:
				return
			}
		}
		c := d.q[0]
		l.mu.Unlock()

		if wait := time.Until(c.due); wait > 0 {
			if timer == nil {
				timer = time.NewTimer(wait)
			} else {
				timer.Reset(wait)
			}
			select {
			case <-timer.C:
			case <-d.wake:
				// A stall may have started meanwhile; re-check. Since
				// Go 1.23 Stop leaves no stale tick to drain.
				timer.Stop()
				continue
			case <-l.done:
				return
			}
		}

		l.mu.Lock()
		stalled := l.stalled
		l.mu.Unlock()
		if stalled {
			continue
		}

		if d.toClient {
			if cut := l.p.takeCut(len(c.data)); cut != nil {
				_, _ = d.dst.Write(c.data[:len(c.data)/2])
				// A plain close (FIN), not a reset: the client must
				// receive the half chunk and then hit end of stream
				// inside the frame.
				l.kill(false)
				close(cut.done)
				return
			}
		}
		_, err := d.dst.Write(c.data)
		l.mu.Lock()
		d.q[0] = chunk{}
		d.q = d.q[1:]
		d.queued -= len(c.data)
		if err != nil {
			d.broken = true
		}
		l.mu.Unlock()
		signal(d.space)
		if err != nil {
			// Only this direction is over. Bytes the other side sent
			// before it went away are still on the wire, as on a real
			// path: a client that gave up on a slow link does not
			// recall the dispatch it wrote into it. That direction's
			// reader sees the close, drains its queue, then kills.
			return
		}
	}
}
