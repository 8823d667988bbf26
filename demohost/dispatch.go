package demohost

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/ahptui/ahptui/protocol"
)

// dispatchLocked validates and applies one client action (dispatchAction),
// then lets the host react to it. Actions on unknown channels are ignored
// without an echo, as the spec requires; re-sent actions (clientSeq not
// above the last one seen from that clientId) are ignored because they
// were already applied before the client's connection dropped.
func (h *Host) dispatchLocked(c *conn, raw json.RawMessage) {
	var p protocol.DispatchActionParams
	if err := json.Unmarshal(raw, &p); err != nil || p.Action.Variant == nil {
		h.log.Debug("demohost: unreadable dispatchAction ignored", "conn", c.id)
		return
	}
	if !h.channelExists(p.Channel) {
		return
	}
	if p.ClientSeq <= h.lastSeq[c.clientID] {
		h.echoDuplicateLocked(c, p.ClientSeq)
		return
	}
	h.lastSeq[c.clientID] = p.ClientSeq
	origin := protocol.ActionOrigin{ClientID: c.clientID, ClientSeq: p.ClientSeq}
	if err := h.checkActionLocked(c, p.Channel, p.Action.Variant); err != nil {
		h.rejectLocked(p.Channel, p.Action, origin, err.Error())
		return
	}
	before := h.sessionOf(p.Channel)
	h.applyLocked(p.Channel, p.Action.Variant, &origin)
	h.reactLocked(c, p.Channel, p.Action.Variant, before)
}

// echoDuplicateLocked answers a re-sent action with the envelope the host
// produced the first time (same serverSeq), to this connection only: the
// client cannot know whether its action was applied before the link broke,
// and this echo settles its pending action without applying it twice. An
// action older than the client's last echoMemory envelopes, or one that was
// dropped (unknown channel), gets nothing.
func (h *Host) echoDuplicateLocked(c *conn, clientSeq int64) {
	sent := h.sentTo[c.clientID]
	for i := len(sent) - 1; i >= 0; i-- {
		e := sent[i]
		if e.clientSeq == clientSeq {
			frame, err := h.encodeNotification("action", json.RawMessage(e.params))
			if err == nil {
				h.validateFrameLocked(c.id, Outbound, frame, &e)
				c.send(frame)
			}
			return
		}
	}
}

// sessionOf is the session a session or chat channel belongs to.
func (h *Host) sessionOf(channel string) *session {
	if s := h.sessions[channel]; s != nil {
		return s
	}
	if c := h.chats[channel]; c != nil {
		return h.sessions[c.session]
	}
	return nil
}

var (
	errNeedSession = errors.New("this action belongs on a session channel")
	errNeedChat    = errors.New("this action belongs on a chat channel")
)

// checkActionLocked says why a client action is refused (the rejection
// reason the client sees), or nil. It routes by the action's domain:
// the root's, a session's or a chat's; a chat action is checked further
// by what it acts on (turns, tool calls, pending messages, input).
func (h *Host) checkActionLocked(c *conn, channel string, v protocol.StateActionVariant) error {
	kind := protocol.NewStateAction(v).Kind()
	switch {
	case strings.HasPrefix(kind, "root/"):
		return h.checkRootAction(channel, v)
	case strings.HasPrefix(kind, "session/"):
		s := h.sessions[channel]
		if s == nil {
			return errNeedSession
		}
		return checkSessionAction(c, s, v)
	case strings.HasPrefix(kind, "chat/"):
		ch := h.chats[channel]
		if ch == nil {
			return errNeedChat
		}
		return checkChatAction(c, ch, v)
	case strings.HasPrefix(kind, "changeset/"):
		return h.checkChangesetAction(channel, v)
	case strings.HasPrefix(kind, "terminal/"):
		return h.checkTerminalAction(c, channel, v)
	}
	return notDispatchable(v)
}

func notDispatchable(v protocol.StateActionVariant) error {
	return fmt.Errorf("action %s is not client-dispatchable", protocol.NewStateAction(v).Kind())
}

func (h *Host) checkRootAction(channel string, v protocol.StateActionVariant) error {
	if _, ok := v.(protocol.RootConfigChangedAction); !ok {
		return notDispatchable(v)
	}
	if channel != rootURI {
		return errors.New("root/configChanged belongs on the root channel")
	}
	if h.root.Config == nil {
		return errors.New("the demo host has no host-level settings")
	}
	if why := checkRootConfigChange(h.root.Config, v.(protocol.RootConfigChangedAction)); why != "" {
		return errors.New(why)
	}
	return nil
}

func checkSessionAction(c *conn, s *session, v protocol.StateActionVariant) error {
	switch a := v.(type) {
	case protocol.SessionTitleChangedAction, protocol.SessionIsReadChangedAction, protocol.SessionIsArchivedChangedAction:
		return nil
	case protocol.SessionConfigChangedAction:
		if s.state.Config == nil {
			return errors.New("this session has no settings")
		}
		if why := checkSessionConfigChange(s, a); why != "" {
			return errors.New(why)
		}
	case protocol.SessionDefaultChatChangedAction:
		if a.DefaultChat != nil && !containsChat(s.state.Chats, *a.DefaultChat) {
			return errors.New("defaultChat is not one of this session's chats")
		}
	case protocol.SessionActiveClientSetAction:
		if a.ActiveClient.ClientID != c.clientID {
			return errors.New("a client can only set itself as an active client")
		}
	case protocol.SessionActiveClientRemovedAction:
		if a.ClientID != c.clientID {
			return errors.New("a client can only remove itself from the active clients")
		}
	case protocol.SessionCustomizationToggledAction:
		if !customizationExists(s.state, a.ID) {
			return errors.New("no customization with id " + clip(a.ID))
		}
		if a.Enablement == nil {
			// The 0.6 form ({id, enabled}) read as 1.0: refused rather
			// than read as "no decision" (DELTA §6.4).
			return errors.New("customizationToggled needs enablement; enabled is the AHP 0.6 form")
		}
	case protocol.SessionMcpServerStartRequestedAction:
		_, enabled, ok := findServer(s.state, a.ID)
		if !ok {
			return errors.New("no MCP server with id " + clip(a.ID))
		}
		if !enabled {
			return errors.New("this MCP server is disabled; enable it before starting it")
		}
	case protocol.SessionMcpServerStopRequestedAction:
		if _, _, ok := findServer(s.state, a.ID); !ok {
			return errors.New("no MCP server with id " + clip(a.ID))
		}
	case protocol.SessionMcpServerBackgroundRequestedAction:
		m, _, ok := findServer(s.state, a.ID)
		if !ok {
			return errors.New("no MCP server with id " + clip(a.ID))
		}
		if st, starting := m.State.Variant.(protocol.McpServerStartingState); !starting || st.Blocking == nil || !*st.Blocking {
			return errors.New("this MCP server's start holds nothing back; only a blocking start can move to the background")
		}
	default:
		return notDispatchable(v)
	}
	return nil
}

func checkChatAction(c *conn, ch *chat, v protocol.StateActionVariant) error {
	switch a := v.(type) {
	case protocol.ChatTurnStartedAction, protocol.ChatTurnCancelledAction, protocol.ChatTruncatedAction, protocol.ChatTurnResumeAction:
		return checkTurnAction(ch, a)
	case protocol.ChatToolCallApprovedAction, protocol.ChatToolCallDeniedAction, protocol.ChatToolCallResultConfirmedAction,
		protocol.ChatToolCallCompleteAction, protocol.ChatToolCallContentChangedAction:
		return checkToolCallAction(c, ch, a)
	case protocol.ChatPendingMessageSetAction:
		if a.Message.Origin.Kind != protocol.MessageKindUser {
			return errors.New("a client may only send user messages")
		}
		if a.ID == "" {
			return errors.New("pending message id is empty")
		}
	case protocol.ChatPendingMessageRemovedAction:
		if !hasPending(ch.state, a.Kind, a.ID) {
			return errors.New("no pending message " + clip(a.ID))
		}
	case protocol.ChatQueuedMessagesReorderedAction, protocol.ChatDraftChangedAction:
		return nil
	case protocol.ChatInputAnswerChangedAction, protocol.ChatInputCompletedAction:
		return checkInputAction(ch, a)
	default:
		return notDispatchable(v)
	}
	return nil
}

// checkTurnAction checks starting, cancelling and truncating turns.
func checkTurnAction(ch *chat, v protocol.StateActionVariant) error {
	switch a := v.(type) {
	case protocol.ChatTurnStartedAction:
		if a.Message.Origin.Kind != protocol.MessageKindUser {
			return errors.New("a client may only send user messages")
		}
		if a.TurnID == "" {
			return errors.New("turnId is empty")
		}
		if ch.state.ActiveTurn != nil {
			return errors.New("a turn is already running; queue the message instead")
		}
		if hasTurn(ch.state.Turns, a.TurnID) {
			return errors.New("turnId " + clip(a.TurnID) + " is already used in this chat")
		}
	case protocol.ChatTurnCancelledAction:
		if ch.state.ActiveTurn == nil || ch.state.ActiveTurn.ID != a.TurnID {
			return errors.New("no active turn to cancel")
		}
	case protocol.ChatTurnResumeAction:
		// The reducer checks the turn (latest, errored, resumable); the
		// host also needs the rest of its script.
		if ch.run != nil || ch.resume == nil || ch.resume.turnID != a.TurnID {
			return errors.New("turn " + clip(a.TurnID) + " did not stop at a resumable error")
		}
	case protocol.ChatTruncatedAction:
		if ch.state.ActiveTurn != nil {
			return errors.New("cancel the running turn before truncating")
		}
		if a.TurnID != nil && !hasTurn(ch.state.Turns, *a.TurnID) {
			return errors.New("no turn " + clip(*a.TurnID) + " in this chat")
		}
	}
	return nil
}

// checkToolCallAction checks the answers to a tool call's confirmations
// and what a client that provides a tool may do with its call.
func checkToolCallAction(c *conn, ch *chat, v protocol.StateActionVariant) error {
	switch a := v.(type) {
	case protocol.ChatToolCallApprovedAction:
		return checkToolCallIs(ch, a.TurnID, a.ToolCallID, protocol.ToolCallStatusPendingConfirmation)
	case protocol.ChatToolCallDeniedAction:
		return checkToolCallIs(ch, a.TurnID, a.ToolCallID, protocol.ToolCallStatusPendingConfirmation)
	case protocol.ChatToolCallResultConfirmedAction:
		return checkToolCallIs(ch, a.TurnID, a.ToolCallID, protocol.ToolCallStatusPendingResultConfirmation)
	case protocol.ChatToolCallCompleteAction:
		tc, ok := findToolCall(ch.state, a.TurnID, a.ToolCallID)
		if !ok {
			return errors.New("unknown tool call " + clip(a.ToolCallID))
		}
		switch st := tc.Variant.(type) {
		case protocol.ToolCallAuthRequiredState:
			if a.Result.Success {
				return errors.New("a tool call waiting for authentication can only be cancelled (a failed result)")
			}
		case protocol.ToolCallRunningState:
			if !ownedBy(st.Contributor, c.clientID) {
				return errors.New("only the client that provides this tool may complete it")
			}
		default:
			return errors.New("tool call is not running or waiting for authentication")
		}
	case protocol.ChatToolCallContentChangedAction:
		tc, ok := findToolCall(ch.state, a.TurnID, a.ToolCallID)
		if !ok {
			return errors.New("unknown tool call " + clip(a.ToolCallID))
		}
		st, running := tc.Variant.(protocol.ToolCallRunningState)
		if !running || !ownedBy(st.Contributor, c.clientID) {
			return errors.New("only the client that provides a running tool may stream its content")
		}
	}
	return nil
}

// checkInputAction checks drafting and completing the answers to an
// open input request.
func checkInputAction(ch *chat, v protocol.StateActionVariant) error {
	switch a := v.(type) {
	case protocol.ChatInputAnswerChangedAction:
		req, ok := openInputRequest(ch.state, a.RequestID)
		if !ok {
			return errors.New("no open input request " + clip(a.RequestID))
		}
		if !hasQuestion(req, a.QuestionID) {
			return errors.New("no question " + clip(a.QuestionID) + " in that input request")
		}
		if a.Answer != nil {
			if ans, ok := a.Answer.Variant.(protocol.ChatInputAnswered); ok && ans.Value.Variant == nil {
				return errors.New("an answered question needs a value")
			}
		}
	case protocol.ChatInputCompletedAction:
		req, ok := openInputRequest(ch.state, a.RequestID)
		if !ok {
			return errors.New("no open input request " + clip(a.RequestID))
		}
		if a.Response != protocol.ChatInputResponseKindAccept {
			return nil
		}
		for _, q := range req.Questions {
			id, required := questionInfo(q)
			if !required {
				continue
			}
			ans, ok := a.Answers[id]
			if !ok {
				ans, ok = req.Answers[id]
			}
			if v, answered := ans.Variant.(protocol.ChatInputAnswered); !ok || !answered || v.State != "submitted" {
				return errors.New("required question " + clip(id) + " has no submitted answer")
			}
		}
	}
	return nil
}

// checkToolCallIs checks that the tool call exists and is in state want.
func checkToolCallIs(ch *chat, turnID, toolCallID, want string) error {
	tc, ok := findToolCall(ch.state, turnID, toolCallID)
	if !ok {
		return errors.New("unknown tool call " + clip(toolCallID))
	}
	if tc.Status() != want {
		return errors.New("tool call not " + want)
	}
	return nil
}

// reactLocked is the host's side of an accepted client action: the agent
// starts or stops, waiting scripts wake, MCP servers follow the user's
// intent, queued messages are consumed.
func (h *Host) reactLocked(c *conn, channel string, v protocol.StateActionVariant, s *session) {
	ch := h.chats[channel]
	switch a := v.(type) {
	case protocol.ChatTurnStartedAction:
		h.startTurnLocked(ch, a.Message, &a.TurnID, nil, c.clientID)
	case protocol.ChatTurnResumeAction:
		h.resumeTurnLocked(ch, a.TurnID)
	case protocol.ChatTruncatedAction:
		ch.resume = nil // the errored turn may be gone
	case protocol.ChatTurnCancelledAction:
		if ch.run != nil {
			h.clearInputNeededLocked(ch, ch.run)
			ch.run.stop()
			ch.run = nil
		}
		h.consumeQueuedLocked(ch)
	case protocol.ChatPendingMessageSetAction:
		if a.Kind == protocol.PendingMessageKindQueued {
			if ch.queuedBy == nil {
				ch.queuedBy = map[string]string{}
			}
			ch.queuedBy[a.ID] = c.clientID
			h.consumeQueuedLocked(ch)
		}
	case protocol.ChatToolCallApprovedAction, protocol.ChatToolCallDeniedAction,
		protocol.ChatInputCompletedAction, protocol.ChatToolCallCompleteAction, protocol.ChatToolCallResultConfirmedAction:
		if ch.run != nil {
			ch.run.wake()
		}
	case protocol.SessionCustomizationToggledAction:
		h.reconcileServersLocked(s)
	case protocol.SessionMcpServerStartRequestedAction:
		switch {
		case h.cfg.HoldStartsUntilRun && !h.sessionRanLocked(s):
			s.srvGen[a.ID]++ // cancels a start scheduled before
			if s.held == nil {
				s.held = map[string]bool{}
			}
			s.held[a.ID] = true
		case h.servers[a.ID].blocking:
			h.startServerLocked(s, a.ID)
		default:
			h.scheduleServerLocked(s, a.ID)
		}
	case protocol.SessionMcpServerStopRequestedAction:
		s.srvGen[a.ID]++ // cancels a pending start
		delete(s.held, a.ID)
	}
}

func containsChat(cs []protocol.ChatSummary, uri string) bool {
	for _, c := range cs {
		if c.Resource == uri {
			return true
		}
	}
	return false
}

func hasTurn(ts []protocol.Turn, id string) bool {
	for _, t := range ts {
		if t.ID == id {
			return true
		}
	}
	return false
}

func hasPending(c protocol.ChatState, kind protocol.PendingMessageKind, id string) bool {
	if kind == protocol.PendingMessageKindSteering {
		return c.SteeringMessage != nil && c.SteeringMessage.ID == id
	}
	for _, m := range c.QueuedMessages {
		if m.ID == id {
			return true
		}
	}
	return false
}

func ownedBy(ctr *protocol.ToolCallContributor, clientID string) bool {
	if ctr == nil {
		return false
	}
	cc, ok := ctr.Variant.(protocol.ToolCallClientContributor)
	return ok && cc.ClientID != nil && *cc.ClientID == clientID
}

// findToolCall finds a tool call in the chat's active turn.
func findToolCall(c protocol.ChatState, turnID, id string) (protocol.ToolCallState, bool) {
	if c.ActiveTurn == nil || c.ActiveTurn.ID != turnID {
		return protocol.ToolCallState{}, false
	}
	for _, p := range c.ActiveTurn.ResponseParts {
		if tp, ok := p.Variant.(protocol.ToolCallResponsePart); ok && tp.ToolCall.ID() == id {
			return tp.ToolCall, true
		}
	}
	return protocol.ToolCallState{}, false
}

// openInputRequest finds an unanswered input request in the active turn.
func openInputRequest(c protocol.ChatState, id string) (protocol.ChatInputRequest, bool) {
	if c.ActiveTurn == nil {
		return protocol.ChatInputRequest{}, false
	}
	for _, p := range c.ActiveTurn.ResponseParts {
		if ip, ok := p.Variant.(protocol.InputRequestResponsePart); ok && ip.Request.ID == id && ip.Response == nil {
			return ip.Request, true
		}
	}
	return protocol.ChatInputRequest{}, false
}

func hasQuestion(r protocol.ChatInputRequest, id string) bool {
	for _, q := range r.Questions {
		if qid, _ := questionInfo(q); qid == id {
			return true
		}
	}
	return false
}

func questionInfo(q protocol.ChatInputQuestion) (string, bool) {
	req := func(p *bool) bool { return p != nil && *p }
	switch v := q.Variant.(type) {
	case protocol.ChatInputTextQuestion:
		return v.ID, req(v.Required)
	case protocol.ChatInputNumberQuestion:
		return v.ID, req(v.Required)
	case protocol.ChatInputBooleanQuestion:
		return v.ID, req(v.Required)
	case protocol.ChatInputSingleSelectQuestion:
		return v.ID, req(v.Required)
	case protocol.ChatInputMultiSelectQuestion:
		return v.ID, req(v.Required)
	}
	return "", false
}
