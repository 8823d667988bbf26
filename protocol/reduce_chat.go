package protocol

import (
	"encoding/json"
	"math"
	"time"
)

// ReduceChat applies one action to a ChatState and returns the new state.
//
// It follows the reducer semantics the AHP 1.0 schema attaches to every
// chat/* action (and, through r, the two 0.6 rules that are not a matter
// of shape). An action it does not apply — a non-chat action, an unknown
// type, a turnId that is not the active turn, a tool call or part or request
// that does not exist or is in the wrong state — returns s itself, unchanged.
//
// s is never modified: the UI keeps old snapshots, and write-ahead
// reconciliation replays pending actions over a new confirmed state, so two
// results may grow from the same base. Only the path to the changed value is
// copied; everything else (completed turns in particular) is shared. Streamed
// text (chat/delta, chat/reasoning) grows through Text.Append, so a long
// answer costs O(delta) per chunk plus O(number of response parts).
//
// modifiedAt follows r (see Rules): under 1.0 it is the turn's startedAt
// when a turn starts and startedAt + duration when it ends; under 0.6 it is
// stamped from the clock by the actions that start, end or truncate a turn
// and by input-request changes. Streaming and tool-call actions leave it
// alone, as the conformance fixtures require.
func ReduceChat(s ChatState, a StateAction, r Rules) ChatState {
	switch act := a.Variant.(type) {
	case ChatTurnStartedAction:
		return chatTurnStarted(s, act, r)
	// The streaming path works on the active turn alone: 1.0's ChatState
	// is 280 bytes, and passing it through each helper cost more per delta
	// than the text append itself.
	case ChatDeltaAction:
		if at := chatAppendText(s.ActiveTurn, act.TurnID, act.PartID, act.Content, false); at != nil {
			s.ActiveTurn = at
		}
		return s
	case ChatReasoningAction:
		if at := chatAppendText(s.ActiveTurn, act.TurnID, act.PartID, act.Content, true); at != nil {
			s.ActiveTurn = at
		}
		return s
	case ChatResponsePartAction:
		if !chatIsActiveTurn(s, act.TurnID) || act.Part.Variant == nil {
			return s
		}
		return chatWithActiveParts(s, chatAppendPart(s.ActiveTurn.ResponseParts, act.Part))
	case ChatUsageAction:
		if !chatIsActiveTurn(s, act.TurnID) {
			return s
		}
		at := *s.ActiveTurn
		u := act.Usage
		at.Usage = &u
		s.ActiveTurn = &at
		return s
	case ChatTurnCompleteAction:
		return chatEndTurn(s, act.TurnID, TurnStateComplete, act.Duration, false, r)
	case ChatTurnCancelledAction:
		return chatEndTurn(s, act.TurnID, TurnStateCancelled, act.Duration, false, r)
	case ChatErrorAction:
		// 1.0: the error is a durable response part, appended before the
		// turn ends in state error (DELTA §7.4).
		if !chatIsActiveTurn(s, act.TurnID) {
			return s
		}
		s = chatWithActiveParts(s, chatAppendPart(s.ActiveTurn.ResponseParts, ResponsePart{Variant: act.Part}))
		return chatEndTurn(s, act.TurnID, TurnStateError, act.Duration, true, r)
	case ChatTurnResumeAction:
		return chatTurnResume(s, act)
	case ChatActivityChangedAction:
		s.Activity = act.Activity
		return s

	// Chat metadata (1.0). The read and archived bits are flags beside the
	// activity bits and survive every activity change.
	case ChatIsReadChangedAction:
		s.Status = withStatusFlag(s.Status, SessionStatusIsRead, act.IsRead)
		return s
	case ChatIsArchivedChangedAction:
		s.Status = withStatusFlag(s.Status, SessionStatusIsArchived, act.IsArchived)
		return s
	case ChatMovableChangedAction:
		s.Movable = new(act.Movable)
		return s
	case ChatChangesetsChangedAction:
		s.Changesets = act.Changesets // full replacement: absent clears
		return s
	case ChatCanvasesChangedAction:
		s.Canvases = act.Canvases // full replacement: absent clears
		return s
	case ChatWorkingDirectorySetAction:
		s.WorkingDirectories = withDirectory(s.WorkingDirectories, act.Directory)
		return s
	case ChatWorkingDirectoryRemovedAction:
		s.WorkingDirectories = withoutDirectory(s.WorkingDirectories, act.Directory)
		return s
	case ChatBackgroundWorkSetAction:
		id := backgroundWorkID(act.Work)
		s.BackgroundWork = cowUpsert(s.BackgroundWork, act.Work, func(w BackgroundWork) bool { return backgroundWorkID(w) == id })
		return s
	case ChatBackgroundWorkRemovedAction:
		i := indexOf(s.BackgroundWork, func(w BackgroundWork) bool { return backgroundWorkID(w) == act.ID })
		if i < 0 {
			return s
		}
		s.BackgroundWork = cowDelete(s.BackgroundWork, i)
		return s
	case ChatDraftChangedAction:
		s.Draft = act.Draft
		return s

	case ChatToolCallStartAction:
		return chatToolCallStart(s, act)
	case ChatToolCallDeltaAction:
		return chatUpdateToolCall(s, act.TurnID, act.ToolCallID, false, func(v ToolCallStateVariant) (ToolCallStateVariant, bool) {
			tc, ok := v.(ToolCallStreamingState)
			if !ok {
				return nil, false
			}
			if act.Meta != nil {
				tc.Meta = act.Meta
			}
			// 1.0: content may be absent (a delta carrying only metadata).
			if act.Content != nil {
				in := *act.Content
				if tc.PartialInput != nil {
					in = *tc.PartialInput + in
				}
				tc.PartialInput = &in
			}
			if act.InvocationMessage != nil {
				tc.InvocationMessage = act.InvocationMessage
			}
			return tc, true
		})
	case ChatToolCallReadyAction:
		return chatUpdateToolCall(s, act.TurnID, act.ToolCallID, true, func(v ToolCallStateVariant) (ToolCallStateVariant, bool) {
			return chatToolCallReady(v, act)
		})
	case ChatToolCallApprovedAction:
		return chatUpdateToolCall(s, act.TurnID, act.ToolCallID, true, func(v ToolCallStateVariant) (ToolCallStateVariant, bool) {
			return chatToolCallApproved(v, act)
		})
	case ChatToolCallDeniedAction:
		return chatUpdateToolCall(s, act.TurnID, act.ToolCallID, true, func(v ToolCallStateVariant) (ToolCallStateVariant, bool) {
			return chatToolCallDenied(v, act)
		})
	case ChatToolCallCompleteAction:
		return chatUpdateToolCall(s, act.TurnID, act.ToolCallID, true, func(v ToolCallStateVariant) (ToolCallStateVariant, bool) {
			return chatToolCallComplete(v, act)
		})
	case ChatToolCallResultConfirmedAction:
		return chatUpdateToolCall(s, act.TurnID, act.ToolCallID, true, func(v ToolCallStateVariant) (ToolCallStateVariant, bool) {
			return chatToolCallResultConfirmed(v, act)
		})
	case ChatToolCallContentChangedAction:
		return chatUpdateToolCall(s, act.TurnID, act.ToolCallID, false, func(v ToolCallStateVariant) (ToolCallStateVariant, bool) {
			tc, ok := v.(ToolCallRunningState)
			if !ok {
				return nil, false
			}
			if act.Meta != nil {
				tc.Meta = act.Meta
			}
			tc.Content = act.Content
			return tc, true
		})
	case ChatToolCallAuthRequiredAction:
		return chatUpdateToolCall(s, act.TurnID, act.ToolCallID, true, func(v ToolCallStateVariant) (ToolCallStateVariant, bool) {
			return chatToolCallAuthRequired(v, act)
		})
	case ChatToolCallAuthResolvedAction:
		return chatUpdateToolCall(s, act.TurnID, act.ToolCallID, true, func(v ToolCallStateVariant) (ToolCallStateVariant, bool) {
			tc, ok := v.(ToolCallAuthRequiredState)
			if !ok {
				return nil, false
			}
			mcp := ToolCallContributor{Variant: tc.Contributor}
			return ToolCallRunningState{
				ToolCallID:        tc.ToolCallID,
				ToolName:          tc.ToolName,
				DisplayName:       tc.DisplayName,
				Intention:         tc.Intention,
				Contributor:       &mcp,
				Meta:              chatMetaOr(act.Meta, tc.Meta),
				InvocationMessage: tc.InvocationMessage,
				ToolInput:         tc.ToolInput,
				Confirmed:         tc.Confirmed,
				SelectedOption:    tc.SelectedOption,
				Status:            chatToolCallStatusRunning,
				Content:           tc.Content,
			}, true
		})

	case ChatTruncatedAction:
		return chatTruncated(s, act, r)
	case ChatTurnsLoadedAction:
		return chatTurnsLoaded(s, act)

	case ChatInputRequestedAction:
		return chatInputRequested(s, act, r)
	case ChatInputAnswerChangedAction:
		return chatInputAnswerChanged(s, act, r)
	case ChatInputCompletedAction:
		return chatInputCompleted(s, act, r)

	case ChatPendingMessageSetAction:
		return chatPendingMessageSet(s, act)
	case ChatPendingMessageRemovedAction:
		return chatPendingMessageRemoved(s, act)
	case ChatQueuedMessagesReorderedAction:
		return chatQueuedMessagesReordered(s, act)
	}
	return s
}

// Tool call status and part kind discriminators, as the wire spells them.
const (
	chatToolCallStatusStreaming                 = ToolCallStatusStreaming
	chatToolCallStatusPendingConfirmation       = ToolCallStatusPendingConfirmation
	chatToolCallStatusRunning                   = ToolCallStatusRunning
	chatToolCallStatusAuthRequired              = ToolCallStatusAuthRequired
	chatToolCallStatusPendingResultConfirmation = ToolCallStatusPendingResultConfirmation
	chatToolCallStatusCompleted                 = ToolCallStatusCompleted
	chatToolCallStatusCancelled                 = ToolCallStatusCancelled

	chatResponsePartKindToolCall     = "toolCall"
	chatResponsePartKindInputRequest = "inputRequest"
)

// chatStatusActivityMask covers the mutually exclusive activity bits (0–4) of a
// SessionStatus. The bits above are flags (IsRead, IsArchived) that survive
// every activity change.
const chatStatusActivityMask SessionStatus = 1<<5 - 1

// chatStamp06 applies the 0.6 clock stamp; under 1.0 it leaves modifiedAt.
func chatStamp06(s *ChatState, r Rules) {
	if t, ok := r.stamp06(); ok {
		s.ModifiedAt = t
	}
}

// chatEndedAt is startedAt + duration (milliseconds), the 1.0 modifiedAt of
// an ended turn; ok is false when startedAt does not parse.
func chatEndedAt(startedAt string, durationMS float64) (string, bool) {
	t, err := time.Parse(time.RFC3339Nano, startedAt)
	if err != nil {
		return "", false
	}
	return Timestamp(t.Add(time.Duration(durationMS * float64(time.Millisecond)))), true
}

func chatIsActiveTurn(s ChatState, turnID string) bool {
	return s.ActiveTurn != nil && s.ActiveTurn.ID == turnID
}

// chatSummaryStatus derives the activity bits from the live work in s and
// keeps the flag bits. errored marks a turn that just ended with chat/error.
func chatSummaryStatus(s ChatState, errored bool) SessionStatus {
	var activity SessionStatus
	switch {
	case errored:
		activity = SessionStatusError
	case s.ActiveTurn != nil && chatActiveTurnNeedsInput(s.ActiveTurn):
		activity = SessionStatusInputNeeded
	case s.ActiveTurn != nil:
		activity = SessionStatusInProgress
	default:
		activity = SessionStatusIdle
	}
	return s.Status&^chatStatusActivityMask | activity
}

// chatActiveTurnNeedsInput reports an open input request, or a tool call blocked
// on the user: a parameter or result confirmation, or MCP authentication.
func chatActiveTurnNeedsInput(at *ActiveTurn) bool {
	for _, p := range at.ResponseParts {
		switch v := p.Variant.(type) {
		case InputRequestResponsePart:
			if v.Response == nil {
				return true
			}
		case ToolCallResponsePart:
			switch v.ToolCall.Variant.(type) {
			case ToolCallPendingConfirmationState, ToolCallPendingResultConfirmationState, ToolCallAuthRequiredState:
				return true
			}
		}
	}
	return false
}

// chatWithActiveParts returns s with a fresh copy of its active turn holding
// parts. The caller has checked that s has an active turn.
func chatWithActiveParts(s ChatState, parts []ResponsePart) ChatState {
	at := *s.ActiveTurn
	at.ResponseParts = parts
	s.ActiveTurn = &at
	return s
}

// chatWithReplacedPart returns a fresh copy of the active turn from whose
// parts are a fresh copy of its own with parts[i] replaced by p. It is the
// streaming path (one call per chat/delta), so the turn and, for up to 16
// parts, its parts array come from one allocation instead of two: fewer
// objects for the allocator and the GC per delta. Nothing of from is
// written. The caller has checked that i is in range.
func chatWithReplacedPart(from *ActiveTurn, i int, p ResponsePart) *ActiveTurn {
	old := from.ResponseParts
	at, parts := chatNewActiveTurn(*from, len(old))
	copy(parts, old)
	parts[i] = p
	at.ResponseParts = parts
	return at
}

// chatNewActiveTurn returns a heap copy of from and an n-element parts
// slice, allocated together when n is small. The slice's capacity is n, so
// an append to it always moves to a new array and can never write into the
// shared block.
func chatNewActiveTurn(from ActiveTurn, n int) (*ActiveTurn, []ResponsePart) {
	switch {
	case n <= 1:
		x := &struct {
			at ActiveTurn
			p  [1]ResponsePart
		}{at: from}
		return &x.at, x.p[:n:n]
	case n <= 2:
		x := &struct {
			at ActiveTurn
			p  [2]ResponsePart
		}{at: from}
		return &x.at, x.p[:n:n]
	case n <= 4:
		x := &struct {
			at ActiveTurn
			p  [4]ResponsePart
		}{at: from}
		return &x.at, x.p[:n:n]
	case n <= 8:
		x := &struct {
			at ActiveTurn
			p  [8]ResponsePart
		}{at: from}
		return &x.at, x.p[:n:n]
	case n <= 16:
		x := &struct {
			at ActiveTurn
			p  [16]ResponsePart
		}{at: from}
		return &x.at, x.p[:n:n]
	}
	at := new(ActiveTurn)
	*at = from
	return at, make([]ResponsePart, n)
}

// chatAppendPart returns parts followed by p in a new backing array, so two
// results grown from one base never write into the same array.
func chatAppendPart(parts []ResponsePart, p ResponsePart) []ResponsePart {
	out := make([]ResponsePart, len(parts)+1)
	copy(out, parts)
	out[len(parts)] = p
	return out
}

// chatReplacePart returns a copy of parts with parts[i] replaced by p.
func chatReplacePart(parts []ResponsePart, i int, p ResponsePart) []ResponsePart {
	out := make([]ResponsePart, len(parts))
	copy(out, parts)
	out[i] = p
	return out
}

// ---- turn lifecycle -------------------------------------------------------

func chatTurnStarted(s ChatState, act ChatTurnStartedAction, r Rules) ChatState {
	// A new turn replaces any active one, as the reference reducer does: the
	// host only starts a turn when the previous one has ended, so a leftover
	// here is stale optimistic state.
	s.ActiveTurn = &ActiveTurn{
		ID:            act.TurnID,
		StartedAt:     act.StartedAt,
		Message:       act.Message,
		ResponseParts: []ResponsePart{},
	}
	s.Status = chatSummaryStatus(s, false) &^ SessionStatusIsRead
	if r.clockStamped() {
		chatStamp06(&s, r)
	} else if act.StartedAt != "" {
		s.ModifiedAt = act.StartedAt
	}
	if act.QueuedMessageID != nil {
		id := *act.QueuedMessageID
		if s.SteeringMessage != nil && s.SteeringMessage.ID == id {
			s.SteeringMessage = nil
		}
		s.QueuedMessages = chatWithoutQueued(s.QueuedMessages, id)
	}
	return s
}

// chatTurnResume reopens the latest turn when it stopped at a resumable
// error (1.0): the turn must be the last completed one, no turn may be
// active, its state must be error and its last part an error part with
// resumable true. Message, parts (the error part included) and usage come
// back as they were; the turn's duration is dropped, since an active turn
// has none. modifiedAt stays: the action carries no time.
func chatTurnResume(s ChatState, act ChatTurnResumeAction) ChatState {
	n := len(s.Turns)
	if s.ActiveTurn != nil || n == 0 {
		return s
	}
	t := s.Turns[n-1]
	if t.ID != act.TurnID || t.State != TurnStateError || len(t.ResponseParts) == 0 {
		return s
	}
	last, ok := t.ResponseParts[len(t.ResponseParts)-1].Variant.(ErrorResponsePart)
	if !ok || last.Resumable == nil || !*last.Resumable {
		return s
	}
	at := &ActiveTurn{ID: t.ID, Message: t.Message, ResponseParts: t.ResponseParts, Usage: t.Usage}
	if t.StartedAt != nil {
		at.StartedAt = *t.StartedAt
	}
	// Clip the capacity: a later chatEndTurn appends a new array instead of
	// overwriting the errored turn that older snapshots still show.
	s.Turns = s.Turns[: n-1 : n-1]
	s.ActiveTurn = at
	s.Status = chatSummaryStatus(s, false)
	return s
}

// backgroundWorkID is the upsert key of a background work entry, including
// kinds newer than this client (read from their raw JSON).
func backgroundWorkID(w BackgroundWork) string {
	switch v := w.Variant.(type) {
	case BackgroundShellWork:
		return v.ID
	case BackgroundSubagentWork:
		return v.ID
	case UnknownBackgroundWork:
		id, _ := rawStringField(v.Raw, "id")
		return id
	}
	return ""
}

// chatEndTurn moves the active turn turnID into the completed turns. Tool
// calls that have not finished are cancelled with reason "skipped"; open
// input requests stay in the transcript with no response.
func chatEndTurn(s ChatState, turnID string, state TurnState, duration float64, errored bool, r Rules) ChatState {
	if !chatIsActiveTurn(s, turnID) {
		return s
	}
	at := s.ActiveTurn
	parts := at.ResponseParts
	copied := false
	for i, p := range parts {
		tcp, ok := p.Variant.(ToolCallResponsePart)
		if !ok {
			continue
		}
		cancelled, ok := chatSkipToolCall(tcp.ToolCall.Variant)
		if !ok {
			continue
		}
		if !copied {
			parts = append([]ResponsePart(nil), parts...)
			copied = true
		}
		tcp.ToolCall = ToolCallState{Variant: cancelled}
		parts[i] = ResponsePart{Variant: tcp}
	}
	if parts == nil {
		parts = []ResponsePart{}
	}
	// Durations are producer-supplied and opaque; a negative one would only
	// render as nonsense, and a non-finite one could not be encoded.
	d := math.Max(0, duration)
	if math.IsNaN(d) || math.IsInf(d, 0) {
		d = 0
	}
	// An active turn decoded without startedAt (older hosts) leaves the
	// completed turn without one rather than with an empty timestamp.
	var started *string
	if at.StartedAt != "" {
		started = &at.StartedAt
	}
	turn := Turn{
		ID:            at.ID,
		StartedAt:     started,
		Duration:      &d,
		Message:       at.Message,
		ResponseParts: parts,
		Usage:         at.Usage,
		State:         state,
	}
	// Completed turns are shared with older snapshots; appendTurn extends
	// in place only the array no other snapshot has grown (amortized O(1)).
	s.Turns = appendTurn(s.Turns, turn)
	s.ActiveTurn = nil
	if r.clockStamped() {
		chatStamp06(&s, r)
	} else if t, ok := chatEndedAt(at.StartedAt, d); ok {
		s.ModifiedAt = t
	}
	s.Status = chatSummaryStatus(s, errored)
	return s
}

// chatSkipToolCall returns the cancelled ("skipped") form of a tool call that
// has not reached a terminal state. ok is false for completed, cancelled and
// unknown states, which are kept as they are.
func chatSkipToolCall(v ToolCallStateVariant) (ToolCallCancelledState, bool) {
	c, ok := chatToolCallCommonOf(v)
	if !ok {
		return ToolCallCancelledState{}, false
	}
	out := ToolCallCancelledState{
		ToolCallID:  c.ToolCallID,
		ToolName:    c.ToolName,
		DisplayName: c.DisplayName,
		Intention:   c.Intention,
		Contributor: c.Contributor,
		Meta:        c.Meta,
		Status:      chatToolCallStatusCancelled,
		Reason:      ToolCallCancellationReasonSkipped,
	}
	switch tc := v.(type) {
	case ToolCallStreamingState:
		if tc.InvocationMessage != nil {
			out.InvocationMessage = *tc.InvocationMessage
		}
	case ToolCallPendingConfirmationState:
		out.InvocationMessage, out.ToolInput = tc.InvocationMessage, tc.ToolInput
	case ToolCallRunningState:
		out.InvocationMessage, out.ToolInput = tc.InvocationMessage, tc.ToolInput
	case ToolCallAuthRequiredState:
		out.InvocationMessage, out.ToolInput = tc.InvocationMessage, tc.ToolInput
	case ToolCallPendingResultConfirmationState:
		out.InvocationMessage, out.ToolInput = tc.InvocationMessage, tc.ToolInput
	default:
		return ToolCallCancelledState{}, false
	}
	return out, true
}

// chatAppendText appends streamed text to the markdown (or, for reasoning,
// the reasoning) part partID of the active turn at, which must be turn
// turnID, and returns the new active turn, or nil when the action does not
// apply. Parts are matched by id in stream order, tool calls by toolCallId;
// the first match decides, and a match of the wrong kind makes the action
// a no-op.
func chatAppendText(at *ActiveTurn, turnID, partID, content string, reasoning bool) *ActiveTurn {
	if at == nil || at.ID != turnID {
		return nil
	}
	parts := at.ResponseParts
	for i, p := range parts {
		switch v := p.Variant.(type) {
		case MarkdownResponsePart:
			if v.ID != partID {
				continue
			}
			if reasoning || content == "" {
				return nil
			}
			v.Content = v.Content.Append(content)
			return chatWithReplacedPart(at, i, ResponsePart{Variant: v})
		case ReasoningResponsePart:
			if v.ID != partID {
				continue
			}
			if !reasoning || content == "" {
				return nil
			}
			v.Content = v.Content.Append(content)
			return chatWithReplacedPart(at, i, ResponsePart{Variant: v})
		case ToolCallResponsePart:
			if c, ok := chatToolCallCommonOf(v.ToolCall.Variant); ok && c.ToolCallID == partID {
				return nil
			}
		}
	}
	return nil
}

// ---- truncation and paging --------------------------------------------------

func chatTruncated(s ChatState, act ChatTruncatedAction, r Rules) ChatState {
	if act.TurnID == nil {
		s.Turns = []Turn{}
		s.TurnsNextCursor = nil
	} else {
		idx := -1
		for i := range s.Turns {
			if s.Turns[i].ID == *act.TurnID {
				idx = i
				break
			}
		}
		if idx < 0 {
			return s
		}
		// Clip the capacity so a later append copies instead of
		// overwriting the dropped turns that older snapshots still show.
		s.Turns = s.Turns[: idx+1 : idx+1]
	}
	s.ActiveTurn = nil
	chatStamp06(&s, r)
	s.Status = chatSummaryStatus(s, false)
	return s
}

func chatTurnsLoaded(s ChatState, act ChatTurnsLoadedAction) ChatState {
	have := make(map[string]struct{}, len(s.Turns))
	for i := range s.Turns {
		have[s.Turns[i].ID] = struct{}{}
	}
	turns := make([]Turn, 0, len(act.Turns)+len(s.Turns))
	for _, t := range act.Turns {
		if _, dup := have[t.ID]; !dup {
			turns = append(turns, t)
		}
	}
	s.Turns = append(turns, s.Turns...)
	s.TurnsNextCursor = act.TurnsNextCursor
	return s
}

// ---- pending messages -------------------------------------------------------

// chatWithoutQueued returns queued without the message id; nil when that empties
// it (the field is then absent), and queued itself when id is not there.
func chatWithoutQueued(queued []PendingMessage, id string) []PendingMessage {
	idx := -1
	for i := range queued {
		if queued[i].ID == id {
			idx = i
			break
		}
	}
	if idx < 0 {
		return queued
	}
	out := make([]PendingMessage, 0, len(queued)-1)
	for i := range queued {
		if queued[i].ID != id {
			out = append(out, queued[i])
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func chatPendingMessageSet(s ChatState, act ChatPendingMessageSetAction) ChatState {
	entry := PendingMessage{ID: act.ID, Message: act.Message}
	switch act.Kind {
	case PendingMessageKindSteering:
		s.SteeringMessage = &entry
	case PendingMessageKindQueued:
		out := make([]PendingMessage, len(s.QueuedMessages), len(s.QueuedMessages)+1)
		copy(out, s.QueuedMessages)
		replaced := false
		for i := range out {
			if out[i].ID == act.ID {
				out[i] = entry
				replaced = true
				break
			}
		}
		if !replaced {
			out = append(out, entry)
		}
		s.QueuedMessages = out
	default:
		return s
	}
	return s
}

func chatPendingMessageRemoved(s ChatState, act ChatPendingMessageRemovedAction) ChatState {
	switch act.Kind {
	case PendingMessageKindSteering:
		if s.SteeringMessage == nil || s.SteeringMessage.ID != act.ID {
			return s
		}
		s.SteeringMessage = nil
	case PendingMessageKindQueued:
		s.QueuedMessages = chatWithoutQueued(s.QueuedMessages, act.ID)
	}
	return s
}

// chatQueuedMessagesReordered puts the named queued messages first, in the
// given order; unknown and repeated ids are ignored and messages not named
// keep their relative order at the end, so a stale client never drops one.
func chatQueuedMessagesReordered(s ChatState, act ChatQueuedMessagesReorderedAction) ChatState {
	if len(s.QueuedMessages) == 0 {
		return s
	}
	byID := make(map[string]int, len(s.QueuedMessages))
	for i := range s.QueuedMessages {
		if _, dup := byID[s.QueuedMessages[i].ID]; !dup {
			byID[s.QueuedMessages[i].ID] = i
		}
	}
	placed := make([]bool, len(s.QueuedMessages))
	out := make([]PendingMessage, 0, len(s.QueuedMessages))
	for _, id := range act.Order {
		i, ok := byID[id]
		if !ok || placed[i] {
			continue
		}
		placed[i] = true
		out = append(out, s.QueuedMessages[i])
	}
	for i := range s.QueuedMessages {
		if !placed[i] {
			out = append(out, s.QueuedMessages[i])
		}
	}
	s.QueuedMessages = out
	return s
}

// ---- input requests ---------------------------------------------------------

// chatOpenInputRequest finds the unresolved input-request part with the given
// request id in the active turn.
func chatOpenInputRequest(at *ActiveTurn, requestID string) (int, InputRequestResponsePart, bool) {
	if at == nil {
		return -1, InputRequestResponsePart{}, false
	}
	for i, p := range at.ResponseParts {
		if v, ok := p.Variant.(InputRequestResponsePart); ok && v.Response == nil && v.Request.ID == requestID {
			return i, v, true
		}
	}
	return -1, InputRequestResponsePart{}, false
}

func chatInputRequested(s ChatState, act ChatInputRequestedAction, r Rules) ChatState {
	if s.ActiveTurn == nil {
		return s
	}
	part := InputRequestResponsePart{Kind: chatResponsePartKindInputRequest, Request: act.Request}
	parts := s.ActiveTurn.ResponseParts
	if i, old, ok := chatOpenInputRequest(s.ActiveTurn, act.Request.ID); ok {
		// Drafts other clients synced survive a re-request unless the host
		// sends answers of its own.
		if part.Request.Answers == nil {
			part.Request.Answers = old.Request.Answers
		}
		parts = chatReplacePart(parts, i, ResponsePart{Variant: part})
	} else {
		parts = chatAppendPart(parts, ResponsePart{Variant: part})
	}
	s = chatWithActiveParts(s, parts)
	s.Status = chatSummaryStatus(s, false) &^ SessionStatusIsRead
	chatStamp06(&s, r)
	return s
}

func chatInputAnswerChanged(s ChatState, act ChatInputAnswerChangedAction, r Rules) ChatState {
	i, part, ok := chatOpenInputRequest(s.ActiveTurn, act.RequestID)
	if !ok {
		return s
	}
	answers := make(map[string]ChatInputAnswer, len(part.Request.Answers)+1)
	for k, v := range part.Request.Answers {
		answers[k] = v
	}
	if act.Answer == nil {
		delete(answers, act.QuestionID)
	} else {
		answers[act.QuestionID] = *act.Answer
	}
	if len(answers) == 0 {
		answers = nil
	}
	part.Request.Answers = answers
	s = chatWithActiveParts(s, chatReplacePart(s.ActiveTurn.ResponseParts, i, ResponsePart{Variant: part}))
	chatStamp06(&s, r)
	return s
}

func chatInputCompleted(s ChatState, act ChatInputCompletedAction, r Rules) ChatState {
	i, part, ok := chatOpenInputRequest(s.ActiveTurn, act.RequestID)
	if !ok {
		return s
	}
	// Final answers overlay the synced drafts.
	answers := make(map[string]ChatInputAnswer, len(part.Request.Answers)+len(act.Answers))
	for k, v := range part.Request.Answers {
		answers[k] = v
	}
	for k, v := range act.Answers {
		answers[k] = v
	}
	if len(answers) == 0 {
		answers = nil
	}
	part.Request.Answers = answers
	resp := act.Response
	part.Response = &resp
	s = chatWithActiveParts(s, chatReplacePart(s.ActiveTurn.ResponseParts, i, ResponsePart{Variant: part}))
	s.Status = chatSummaryStatus(s, false)
	chatStamp06(&s, r)
	return s
}

// ---- tool calls -------------------------------------------------------------

// chatToolCallCommon holds the fields every tool call state carries.
type chatToolCallCommon struct {
	ToolCallID  string
	ToolName    string
	DisplayName string
	Intention   *string
	Contributor *ToolCallContributor
	Meta        map[string]json.RawMessage
}

func chatToolCallCommonOf(v ToolCallStateVariant) (chatToolCallCommon, bool) {
	switch tc := v.(type) {
	case ToolCallStreamingState:
		return chatToolCallCommon{tc.ToolCallID, tc.ToolName, tc.DisplayName, tc.Intention, tc.Contributor, tc.Meta}, true
	case ToolCallPendingConfirmationState:
		return chatToolCallCommon{tc.ToolCallID, tc.ToolName, tc.DisplayName, tc.Intention, tc.Contributor, tc.Meta}, true
	case ToolCallRunningState:
		return chatToolCallCommon{tc.ToolCallID, tc.ToolName, tc.DisplayName, tc.Intention, tc.Contributor, tc.Meta}, true
	case ToolCallAuthRequiredState:
		mcp := ToolCallContributor{Variant: tc.Contributor}
		return chatToolCallCommon{tc.ToolCallID, tc.ToolName, tc.DisplayName, tc.Intention, &mcp, tc.Meta}, true
	case ToolCallPendingResultConfirmationState:
		return chatToolCallCommon{tc.ToolCallID, tc.ToolName, tc.DisplayName, tc.Intention, tc.Contributor, tc.Meta}, true
	case ToolCallCompletedState:
		return chatToolCallCommon{tc.ToolCallID, tc.ToolName, tc.DisplayName, tc.Intention, tc.Contributor, tc.Meta}, true
	case ToolCallCancelledState:
		return chatToolCallCommon{tc.ToolCallID, tc.ToolName, tc.DisplayName, tc.Intention, tc.Contributor, tc.Meta}, true
	}
	return chatToolCallCommon{}, false
}

// ID is the tool call's id in whichever state it is, or "" for a state this
// client does not know (it has no id field it could trust).
func (x ToolCallState) ID() string {
	c, _ := chatToolCallCommonOf(x.Variant)
	return c.ToolCallID
}

// chatMetaOr is the _meta a transition leaves: the action's when it sends one.
func chatMetaOr(action, current map[string]json.RawMessage) map[string]json.RawMessage {
	if action != nil {
		return action
	}
	return current
}

// chatUpdateToolCall applies f to every tool call toolCallID of the active turn
// turnID (there is normally one). f reports whether the transition applies
// to the state it is given; if it applies to none the action is a no-op and
// s comes back unchanged. refresh recomputes the chat status, for
// transitions that can enter or leave a state blocked on the user.
func chatUpdateToolCall(s ChatState, turnID, toolCallID string, refresh bool, f func(ToolCallStateVariant) (ToolCallStateVariant, bool)) ChatState {
	if !chatIsActiveTurn(s, turnID) {
		return s
	}
	parts := s.ActiveTurn.ResponseParts
	changed := false
	for i, p := range parts {
		tcp, ok := p.Variant.(ToolCallResponsePart)
		if !ok {
			continue
		}
		c, ok := chatToolCallCommonOf(tcp.ToolCall.Variant)
		if !ok || c.ToolCallID != toolCallID {
			continue
		}
		next, ok := f(tcp.ToolCall.Variant)
		if !ok {
			continue
		}
		if !changed {
			parts = append([]ResponsePart(nil), parts...)
			changed = true
		}
		tcp.ToolCall = ToolCallState{Variant: next}
		parts[i] = ResponsePart{Variant: tcp}
	}
	if !changed {
		return s
	}
	s = chatWithActiveParts(s, parts)
	if refresh {
		s.Status = chatSummaryStatus(s, false)
	}
	return s
}

func chatToolCallStart(s ChatState, act ChatToolCallStartAction) ChatState {
	if !chatIsActiveTurn(s, act.TurnID) {
		return s
	}
	part := ToolCallResponsePart{
		Kind: chatResponsePartKindToolCall,
		ToolCall: ToolCallState{Variant: ToolCallStreamingState{
			ToolCallID:  act.ToolCallID,
			ToolName:    act.ToolName,
			DisplayName: act.DisplayName,
			Intention:   act.Intention,
			Contributor: act.Contributor,
			Meta:        act.Meta,
			Status:      chatToolCallStatusStreaming,
		}},
	}
	return chatWithActiveParts(s, chatAppendPart(s.ActiveTurn.ResponseParts, ResponsePart{Variant: part}))
}

// chatToolCallReady: parameters are complete (streaming), or a running tool needs
// re-confirmation, or a pending confirmation is being updated. With
// confirmed set the call goes straight to running.
func chatToolCallReady(v ToolCallStateVariant, act ChatToolCallReadyAction) (ToolCallStateVariant, bool) {
	var pending *ToolCallPendingConfirmationState
	switch tc := v.(type) {
	case ToolCallStreamingState, ToolCallRunningState:
	case ToolCallPendingConfirmationState:
		pending = &tc
	default:
		return nil, false
	}
	c, _ := chatToolCallCommonOf(v)
	meta := chatMetaOr(act.Meta, c.Meta)
	// 1.0: ready carries the final intention and contributor metadata.
	if act.Intention != nil {
		c.Intention = act.Intention
	}
	c.Contributor = chatReadyContributor(c.Contributor, act.Contributor)
	if act.Confirmed != nil {
		return ToolCallRunningState{
			ToolCallID:        c.ToolCallID,
			ToolName:          c.ToolName,
			DisplayName:       c.DisplayName,
			Intention:         c.Intention,
			Contributor:       c.Contributor,
			Meta:              meta,
			InvocationMessage: act.InvocationMessage,
			ToolInput:         act.ToolInput,
			Confirmed:         *act.Confirmed,
			Status:            chatToolCallStatusRunning,
		}, true
	}
	out := ToolCallPendingConfirmationState{
		ToolCallID:        c.ToolCallID,
		ToolName:          c.ToolName,
		DisplayName:       c.DisplayName,
		Intention:         c.Intention,
		Contributor:       c.Contributor,
		Meta:              meta,
		InvocationMessage: act.InvocationMessage,
		ToolInput:         act.ToolInput,
		Status:            chatToolCallStatusPendingConfirmation,
		ConfirmationTitle: act.ConfirmationTitle,
		RiskAssessment:    act.RiskAssessment,
		Edits:             act.Edits,
		Editable:          act.Editable,
		Options:           act.Options,
	}
	// Re-confirming a running call keeps its input unless ready resends
	// it: an edit approved earlier must survive (0.7.0 fixture 260).
	if running, ok := v.(ToolCallRunningState); ok && out.ToolInput == nil {
		out.ToolInput = running.ToolInput
	}
	// Updating a pending confirmation keeps what the update does not resend.
	if pending != nil {
		if out.ToolInput == nil {
			out.ToolInput = pending.ToolInput
		}
		if out.ConfirmationTitle == nil {
			out.ConfirmationTitle = pending.ConfirmationTitle
		}
		if out.RiskAssessment == nil {
			out.RiskAssessment = pending.RiskAssessment
		}
		if out.Edits == nil {
			out.Edits = pending.Edits
		}
		if out.Editable == nil {
			out.Editable = pending.Editable
		}
		if out.Options == nil {
			out.Options = pending.Options
		}
	}
	return out, true
}

// chatReadyContributor is the contributor after chat/toolCallReady. The
// final metadata may name the MCP server behind a call, but never moves
// execution to or away from a client: a client-owned call keeps its
// contributor, and a call that started without a client one cannot be
// handed to a client now (the client would never have been told to run it).
func chatReadyContributor(current, ready *ToolCallContributor) *ToolCallContributor {
	if ready == nil {
		return current
	}
	if current != nil {
		if _, ok := current.Variant.(ToolCallClientContributor); ok {
			return current
		}
	}
	if _, ok := ready.Variant.(ToolCallClientContributor); ok {
		return current
	}
	return ready
}

// chatSelectedOption resolves the option the user picked from those offered.
func chatSelectedOption(options []ConfirmationOption, id *string) *ConfirmationOption {
	if id == nil || *id == "" {
		return nil
	}
	for i := range options {
		if options[i].ID == *id {
			o := options[i]
			return &o
		}
	}
	return nil
}

func chatToolCallApproved(v ToolCallStateVariant, act ChatToolCallApprovedAction) (ToolCallStateVariant, bool) {
	tc, ok := v.(ToolCallPendingConfirmationState)
	if !ok {
		return nil, false
	}
	// An edit replaces inline input. Referenced input stays a reference:
	// the host writes the edit into the referenced resource before it
	// echoes the approval, so the reference now reads the edited input
	// (0.7.0 fixture 260).
	in := tc.ToolInput
	if _, isRef := ToolInputRef(in); act.EditedToolInput != nil && !isRef {
		in = InlineToolInput(*act.EditedToolInput)
	}
	return ToolCallRunningState{
		ToolCallID:        tc.ToolCallID,
		ToolName:          tc.ToolName,
		DisplayName:       tc.DisplayName,
		Intention:         tc.Intention,
		Contributor:       tc.Contributor,
		Meta:              chatMetaOr(act.Meta, tc.Meta),
		InvocationMessage: tc.InvocationMessage,
		ToolInput:         in,
		Confirmed:         act.Confirmed,
		SelectedOption:    chatSelectedOption(tc.Options, act.SelectedOptionID),
		Status:            chatToolCallStatusRunning,
	}, true
}

func chatToolCallDenied(v ToolCallStateVariant, act ChatToolCallDeniedAction) (ToolCallStateVariant, bool) {
	tc, ok := v.(ToolCallPendingConfirmationState)
	if !ok {
		return nil, false
	}
	return ToolCallCancelledState{
		ToolCallID:        tc.ToolCallID,
		ToolName:          tc.ToolName,
		DisplayName:       tc.DisplayName,
		Intention:         tc.Intention,
		Contributor:       tc.Contributor,
		Meta:              chatMetaOr(act.Meta, tc.Meta),
		InvocationMessage: tc.InvocationMessage,
		ToolInput:         tc.ToolInput,
		Status:            chatToolCallStatusCancelled,
		Reason:            ToolCallCancellationReason(act.Reason),
		ReasonMessage:     act.ReasonMessage,
		UserSuggestion:    act.UserSuggestion,
		SelectedOption:    chatSelectedOption(tc.Options, act.SelectedOptionID),
	}, true
}

// chatToolCallComplete finishes a running call (or one still pending
// confirmation, which then counts as confirmed "not-needed"). From
// auth-required only a failed result applies — the client cancelling instead
// of authenticating — and it always goes straight to completed, keeping the
// partial content produced before the pause unless the result brings its own.
func chatToolCallComplete(v ToolCallStateVariant, act ChatToolCallCompleteAction) (ToolCallStateVariant, bool) {
	var (
		invocation StringOrMarkdown
		toolInput  ToolInput
		confirmed  = ToolCallConfirmationReasonNotNeeded
		selected   *ConfirmationOption
		content    []ToolResultContent
		fromAuth   bool
	)
	switch tc := v.(type) {
	case ToolCallRunningState:
		invocation, toolInput, confirmed, selected = tc.InvocationMessage, tc.ToolInput, tc.Confirmed, tc.SelectedOption
	case ToolCallPendingConfirmationState:
		invocation, toolInput = tc.InvocationMessage, tc.ToolInput
	case ToolCallAuthRequiredState:
		if act.Result.Success {
			return nil, false
		}
		invocation, toolInput, confirmed, selected = tc.InvocationMessage, tc.ToolInput, tc.Confirmed, tc.SelectedOption
		content = tc.Content
		fromAuth = true
	default:
		return nil, false
	}
	c, _ := chatToolCallCommonOf(v)
	r := act.Result
	if r.Content != nil {
		content = r.Content
	}
	out := ToolCallCompletedState{
		ToolCallID:        c.ToolCallID,
		ToolName:          c.ToolName,
		DisplayName:       c.DisplayName,
		Intention:         c.Intention,
		Contributor:       c.Contributor,
		Meta:              chatMetaOr(act.Meta, c.Meta),
		InvocationMessage: invocation,
		ToolInput:         toolInput,
		Success:           r.Success,
		PastTenseMessage:  r.PastTenseMessage,
		Content:           content,
		StructuredContent: r.StructuredContent,
		Error:             r.Error,
		Confirmed:         confirmed,
		SelectedOption:    selected,
		Status:            chatToolCallStatusCompleted,
	}
	if act.RequiresResultConfirmation != nil && *act.RequiresResultConfirmation && !fromAuth {
		// The two result-bearing states have the same fields; only the
		// status says whether the user still has to confirm the result.
		pending := ToolCallPendingResultConfirmationState(out)
		pending.Status = chatToolCallStatusPendingResultConfirmation
		return pending, true
	}
	return out, true
}

func chatToolCallResultConfirmed(v ToolCallStateVariant, act ChatToolCallResultConfirmedAction) (ToolCallStateVariant, bool) {
	tc, ok := v.(ToolCallPendingResultConfirmationState)
	if !ok {
		return nil, false
	}
	meta := chatMetaOr(act.Meta, tc.Meta)
	if act.Approved {
		// An approved result completes the call with every field it had.
		done := ToolCallCompletedState(tc)
		done.Meta = meta
		done.Status = chatToolCallStatusCompleted
		return done, true
	}
	return ToolCallCancelledState{
		ToolCallID:        tc.ToolCallID,
		ToolName:          tc.ToolName,
		DisplayName:       tc.DisplayName,
		Intention:         tc.Intention,
		Contributor:       tc.Contributor,
		Meta:              meta,
		InvocationMessage: tc.InvocationMessage,
		ToolInput:         tc.ToolInput,
		Status:            chatToolCallStatusCancelled,
		Reason:            ToolCallCancellationReasonResultDenied,
		SelectedOption:    tc.SelectedOption,
	}, true
}

// chatToolCallAuthRequired pauses a running MCP-contributed call on an auth
// challenge; calls from other contributors cannot be authenticated this way.
func chatToolCallAuthRequired(v ToolCallStateVariant, act ChatToolCallAuthRequiredAction) (ToolCallStateVariant, bool) {
	tc, ok := v.(ToolCallRunningState)
	if !ok || tc.Contributor == nil {
		return nil, false
	}
	mcp, ok := tc.Contributor.Variant.(ToolCallMcpContributor)
	if !ok {
		return nil, false
	}
	return ToolCallAuthRequiredState{
		ToolCallID:        tc.ToolCallID,
		ToolName:          tc.ToolName,
		DisplayName:       tc.DisplayName,
		Intention:         tc.Intention,
		Contributor:       mcp,
		Meta:              chatMetaOr(act.Meta, tc.Meta),
		InvocationMessage: tc.InvocationMessage,
		ToolInput:         tc.ToolInput,
		Confirmed:         tc.Confirmed,
		SelectedOption:    tc.SelectedOption,
		Status:            chatToolCallStatusAuthRequired,
		Auth:              act.Auth,
		Content:           tc.Content,
	}, true
}
