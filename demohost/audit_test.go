package demohost

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

func ptr[T any](v T) *T { return &v }

// TestSuccessfulCompleteOfAuthRequiredRejected: only the host may finish a
// tool call that waits for step-up auth successfully (after a grant); a
// client may only cancel it, or it could fake a deploy that never ran.
func TestSuccessfulCompleteOfAuthRequiredRejected(t *testing.T) {
	h, v := startHost(t, Config{})
	c := dial(t, h, v, "faker")
	c.initialize(rootURI, DemoSessionURI, DemoChatURI)
	tcID := stepUpChallenge(t, h, c)
	seq := c.dispatch(DemoChatURI, protocol.ChatToolCallCompleteAction{TurnID: "t1", ToolCallID: tcID,
		Result: protocol.ToolCallResult{Success: true, PastTenseMessage: protocol.PlainString("Deployed")}})
	if e := c.waitEcho("fake success echo", DemoChatURI, seq); e.RejectionReason == nil {
		t.Fatal("a client completed an auth-required tool call successfully")
	}
	h.mu.Lock()
	tc, _ := findToolCall(h.chats[DemoChatURI].state, "t1", tcID)
	h.mu.Unlock()
	if tc.Kind() != "auth-required" {
		t.Fatalf("tool call is %s after a rejected completion", tc.Kind())
	}
}

// TestStopWhileStartingYieldsOneReady: a server stopped and started again
// while its first start is still pending must become ready from the second
// start only. The first start's timer fires a step earlier; if it were not
// stood down it would turn the second start's "starting" into ready early.
func TestStopWhileStartingYieldsOneReady(t *testing.T) {
	const step = 250 * time.Millisecond
	h, v := startHost(t, Config{StepDelay: step})
	c := dial(t, h, v, "restarter")
	c.initialize(rootURI, DemoSessionURI)
	c.waitServer(DemoSessionURI, FilesystemServerID, "ready")
	// The tick session below has its own filesystem server; count the demo's.
	demoReady := func(e protocol.ActionEnvelope) bool {
		return e.Channel == DemoSessionURI && serverState(FilesystemServerID, "ready")(e)
	}
	stop := c.dispatch(DemoSessionURI, protocol.SessionMcpServerStopRequestedAction{ID: FilesystemServerID})
	c.waitEcho("stop", DemoSessionURI, stop)
	readyBefore := c.countEnvelopes(demoReady)

	// First start: its ready is due 2 steps later.
	start1 := c.dispatch(DemoSessionURI, protocol.SessionMcpServerStartRequestedAction{ID: FilesystemServerID})
	c.waitEcho("start 1", DemoSessionURI, start1)
	// Let one step pass on the host's own timers (a new session becomes
	// ready after one step), then stop and start again inside the window.
	uri := "ahp-session:/tick"
	c.mustCall("createSession", protocol.CreateSessionParams{Channel: uri}, nil)
	c.mustCall("subscribe", protocol.SubscribeParams{Channel: uri}, nil)
	c.waitUntil("tick session ready", func() bool { return c.sessionMirrorLocked(uri).Lifecycle == protocol.SessionLifecycleReady })
	stop2 := c.dispatch(DemoSessionURI, protocol.SessionMcpServerStopRequestedAction{ID: FilesystemServerID})
	c.waitEcho("stop 2", DemoSessionURI, stop2)
	if n := c.countEnvelopes(demoReady); n != readyBefore {
		t.Skip("the machine was too slow to stop inside the first start's window; nothing to check")
	}
	// The clock starts before the dispatch, not after its echo: the host
	// arms the second start's timer when it receives the dispatch, so
	// measuring from the echo would subtract the echo's delivery time,
	// which on a loaded machine exceeds the step/4 margin below.
	restarted := time.Now()
	start2 := c.dispatch(DemoSessionURI, protocol.SessionMcpServerStartRequestedAction{ID: FilesystemServerID})
	c.waitEcho("start 2", DemoSessionURI, start2)
	c.waitServer(DemoSessionURI, FilesystemServerID, "ready")
	// Timers never fire early, so the second start's ready cannot come
	// before its 2 steps; the stale first start's would come after ~1.
	if took := time.Since(restarted); took < 2*step-step/4 {
		t.Fatalf("ready %v after the second start; the first start's stale timer made it ready", took)
	}
	if n := c.countEnvelopes(demoReady) - readyBefore; n != 1 {
		t.Fatalf("%d ready transitions after stop/start/stop/start, want 1", n)
	}
}

// TestCreateChatRejectsAgentInitialMessageUpFront: a refused createChat
// must leave no trace — no chat, no session/chatAdded.
func TestCreateChatRejectsAgentInitialMessageUpFront(t *testing.T) {
	h, v := startHost(t, Config{})
	c := dial(t, h, v, "creator")
	c.initialize(rootURI, DemoSessionURI)
	msg := protocol.Message{Text: "hi", Origin: protocol.MessageOrigin{Kind: protocol.MessageKindAgent}}
	c.wantError("createChat", protocol.CreateChatParams{Channel: DemoSessionURI, Chat: chatURIOf("agent-said", DemoSessionURI), InitialMessage: &msg}, jsonrpc.InvalidParams)
	// A later accepted action is sequenced after anything the refused call produced.
	seq := c.dispatch(DemoSessionURI, protocol.SessionTitleChangedAction{Title: "after"})
	c.waitEcho("title", DemoSessionURI, seq)
	if n := c.countEnvelopes(isType("session/chatAdded")); n != 0 {
		t.Fatalf("%d session/chatAdded for a refused createChat", n)
	}
	h.mu.Lock()
	_, exists := h.chats[chatURIOf("agent-said", DemoSessionURI)]
	h.mu.Unlock()
	if exists {
		t.Fatal("a refused createChat created its chat")
	}
}

// TestReplayRing: the ring keeps the newest entries in order and a push
// into a full ring allocates nothing (the old copy-down cost a whole
// buffer per action).
func TestReplayRing(t *testing.T) {
	var r replayRing
	for i := range 10 {
		r.push(replayEntry{seq: int64(i + 1)}, 4)
	}
	if r.len() != 4 {
		t.Fatalf("len = %d, want 4", r.len())
	}
	for i := range 4 {
		if got := r.at(i).seq; got != int64(7+i) {
			t.Fatalf("at(%d).seq = %d, want %d", i, got, 7+i)
		}
	}
	seq := int64(100)
	if n := testing.AllocsPerRun(100, func() { seq++; r.push(replayEntry{seq: seq}, 4) }); n != 0 {
		t.Fatalf("push into a full ring allocates %v times", n)
	}
	r.reset()
	r.push(replayEntry{seq: 1}, 4)
	if r.len() != 1 || r.at(0).seq != 1 {
		t.Fatal("reset ring does not start over")
	}
}

// TestReplayAfterBufferWraps: reconnect replays exactly the envelopes
// after lastSeen once the ring has wrapped, and falls back to snapshots
// for a gap older than the ring.
func TestReplayAfterBufferWraps(t *testing.T) {
	forEachVersion(t, func(t *testing.T, version string) {
		h, v := startHost(t, Config{Version: version, ReplayBuffer: 8, NoDemoSession: true})
		c := dial(t, h, v, "wrapper")
		c.initialize(rootURI)
		uri := "ahp-session:/w"
		c.mustCall("createSession", protocol.CreateSessionParams{Channel: uri}, nil)
		c.mustCall("subscribe", protocol.SubscribeParams{Channel: uri}, nil)
		var last int64
		for i := range 20 {
			last = c.dispatch(uri, protocol.SessionTitleChangedAction{Title: "t" + string(rune('a'+i))})
		}
		c.waitEcho("last title", uri, last)
		h.mu.Lock()
		seq := h.seq
		h.mu.Unlock()

		c2 := dial(t, h, v, "wrapper")
		var res struct {
			Type    string            `json:"type"`
			Actions []json.RawMessage `json:"actions"`
		}
		c2.mustCall("reconnect", protocol.ReconnectParams{ClientID: "wrapper", LastSeenServerSeq: seq - 3, Subscriptions: []string{uri}}, &res)
		if res.Type != "replay" || len(res.Actions) != 3 {
			t.Fatalf("reconnect = %s with %d actions, want replay of 3", res.Type, len(res.Actions))
		}
		c3 := dial(t, h, v, "wrapper")
		c3.mustCall("reconnect", protocol.ReconnectParams{ClientID: "wrapper", LastSeenServerSeq: seq - 12, Subscriptions: []string{uri}}, &res)
		if res.Type != "snapshot" {
			t.Fatalf("reconnect past the ring = %s, want snapshot", res.Type)
		}
	})
}

// TestGrantsArePerConnection: authentication status is per connection
// (authentication.md), so a token another client pushes does not resume
// this client's step-up challenge; this client's own token does.
func TestGrantsArePerConnection(t *testing.T) {
	forEachVersion(t, func(t *testing.T, version string) {
		h, v := startHost(t, Config{Version: version})
		owner := dial(t, h, v, "owner")
		owner.initialize(rootURI, DemoSessionURI, DemoChatURI)
		tcID := stepUpChallenge(t, h, owner)
		other := dial(t, h, v, "other")
		other.initialize(rootURI, DemoSessionURI, DemoChatURI)

		deploy := resourceURL(h, DeployResourcePath)
		cb := startCallback(t)
		clientID := registerClient(t, h.AuthIssuer(), cb.URL, []string{"mcp:read", "tools:deploy"})
		tok := grant(t, h.AuthIssuer(), clientID, cb, deploy, []string{"tools:deploy"})
		// The other client's token is fine for the other client...
		other.mustCall("authenticate", protocol.AuthenticateParams{Resource: deploy, Token: tok, Scopes: []string{"tools:deploy"}}, nil)
		// ...but authenticate resolves challenges before it answers, so the
		// owner's challenge is still open now.
		h.mu.Lock()
		r := h.chats[DemoChatURI].run
		resumed := r == nil || r.authGranted
		h.mu.Unlock()
		if resumed {
			t.Fatal("another client's token resumed this client's step-up challenge")
		}
		if n := owner.countEnvelopes(isType("chat/toolCallAuthResolved")); n != 0 {
			t.Fatal("another client's token resolved the challenge")
		}

		owner.mustCall("authenticate", protocol.AuthenticateParams{Resource: deploy, Token: tok, Scopes: []string{"tools:deploy"}}, nil)
		owner.waitEnvelope("toolCallAuthResolved", DemoChatURI, isType("chat/toolCallAuthResolved"))
		owner.waitEnvelope("deploy completes", DemoChatURI, func(e protocol.ActionEnvelope) bool {
			a, ok := e.Action.Variant.(protocol.ChatToolCallCompleteAction)
			return ok && a.ToolCallID == tcID && a.Result.Success
		})
	})
}

// TestUnknownActionTypeEchoedAsRejected: the spec requires every invalid
// client action to be echoed with a rejectionReason, including a type this
// version does not define; the echo cannot be schema-valid and is marked
// so tests can exclude it explicitly rather than ignore failures wholesale.
func TestUnknownActionTypeEchoedAsRejected(t *testing.T) {
	forEachVersion(t, func(t *testing.T, version string) {
		h, v := startHost(t, Config{Version: version})
		c := dial(t, h, v, "future")
		c.initialize(rootURI, DemoSessionURI)
		frame := []byte(`{"jsonrpc":"2.0","method":"dispatchAction","params":{"channel":"ahp-session:/demo","clientSeq":1,"action":{"type":"session/fromTheFuture","x":1}}}`)
		c.noValidate.Store(true) // the echo is known to fail the 0.6.0 schema
		c.send(frame)
		e := c.waitEnvelope("echo", DemoSessionURI, func(e protocol.ActionEnvelope) bool {
			return e.Origin != nil && e.Origin.ClientSeq == 1
		})
		if e.RejectionReason == nil || e.Action.Kind() != "session/fromTheFuture" {
			t.Fatalf("echo = %+v, want the action rejected", e)
		}
		var marked, other int
		for _, fe := range h.ValidationErrors() {
			switch {
			case fe.Dir == Outbound && fe.UnknownAction == "session/fromTheFuture":
				marked++
			case fe.Dir == Outbound:
				other++
			}
		}
		if marked != 1 || other != 0 {
			t.Fatalf("validation errors: %d marked unknown-action echoes (want 1), %d others (want 0)", marked, other)
		}
	})
}
