package chaos

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
)

// TestHostRestart restarts the demo host under a running turn (same port,
// replay buffer, dedupe table and verified tokens forgotten): the victim
// must recover by snapshot, push its tokens again (the host forgot them; a
// "deploy" turn after the restart only completes if the host accepted the
// re-pushed token), and its actions dispatched while down must each be
// applied once.
func TestHostRestart(t *testing.T) {
	e := newEnv(t, envConfig{stepDelay: faultStepDelay})
	e.pushTokens()
	probe := newUIProbe(t, e.victim)

	e.dispatch(demohost.DemoChatURI, protocol.ChatTurnStartedAction{TurnID: "turn-restart", StartedAt: isoNow(),
		Message: userMessage("deploy before restart")}, "start turn")
	e.waitVictimChat("the turn to stream", func(c protocol.ChatState) bool {
		return c.ActiveTurn != nil && c.ActiveTurn.ID == "turn-restart" && len(c.ActiveTurn.ResponseParts) > 0
	})
	connsBefore := len(e.ledger.connsOf(victimID))
	resultsBefore := len(e.ledger.resultsOf(victimID))
	mark := e.vrec.mark()

	e.proxy.Refuse(true)
	e.host.Restart()
	e.setTitle("restart 1")
	e.queue("q-restart-1", "deploy after restart")

	ctx, cancel := e.waitCtx()
	defer cancel()
	rec, next, err := e.vrec.waitStatus(ctx, mark, client.StatusReconnecting)
	if err != nil {
		t.Fatal(err)
	}
	probe.show(rec, "reconnecting", "")
	e.setTitle("restart 2")
	e.queue("q-restart-2", "stream after restart")
	e.proxy.Refuse(false)
	ready, _, err := e.vrec.waitStatus(ctx, next, client.StatusReady)
	if err != nil {
		t.Fatal(err)
	}
	probe.show(ready, "connected", "reconnecting")

	conns := e.ledger.connsOf(victimID)
	if len(conns) <= connsBefore {
		t.Fatal("the host saw no new connection from the victim")
	}
	if n := e.ledger.authOn(conns[len(conns)-1]); n != tokensPushed {
		t.Errorf("host saw %d authenticate requests on the victim's new connection, want %d", n, tokensPushed)
	}
	// (A reconnect before the restart, e.g. a ping lost to a slow -race
	// scheduler, would have been replayed; only the first one after counts.)
	if r := e.ledger.resultsOf(victimID); len(r) <= resultsBefore || r[resultsBefore] != "snapshot" {
		t.Errorf("victim's reconnect results %v (first %d before the restart), want a snapshot after it: replay is impossible", r, resultsBefore)
	}

	final := e.settled(e.direct, e.drec, func(c protocol.ChatState) error {
		for _, text := range []string{"deploy before restart", "deploy after restart", "stream after restart"} {
			if n := turnCount(c, text); n != 1 {
				return fmt.Errorf("%d turns for %q, want 1", n, text)
			}
		}
		return nil
	})
	for _, turn := range final.Turns {
		switch turn.Message.Text {
		case "deploy before restart":
			if turn.State != protocol.TurnStateError {
				t.Errorf("turn interrupted by the restart ended %s, want error", turn.State)
			}
		case "deploy after restart":
			if turn.State != protocol.TurnStateComplete || !deployCompleted(turn) {
				t.Errorf("deploy turn after the restart ended %s without a completed deploy: the re-pushed token was not used", turn.State)
			}
		}
	}
	// A client that connects only now sees the host's truth; the victim
	// must match it too, not just the reference that lived through the
	// restart.
	fresh, frec := dialClient(t, e.host.URL(), "chaos-fresh", 0, 0)
	for _, ch := range []string{demohost.DemoSessionURI, demohost.DemoChatURI} {
		sctx, scancel := e.waitCtx()
		if err := fresh.Subscribe(sctx, ch); err != nil {
			t.Fatal(err)
		}
		scancel()
	}
	e.settled(fresh, frec, nil)
	s, _ := e.direct.Session(demohost.DemoSessionURI)
	if s.Title != "restart 2" {
		t.Errorf("session title %q, want %q", s.Title, "restart 2")
	}
	e.checkExactlyOnce(e.ledger, e.sentSince(0))
	for _, err := range e.vrec.hostErrors() {
		t.Errorf("victim reported a host error: %v", err)
	}
}

// deployCompleted reports whether turn holds a completed deploy tool call.
func deployCompleted(turn protocol.Turn) bool {
	for _, p := range turn.ResponseParts {
		tc, ok := p.Variant.(protocol.ToolCallResponsePart)
		if !ok {
			continue
		}
		if c, ok := tc.ToolCall.Variant.(protocol.ToolCallCompletedState); ok && c.ToolName == demohost.ToolDeploy && c.Success {
			return true
		}
	}
	return false
}

// TestHostReplacedBehindProxy swaps the host process itself: a new demo
// host (fresh state, its own port) takes over behind the proxy while the
// old one closes. Nothing of the old host survives, so the victim must
// take the new host's snapshot wholesale, even when its lastSeenServerSeq
// happens to be a number the new host has reached (no replay of another
// process's history), and its actions dispatched while down must reach the
// new host once each. Its saved tokens name the old
// host's resources: they are pushed again, refused, and reported.
func TestHostReplacedBehindProxy(t *testing.T) {
	e := newEnv(t, envConfig{stepDelay: faultStepDelay})
	e.pushTokens()
	probe := newUIProbe(t, e.victim)

	e.dispatch(demohost.DemoChatURI, protocol.ChatTurnStartedAction{TurnID: "turn-old-host", StartedAt: isoNow(),
		Message: userMessage("stream on the old host")}, "start turn")
	e.waitVictimChat("the turn to stream", func(c protocol.ChatState) bool {
		return c.ActiveTurn != nil && c.ActiveTurn.ID == "turn-old-host" && len(c.ActiveTurn.ResponseParts) > 0
	})
	oldLedger, oldSent := e.ledger, e.sentCount()
	checkOld := func() { e.checkExactlyOnce(oldLedger, e.sentSince(0)[:oldSent]) }

	// The new process comes up with its own state and ledger.
	led2 := newLedger()
	host2, err := demohost.Start(e.ctx, demohost.Config{StepDelay: faultStepDelay, Tap: led2.tap})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = host2.Close() })
	// Make the new host's numbering overtake the victim's position, so the
	// victim's lastSeenServerSeq is a valid-looking number on the new host
	// too: only the host can tell it belongs to another process.
	other, orec := dialClient(t, host2.URL(), "chaos-other", 0, 0)
	sctx, scancel := e.waitCtx()
	if err := other.Subscribe(sctx, demohost.DemoSessionURI); err != nil {
		t.Fatal(err)
	}
	scancel()
	target := e.victim.LastSeenServerSeq() + 5
	for i := 0; host2.ServerSeq() <= target; i++ {
		if _, err := other.Dispatch(demohost.DemoSessionURI, protocol.NewStateAction(protocol.SessionTitleChangedAction{Title: fmt.Sprintf("filler %d", i)})); err != nil {
			t.Fatal(err)
		}
		wctx, wcancel := e.waitCtx()
		err := orec.until(wctx, "the filler echo", func() bool { return other.PendingCount(demohost.DemoSessionURI) == 0 })
		wcancel()
		if err != nil {
			t.Fatal(err)
		}
	}
	_ = other.Close()
	mark := e.vrec.mark()
	e.proxy.Refuse(true)
	e.proxy.SetUpstream(hostAddr(t, host2))
	e.proxy.Drop()
	_ = e.host.Close()
	e.host, e.ledger = host2, led2
	e.setTitle("new host 1")
	e.queue("q-new-1", "stream after new host 1")

	ctx, cancel := e.waitCtx()
	defer cancel()
	rec, next, err := e.vrec.waitStatus(ctx, mark, client.StatusReconnecting)
	if err != nil {
		t.Fatal(err)
	}
	probe.show(rec, "reconnecting", "")
	e.setTitle("new host 2")
	e.queue("q-new-2", "stream after new host 2")
	e.proxy.Refuse(false)
	ready, _, err := e.vrec.waitStatus(ctx, next, client.StatusReady)
	if err != nil {
		t.Fatal(err)
	}
	probe.show(ready, "connected", "reconnecting")

	conns := led2.connsOf(victimID)
	if len(conns) == 0 {
		t.Fatal("new host saw no victim connection")
	}
	if n := led2.authOn(conns[0]); n != tokensPushed {
		t.Errorf("new host saw %d authenticate requests from the victim, want %d (tokens re-pushed)", n, tokensPushed)
	}
	if r := led2.resultsOf(victimID); len(r) == 0 || r[0] != "snapshot" {
		t.Errorf("victim's reconnect results on the new host %v, want a snapshot first", r)
	}

	ref, refRec := dialClient(t, host2.URL(), "chaos-direct-2", 0, 0)
	for _, ch := range []string{demohost.DemoSessionURI, demohost.DemoChatURI} {
		sctx, scancel := e.waitCtx()
		if err := ref.Subscribe(sctx, ch); err != nil {
			t.Fatal(err)
		}
		scancel()
	}
	final := e.settled(ref, refRec, func(c protocol.ChatState) error {
		for _, text := range []string{"stream after new host 1", "stream after new host 2"} {
			if n := turnCount(c, text); n != 1 {
				return fmt.Errorf("%d turns for %q, want 1", n, text)
			}
		}
		return nil
	})
	if n := turnCount(final, "stream on the old host"); n != 0 {
		t.Errorf("the old host's turn survived into the new host's chat %d times", n)
	}
	checkOld()
	e.checkExactlyOnce(led2, e.sentSince(oldSent))

	// The old host's resources do not exist on the new one: each saved
	// token is refused once and the user is told to sign in again.
	refused := 0
	for _, err := range e.vrec.hostErrors() {
		if strings.Contains(err.Error(), "sign in again") {
			refused++
		} else {
			t.Errorf("unexpected host error: %v", err)
		}
	}
	if refused != tokensPushed {
		t.Errorf("%d refused-token reports, want %d", refused, tokensPushed)
	}
}
