package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/protocol"
)

func TestKeySendsMessage(t *testing.T) {
	d := newDriver(t, nil)
	d.openDemo()
	d.keys("tab") // sessions → chat (opening already focused it; tab is harmless)
	d.m.focus = focusChat
	d.sendMessage("hello stream")
	s := d.expectSent("chat/turnStarted")[0]
	a := s.Action.Variant.(protocol.ChatTurnStartedAction)
	if s.Channel != demohost.DemoChatURI || a.Message.Text != "hello stream" || a.Message.Origin.Kind != protocol.MessageKindUser || a.TurnID == "" {
		t.Fatalf("turnStarted = %+v on %s", a, s.Channel)
	}
	d.until("the agent's answer", func() bool {
		return len(d.m.chat.Turns) > 0 && strings.Contains(d.m.Render(), "Streaming demo")
	})
}

func TestKeysQueueAndCancelWhileRunning(t *testing.T) {
	d := newDriver(t, nil)
	d.openDemo()
	d.sendMessage("ask me a question")
	d.expectSent("chat/turnStarted")
	d.until("running turn", func() bool { return d.m.chatPanel.turnRunning() })
	d.sendMessage("and then ship it")
	q := d.expectSent("chat/pendingMessageSet")[0].Action.Variant.(protocol.ChatPendingMessageSetAction)
	if q.Kind != protocol.PendingMessageKindQueued || q.Message.Text != "and then ship it" || q.ID == "" {
		t.Fatalf("pendingMessageSet = %+v", q)
	}
	turn := d.m.chat.ActiveTurn.ID
	d.keys("ctrl+x")
	c := d.expectSent("chat/turnCancelled")[0].Action.Variant.(protocol.ChatTurnCancelledAction)
	if c.TurnID != turn || c.Duration < 0 {
		t.Fatalf("turnCancelled = %+v, want turn %s", c, turn)
	}
}

func TestKeysApproveAndDenyToolCall(t *testing.T) {
	for _, tc := range []struct {
		key, want string
		approved  bool
	}{{"a", "chat/toolCallConfirmed", true}, {"x", "chat/toolCallConfirmed", false}} {
		t.Run(tc.key, func(t *testing.T) {
			d := newDriver(t, nil)
			d.openDemo()
			d.sendMessage("please write the changelog")
			d.expectSent("chat/turnStarted")
			it := d.waitItem("pending confirmation", func(it chatItem) bool { return it.Tool.Status() == protocol.ToolCallStatusPendingConfirmation })
			d.keys("]")
			if d.m.chatPanel.sel.item != it.ID {
				t.Fatalf("] selected %q, want %q", d.m.chatPanel.sel.item, it.ID)
			}
			d.keys(tc.key)
			s := d.expectSent(tc.want)[0]
			switch a := s.Action.Variant.(type) {
			case protocol.ChatToolCallApprovedAction:
				if !tc.approved || a.ToolCallID != it.ID || a.TurnID != it.TurnID || !a.Approved {
					t.Fatalf("approved = %+v, want %s/%s", a, it.TurnID, it.ID)
				}
			case protocol.ChatToolCallDeniedAction:
				if tc.approved || a.ToolCallID != it.ID || a.TurnID != it.TurnID || a.Approved {
					t.Fatalf("denied = %+v, want %s/%s", a, it.TurnID, it.ID)
				}
			default:
				t.Fatalf("sent %T", a)
			}
			want := protocol.ToolCallStatusRunning
			if !tc.approved {
				want = protocol.ToolCallStatusCancelled
			}
			d.waitItem("tool call "+want, func(x chatItem) bool {
				return x.ID == it.ID && (x.Tool.Status() == want || x.Tool.Status() == protocol.ToolCallStatusCompleted)
			})
		})
	}
}

// The demo host never asks for result confirmation, so this test puts a
// pending-result-confirmation card into the model's chat snapshot and checks
// the action the real client sends (the host rejects it: no such call).
func TestKeysResultConfirmation(t *testing.T) {
	for _, tc := range []struct {
		key      string
		approved bool
	}{{"a", true}, {"x", false}} {
		t.Run(tc.key, func(t *testing.T) {
			d := newDriver(t, nil)
			d.openDemo()
			chat := d.m.chat
			chat.ActiveTurn = &protocol.ActiveTurn{ID: "turn-rc", StartedAt: "2026-01-01T00:00:00.000Z",
				Message: protocol.Message{Text: "x", Origin: protocol.MessageOrigin{Kind: protocol.MessageKindUser}},
				ResponseParts: []protocol.ResponsePart{protocol.NewResponsePart(protocol.ToolCallResponsePart{
					ToolCall: protocol.NewToolCallState(protocol.ToolCallPendingResultConfirmationState{
						ToolCallID: "tc-rc", ToolName: "read_secrets", DisplayName: "Read secrets",
						InvocationMessage: protocol.PlainString("Read secrets"), Success: true,
						PastTenseMessage: protocol.PlainString("Read 3 secrets"), Confirmed: protocol.ToolCallConfirmationReasonNotNeeded,
					})})}}
			d.m.chat = chat
			d.m.focus = focusChat
			d.keys("]", tc.key)
			a := d.expectSent("chat/toolCallResultConfirmed")[0].Action.Variant.(protocol.ChatToolCallResultConfirmedAction)
			if a.TurnID != "turn-rc" || a.ToolCallID != "tc-rc" || a.Approved != tc.approved {
				t.Fatalf("resultConfirmed = %+v", a)
			}
		})
	}
}

func TestKeysMCPServer(t *testing.T) {
	d := newDriver(t, nil)
	d.openDemo()
	d.until("filesystem ready", func() bool {
		for _, r := range mcpRows(d.m.sess) {
			if r.ID == demohost.FilesystemServerID && r.StateKind == "ready" {
				return true
			}
		}
		return false
	})
	d.m.focus = focusChat
	d.keys("tab")
	if d.m.focus != focusMCP {
		t.Fatalf("tab from chat focused %v, want MCP", d.m.focus)
	}
	rows := mcpRows(d.m.sess)
	for i, r := range rows {
		if r.ID == demohost.FilesystemServerID {
			for d.m.mcp.sel < i {
				d.keys("j")
			}
		}
	}
	if rows[d.m.mcp.sel].ID != demohost.FilesystemServerID {
		t.Fatalf("selected %s", rows[d.m.mcp.sel].ID)
	}
	for _, step := range []struct {
		key, want, marker string
		settled           func(mcpRow) bool
	}{
		{"x", "session/mcpServerStopRequested", "stopping", func(r mcpRow) bool { return r.StateKind == "stopped" }},
		{"s", "session/mcpServerStartRequested", "starting", func(r mcpRow) bool { return r.StateKind == "ready" }},
		{"space", "session/customizationToggled", "disabling", func(r mcpRow) bool { return !r.Enabled }},
	} {
		d.keys(step.key)
		s := d.expectSent(step.want)[0]
		var id string
		switch a := s.Action.Variant.(type) {
		case protocol.SessionMcpServerStopRequestedAction:
			id = a.ID
		case protocol.SessionMcpServerStartRequestedAction:
			id = a.ID
		case protocol.SessionCustomizationToggledAction:
			id = a.ID
			if protocol.EffectiveEnabled(a.Enablement) || len(a.Enablement) == 0 || a.Enablement[0].Kind() != "session" {
				t.Fatalf("toggle of an enabled server sent %v, want a session decision to disable first", a.Enablement)
			}
		}
		if id != demohost.FilesystemServerID || s.Channel != demohost.DemoSessionURI {
			t.Fatalf("%s targeted %s on %s", step.want, id, s.Channel)
		}
		// The optimistic change shows at once, with a pending marker…
		if !strings.Contains(d.m.Render(), "⋯ pending") {
			t.Fatalf("no pending marker %q after %s:\n%s", step.marker, step.key, d.m.Render())
		}
		// …which stays through every state event (our optimistic apply,
		// the host's echo re-applied) and settles exactly on the host's
		// ActionConfirmedEvent for this clientSeq — not on a timer, not on
		// the row looking done.
		d.untilConfirmed(s.ClientSeq, func() bool {
			_, pending := d.m.mcp.pending[s.ClientSeq]
			return pending
		})
		if _, pending := d.m.mcp.pending[s.ClientSeq]; pending {
			t.Fatalf("%s still pending after the host confirmed it", step.want)
		}
		d.until(step.want+" settled", func() bool { return step.settled(mcpRows(d.m.sess)[d.m.mcp.sel]) })
	}
}

func TestKeyDeclineGrant(t *testing.T) {
	d := newDriver(t, nil)
	d.openDemo()
	d.sendMessage("deploy the preview")
	d.expectSent("chat/turnStarted")
	it := d.waitItem("auth-required deploy", func(it chatItem) bool { return it.Tool.Status() == protocol.ToolCallStatusAuthRequired })
	d.keys("]")
	if d.m.context().String() != "chat+grant" {
		t.Fatalf("context %s, want chat+grant", d.m.context())
	}
	screen := d.m.Render()
	for _, want := range []string{"Grant additional access", "Deploy MCP server", "tools:deploy", "Deploying needs the tools:deploy scope"} {
		if !strings.Contains(screen, want) {
			t.Errorf("grant prompt lacks %q:\n%s", want, screen)
		}
	}
	d.keys("n")
	a := d.expectSent("chat/toolCallComplete")[0].Action.Variant.(protocol.ChatToolCallCompleteAction)
	if a.ToolCallID != it.ID || a.TurnID != it.TurnID || a.Result.Success || a.Result.Error == nil || deref(a.Result.Error.Code) != protocol.ToolCallErrorCodeCancelled {
		t.Fatalf("toolCallComplete = %+v", a)
	}
	d.waitItem("deploy failed", func(x chatItem) bool {
		return x.ID == it.ID && x.Tool.Status() == protocol.ToolCallStatusCompleted && toolFailed(x.Tool)
	})
}

// askMe opens the demo and asks for its input request.
func askMe(t *testing.T) (*driver, chatItem) {
	d := newDriver(t, nil)
	d.openDemo()
	d.sendMessage("ask me")
	d.expectSent("chat/turnStarted")
	return d, d.waitItem("input request", func(it chatItem) bool { return it.Kind == itemInput })
}

func TestKeysInputRequest(t *testing.T) {
	t.Run("answer and submit", func(t *testing.T) {
		d, it := askMe(t)
		d.keys("]")
		// The selected request is framed like a selected card and names
		// the keys that answer it.
		if scr := ansi.Strip(d.m.Render()); d.m.chatPanel.sel.item != it.ID || !strings.Contains(scr, "┃ ◆ Input requested") || !strings.Contains(scr, "answer · ") {
			t.Fatalf("] did not select the input request (selection %q):\n%s", d.m.chatPanel.sel.item, scr)
		}
		// The help line names what a and x do to a question, not the
		// tool-call verbs.
		if hl := ansi.Strip(d.m.helpLine()); !strings.Contains(hl, "a/y answer") || !strings.Contains(hl, "x decline") || strings.Contains(hl, "approve") {
			t.Fatalf("help line on a selected input request: %q", hl)
		}
		d.keys("a")
		if d.m.modal != modalInput {
			t.Fatalf("a on an input request did not open the form")
		}
		// The recommended option is prefilled; choose production (option 2).
		d.send(press("ctrl+u"))
		d.typeText("2")
		d.keys("tab")
		d.typeText("mention the fix")
		d.keys("ctrl+s")
		sent := d.expectSent("chat/inputAnswerChanged", "chat/inputAnswerChanged", "chat/inputCompleted")
		c := sent[2].Action.Variant.(protocol.ChatInputCompletedAction)
		if c.RequestID != it.ID || c.Response != protocol.ChatInputResponseKindAccept {
			t.Fatalf("inputCompleted = %+v", c)
		}
		ans := c.Answers["target"].Variant.(protocol.ChatInputAnswered).Value.Variant.(protocol.ChatInputSelectedAnswerValue)
		if ans.Value != "production" {
			t.Fatalf("target answer = %+v", ans)
		}
		d.until("agent reads the answer", func() bool { return strings.Contains(d.m.Render(), "production") && !d.m.chatPanel.turnRunning() })
	})
	// Enter moves on, and on the last question submits (issue 36 item
	// 10): it used to do nothing, ctrl+s being the only way to send.
	t.Run("enter submits", func(t *testing.T) {
		d, it := askMe(t)
		d.keys("]", "a")
		d.send(press("ctrl+u"))
		d.typeText("2")
		d.keys("enter")
		if d.m.modal != modalInput || d.m.form.state.Focus != 1 {
			t.Fatalf("enter on the first question did not move to the next (modal %v)", d.m.modal)
		}
		if sent := d.rec.take(); len(sent) != 0 {
			t.Fatalf("enter before the last question sent %v", sent)
		}
		d.typeText("mention the fix")
		d.keys("enter")
		sent := d.expectSent("chat/inputAnswerChanged", "chat/inputAnswerChanged", "chat/inputCompleted")
		c := sent[2].Action.Variant.(protocol.ChatInputCompletedAction)
		if c.RequestID != it.ID || c.Response != protocol.ChatInputResponseKindAccept {
			t.Fatalf("inputCompleted = %+v", c)
		}
		if d.m.modal == modalInput {
			t.Fatal("the form stayed open after enter submitted it")
		}
	})
	t.Run("decline", func(t *testing.T) {
		d, it := askMe(t)
		d.keys("]", "a", "ctrl+d")
		c := d.expectSent("chat/inputCompleted")[0].Action.Variant.(protocol.ChatInputCompletedAction)
		if c.RequestID != it.ID || c.Response != protocol.ChatInputResponseKindDecline {
			t.Fatalf("inputCompleted = %+v", c)
		}
	})
	// esc backs out of the form and leaves the request waiting (issue 14,
	// item 10): it used to decline it for good.
	t.Run("esc closes, the request waits", func(t *testing.T) {
		d, it := askMe(t)
		d.keys("]", "a", "esc")
		if d.m.modal == modalInput {
			t.Fatal("esc left the form open")
		}
		if sent := d.rec.take(); len(sent) != 0 {
			t.Fatalf("esc sent %v, want nothing", sent)
		}
		if _, ok := d.itemWhere(func(c chatItem) bool { return c.ID == it.ID && c.needsUser(nil) }); !ok {
			t.Fatal("the input request no longer waits")
		}
		d.keys("!")
		if d.m.modal != modalInput {
			t.Fatal("! did not open the waiting request's form again")
		}
	})
}
