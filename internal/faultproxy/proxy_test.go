package faultproxy

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// echoServer echoes every line it reads, upper-cased, so a test can tell the
// reply came through the upstream. "BIG n\n" answers with n bytes of 'x' in
// one write instead.
type echoServer struct {
	ln   net.Listener
	wg   sync.WaitGroup
	mu   sync.Mutex
	open map[net.Conn]struct{}
}

func startEcho(t *testing.T) *echoServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &echoServer{ln: ln, open: map[net.Conn]struct{}{}}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.open[c] = struct{}{}
			s.mu.Unlock()
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					var n int
					if _, perr := fmtSscanf(line, &n); perr == nil {
						if _, err := c.Write(bytes.Repeat([]byte("x"), n)); err != nil {
							return
						}
						continue
					}
					if _, err := io.WriteString(c, strings.ToUpper(line)); err != nil {
						return
					}
				}
			}()
		}
	}()
	t.Cleanup(s.close)
	return s
}

func (s *echoServer) close() {
	_ = s.ln.Close()
	s.mu.Lock()
	for c := range s.open {
		_ = c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

func fmtSscanf(line string, n *int) (int, error) {
	var rest string
	if !strings.HasPrefix(line, "BIG ") {
		return 0, errors.New("not BIG")
	}
	rest = strings.TrimSpace(strings.TrimPrefix(line, "BIG "))
	v := 0
	for _, r := range rest {
		if r < '0' || r > '9' {
			return 0, errors.New("bad number")
		}
		v = v*10 + int(r-'0')
	}
	*n = v
	return 1, nil
}

func startProxy(t *testing.T, upstream string) *Proxy {
	t.Helper()
	p, err := Start(upstream)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

func dial(t *testing.T, p *Proxy) (net.Conn, *bufio.Reader) {
	t.Helper()
	before := p.Stats().Accepted
	c, err := net.DialTimeout("tcp", p.Addr(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// Faults apply to open connections, so wait until this one is one.
	if err := p.WaitAccepted(ctx, before+1); err != nil {
		t.Fatal(err)
	}
	return c, bufio.NewReader(c)
}

// roundTrip sends line and reads the echoed reply within timeout.
func roundTrip(c net.Conn, r *bufio.Reader, line string, timeout time.Duration) (string, error) {
	_ = c.SetDeadline(time.Now().Add(timeout))
	defer c.SetDeadline(time.Time{})
	if _, err := io.WriteString(c, line+"\n"); err != nil {
		return "", err
	}
	got, err := r.ReadString('\n')
	return strings.TrimSuffix(got, "\n"), err
}

func TestForwardsBothWays(t *testing.T) {
	up := startEcho(t)
	p := startProxy(t, up.ln.Addr().String())
	c, r := dial(t, p)
	for _, line := range []string{"hello", "second line", strings.Repeat("y", 100000)} {
		got, err := roundTrip(c, r, line, 5*time.Second)
		if err != nil {
			t.Fatalf("round trip %.20q: %v", line, err)
		}
		if got != strings.ToUpper(line) {
			t.Fatalf("got %.20q, want %.20q", got, strings.ToUpper(line))
		}
	}
	if s := p.Stats(); s.Accepted != 1 {
		t.Fatalf("Accepted = %d, want 1", s.Accepted)
	}
}

func TestDropResetsOpenConnectionsOnly(t *testing.T) {
	up := startEcho(t)
	p := startProxy(t, up.ln.Addr().String())
	c, r := dial(t, p)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := p.WaitAccepted(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if n := p.Drop(); n != 1 {
		t.Fatalf("Drop() = %d, want 1", n)
	}
	_, err := roundTrip(c, r, "after drop", 5*time.Second)
	if err == nil {
		t.Fatal("round trip succeeded on a dropped connection")
	}
	if !errors.Is(err, syscall.ECONNRESET) && !errors.Is(err, io.EOF) && !errors.Is(err, syscall.EPIPE) {
		t.Fatalf("dropped connection failed with %v, want a reset or EOF", err)
	}
	// A new connection is clean.
	c2, r2 := dial(t, p)
	if got, err := roundTrip(c2, r2, "again", 5*time.Second); err != nil || got != "AGAIN" {
		t.Fatalf("new connection after drop: %q, %v", got, err)
	}
	if s := p.Stats(); s.Drops != 1 || s.Accepted != 2 {
		t.Fatalf("stats %+v, want 1 drop and 2 accepted", s)
	}
}

func TestStallHoldsBytesWithoutClosing(t *testing.T) {
	up := startEcho(t)
	p := startProxy(t, up.ln.Addr().String())
	c, r := dial(t, p)
	if _, err := roundTrip(c, r, "warm", 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if n := p.Stall(); n != 1 {
		t.Fatalf("Stall() = %d, want 1", n)
	}
	// Absence of a reply is what is under test, so a read deadline is the
	// only way to observe it.
	_, err := roundTrip(c, r, "stalled", 300*time.Millisecond)
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("stalled round trip: %v, want a timeout (no bytes, no close)", err)
	}
	if p.Open() != 1 {
		t.Fatalf("stalled connection closed: %d open", p.Open())
	}
	// A connection opened during the stall is not stalled.
	c2, r2 := dial(t, p)
	if got, err := roundTrip(c2, r2, "fresh", 5*time.Second); err != nil || got != "FRESH" {
		t.Fatalf("new connection during stall: %q, %v", got, err)
	}
	// Resume delivers the held bytes in order.
	p.Resume()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	got, err := r.ReadString('\n')
	if err != nil || got != "STALLED\n" {
		t.Fatalf("after resume: %q, %v", got, err)
	}
}

func TestStalledConnectionNoticesClientClose(t *testing.T) {
	up := startEcho(t)
	p := startProxy(t, up.ln.Addr().String())
	c, _ := dial(t, p)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := p.WaitOpen(ctx, 1); err != nil {
		t.Fatal(err)
	}
	p.Stall()
	_ = c.Close()
	if err := p.WaitOpen(ctx, 0); err != nil {
		t.Fatalf("stalled link outlived its client: %v", err)
	}
}

func TestDelayHoldsEachChunk(t *testing.T) {
	up := startEcho(t)
	p := startProxy(t, up.ln.Addr().String())
	c, r := dial(t, p)
	if _, err := roundTrip(c, r, "warm", 5*time.Second); err != nil {
		t.Fatal(err)
	}
	const d = 150 * time.Millisecond
	if n := p.Delay(d); n != 1 {
		t.Fatalf("Delay() = %d, want 1", n)
	}
	start := time.Now()
	got, err := roundTrip(c, r, "slow", 5*time.Second)
	if err != nil || got != "SLOW" {
		t.Fatalf("delayed round trip: %q, %v", got, err)
	}
	// Both directions are held, so a round trip takes at least 2d.
	if el := time.Since(start); el < 2*d {
		t.Fatalf("round trip took %v, want at least %v", el, 2*d)
	}
	if s := p.Stats(); s.Delays != 1 {
		t.Fatalf("Delays = %d, want 1", s.Delays)
	}
}

func TestCutForwardsHalfThenCloses(t *testing.T) {
	up := startEcho(t)
	p := startProxy(t, up.ln.Addr().String())
	c, r := dial(t, p)
	if _, err := roundTrip(c, r, "warm", 5*time.Second); err != nil {
		t.Fatal(err)
	}
	cut := p.CutNextServerWrite(100)
	// A short reply does not trigger a cut armed for 100 bytes.
	if got, err := roundTrip(c, r, "tiny", 5*time.Second); err != nil || got != "TINY" {
		t.Fatalf("short reply: %q, %v", got, err)
	}
	const n = 4000
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, "BIG 4000\n"); err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("cut connection ended with %v, want a clean end of stream after half a chunk", err)
	}
	select {
	case <-cut:
	case <-time.After(5 * time.Second):
		t.Fatal("cut channel not closed")
	}
	if len(body) == 0 || len(body) >= n || strings.Trim(string(body), "x") != "" {
		t.Fatalf("received %d bytes of the %d-byte write, want a non-empty strict prefix", len(body), n)
	}
	if s := p.Stats(); s.Cuts != 1 {
		t.Fatalf("Cuts = %d, want 1", s.Cuts)
	}
}

func TestRefuseAndSetUpstream(t *testing.T) {
	a, b := startEcho(t), startEcho(t)
	p := startProxy(t, a.ln.Addr().String())
	p.Refuse(true)
	expectClosed(t, p, "refused connection")
	p.Refuse(false)
	p.SetUpstream(b.ln.Addr().String())
	c2, r2 := dial(t, p)
	if got, err := roundTrip(c2, r2, "moved", 5*time.Second); err != nil || got != "MOVED" {
		t.Fatalf("after SetUpstream: %q, %v", got, err)
	}
	b.mu.Lock()
	nb := len(b.open)
	b.mu.Unlock()
	if nb != 1 {
		t.Fatalf("new upstream saw %d connections, want 1", nb)
	}
	if s := p.Stats(); s.Refused != 1 || s.Accepted != 1 {
		t.Fatalf("stats %+v, want 1 refused, 1 accepted", s)
	}
}

func TestUnreachableUpstreamIsRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	p := startProxy(t, addr)
	expectClosed(t, p, "connection to a dead upstream")
	if s := p.Stats(); s.Refused != 1 || s.Accepted != 0 {
		t.Fatalf("stats %+v, want 1 refused", s)
	}
}

// expectClosed dials p and wants the connection closed without a byte. The
// reset may even beat the dial's completion, which counts as closed too.
func expectClosed(t *testing.T, p *Proxy, what string) {
	t.Helper()
	c, err := net.DialTimeout("tcp", p.Addr(), 5*time.Second)
	if err != nil {
		if !errors.Is(err, syscall.ECONNRESET) {
			t.Fatalf("%s: dial: %v", what, err)
		}
		return
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Fatalf("%s delivered a byte", what)
	} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("%s stayed open", what)
	}
}

func TestCloseLeavesNoGoroutines(t *testing.T) {
	up := startEcho(t)
	base := runtime.NumGoroutine()
	p, err := Start(up.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	for i := 0; i < 5; i++ {
		c, err := net.DialTimeout("tcp", p.Addr(), 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := p.WaitOpen(ctx, 5); err != nil {
		t.Fatal(err)
	}
	p.Stall()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	for _, c := range conns {
		_ = c.Close()
	}
	// Close waited for the proxy's goroutines; the echo server's handlers
	// exit once they see the close, which takes a scheduling round.
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > base+2 {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines after Close, baseline %d\n%s", runtime.NumGoroutine(), base, buf[:runtime.Stack(buf, true)])
		}
		runtime.Gosched()
		time.Sleep(5 * time.Millisecond)
	}
}

// TestDelayedBytesOutliveTheirSender covers a client that gives up on a
// slow link: what it wrote before closing is already on the path and must
// still reach the host, even though the host's next bytes find the client
// gone first. A chaos test depends on this (the host applies a dispatch the
// client no longer waits for); before, the failed write towards the client
// killed the link and dropped the held bytes, or the close after the drain
// overtook the last write.
func TestDelayedBytesOutliveTheirSender(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			close(accepted)
			return
		}
		accepted <- c
	}()
	p := startProxy(t, ln.Addr().String())
	queued := make(chan bool, 16)
	p.mu.Lock()
	p.queued = func(toClient bool) {
		select {
		case queued <- toClient:
		default: // more than the test waits for; never block the proxy
		}
	}
	p.mu.Unlock()
	c, _ := dial(t, p)
	h, ok := <-accepted
	if !ok {
		t.Fatal("upstream accepted nothing")
	}
	t.Cleanup(func() { _ = h.Close() })

	// The host's account, read until the proxy closes the upstream.
	var got []byte
	var rerr error
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		_ = h.SetReadDeadline(time.Now().Add(5 * time.Second))
		got, rerr = io.ReadAll(h)
	}()

	// The client's bytes are held; the host's later ones are not, so they
	// reach the closed client first.
	p.Delay(300 * time.Millisecond)
	if _, err := io.WriteString(c, "late dispatch\n"); err != nil {
		t.Fatal(err)
	}
	select {
	case toClient := <-queued:
		if toClient {
			t.Fatal("the host's bytes were queued before the client's")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the proxy never read the client's bytes")
	}
	p.Delay(0)
	_ = c.Close()
	// The first write to the closed client draws a reset, a later one
	// fails on it. Each is sent once the proxy read the one before, so
	// they are separate writes towards the client.
writes:
	for _, s := range []string{"a", "b", "c"} {
		if _, err := io.WriteString(h, s); err != nil {
			break // the proxy closed the upstream: the read says what came
		}
		select {
		case <-queued:
		case <-readDone:
			break writes
		case <-time.After(5 * time.Second):
			t.Fatal("the proxy never read the host's bytes")
		}
	}

	<-readDone
	if rerr != nil {
		t.Fatalf("host read: %v (got %q)", rerr, got)
	}
	if string(got) != "late dispatch\n" {
		t.Fatalf("host got %q before the close, want %q", got, "late dispatch\n")
	}
}
