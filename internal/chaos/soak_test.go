package chaos

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
)

const (
	// defaultSoak is the soak length when AHPTUI_SOAK_DURATION is unset;
	// maxSoak caps it so CI stays bounded.
	defaultSoak = 45 * time.Second
	maxSoak     = 2 * time.Minute

	// soakStepDelay keeps a turn streaming for a fraction of a second, so
	// every fault lands on a live stream.
	soakStepDelay = 20 * time.Millisecond
	// soakFaultEvery is the reconnect cadence.
	soakFaultEvery = 2 * time.Second
	// soakReplayBuffer is small enough that a longer outage (a stall lasts
	// a ping timeout) often outgrows it and the client recovers by snapshot,
	// while a drop is usually replayed: the soak exercises both paths. The
	// host produces little during an outage, since the next queued message
	// and every approval come from the victim.
	soakReplayBuffer = 16
	// soakTitleEvery paces session/titleChanged dispatches, which land
	// before, during and after outages alike.
	soakTitleEvery = 700 * time.Millisecond

	// The leak bounds, measured after every client, the proxy and the host
	// are closed, against a baseline taken before they started.
	goroutineSlack = 5
	heapSlack      = 16 << 20

	// A leak per reconnect that Close frees would pass the bounds above, so
	// the soak also samples while it runs, at two quiet moments with the
	// victim connected (no turn running, nothing queued): once after a
	// quarter of the run (soakWarmupFraction; connections, caches and the
	// host's replay ring are warm by then) and once at the end, before
	// anything closes.
	// Between them lie ~3/4 of the reconnects (≈15 in the default 45 s);
	// the late sample may exceed the early one by at most midGoroutineSlack
	// goroutines (a leak of two per reconnect fails) and midHeapSlack of
	// heap in use after GC (the transcript legitimately grows by a few
	// KiB per turn; a leaked connection buffer per reconnect would not fit).
	//
	// Every goroutine counts: the demo host's token-expiry timers used to
	// outlive their connection (two more per reconnect, freed only at
	// Close); they now end with it, so a regression there fails here too.
	// The timers are still reported separately in the log.
	soakWarmupFraction = 4 // warm-up is dur / soakWarmupFraction
	midGoroutineSlack  = 20
	midHeapSlack       = 32 << 20

	// soakOvertime bounds how far the soak may run past its duration to
	// reach minSoakReconnects. A fault is only injected while the victim
	// is connected, and on a loaded machine a reconnect (a -race handshake,
	// a snapshot) can outlast the fault cadence, so a fixed run may see
	// fewer reconnects than its length promises; the soak then runs on
	// until it has exercised enough of them, rather than failing for the
	// machine's speed. Only a run that cannot get there in soakOvertime
	// times its duration fails: then reconnecting itself is too slow.
	soakOvertime = 2
)

// minSoakReconnects is how many reconnects a soak of dur must exercise:
// half the faults its cadence schedules.
func minSoakReconnects(dur time.Duration) int { return int(dur/soakFaultEvery) / 2 }

func soakDuration(t *testing.T) time.Duration {
	d := defaultSoak
	if v := os.Getenv("AHPTUI_SOAK_DURATION"); v != "" {
		p, err := time.ParseDuration(v)
		if err != nil || p <= 0 {
			t.Fatalf("AHPTUI_SOAK_DURATION=%q: want a positive Go duration such as 45s", v)
		}
		d = p
	}
	if d > maxSoak {
		t.Logf("AHPTUI_SOAK_DURATION %s capped at %s", d, maxSoak)
		d = maxSoak
	}
	return d
}

// soakStats is what one soak run did.
type soakStats struct {
	faults     map[string]int
	reconnects int
	replays    int
	snapshots  int
	turns      int
	titles     int
	approvals  int
	dispatched int
	peakG      int
	peakHeap   uint64
	// overtime is how long the run went past its duration to reach
	// minSoakReconnects (see soakOvertime).
	overtime time.Duration
	// early and late are the mid-run samples (see midGoroutineSlack);
	// the goroutine counts include the host's timers, also kept in *Timers.
	earlyG, lateG           int
	earlyTimers, lateTimers int
	earlyHeap, lateHeap     uint64
	// reconnectsBetween counts reconnects between the two samples.
	reconnectsBetween int
}

// TestSoak streams a demo session without pause (tool calls, approvals,
// queued messages, title changes) while the proxy breaks the link every
// two seconds, then checks that nothing was lost or doubled, that the
// goroutines and heap do not grow between a quiet moment after warm-up and
// one at the end of the run (both with the connection up), and that they
// return to their baseline once everything is closed.
func TestSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("soak skipped under -short")
	}
	dur := soakDuration(t)
	baseG, baseHeap := quiesce(0)
	var st soakStats
	t.Run("run", func(t *testing.T) { st = runSoak(t, dur) })
	if t.Failed() {
		return
	}
	afterG, afterHeap := quiesce(baseG + goroutineSlack)
	t.Logf("soak %s (+%s overtime): faults %v, %d reconnects (%d replay, %d snapshot), %d turns, %d titles, %d approvals, %d dispatches",
		dur, st.overtime.Round(time.Millisecond), st.faults, st.reconnects, st.replays, st.snapshots, st.turns, st.titles, st.approvals, st.dispatched)
	t.Logf("goroutines: baseline %d, peak %d, after Close %d (bound +%d); heap in use: baseline %.1f MiB, peak %.1f MiB, after Close+GC %.1f MiB (bound +%d MiB)",
		baseG, st.peakG, afterG, goroutineSlack, mib(baseHeap), mib(st.peakHeap), mib(afterHeap), heapSlack>>20)
	if afterG > baseG+goroutineSlack {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines after Close, baseline %d: leak\n%s", afterG, baseG, buf[:runtime.Stack(buf, true)])
	}
	if afterHeap > baseHeap+heapSlack {
		t.Errorf("heap in use %.1f MiB after Close, baseline %.1f MiB: more than %d MiB retained", mib(afterHeap), mib(baseHeap), heapSlack>>20)
	}
	if st.reconnects < minSoakReconnects(dur) {
		t.Errorf("only %d reconnects in %s (+%s overtime), want %d: the soak did not exercise reconnecting",
			st.reconnects, dur, st.overtime.Round(time.Millisecond), minSoakReconnects(dur))
	}
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

// quiesce collects garbage and returns the goroutine count and heap in use.
// With want > 0 it gives exiting goroutines (closed sockets' readers, idle
// HTTP connections) up to 10 s to reach want: their exit is no event a test
// can wait on, so this polls.
func quiesce(want int) (int, uint64) {
	deadline := time.Now().Add(10 * time.Second)
	for want > 0 && runtime.NumGoroutine() > want && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(20 * time.Millisecond)
	}
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return runtime.NumGoroutine(), ms.HeapInuse
}

// checkMidRun fails when the end-of-run sample grew past the early one by
// more than the stated slack; it is where a per-reconnect leak that Close
// would free shows.
func checkMidRun(t *testing.T, st soakStats) {
	t.Helper()
	t.Logf("mid-run (connected, quiet): goroutines %d after warm-up, %d at the end (bound +%d; of them the demo host's token-expiry timers: %d, then %d); heap in use after GC %.1f MiB after warm-up, %.1f MiB at the end (bound +%d MiB); %d reconnects in between",
		st.earlyG, st.lateG, midGoroutineSlack, st.earlyTimers, st.lateTimers, mib(st.earlyHeap), mib(st.lateHeap), midHeapSlack>>20, st.reconnectsBetween)
	if st.earlyG == 0 {
		t.Errorf("no mid-run sample was taken after warm-up, so growth during the run went unchecked")
		return
	}
	if st.lateG > st.earlyG+midGoroutineSlack {
		buf := make([]byte, 1<<20)
		t.Errorf("goroutines grew from %d after warm-up to %d at the end of the run (%d reconnects in between), over the +%d bound: a per-reconnect leak\n%s",
			st.earlyG, st.lateG, st.reconnectsBetween, midGoroutineSlack, buf[:runtime.Stack(buf, true)])
	}
	if st.lateHeap > st.earlyHeap+midHeapSlack {
		t.Errorf("heap in use grew from %.1f MiB after warm-up to %.1f MiB at the end of the run (%d reconnects in between), over the +%d MiB bound: a per-reconnect leak",
			mib(st.earlyHeap), mib(st.lateHeap), st.reconnectsBetween, midHeapSlack>>20)
	}
	if st.reconnectsBetween < 2 {
		t.Errorf("only %d reconnects between the mid-run samples: the leak check saw no reconnects to leak", st.reconnectsBetween)
	}
}

// midSample collects garbage and returns the goroutines (the demo host's
// timers included), those timers alone, and the heap in use.
// With want > 0 it polls up to 10 s for the count to reach want, as
// quiesce does.
func midSample(want int) (g, timers int, heap uint64) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		g, timers = clientGoroutines()
		if want <= 0 || g <= want || !time.Now().Before(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	_, heap = quiesce(0)
	return g, timers, heap
}

// clientGoroutines counts the live goroutines, and among them those the
// demo host parks in afterDuration (its timers), for the log.
func clientGoroutines() (others, hostTimers int) {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	for _, g := range strings.Split(string(buf), "\n\n") {
		if !strings.HasPrefix(g, "goroutine ") {
			continue
		}
		others++
		if strings.Contains(g, "demohost.(*Host).afterDuration") {
			hostTimers++
		}
	}
	return others, hostTimers
}

func runSoak(t *testing.T, dur time.Duration) soakStats {
	e := newEnv(t, envConfig{stepDelay: soakStepDelay, replayBuffer: soakReplayBuffer})
	e.pushTokens()
	st := soakStats{faults: map[string]int{}}

	faultTick := time.NewTicker(soakFaultEvery)
	defer faultTick.Stop()
	titleTick := time.NewTicker(soakTitleEvery)
	defer titleTick.Stop()
	started, extended := time.Now(), false
	end := time.NewTimer(dur)
	defer end.Stop()
	warm := time.NewTimer(dur / soakWarmupFraction)
	defer warm.Stop()

	// Every script the demo agent knows that runs without a person:
	// deploy (tool call; the pushed token avoids the challenge), write
	// (tool call waiting for the approval the loop below gives) and stream.
	scripts := []string{"deploy", "write", "stream"}
	var texts []string
	approved := map[string]bool{}
	kinds := []string{"drop", "cut", "drop", "stall"}
	lastTitle := ""
	sample := func() {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		st.peakG = max(st.peakG, runtime.NumGoroutine())
		st.peakHeap = max(st.peakHeap, ms.HeapInuse)
	}

	// approve gives every confirmation the running turn waits for, once.
	approve := func(c protocol.ChatState) {
		if c.ActiveTurn == nil {
			return
		}
		for _, p := range c.ActiveTurn.ResponseParts {
			tc, ok := p.Variant.(protocol.ToolCallResponsePart)
			if !ok {
				continue
			}
			pc, ok := tc.ToolCall.Variant.(protocol.ToolCallPendingConfirmationState)
			if !ok || approved[pc.ToolCallID] {
				continue
			}
			approved[pc.ToolCallID] = true
			e.dispatch(demohost.DemoChatURI, protocol.ChatToolCallApprovedAction{TurnID: c.ActiveTurn.ID, ToolCallID: pc.ToolCallID,
				Approved: true, Confirmed: protocol.ToolCallConfirmationReasonUserAction}, "approve "+pc.ToolCallID)
			st.approvals++
		}
	}

	readyCount := func() int {
		n := 0
		for _, ev := range e.vrec.connSince(0) {
			if ev.Status == client.StatusReady {
				n++
			}
		}
		return n
	}
	// quiet waits, queueing nothing new, until the victim is connected and
	// the session idle: no turn running, nothing queued, and the turn of
	// the last message queued finished. The last condition matters: the
	// host starts a queued message by removing it from the queue and then
	// starting its turn, and between those two actions the chat looks idle.
	quiet := func(what string) {
		ctx, cancel := e.waitCtx()
		defer cancel()
		if err := e.vrec.until(ctx, "the victim to be connected ("+what+")", func() bool {
			return len(e.vrec.conns) > 0 && e.vrec.conns[len(e.vrec.conns)-1].Status == client.StatusReady
		}); err != nil {
			t.Fatal(err)
		}
		if err := waitAny(ctx, "the last turns to finish ("+what+")", func() bool {
			c, ok := e.victim.Chat(demohost.DemoChatURI)
			if ok {
				approve(c)
			}
			return ok && c.ActiveTurn == nil && len(c.QueuedMessages) == 0 &&
				(len(texts) == 0 || turnCount(c, texts[len(texts)-1]) > 0)
		}, e.vrec); err != nil {
			t.Fatal(err)
		}
	}
	earlyReady := 0

	for running := true; running; {
		wake := e.vrec.wake()
		if c, ok := e.victim.Chat(demohost.DemoChatURI); ok {
			if len(c.QueuedMessages) == 0 {
				text := fmt.Sprintf("%s soak %d", scripts[len(texts)%len(scripts)], len(texts)+1)
				e.queue(fmt.Sprintf("soak-%d", len(texts)+1), text)
				texts = append(texts, text)
			}
			approve(c)
		}
		select {
		case <-wake:
		case <-titleTick.C:
			st.titles++
			lastTitle = fmt.Sprintf("soak title %d", st.titles)
			e.setTitle(lastTitle)
		case <-faultTick.C:
			sample()
			if e.victim.Status() != client.StatusReady {
				continue // still reconnecting from the last fault
			}
			k := kinds[(st.faults["drop"]+st.faults["cut"]+st.faults["stall"])%len(kinds)]
			switch k {
			case "drop":
				e.proxy.Drop()
			case "cut":
				e.proxy.CutNextServerWrite(64)
			case "stall":
				e.proxy.Stall()
			}
			st.faults[k]++
		case <-warm.C:
			// The fault and title tickers wait meanwhile; the run's end
			// timer does not, so the soak keeps its length.
			quiet("mid-run sample")
			st.earlyG, st.earlyTimers, st.earlyHeap = midSample(0)
			earlyReady = readyCount()
		case <-end.C:
			if readyCount()-1 < minSoakReconnects(dur) && time.Since(started) < soakOvertime*dur {
				end.Reset(soakFaultEvery) // look again after the next fault
				extended = true
				continue
			}
			if extended {
				st.overtime = time.Since(started) - dur
			}
			running = false
		}
	}

	// Wind down: a cut armed last may still be waiting for a write; make
	// sure the client is connected, then let the last turns finish (they
	// may still ask for approval).
	quiet("end of run")
	// Still running and connected: the late mid-run sample. Goroutines of
	// the last dropped connection may still be exiting (no event to wait
	// on), so quiesce polls for up to 10 s to reach the bound.
	st.lateG, st.lateTimers, st.lateHeap = midSample(st.earlyG + midGoroutineSlack)
	st.reconnectsBetween = readyCount() - earlyReady
	checkMidRun(t, st)
	final := e.settled(e.direct, e.drec, func(c protocol.ChatState) error {
		for _, text := range texts {
			if n := turnCount(c, text); n != 1 {
				return fmt.Errorf("%d turns for %q, want 1", n, text)
			}
		}
		return nil
	})
	for _, turn := range final.Turns {
		if turn.State != protocol.TurnStateComplete {
			t.Errorf("turn %s (%q) ended %s, want complete", turn.ID, turn.Message.Text, turn.State)
		}
	}
	if s, _ := e.direct.Session(demohost.DemoSessionURI); lastTitle != "" && s.Title != lastTitle {
		t.Errorf("session title %q, want the last one dispatched, %q", s.Title, lastTitle)
	}
	e.checkExactlyOnce(e.ledger, e.sentSince(0))
	for _, err := range e.vrec.hostErrors() {
		t.Errorf("victim reported a host error: %v", err)
	}
	st.reconnects = readyCount() - 1 // the first Ready is the initial connect
	r := e.ledger.reconnectResults(victimID)
	st.replays, st.snapshots = r["replay"], r["snapshot"]
	st.turns = len(final.Turns)
	st.dispatched = e.sentCount()
	// A cut is armed on the tick but fires on the next large host write;
	// count the ones that fired.
	st.faults["cut"] = int(e.proxy.Stats().Cuts)
	sample()
	return st
}
