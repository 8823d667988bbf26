package demohost

import (
	"strings"
	"testing"

	"github.com/ahptui/ahptui/protocol"
)

// TestDemoHintNamesEveryPath: the demo agent's description, the one place
// a client can show what to type in an empty chat, names the word of every
// scripted path (issue 14 item 4: every path reachable from a hint).
func TestDemoHintNamesEveryPath(t *testing.T) {
	h, v := startHost(t, Config{})
	c := dial(t, h, v, "hint")
	res := c.initialize(rootURI)
	root, ok := res.Snapshots[0].State.Variant.(protocol.RootState)
	if !ok || len(root.Agents) != 1 {
		t.Fatalf("root snapshot = %#v", res.Snapshots[0].State.Variant)
	}
	desc := root.Agents[0].Description
	for _, p := range append([]DemoPath{DemoTour}, DemoPaths...) {
		if !strings.Contains(desc, `"`+p.Word+`"`) || !strings.Contains(desc, p.Shows) {
			t.Errorf("the agent's description does not offer %q (%s):\n%s", p.Word, p.Shows, desc)
		}
	}
}

// demoTurn starts a schema-checked host, connects a client watching the
// demo session and its chat, and sends text as turn t1.
func demoTurn(t *testing.T, clientID, text string) *rawClient {
	t.Helper()
	return demoTurnOver(t, Version10, clientID, text)
}

// demoTurnOver is demoTurn with the host serving version.
func demoTurnOver(t *testing.T, version, clientID, text string) *rawClient {
	t.Helper()
	h, v := startHost(t, Config{Version: version})
	c := dial(t, h, v, clientID)
	c.initialize(rootURI, DemoSessionURI, DemoChatURI)
	c.dispatch(DemoChatURI, turnStarted("t1", text))
	return c
}

// toolCallCompleted matches a chat/toolCallComplete of tool call id.
func toolCallCompleted(id string, pred func(protocol.ChatToolCallCompleteAction) bool) func(protocol.ActionEnvelope) bool {
	return func(e protocol.ActionEnvelope) bool {
		a, ok := e.Action.Variant.(protocol.ChatToolCallCompleteAction)
		return ok && a.ToolCallID == id && pred(a)
	}
}

// TestDemoPathsReachable sends each path's word and waits for the state
// the path exists to show: a tool call that fails (success=false with an
// error), a result waiting for review, an approval, a sign-in, a question,
// plain streaming, a resumable error; and the tour, which a first "hello"
// takes, opens with a tool call rather than text only. Every path runs
// over both versions the host serves.
func TestDemoPathsReachable(t *testing.T) {
	pendingResult := func(a protocol.ChatToolCallCompleteAction) bool {
		return a.RequiresResultConfirmation != nil && *a.RequiresResultConfirmation
	}
	failed := func(a protocol.ChatToolCallCompleteAction) bool {
		return !a.Result.Success && a.Result.Error != nil && a.Result.Error.Message != ""
	}
	for _, tc := range []struct {
		word  string
		want  func(protocol.ActionEnvelope) bool
		tools bool // the path shows tool calls
	}{
		{"deploy", isType("chat/toolCallAuthRequired"), true},
		{"write", func(e protocol.ActionEnvelope) bool {
			a, ok := e.Action.Variant.(protocol.ChatToolCallReadyAction)
			return ok && a.ToolCallID == "t1-tc-write" && a.Confirmed == nil
		}, true},
		{"option", func(e protocol.ActionEnvelope) bool {
			a, ok := e.Action.Variant.(protocol.ChatToolCallReadyAction)
			return ok && a.ToolCallID == "t1-tc-write" && a.Confirmed == nil && len(a.Options) == len(WriteOptions) && a.Options[1].ID == "allow-once"
		}, true},
		{"review", toolCallCompleted("t1-tc-fetch", pendingResult), true},
		{"fail", toolCallCompleted("t1-tc-tests", failed), true},
		{"ask", isType("chat/inputRequested"), false},
		{"stream", isType("chat/turnComplete"), false},
		{"resume", isType("chat/error"), false},
		{"hello", toolCallCompleted("t1-tc-tests", failed), true},
	} {
		for _, version := range Versions {
			t.Run(tc.word+"/ahp-"+version, func(t *testing.T) {
				c := demoTurnOver(t, version, "paths", "Hello, please "+strings.ToUpper(tc.word[:1])+tc.word[1:])
				c.waitEnvelope(tc.word+" path", DemoChatURI, tc.want)
				if tools := c.countEnvelopes(isType("chat/toolCallStart")); (tools > 0) != tc.tools {
					t.Errorf("the %s path started %d tool calls before its state; want some: %v", tc.word, tools, tc.tools)
				}
			})
		}
	}
}

// TestDemoHelloStartsWithToolCall: a new user's first message, "hello",
// shows a tool call before any long text and before anything waits on
// them (issue 14 item 4: it used to stream markdown only).
func TestDemoHelloStartsWithToolCall(t *testing.T) {
	c := demoTurn(t, "hello", "hello")
	c.waitEnvelope("first tool call completes", DemoChatURI, toolCallCompleted("t1-tc-search", func(a protocol.ChatToolCallCompleteAction) bool { return a.Result.Success }))
	c.mu.Lock()
	defer c.mu.Unlock()
	var text int
	for _, e := range c.envelopesLocked() {
		if a, ok := e.Action.Variant.(protocol.ChatDeltaAction); ok {
			text += len(a.Content)
		}
		if e.Action.Kind() == "chat/toolCallStart" {
			break
		}
	}
	// One short greeting line, not a screenful.
	if text > 120 {
		t.Errorf("%d bytes of text stream before the first tool call; a new user should see one at once", text)
	}
}

// TestDemoReviewResult drives pending-result-confirmation both ways: the
// host lists the call as needing input, an approved result completes it, a
// denied one cancels it as result-denied, and the input-needed entry goes.
func TestDemoReviewResult(t *testing.T) {
	for _, approve := range []bool{true, false} {
		name := map[bool]string{true: "approved", false: "denied"}[approve]
		t.Run(name, func(t *testing.T) {
			c := demoTurn(t, "review", "review the checklist")
			c.waitEnvelope("result waits for review", DemoSessionURI, func(e protocol.ActionEnvelope) bool {
				a, ok := e.Action.Variant.(protocol.SessionInputNeededSetAction)
				if !ok {
					return false
				}
				r, ok := a.Request.Variant.(protocol.SessionToolConfirmationRequest)
				_, pending := r.ToolCall.Variant.(protocol.ToolCallPendingResultConfirmationState)
				return ok && pending
			})
			seq := c.dispatch(DemoChatURI, protocol.ChatToolCallResultConfirmedAction{TurnID: "t1", ToolCallID: "t1-tc-fetch", Approved: approve})
			if e := c.waitEcho("answer", DemoChatURI, seq); e.RejectionReason != nil {
				t.Fatalf("result confirmation rejected: %s", *e.RejectionReason)
			}
			c.waitEnvelope("input-needed removed", DemoSessionURI, isType("session/inputNeededRemoved"))
			c.waitEnvelope("turn complete", DemoChatURI, isType("chat/turnComplete"))
			c.mu.Lock()
			chat := c.mirror[DemoChatURI].(protocol.ChatState)
			c.mu.Unlock()
			tc, ok := findToolCall(protocol.ChatState{ActiveTurn: &protocol.ActiveTurn{ID: "t1", ResponseParts: chat.Turns[0].ResponseParts}}, "t1", "t1-tc-fetch")
			if !ok {
				t.Fatal("the fetch tool call is gone")
			}
			switch st := tc.Variant.(type) {
			case protocol.ToolCallCompletedState:
				if !approve || !st.Success {
					t.Errorf("approve=%v: completed %+v", approve, st)
				}
			case protocol.ToolCallCancelledState:
				if approve || st.Reason != protocol.ToolCallCancellationReasonResultDenied {
					t.Errorf("approve=%v: cancelled with reason %q", approve, st.Reason)
				}
			default:
				t.Errorf("approve=%v: tool call ends %s", approve, tc.Kind())
			}
		})
	}
}

// TestCancelClearsActivity: cancelling a turn clears the chat's activity;
// "Thinking" stayed in the header and the session list after ctrl+x
// (issue 14 item 8), because only a turn that ran to its end cleared it.
func TestCancelClearsActivity(t *testing.T) {
	c := demoTurn(t, "cancel", "hello")
	c.waitEnvelope("thinking", DemoChatURI, func(e protocol.ActionEnvelope) bool {
		a, ok := e.Action.Variant.(protocol.ChatActivityChangedAction)
		return ok && a.Activity != nil
	})
	c.waitEnvelope("write waits for approval", DemoChatURI, func(e protocol.ActionEnvelope) bool {
		a, ok := e.Action.Variant.(protocol.ChatToolCallReadyAction)
		return ok && a.ToolCallID == "t1-tc-write"
	})
	seq := c.dispatch(DemoChatURI, protocol.ChatTurnCancelledAction{TurnID: "t1"})
	if e := c.waitEcho("cancel", DemoChatURI, seq); e.RejectionReason != nil {
		t.Fatalf("cancel rejected: %s", *e.RejectionReason)
	}
	c.waitUntil("activity cleared in the chat and the session's catalogue", func() bool {
		ch, _ := c.mirror[DemoChatURI].(protocol.ChatState)
		if ch.Activity != nil || ch.ActiveTurn != nil {
			return false
		}
		for _, s := range c.sessionMirrorLocked(DemoSessionURI).Chats {
			if s.Resource == DemoChatURI {
				// A partial summary cannot say "absent": "" clears.
				return s.Activity == nil || *s.Activity == ""
			}
		}
		return false
	})
}
