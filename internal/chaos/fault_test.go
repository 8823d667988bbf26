package chaos

import (
	"fmt"
	"testing"
	"time"

	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
)

// faultStepDelay paces the scripted agent so a turn is still streaming
// while the fault hits and the client reconnects.
const faultStepDelay = 60 * time.Millisecond

// TestConnectionFaults breaks the victim's link in the middle of a turn in
// each way a network can, with actions dispatched while the link is broken,
// and checks that the client says "reconnecting" (and the UI shows it),
// recovers, re-pushes its tokens, ends with exactly the state of a client
// that never disconnected, and that the host applied each of its actions
// exactly once.
func TestConnectionFaults(t *testing.T) {
	faults := []struct {
		name   string
		inject func(t *testing.T, e *env)
	}{
		{"drop", func(t *testing.T, e *env) {
			if n := e.proxy.Drop(); n < 1 {
				t.Fatal("no connection to drop")
			}
		}},
		{"stall", func(t *testing.T, e *env) {
			if n := e.proxy.Stall(); n < 1 {
				t.Fatal("no connection to stall")
			}
		}},
		{"delay", func(t *testing.T, e *env) {
			// Longer than the ping timeout: the link is alive but too slow,
			// which the client can only tell by its pings.
			if n := e.proxy.Delay(tooSlowForPings); n < 1 {
				t.Fatal("no connection to delay")
			}
		}},
		{"cut", func(t *testing.T, e *env) {
			cut := e.proxy.CutNextServerWrite(64)
			select {
			case <-cut:
			case <-time.After(waitTimeout):
				t.Fatal("no host write of 64+ bytes to cut while the turn streamed")
			}
		}},
	}
	for _, f := range faults {
		t.Run(f.name, func(t *testing.T) {
			e := newEnv(t, envConfig{stepDelay: faultStepDelay})
			e.pushTokens()
			probe := newUIProbe(t, e.victim)
			runFault(t, e, probe, f.name, func() { f.inject(t, e) })
			s := e.proxy.Stats()
			t.Logf("%s: proxy stats %+v, reconnect results %v", f.name, s, e.ledger.reconnectResults(victimID))
		})
	}
}

// runFault is the common script: start a turn, break the link mid-turn
// with new connections refused, dispatch, wait for "reconnecting", dispatch
// again, let the client back in, and check the outcome.
func runFault(t *testing.T, e *env, probe *uiProbe, name string, inject func()) {
	t.Helper()
	turnText := "deploy during " + name
	e.dispatch(demohost.DemoChatURI, protocol.ChatTurnStartedAction{TurnID: "turn-" + name, StartedAt: isoNow(),
		Message: userMessage(turnText)}, "start turn")
	// Mid-turn: the agent has started streaming its answer.
	e.waitVictimChat("the turn to stream", func(c protocol.ChatState) bool {
		return c.ActiveTurn != nil && c.ActiveTurn.ID == "turn-"+name && len(c.ActiveTurn.ResponseParts) > 0
	})
	connsBefore := len(e.ledger.connsOf(victimID))
	mark := e.vrec.mark()
	octx, ocancel := e.waitCtx()
	if err := e.proxy.WaitOpen(octx, 1); err != nil {
		t.Fatal(err)
	}
	ocancel()

	e.proxy.Refuse(true)
	inject()
	if c, _ := e.direct.Chat(demohost.DemoChatURI); c.ActiveTurn == nil {
		t.Logf("%s: the turn had already finished when the fault hit", name)
	}
	// Dispatched while the link is broken but before the client may have
	// noticed (a stalled or delayed link still looks open).
	e.setTitle(fmt.Sprintf("chaos %s 1", name))
	e.queue("q-"+name+"-1", "stream after "+name+" 1")

	ctx, cancel := e.waitCtx()
	defer cancel()
	rec, next, err := e.vrec.waitStatus(ctx, mark, client.StatusReconnecting)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: reconnecting (attempt %d): %v", name, rec.Attempt, rec.Cause)
	if rec.Cause == nil {
		t.Errorf("%s: ConnectionEvent{StatusReconnecting} carries no cause", name)
	}
	probe.show(rec, "reconnecting", "")

	// Dispatched while the client knows it is down.
	e.setTitle(fmt.Sprintf("chaos %s 2", name))
	e.queue("q-"+name+"-2", "stream after "+name+" 2")

	e.proxy.Refuse(false)
	ready, _, err := e.vrec.waitStatus(ctx, next, client.StatusReady)
	if err != nil {
		t.Fatal(err)
	}
	probe.show(ready, "connected", "reconnecting")

	// Tokens re-pushed on the new connection, before anything else could
	// need them: the host's tap saw authenticate on it.
	conns := e.ledger.connsOf(victimID)
	if len(conns) <= connsBefore {
		t.Fatalf("%s: the host saw no new connection from the victim", name)
	}
	last := conns[len(conns)-1]
	if n := e.ledger.authOn(last); n != tokensPushed {
		t.Errorf("%s: host saw %d authenticate requests on the victim's new connection %d, want %d", name, n, last, tokensPushed)
	}

	final := e.settled(e.direct, e.drec, func(c protocol.ChatState) error {
		for _, text := range []string{turnText, "stream after " + name + " 1", "stream after " + name + " 2"} {
			if n := turnCount(c, text); n != 1 {
				return fmt.Errorf("%d turns for %q, want 1", n, text)
			}
		}
		return nil
	})
	s, _ := e.direct.Session(demohost.DemoSessionURI)
	if want := fmt.Sprintf("chaos %s 2", name); s.Title != want {
		t.Errorf("%s: session title %q, want %q", name, s.Title, want)
	}
	for _, tt := range final.Turns {
		if tt.Message.Text == turnText && tt.State != protocol.TurnStateComplete {
			t.Errorf("%s: interrupted turn ended %s, want complete (a dropped client must not end the agent's turn)", name, tt.State)
		}
	}
	e.checkExactlyOnce(e.ledger, e.sentSince(0))
	// The host kept its replay buffer, so the gap is replayed, not
	// re-snapshotted.
	if r := e.ledger.reconnectResults(victimID); r["replay"] < 1 {
		t.Errorf("%s: reconnect results %v, want a replay", name, r)
	}
	if got := e.ledger.count(func(a appliedAction) bool { return a.typ == "session/titleChanged" }); got != 2 {
		t.Errorf("%s: host applied %d title changes, want 2", name, got)
	}
	for _, err := range e.vrec.hostErrors() {
		t.Errorf("%s: victim reported a host error: %v", name, err)
	}
}

// TestSlowLinkIsNotAFault delays every chunk well below the ping timeout: a
// slow link that still answers must not be dropped, and the victim still
// ends equal to the reference with its actions applied once.
func TestSlowLinkIsNotAFault(t *testing.T) {
	e := newEnv(t, envConfig{stepDelay: faultStepDelay})
	e.pushTokens()
	mark := e.vrec.mark()
	// 75 ms a chunk, as when the timeout was 600 ms: the same slow link,
	// with a margin for the scheduler that a loaded machine cannot eat.
	if n := e.proxy.Delay(victimPingTimeout / 40); n < 1 {
		t.Fatal("no connection to delay")
	}
	e.dispatch(demohost.DemoChatURI, protocol.ChatTurnStartedAction{TurnID: "turn-slow", StartedAt: isoNow(),
		Message: userMessage("stream over a slow link")}, "start turn")
	e.setTitle("slow 1")
	e.queue("q-slow", "deploy over a slow link")
	e.settled(e.direct, e.drec, func(c protocol.ChatState) error {
		for _, text := range []string{"stream over a slow link", "deploy over a slow link"} {
			if n := turnCount(c, text); n != 1 {
				return fmt.Errorf("%d turns for %q, want 1", n, text)
			}
		}
		return nil
	})
	for _, ev := range e.vrec.connSince(mark) {
		t.Errorf("slow link caused %s (attempt %d): %v", ev.Status, ev.Attempt, ev.Cause)
	}
	if s := e.proxy.Stats(); s.Accepted != 1 {
		t.Errorf("proxy accepted %d connections, want the first one only", s.Accepted)
	}
	e.checkExactlyOnce(e.ledger, e.sentSince(0))
}
