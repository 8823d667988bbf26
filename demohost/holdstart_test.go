package demohost

import (
	"testing"

	"github.com/ahptui/ahptui/protocol"
)

// TestHoldStartsUntilRun: with Config.HoldStartsUntilRun the demo plays
// VS Code's host before a session's first message: a start request in a
// session that has not run is echoed and the server is held, starting,
// with no state change, until a turn starts there, which starts it; once
// the session has run, a start goes through at once.
func TestHoldStartsUntilRun(t *testing.T) {
	h, v := startHost(t, Config{HoldStartsUntilRun: true, StepDelay: -1})
	c := dial(t, h, v, "holder")
	c.initialize(rootURI, DemoSessionURI)
	c.mustCall("subscribe", protocol.SubscribeParams{Channel: DemoChatURI}, nil)
	c.waitServer(DemoSessionURI, FilesystemServerID, "ready")
	held := func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		return h.sessions[DemoSessionURI].held[FilesystemServerID]
	}
	readyAfter := func(seq int64) func(protocol.ActionEnvelope) bool {
		return func(e protocol.ActionEnvelope) bool {
			return e.ServerSeq > seq && serverState(FilesystemServerID, "ready")(e)
		}
	}

	start := c.waitEcho("start", DemoSessionURI, c.dispatch(DemoSessionURI, protocol.SessionMcpServerStartRequestedAction{ID: FilesystemServerID}))
	if start.RejectionReason != nil {
		t.Fatalf("start rejected: %s", *start.RejectionReason)
	}
	if !held() {
		t.Fatal("a start in a session that has not run was not held")
	}
	turn := c.waitEcho("turn", DemoChatURI, c.dispatch(DemoChatURI, turnStarted("t1", "hello")))
	ready := c.waitEnvelope("ready once the session runs", DemoSessionURI, readyAfter(start.ServerSeq))
	if ready.ServerSeq < turn.ServerSeq {
		t.Fatalf("the held server was ready (seq %d) before the session's first turn (seq %d)", ready.ServerSeq, turn.ServerSeq)
	}
	if held() {
		t.Fatal("the server is still held after the session ran")
	}

	again := c.waitEcho("start again", DemoSessionURI, c.dispatch(DemoSessionURI, protocol.SessionMcpServerStartRequestedAction{ID: FilesystemServerID}))
	if held() {
		t.Fatal("a start in a session that has run was held")
	}
	c.waitEnvelope("ready after a start in a session that has run", DemoSessionURI, readyAfter(again.ServerSeq))
}
