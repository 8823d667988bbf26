package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// chatFixtureClock is the clock the conformance fixtures were recorded with
// (the shared harness in reducer_fixtures_test.go runs those fixtures).
func chatFixtureClock() time.Time { return time.UnixMilli(9999) }

func chatMustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	return b
}

// ---- table tests for transitions the fixtures do not cover -----------------

func chatMsg(text string) Message {
	return Message{Text: text, Origin: MessageOrigin{Kind: MessageKindUser}}
}

func chatStrPtr(s string) *string { return &s }

func chatAction(v StateActionVariant) StateAction { return StateAction{Variant: v} }

// chatBase is an idle chat with one completed turn.
func chatBase() ChatState {
	return ChatState{
		Resource:   "ahp-chat:/c1",
		Title:      "Chat",
		Status:     SessionStatusIdle,
		ModifiedAt: "1970-01-01T00:00:01.000Z",
		Turns: []Turn{{
			ID: "t0", Message: chatMsg("earlier"), ResponseParts: []ResponsePart{}, State: TurnStateComplete,
		}},
	}
}

// chatActive is chatBase with active turn t1 holding a markdown part md,
// a reasoning part rs and a running MCP tool call tc.
func chatActive() ChatState {
	s := chatBase()
	s.Status = SessionStatusInProgress | SessionStatusIsArchived
	mcp := ToolCallContributor{Variant: ToolCallMcpContributor{Kind: "mcp", CustomizationID: "srv"}}
	s.ActiveTurn = &ActiveTurn{
		ID: "t1", StartedAt: "1970-01-01T00:00:02.000Z", Message: chatMsg("hi"),
		ResponseParts: []ResponsePart{
			{Variant: MarkdownResponsePart{Kind: "markdown", ID: "md", Content: NewText("Hel")}},
			{Variant: ReasoningResponsePart{Kind: "reasoning", ID: "rs", Content: NewText("think")}},
			{Variant: ToolCallResponsePart{Kind: "toolCall", ToolCall: ToolCallState{Variant: ToolCallRunningState{
				ToolCallID: "tc", ToolName: "search", DisplayName: "Search", Contributor: &mcp,
				InvocationMessage: PlainString("Searching"), Confirmed: ToolCallConfirmationReasonUserAction,
				Status:  "running",
				Content: []ToolResultContent{{Variant: ToolResultTextContent{Type: "text", Text: "partial"}}},
			}}}},
		},
	}
	return s
}

func chatActiveToolCall(t *testing.T, s ChatState, id string) ToolCallStateVariant {
	t.Helper()
	if s.ActiveTurn == nil {
		t.Fatal("no active turn")
	}
	for _, p := range s.ActiveTurn.ResponseParts {
		if tcp, ok := p.Variant.(ToolCallResponsePart); ok {
			if c, ok := chatToolCallCommonOf(tcp.ToolCall.Variant); ok && c.ToolCallID == id {
				return tcp.ToolCall.Variant
			}
		}
	}
	t.Fatalf("no tool call %q", id)
	return nil
}

// chatSame reports whether b is a itself: no field re-pointed, nothing
// re-encoded differently.
func chatSame(t *testing.T, a, b ChatState) bool {
	t.Helper()
	return a.ActiveTurn == b.ActiveTurn &&
		unsafe.SliceData(a.Turns) == unsafe.SliceData(b.Turns) && len(a.Turns) == len(b.Turns) &&
		unsafe.SliceData(a.QueuedMessages) == unsafe.SliceData(b.QueuedMessages) && len(a.QueuedMessages) == len(b.QueuedMessages) &&
		a.SteeringMessage == b.SteeringMessage && a.Draft == b.Draft && a.Activity == b.Activity &&
		a.Status == b.Status && a.ModifiedAt == b.ModifiedAt && a.TurnsNextCursor == b.TurnsNextCursor
}

func TestReduceChatNoOps(t *testing.T) {
	auth := McpAuthRequirement{Reason: McpAuthRequiredReasonInsufficientScope}
	tests := []struct {
		name string
		s    ChatState
		a    StateAction
	}{
		{"session action", chatActive(), chatAction(SessionTitleChangedAction{Type: "session/titleChanged", Title: "x"})},
		{"unknown action", chatActive(), chatAction(UnknownStateAction{Discriminator: "chat/fromTheFuture", Raw: json.RawMessage(`{"type":"chat/fromTheFuture"}`)})},
		{"nil action", chatActive(), StateAction{}},
		{"delta without active turn", chatBase(), chatAction(ChatDeltaAction{Type: "chat/delta", TurnID: "t1", PartID: "md", Content: "x"})},
		{"delta into reasoning part", chatActive(), chatAction(ChatDeltaAction{Type: "chat/delta", TurnID: "t1", PartID: "rs", Content: "x"})},
		{"reasoning into markdown part", chatActive(), chatAction(ChatReasoningAction{Type: "chat/reasoning", TurnID: "t1", PartID: "md", Content: "x"})},
		{"reasoning wrong turn", chatActive(), chatAction(ChatReasoningAction{Type: "chat/reasoning", TurnID: "t9", PartID: "rs", Content: "x"})},
		{"turnCancelled wrong turn", chatActive(), chatAction(ChatTurnCancelledAction{Type: "chat/turnCancelled", TurnID: "t9", Duration: 1})},
		{"turnCancelled without active turn", chatBase(), chatAction(ChatTurnCancelledAction{Type: "chat/turnCancelled", TurnID: "t1", Duration: 1})},
		{"error wrong turn", chatActive(), chatAction(ChatErrorAction{Type: "chat/error", TurnID: "t9", Duration: 1, Part: ErrorResponsePart{Kind: "error", Error: ErrorInfo{ErrorType: "x", Message: "y"}}})},
		{"auth resolved on running", chatActive(), chatAction(ChatToolCallAuthResolvedAction{Type: "chat/toolCallAuthResolved", TurnID: "t1", ToolCallID: "tc"})},
		{"auth required on a client tool", func() ChatState {
			s := chatActive()
			rs := s.ActiveTurn.ResponseParts[2].Variant.(ToolCallResponsePart).ToolCall.Variant.(ToolCallRunningState)
			rs.Contributor = &ToolCallContributor{Variant: ToolCallClientContributor{Kind: "client", ClientID: chatStrPtr("c1")}}
			s.ActiveTurn.ResponseParts[2] = ResponsePart{Variant: ToolCallResponsePart{Kind: "toolCall", ToolCall: ToolCallState{Variant: rs}}}
			return s
		}(), chatAction(ChatToolCallAuthRequiredAction{Type: "chat/toolCallAuthRequired", TurnID: "t1", ToolCallID: "tc", Auth: auth})},
		{"auth required on unknown call", chatActive(), chatAction(ChatToolCallAuthRequiredAction{Type: "chat/toolCallAuthRequired", TurnID: "t1", ToolCallID: "nope", Auth: auth})},
		{"approved on running", chatActive(), chatAction(ChatToolCallApprovedAction{Type: "chat/toolCallConfirmed", TurnID: "t1", ToolCallID: "tc", Approved: true, Confirmed: ToolCallConfirmationReasonUserAction})},
		{"denied on running", chatActive(), chatAction(ChatToolCallDeniedAction{Type: "chat/toolCallConfirmed", TurnID: "t1", ToolCallID: "tc", Reason: "denied"})},
		{"input answer for unknown request", chatActive(), chatAction(ChatInputAnswerChangedAction{Type: "chat/inputAnswerChanged", RequestID: "r", QuestionID: "q"})},
		{"input completed without active turn", chatBase(), chatAction(ChatInputCompletedAction{Type: "chat/inputCompleted", RequestID: "r", Response: ChatInputResponseKindAccept})},
		{"reorder without queue", chatBase(), chatAction(ChatQueuedMessagesReorderedAction{Type: "chat/queuedMessagesReordered", Order: []string{"a"}})},
		{"remove unknown queued", func() ChatState {
			s := chatBase()
			s.QueuedMessages = []PendingMessage{{ID: "q1", Message: chatMsg("a")}}
			return s
		}(), chatAction(ChatPendingMessageRemovedAction{Type: "chat/pendingMessageRemoved", Kind: PendingMessageKindQueued, ID: "q2"})},
		{"usage wrong turn", chatActive(), chatAction(ChatUsageAction{Type: "chat/usage", TurnID: "t9"})},
		{"truncate unknown turn", chatActive(), chatAction(ChatTruncatedAction{Type: "chat/truncated", TurnID: chatStrPtr("nope")})},
		{"content changed on auth-required", func() ChatState {
			return ReduceChat(chatActive(), chatAction(ChatToolCallAuthRequiredAction{Type: "chat/toolCallAuthRequired", TurnID: "t1", ToolCallID: "tc", Auth: auth}), Rules{})
		}(), chatAction(ChatToolCallContentChangedAction{Type: "chat/toolCallContentChanged", TurnID: "t1", ToolCallID: "tc", Content: []ToolResultContent{}})},
		{"successful complete from auth-required", func() ChatState {
			return ReduceChat(chatActive(), chatAction(ChatToolCallAuthRequiredAction{Type: "chat/toolCallAuthRequired", TurnID: "t1", ToolCallID: "tc", Auth: auth}), Rules{})
		}(), chatAction(ChatToolCallCompleteAction{Type: "chat/toolCallComplete", TurnID: "t1", ToolCallID: "tc", Result: ToolCallResult{Success: true, PastTenseMessage: PlainString("done")}})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := chatMustJSON(t, tt.s)
			got := ReduceChat(tt.s, tt.a, Rules{})
			if !chatSame(t, tt.s, got) {
				t.Errorf("state changed:\nbefore %s\nafter  %s", before, chatMustJSON(t, got))
			}
		})
	}
}

func TestReduceChatTransitions(t *testing.T) {
	// 1.0 derives modifiedAt from action data (DELTA §7.2): chatActive's
	// turn started at 00:02.000; chatBase was last modified at 00:01.000.
	const unchanged = "1970-01-01T00:00:01.000Z"
	auth := McpAuthRequirement{Reason: McpAuthRequiredReasonInsufficientScope, Description: chatStrPtr("need repo scope")}
	authRequired := func() ChatState {
		return ReduceChat(chatActive(), chatAction(ChatToolCallAuthRequiredAction{Type: "chat/toolCallAuthRequired", TurnID: "t1", ToolCallID: "tc", Auth: auth}), Rules{})
	}
	tests := []struct {
		name  string
		s     ChatState
		a     StateAction
		check func(t *testing.T, got ChatState)
	}{
		{"turnCancelled ends the turn as cancelled and skips the running tool", chatActive(),
			chatAction(ChatTurnCancelledAction{Type: "chat/turnCancelled", TurnID: "t1", Duration: 42}),
			func(t *testing.T, got ChatState) {
				if got.ActiveTurn != nil || len(got.Turns) != 2 {
					t.Fatalf("active %v, %d turns", got.ActiveTurn, len(got.Turns))
				}
				turn := got.Turns[1]
				if turn.State != TurnStateCancelled || turn.Duration == nil || *turn.Duration != 42 || len(turn.ResponseParts) != 3 {
					t.Errorf("turn = %+v", turn)
				}
				if tc, ok := turn.ResponseParts[2].Variant.(ToolCallResponsePart).ToolCall.Variant.(ToolCallCancelledState); !ok || tc.Reason != ToolCallCancellationReasonSkipped || tc.InvocationMessage.Value != "Searching" {
					t.Errorf("tool call = %#v", turn.ResponseParts[2])
				}
				if md := turn.ResponseParts[0].Variant.(MarkdownResponsePart); md.Content.String() != "Hel" {
					t.Errorf("markdown = %q", md.Content.String())
				}
				if got.Status != SessionStatusIdle|SessionStatusIsArchived || got.ModifiedAt != "1970-01-01T00:00:02.042Z" {
					t.Errorf("status %d modifiedAt %s", got.Status, got.ModifiedAt)
				}
			}},
		{"error appends the error part and ends the turn with error status", chatActive(),
			chatAction(ChatErrorAction{Type: "chat/error", TurnID: "t1", Duration: -5, Part: ErrorResponsePart{Kind: "error", Error: ErrorInfo{ErrorType: "rate", Message: "slow down"}}}),
			func(t *testing.T, got ChatState) {
				turn := got.Turns[len(got.Turns)-1]
				if turn.State != TurnStateError || *turn.Duration != 0 || len(turn.ResponseParts) != 4 {
					t.Fatalf("turn = %+v", turn)
				}
				if e, ok := turn.ResponseParts[3].Variant.(ErrorResponsePart); !ok || e.Error.Message != "slow down" {
					t.Errorf("last part = %#v", turn.ResponseParts[3])
				}
				if got.ModifiedAt != "1970-01-01T00:00:02.000Z" {
					t.Errorf("modifiedAt %s, want startedAt + 0 (a negative duration counts as none)", got.ModifiedAt)
				}
				if got.Status != SessionStatusError|SessionStatusIsArchived {
					t.Errorf("status = %d", got.Status)
				}
			}},
		{"turnStarted after an error clears the error bit and keeps flags", func() ChatState {
			s := chatBase()
			s.Status = SessionStatusError | SessionStatusIsArchived | SessionStatusIsRead
			return s
		}(), chatAction(ChatTurnStartedAction{Type: "chat/turnStarted", TurnID: "t2", StartedAt: "x", Message: chatMsg("again")}),
			func(t *testing.T, got ChatState) {
				if got.Status != SessionStatusInProgress|SessionStatusIsArchived {
					t.Errorf("status = %d", got.Status)
				}
				if got.ActiveTurn == nil || got.ActiveTurn.ResponseParts == nil {
					t.Errorf("active turn = %+v", got.ActiveTurn)
				}
			}},
		{"turnStarted with an unknown queued id keeps the queue", func() ChatState {
			s := chatBase()
			s.QueuedMessages = []PendingMessage{{ID: "q1", Message: chatMsg("a")}}
			return s
		}(), chatAction(ChatTurnStartedAction{Type: "chat/turnStarted", TurnID: "t2", Message: chatMsg("b"), QueuedMessageID: chatStrPtr("q9")}),
			func(t *testing.T, got ChatState) {
				if len(got.QueuedMessages) != 1 {
					t.Errorf("queue = %+v", got.QueuedMessages)
				}
			}},
		{"reasoning appends to the reasoning part", chatActive(),
			chatAction(ChatReasoningAction{Type: "chat/reasoning", TurnID: "t1", PartID: "rs", Content: "ing"}),
			func(t *testing.T, got ChatState) {
				if rs := got.ActiveTurn.ResponseParts[1].Variant.(ReasoningResponsePart); rs.Content.String() != "thinking" {
					t.Errorf("reasoning = %q", rs.Content.String())
				}
				if got.ModifiedAt != "1970-01-01T00:00:01.000Z" {
					t.Errorf("streaming stamped modifiedAt %s", got.ModifiedAt)
				}
			}},
		{"activityChanged sets the activity", chatBase(),
			chatAction(ChatActivityChangedAction{Type: "chat/activityChanged", Activity: chatStrPtr("Reading files")}),
			func(t *testing.T, got ChatState) {
				if got.Activity == nil || *got.Activity != "Reading files" {
					t.Errorf("activity = %v", got.Activity)
				}
			}},
		{"draftChanged sets the draft", chatBase(),
			chatAction(ChatDraftChangedAction{Type: "chat/draftChanged", Draft: &Message{Text: "half a thought", Origin: MessageOrigin{Kind: MessageKindUser}}}),
			func(t *testing.T, got ChatState) {
				if got.Draft == nil || got.Draft.Text != "half a thought" {
					t.Errorf("draft = %v", got.Draft)
				}
			}},
		{"queued message appended", func() ChatState {
			s := chatBase()
			s.QueuedMessages = []PendingMessage{{ID: "q1", Message: chatMsg("a")}}
			return s
		}(), chatAction(ChatPendingMessageSetAction{Type: "chat/pendingMessageSet", Kind: PendingMessageKindQueued, ID: "q2", Message: chatMsg("b")}),
			func(t *testing.T, got ChatState) {
				if len(got.QueuedMessages) != 2 || got.QueuedMessages[1].ID != "q2" {
					t.Errorf("queue = %+v", got.QueuedMessages)
				}
			}},
		{"reorder ignores unknown and repeated ids, keeps the rest in order", func() ChatState {
			s := chatBase()
			s.QueuedMessages = []PendingMessage{{ID: "a"}, {ID: "b"}, {ID: "c"}, {ID: "d"}}
			return s
		}(), chatAction(ChatQueuedMessagesReorderedAction{Type: "chat/queuedMessagesReordered", Order: []string{"c", "x", "c", "a"}}),
			func(t *testing.T, got ChatState) {
				var ids []string
				for _, m := range got.QueuedMessages {
					ids = append(ids, m.ID)
				}
				if strings.Join(ids, "") != "cabd" {
					t.Errorf("order = %v", ids)
				}
			}},
		{"usage replaces usage on the active turn", chatActive(),
			chatAction(ChatUsageAction{Type: "chat/usage", TurnID: "t1", Usage: UsageInfo{Model: chatStrPtr("m")}}),
			func(t *testing.T, got ChatState) {
				if got.ActiveTurn.Usage == nil || *got.ActiveTurn.Usage.Model != "m" {
					t.Errorf("usage = %+v", got.ActiveTurn.Usage)
				}
			}},
		{"truncate to a middle turn keeps the cursor", func() ChatState {
			s := chatBase()
			s.Turns = append(s.Turns, Turn{ID: "t1", ResponseParts: []ResponsePart{}, State: TurnStateComplete})
			s.TurnsNextCursor = chatStrPtr("older")
			return s
		}(), chatAction(ChatTruncatedAction{Type: "chat/truncated", TurnID: chatStrPtr("t0")}),
			func(t *testing.T, got ChatState) {
				if len(got.Turns) != 1 || got.TurnsNextCursor == nil || got.ModifiedAt != unchanged {
					t.Errorf("turns %d cursor %v modifiedAt %s", len(got.Turns), got.TurnsNextCursor, got.ModifiedAt)
				}
			}},
		{"turnsLoaded prepends and replaces the cursor", chatBase(),
			chatAction(ChatTurnsLoadedAction{Type: "chat/turnsLoaded", Turns: []Turn{{ID: "old"}}, TurnsNextCursor: chatStrPtr("older")}),
			func(t *testing.T, got ChatState) {
				if len(got.Turns) != 2 || got.Turns[0].ID != "old" || *got.TurnsNextCursor != "older" {
					t.Errorf("turns %+v cursor %v", got.Turns, got.TurnsNextCursor)
				}
			}},
		{"auth required keeps partial content and needs input", chatActive(),
			chatAction(ChatToolCallAuthRequiredAction{Type: "chat/toolCallAuthRequired", TurnID: "t1", ToolCallID: "tc", Auth: auth}),
			func(t *testing.T, got ChatState) {
				tc, ok := chatActiveToolCall(t, got, "tc").(ToolCallAuthRequiredState)
				if !ok || tc.Status != "auth-required" || len(tc.Content) != 1 || tc.Contributor.CustomizationID != "srv" || *tc.Auth.Description != "need repo scope" {
					t.Errorf("tool call = %#v", tc)
				}
				if got.Status != SessionStatusInputNeeded|SessionStatusIsArchived {
					t.Errorf("status = %d", got.Status)
				}
			}},
		{"auth resolved resumes running with its fields", authRequired(),
			chatAction(ChatToolCallAuthResolvedAction{Type: "chat/toolCallAuthResolved", TurnID: "t1", ToolCallID: "tc"}),
			func(t *testing.T, got ChatState) {
				tc, ok := chatActiveToolCall(t, got, "tc").(ToolCallRunningState)
				if !ok || tc.Confirmed != ToolCallConfirmationReasonUserAction || len(tc.Content) != 1 || tc.Contributor == nil {
					t.Errorf("tool call = %#v", chatActiveToolCall(t, got, "tc"))
				}
				if got.Status != SessionStatusInProgress|SessionStatusIsArchived {
					t.Errorf("status = %d", got.Status)
				}
			}},
		{"failed complete from auth-required ignores result confirmation", authRequired(),
			chatAction(ChatToolCallCompleteAction{Type: "chat/toolCallComplete", TurnID: "t1", ToolCallID: "tc", RequiresResultConfirmation: func() *bool { b := true; return &b }(),
				Result: ToolCallResult{Success: false, PastTenseMessage: PlainString("cancelled"), Error: &ToolCallResultError{Message: "cancelled", Code: chatStrPtr("cancelled")}}}),
			func(t *testing.T, got ChatState) {
				tc, ok := chatActiveToolCall(t, got, "tc").(ToolCallCompletedState)
				if !ok || tc.Success || len(tc.Content) != 1 || tc.Confirmed != ToolCallConfirmationReasonUserAction {
					t.Errorf("tool call = %#v", chatActiveToolCall(t, got, "tc"))
				}
				if got.Status != SessionStatusInProgress|SessionStatusIsArchived {
					t.Errorf("status = %d", got.Status)
				}
			}},
		{"result approved completes with the result", func() ChatState {
			return ReduceChat(chatActive(), chatAction(ChatToolCallCompleteAction{Type: "chat/toolCallComplete", TurnID: "t1", ToolCallID: "tc",
				RequiresResultConfirmation: func() *bool { b := true; return &b }(),
				Result:                     ToolCallResult{Success: true, PastTenseMessage: PlainString("Searched")}}), Rules{})
		}(), chatAction(ChatToolCallResultConfirmedAction{Type: "chat/toolCallResultConfirmed", TurnID: "t1", ToolCallID: "tc", Approved: true}),
			func(t *testing.T, got ChatState) {
				tc, ok := chatActiveToolCall(t, got, "tc").(ToolCallCompletedState)
				if !ok || !tc.Success || tc.PastTenseMessage.Value != "Searched" || tc.Confirmed != ToolCallConfirmationReasonUserAction {
					t.Errorf("tool call = %#v", chatActiveToolCall(t, got, "tc"))
				}
				if got.Status != SessionStatusInProgress|SessionStatusIsArchived {
					t.Errorf("status = %d", got.Status)
				}
			}},
		{"input answer removed clears the last draft", func() ChatState {
			s := chatActive()
			return ReduceChat(s, chatAction(ChatInputRequestedAction{Type: "chat/inputRequested", Request: ChatInputRequest{ID: "r",
				Answers: map[string]ChatInputAnswer{"q": {Variant: ChatInputSkipped{State: "skipped"}}}}}), Rules{})
		}(), chatAction(ChatInputAnswerChangedAction{Type: "chat/inputAnswerChanged", RequestID: "r", QuestionID: "q"}),
			func(t *testing.T, got ChatState) {
				_, part, ok := chatOpenInputRequest(got.ActiveTurn, "r")
				if !ok || part.Request.Answers != nil {
					t.Errorf("part = %+v", part)
				}
				if got.Status != SessionStatusInputNeeded|SessionStatusIsArchived {
					t.Errorf("status = %d", got.Status)
				}
			}},
		{"input requested clears isRead", func() ChatState {
			s := chatActive()
			s.Status |= SessionStatusIsRead
			return s
		}(), chatAction(ChatInputRequestedAction{Type: "chat/inputRequested", Request: ChatInputRequest{ID: "r"}}),
			func(t *testing.T, got ChatState) {
				if got.Status != SessionStatusInputNeeded|SessionStatusIsArchived || got.ModifiedAt != unchanged {
					t.Errorf("status %d modifiedAt %s", got.Status, got.ModifiedAt)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := chatMustJSON(t, tt.s)
			got := ReduceChat(tt.s, tt.a, Rules{})
			if after := chatMustJSON(t, tt.s); !bytes.Equal(before, after) {
				t.Fatalf("input mutated:\nbefore %s\nafter  %s", before, after)
			}
			if chatSame(t, tt.s, got) {
				t.Fatalf("action not applied")
			}
			tt.check(t, got)
		})
	}
}

// TestReduceChatBranchesShareNothingMutable grows two branches from one
// base — what write-ahead reconciliation does — and checks neither sees the
// other's text, parts or turns, and the base is untouched.
func TestReduceChatBranchesShareNothingMutable(t *testing.T) {
	base := chatActive()
	// Spare capacity in turns invites an in-place append.
	turns := make([]Turn, 1, 8)
	turns[0] = base.Turns[0]
	base.Turns = turns
	baseJSON := chatMustJSON(t, base)

	a := ReduceChat(base, chatAction(ChatDeltaAction{Type: "chat/delta", TurnID: "t1", PartID: "md", Content: "lo A"}), Rules{})
	b := ReduceChat(base, chatAction(ChatDeltaAction{Type: "chat/delta", TurnID: "t1", PartID: "md", Content: "p B"}), Rules{})
	a = ReduceChat(a, chatAction(ChatDeltaAction{Type: "chat/delta", TurnID: "t1", PartID: "md", Content: "!"}), Rules{})
	text := func(s ChatState) string {
		return s.ActiveTurn.ResponseParts[0].Variant.(MarkdownResponsePart).Content.String()
	}
	if text(a) != "Hello A!" || text(b) != "Help B" {
		t.Fatalf("branches: %q %q", text(a), text(b))
	}

	ea := ReduceChat(a, chatAction(ChatTurnCompleteAction{Type: "chat/turnComplete", TurnID: "t1", Duration: 1}), Rules{})
	eb := ReduceChat(b, chatAction(ChatTurnCancelledAction{Type: "chat/turnCancelled", TurnID: "t1", Duration: 2}), Rules{})
	if ea.Turns[1].State != TurnStateComplete || eb.Turns[1].State != TurnStateCancelled {
		t.Fatalf("ended turns clobbered each other: %s / %s", ea.Turns[1].State, eb.Turns[1].State)
	}
	tr := ReduceChat(ea, chatAction(ChatTruncatedAction{Type: "chat/truncated", TurnID: chatStrPtr("t0")}), Rules{})
	tr = ReduceChat(tr, chatAction(ChatTurnStartedAction{Type: "chat/turnStarted", TurnID: "t9", Message: chatMsg("edit")}), Rules{})
	tr = ReduceChat(tr, chatAction(ChatTurnCompleteAction{Type: "chat/turnComplete", TurnID: "t9", Duration: 1}), Rules{})
	if ea.Turns[1].ID != "t1" || tr.Turns[1].ID != "t9" {
		t.Fatalf("truncate+append overwrote an older snapshot: %s / %s", ea.Turns[1].ID, tr.Turns[1].ID)
	}
	if got := chatMustJSON(t, base); !bytes.Equal(got, baseJSON) {
		t.Fatalf("base mutated:\nbefore %s\nafter  %s", baseJSON, got)
	}
}

// TestReduceChatRequiredArraysStayArrays guards the wire: a required array
// left nil would encode as null.
func TestReduceChatRequiredArraysStayArrays(t *testing.T) {
	s := ChatState{Resource: "ahp-chat:/c", Status: SessionStatusIdle}
	s = ReduceChat(s, chatAction(ChatTurnStartedAction{Type: "chat/turnStarted", TurnID: "t1", Message: chatMsg("x")}), Rules{})
	b := chatMustJSON(t, s)
	if !bytes.Contains(b, []byte(`"responseParts":[]`)) {
		t.Errorf("active turn: %s", b)
	}
	s.ActiveTurn.ResponseParts = nil // a hand-built state
	s = ReduceChat(s, chatAction(ChatTurnCompleteAction{Type: "chat/turnComplete", TurnID: "t1"}), Rules{})
	s = ReduceChat(s, chatAction(ChatTruncatedAction{Type: "chat/truncated"}), Rules{})
	if b := chatMustJSON(t, s); !bytes.Contains(b, []byte(`"turns":[]`)) || bytes.Contains(b, []byte("null")) {
		t.Errorf("after truncate: %s", b)
	}
	s = ReduceChat(s, chatAction(ChatTurnStartedAction{Type: "chat/turnStarted", TurnID: "t2", Message: chatMsg("x")}), Rules{})
	s.ActiveTurn.ResponseParts = nil
	s = ReduceChat(s, chatAction(ChatTurnCompleteAction{Type: "chat/turnComplete", TurnID: "t2"}), Rules{})
	if b := chatMustJSON(t, s); bytes.Contains(b, []byte("null")) {
		t.Errorf("completed turn: %s", b)
	}
}

// chatDeltaBytes returns the heap bytes allocated per delta while streaming
// n deltas of 16 bytes into one markdown part.
func chatDeltaBytes(n int) float64 {
	s := chatStreamingState()
	a := chatAction(ChatDeltaAction{Type: "chat/delta", TurnID: "t1", PartID: "md", Content: "0123456789abcdef"})
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	for range n {
		s = ReduceChat(s, a, Rules{})
	}
	runtime.ReadMemStats(&m1)
	runtime.KeepAlive(s)
	return float64(m1.TotalAlloc-m0.TotalAlloc) / float64(n)
}

// TestChatDeltaLinear fails when streaming turns quadratic: a delta that
// copied the whole text (or all turns) would allocate ~10x more per delta
// at 100k deltas than at 10k. Allocated bytes are deterministic, unlike
// time, so the check is robust on a loaded machine; 2x is generous headroom
// for the amortized growth of the text buffer.
func TestChatDeltaLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 110k deltas")
	}
	small := chatDeltaBytes(10_000)
	large := chatDeltaBytes(100_000)
	t.Logf("bytes per delta: 10k → %.0f, 100k → %.0f", small, large)
	if large > 2*small {
		t.Errorf("bytes per delta grew from %.0f (10k deltas) to %.0f (100k deltas): streaming is not linear", small, large)
	}
}

// chatStreamingState is a chat with 1000 completed turns and an active turn
// holding one empty markdown part md: a delta must not cost O(turns).
func chatStreamingState() ChatState {
	s := chatBase()
	turns := make([]Turn, 1000)
	for i := range turns {
		turns[i] = Turn{ID: "old", Message: chatMsg("q"), ResponseParts: []ResponsePart{}, State: TurnStateComplete}
	}
	s.Turns = turns
	s.Status = SessionStatusInProgress
	s.ActiveTurn = &ActiveTurn{ID: "t1", Message: chatMsg("go"), ResponseParts: []ResponsePart{
		{Variant: MarkdownResponsePart{Kind: "markdown", ID: "md"}},
	}}
	return s
}

// TestChatDeltaAllocs pins the per-delta allocations of the streaming path:
// the new active turn with its parts array (one block for up to 16 parts),
// and the boxed text part; the text buffer's growth amortizes to ~0. Every
// allocation is GC work repeated per streamed chunk, and the old path made
// three. The base state must still encode the same afterwards (purity).
func TestChatDeltaAllocs(t *testing.T) {
	for _, tt := range []struct {
		parts     int
		reasoning bool
		max       float64
	}{
		{parts: 1, max: 2.05},
		{parts: 5, max: 2.05},
		{parts: 16, reasoning: true, max: 2.05},
		{parts: 40, max: 3.05}, // beyond the co-allocated sizes: turn and parts apart
	} {
		t.Run(fmt.Sprintf("%d parts reasoning=%v", tt.parts, tt.reasoning), func(t *testing.T) {
			base := chatStreamingState()
			parts := make([]ResponsePart, tt.parts)
			for i := range parts {
				id := fmt.Sprintf("p%d", i)
				if tt.reasoning {
					parts[i] = ResponsePart{Variant: ReasoningResponsePart{Kind: "reasoning", ID: id}}
				} else {
					parts[i] = ResponsePart{Variant: MarkdownResponsePart{Kind: "markdown", ID: id}}
				}
			}
			at := *base.ActiveTurn
			at.ResponseParts = parts
			base.ActiveTurn = &at
			before, err := json.Marshal(base)
			if err != nil {
				t.Fatal(err)
			}
			target := fmt.Sprintf("p%d", tt.parts-1)
			var a StateAction
			if tt.reasoning {
				a = StateAction{Variant: ChatReasoningAction{Type: "chat/reasoning", TurnID: "t1", PartID: target, Content: "0123456789abcdef"}}
			} else {
				a = StateAction{Variant: ChatDeltaAction{Type: "chat/delta", TurnID: "t1", PartID: target, Content: "0123456789abcdef"}}
			}
			s := base
			allocs := testing.AllocsPerRun(2000, func() { s = ReduceChat(s, a, Rules{}) })
			if allocs > tt.max {
				t.Errorf("%.2f allocations per delta, budget %.2f", allocs, tt.max)
			}
			after, _ := json.Marshal(base)
			if !bytes.Equal(before, after) {
				t.Error("streaming changed the base state")
			}
			if got := s.ActiveTurn.ResponseParts[tt.parts-1].Variant; got == nil || len(s.ActiveTurn.ResponseParts) != tt.parts {
				t.Fatalf("parts after streaming: %d, last %T", len(s.ActiveTurn.ResponseParts), got)
			}
		})
	}
}

// TestToolCallStateID checks every known state reports its own id (the host
// and tests find tool calls by it) and an unknown one reports none.
func TestToolCallStateID(t *testing.T) {
	cases := []struct {
		v    ToolCallStateVariant
		want string
	}{
		{ToolCallStreamingState{ToolCallID: "a"}, "a"},
		{ToolCallPendingConfirmationState{ToolCallID: "b"}, "b"},
		{ToolCallRunningState{ToolCallID: "c"}, "c"},
		{ToolCallAuthRequiredState{ToolCallID: "d"}, "d"},
		{ToolCallPendingResultConfirmationState{ToolCallID: "e"}, "e"},
		{ToolCallCompletedState{ToolCallID: "f"}, "f"},
		{ToolCallCancelledState{ToolCallID: "g"}, "g"},
		{UnknownToolCallState{Discriminator: "future"}, ""},
		{nil, ""},
	}
	for _, c := range cases {
		if got := (ToolCallState{Variant: c.v}).ID(); got != c.want {
			t.Errorf("%T: ID() = %q, want %q", c.v, got, c.want)
		}
	}
}

// TestReduceChatRules06StampsModifiedAt keeps the 0.6 rule alive beside the
// 1.0 one: under Rules06 the turn's end and a truncation stamp modifiedAt
// from the clock, where 1.0 derives it from startedAt + duration or leaves
// it (DELTA §7.2).
func TestReduceChatRules06StampsModifiedAt(t *testing.T) {
	const stamped = "1970-01-01T00:00:09.999Z"
	end := chatAction(ChatTurnCompleteAction{Type: "chat/turnComplete", TurnID: "t1", Duration: 42})
	trunc := chatAction(ChatTruncatedAction{Type: "chat/truncated"})
	tests := []struct {
		name string
		a    StateAction
		r    Rules
		want string
	}{
		{"turnComplete 0.6", end, Rules06(chatFixtureClock), stamped},
		{"turnComplete 1.0", end, Rules{}, "1970-01-01T00:00:02.042Z"},
		{"truncated 0.6", trunc, Rules06(chatFixtureClock), stamped},
		{"truncated 1.0", trunc, Rules{}, "1970-01-01T00:00:01.000Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ReduceChat(chatActive(), tt.a, tt.r).ModifiedAt; got != tt.want {
				t.Errorf("modifiedAt = %s, want %s", got, tt.want)
			}
		})
	}
}
