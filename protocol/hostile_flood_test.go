package protocol

// Flood tests: a hostile host sends far more than any honest one — a
// quarter of a million requests, 64 MB of notifications to a consumer
// that has stopped reading, 50k auth/required for resources it never
// advertised. The stated bounds, checked on each:
//
//   - goroutines: the whole test process stays under floodGoroutineBudget
//     (client, host, runtime), sampled while the flood runs;
//   - memory: the live heap (after GC) grows by less than
//     hostileHeapBudget (64 MiB), measured at the flood's worst point;
//   - latency: afterwards an event reaches the consumer within
//     floodAnswerBudget of the host sending it;
//   - recovery: the client is Ready on a working connection afterwards
//     (the same one, or the one its reconnect opened).

import (
	"bytes"
	"errors"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ahptui/ahptui/protocol/internal/hostilehost"
)

const (
	floodGoroutineBudget = 100
	floodAnswerBudget    = 100 * time.Millisecond
)

// goroutinePeak samples runtime.NumGoroutine from the flooding loop.
type goroutinePeak struct{ max int }

func (p *goroutinePeak) sample() {
	if n := runtime.NumGoroutine(); n > p.max {
		p.max = n
	}
}

func (p *goroutinePeak) check(t *testing.T) {
	t.Helper()
	t.Logf("peak goroutines %d (budget %d)", p.max, floodGoroutineBudget)
	if p.max >= floodGoroutineBudget {
		t.Errorf("peak goroutines %d, budget %d", p.max, floodGoroutineBudget)
	}
}

func checkHeapGrowth(t *testing.T, what string, before, after uint64) {
	t.Helper()
	growth := int64(after) - int64(before)
	t.Logf("live heap %s: %d KiB before, %d KiB after (growth %d KiB; budget %d MiB)",
		what, before>>10, after>>10, growth>>10, hostileHeapBudget>>20)
	if growth > hostileHeapBudget {
		t.Errorf("live heap grew by %d MiB %s, budget %d MiB", growth>>20, what, hostileHeapBudget>>20)
	}
}

// timedBarrier is barrier that also checks the event reached the consumer
// within floodAnswerBudget of the host sending it.
func (r *hostileRig) timedBarrier(t *testing.T, seq int64) {
	t.Helper()
	start := time.Now()
	r.barrier(t, seq)
	d := time.Since(start)
	t.Logf("after the flood an event reached the consumer in %v (budget %v)", d.Round(time.Microsecond), floodAnswerBudget)
	if d > floodAnswerBudget {
		t.Errorf("after the flood an event took %v to reach the consumer, budget %v", d, floodAnswerBudget)
	}
}

// recover waits until the client is Ready on a connection that finished
// its handshake after from (in the event log), and adopts it.
func (r *hostileRig) recoverAfter(t *testing.T, old *hostilehost.Conn, from int) {
	t.Helper()
	select {
	case <-old.Done():
		r.conn = r.nextConn(t)
		r.events.waitFor(t, r.ctx, from, "Ready again", isStatus(StatusReady))
	default:
	}
	r.assertUp(t)
}

// TestHostileRequestFlood: 250k host → client requests for a local file
// (50k with the race detector).
// Each is refused (the client serves no resources) through the one reply
// writer: no goroutine per request, no growing queue, the connection
// answers everything the host reads.
func TestHostileRequestFlood(t *testing.T) {
	n := 250_000
	if raceEnabled {
		// The race detector makes every channel operation and syscall
		// several times dearer: 250k round trips would take minutes.
		// The bounds are per request, so 50k shows them as well.
		n = 50_000
	}
	var answers atomic.Int64
	allAnswered := make(chan struct{})
	r := startHostileConfig(t, hostilehost.Config{
		ForgetInbound: true,
		Tap: func(_ int64, dir string, frame []byte) {
			if dir == hostilehost.Inbound && bytes.Contains(frame, []byte(`"id":"flood-`)) {
				if answers.Add(1) == int64(n) {
					close(allAnswered)
				}
			}
		},
	})
	r.barrier(t, 11)
	before := heapInUse()
	var peak goroutinePeak
	from := r.events.len()
	old := r.conn
	frame := make([]byte, 0, 128)
	sent := 0
	for ; sent < n; sent++ {
		frame = append(frame[:0], `{"jsonrpc":"2.0","id":"flood-`...)
		frame = strconv.AppendInt(frame, int64(sent), 10)
		frame = append(frame, `","method":"resourceRead","params":{"uri":"file:///etc/passwd"}}`...)
		if err := r.conn.Send(r.ctx, frame); err != nil {
			break // the client closed the connection: recovery is checked below
		}
		if sent%1024 == 0 {
			peak.sample()
		}
	}
	select {
	case <-allAnswered:
	case <-old.Done():
	case <-r.ctx.Done():
		t.Fatalf("%d of %d requests answered", answers.Load(), sent)
	}
	peak.sample()
	t.Logf("%d requests sent, %d answered", sent, answers.Load())
	checkHeapGrowth(t, "over the refused requests", before, heapInUse())
	peak.check(t)
	r.recoverAfter(t, old, from)
	r.timedBarrier(t, 12)
}

// TestHostileNotificationFlood: 64 MB of root/sessionSummaryChanged while
// the consumer reads nothing. The client never blocks its reader and does
// not keep it all: past the event queue's cap it drops the connection
// (ErrEventQueueFull), and once the consumer reads again the reconnect
// brings the client back, responsive.
func TestHostileNotificationFlood(t *testing.T) {
	r := startHostileConfig(t, hostilehost.Config{ForgetInbound: true})
	r.barrier(t, 11)
	r.events.countOnlyWhere(func(e Event) bool {
		_, ok := e.(SessionSummaryChangedEvent)
		return ok
	})
	before := heapInUse()
	var peak goroutinePeak
	from := r.events.len()
	old := r.conn
	r.events.pause()

	title := strings.Repeat("t", 4000)
	params := map[string]any{"session": hostileSession, "changes": map[string]any{"title": title}}
	const flood = 64 << 20
	sentBytes, sent := 0, 0
	for sentBytes < flood {
		if err := r.conn.Notify(r.ctx, "root/sessionSummaryChanged", params); err != nil {
			break // the client dropped the connection
		}
		sent++
		sentBytes += len(title) + 100
		if sent%256 == 0 {
			peak.sample()
		}
	}
	select {
	case <-old.Done():
	case <-r.ctx.Done():
		t.Fatalf("%d MB of notifications to a stalled consumer and the connection is still open", sentBytes>>20)
	}
	peak.sample()
	// The worst point: the consumer still reads nothing, the queue is full.
	checkHeapGrowth(t, "with a full event queue", before, heapInUse())
	peak.check(t)

	r.events.resume()
	ev, _ := r.events.waitFor(t, r.ctx, from, "the reconnect's cause", func(e Event) bool {
		ce, ok := e.(ConnectionEvent)
		return ok && ce.Status == StatusReconnecting
	})
	if cause := ev.(ConnectionEvent).Cause; !errors.Is(cause, ErrEventQueueFull) {
		t.Errorf("reconnect cause %v, want ErrEventQueueFull", cause)
	}
	t.Logf("%d notifications (%d MB) sent before the client closed; the consumer got %d", sent, sentBytes>>20, r.events.countedEvents())
	r.recoverAfter(t, old, from)
	r.timedBarrier(t, 12)
}

// TestHostileAuthRequiredFlood: 50k auth/required for resources the host
// never advertised, to a consumer that reads them. The client passes them
// on (deciding what to prompt for is the UI's, see ui's test of the same
// flood) without growing and stays responsive.
func TestHostileAuthRequiredFlood(t *testing.T) {
	r := startHostileConfig(t, hostilehost.Config{ForgetInbound: true})
	r.barrier(t, 11)
	r.events.countOnlyWhere(func(e Event) bool {
		_, ok := e.(AuthRequiredEvent)
		return ok
	})
	before := heapInUse()
	var peak goroutinePeak
	from := r.events.len()
	old := r.conn
	const n = 50_000
	for i := range n {
		p := map[string]any{"channel": RootChannel, "resource": "https://unadvertised.example/" + strconv.Itoa(i), "reason": "required"}
		if err := r.conn.Notify(r.ctx, "auth/required", p); err != nil {
			t.Fatalf("notification %d: %v", i, err)
		}
		if i%256 == 0 {
			peak.sample()
		}
	}
	r.barrier(t, 12) // every auth/required was taken by the consumer
	peak.sample()
	if got := r.events.countedEvents(); got != n {
		t.Errorf("the consumer got %d auth/required events, want %d", got, n)
	}
	checkHeapGrowth(t, "over 50k auth/required", before, heapInUse())
	peak.check(t)
	r.recoverAfter(t, old, from)
	r.timedBarrier(t, 13)
}
