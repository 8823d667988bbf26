package chaos

import (
	"fmt"
	"testing"

	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
)

// TestLostEcho covers the one case a client cannot resolve alone: the host
// applied an action but the echo never arrived (a slow link the client gave
// up on delivered the dispatch late, and the echo went down with the link).
// The client keeps the action pending and sends it again with its original
// clientSeq; the host must neither apply it twice nor leave it pending
// forever, whether the reconnect replays the gap, or the gap outgrew the
// replay buffer, or the host restarted in between.
func TestLostEcho(t *testing.T) {
	cases := []struct {
		name    string
		buffer  int // host replay buffer; 0 = default
		restart bool
		version string // served AHP version; "" is 1.0
	}{
		{name: "replay"},
		{name: "snapshot after buffer overflow", buffer: 8},
		{name: "snapshot after restart", restart: true},
		// The 0.6 representative of the chaos suite: the re-sent action,
		// its echo and the replay all pass through the 0.6 conversion on
		// both ends.
		{name: "replay over 0.6", version: demohost.Version06},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, envConfig{stepDelay: faultStepDelay, replayBuffer: c.buffer, version: c.version})
			e.dispatch(demohost.DemoChatURI, protocol.ChatTurnStartedAction{TurnID: "turn-lost", StartedAt: isoNow(),
				Message: userMessage("stream while the echo is lost")}, "start turn")
			e.waitVictimChat("the turn to stream", func(c protocol.ChatState) bool {
				return c.ActiveTurn != nil && len(c.ActiveTurn.ResponseParts) > 0
			})
			mark := e.vrec.mark()
			lastSeen := e.victim.LastSeenServerSeq()

			e.proxy.Refuse(true)
			e.proxy.Delay(tooSlowForPings)
			title := "lost echo " + c.name
			e.setTitle(title)
			e.queue("q-lost", "stream after the lost echo")

			ctx, cancel := e.waitCtx()
			defer cancel()
			_, next, err := e.vrec.waitStatus(ctx, mark, client.StatusReconnecting)
			if err != nil {
				t.Fatal(err)
			}
			// The late dispatch reaches the host after the client gave up
			// on the link; its echo goes nowhere.
			var appliedAt int64
			if err := e.ledger.until(ctx, "apply the late dispatches", func() bool {
				return e.ledger.countLocked(func(a appliedAction) bool {
					late := a.origin != nil && a.origin.client == victimID && (a.title == title || a.id == "q-lost")
					if late {
						appliedAt = max(appliedAt, a.seq)
					}
					return late
				}) == 2
			}); err != nil {
				t.Fatal(err)
			}
			if c.buffer > 0 {
				// Both the client's position and the late actions
				// themselves must have left the buffer: the gap needs a
				// snapshot and the original envelopes are gone.
				if err := e.ledger.until(ctx, "outgrow its replay buffer", func() bool {
					return e.ledger.maxSeq > max(lastSeen, appliedAt)+int64(c.buffer)+1
				}); err != nil {
					t.Fatal(err)
				}
			}
			if c.restart {
				e.host.Restart()
			}
			e.proxy.Refuse(false)
			if _, _, err := e.vrec.waitStatus(ctx, next, client.StatusReady); err != nil {
				t.Fatal(err)
			}
			want := "replay"
			if c.buffer > 0 || c.restart {
				want = "snapshot"
			}
			if r := e.ledger.resultsOf(victimID); len(r) == 0 || r[len(r)-1] != want {
				t.Errorf("reconnect results %v, want the last one a %s", r, want)
			}
			e.settled(e.direct, e.drec, func(c protocol.ChatState) error {
				if n := turnCount(c, "stream after the lost echo"); n != 1 {
					return fmt.Errorf("%d turns for the queued message, want 1", n)
				}
				return nil
			})
			e.checkExactlyOnce(e.ledger, e.sentSince(0))
		})
	}
}
