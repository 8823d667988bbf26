package ui

import (
	"errors"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/ahptui/ahptui/protocol"
)

// userMessage builds a user message with the session's chosen model.
func (cp *chatPanel) userMessage(text string) protocol.Message {
	return protocol.Message{
		Text:   text,
		Origin: protocol.MessageOrigin{Kind: protocol.MessageKindUser},
		Model:  cp.models[cp.openSession],
	}
}

// submitComposer sends the composer's text as a new turn, or queues it
// behind the running turn.
func (cp *chatPanel) submitComposer() tea.Cmd {
	text := strings.TrimSpace(cp.composer.Value())
	if text == "" {
		return nil
	}
	if !cp.hasChat {
		cp.setError(errNoChat)
		return nil
	}
	if cp.turnRunning() {
		_, ok := cp.dispatch(cp.openChat, protocol.ChatPendingMessageSetAction{
			Kind: protocol.PendingMessageKindQueued, Id: cp.cfg.NewID(), Message: cp.userMessage(text),
		})
		if ok {
			cp.composer.Reset()
			cp.setStatus("message queued: it starts when the running turn ends")
		}
		return nil
	}
	turnID := cp.cfg.NewID()
	now := cp.clock()
	_, ok := cp.dispatch(cp.openChat, protocol.ChatTurnStartedAction{
		TurnId: turnID, StartedAt: protocol.Timestamp(now), Message: cp.userMessage(text),
	})
	if ok {
		cp.ourTurns[turnID] = now
		cp.composer.Reset()
		cp.scroll = 0
		cp.setStatus("")
	}
	return nil
}

func (cp *chatPanel) cancelTurn() {
	if !cp.turnRunning() {
		cp.setError(errors.New("no turn is running"))
		return
	}
	t := cp.chat.ActiveTurn
	start, ok := cp.ourTurns[t.Id]
	if !ok {
		// Not our turn: the host's start stamp is the best we have.
		if ts, err := time.Parse(time.RFC3339Nano, t.StartedAt); err == nil {
			start = ts
		} else {
			start = cp.clock()
		}
	}
	d := float64(max(cp.clock().Sub(start), 0).Milliseconds())
	if _, ok := cp.dispatch(cp.openChat, protocol.ChatTurnCancelledAction{TurnId: t.Id, Duration: d}); ok {
		cp.setStatus("turn cancelled")
	}
}

// approve confirms the selected pending tool call or its result, or opens
// the form of a selected input request.
func (cp *chatPanel) approve() tea.Cmd {
	it, ok := cp.selectedItem()
	if !ok {
		cp.setError(errNothingTo)
		return nil
	}
	switch {
	case it.Kind == itemInput:
		if it.Input.Response != nil {
			cp.setError(errors.New("that input request is already answered"))
			return nil
		}
		cp.form = newInputForm(cp.openChat, it.Input.Request, cp.keys.Input)
		cp.modal = modalInput
		return nil
	case it.Tool.Status() == protocol.ToolCallStatusPendingConfirmation:
		if _, ok := cp.dispatch(cp.openChat, protocol.ChatToolCallApprovedAction{
			TurnId: it.TurnID, ToolCallId: it.ID, Approved: true,
			Confirmed: protocol.ToolCallConfirmationReasonUserAction,
		}); ok {
			cp.setStatus("approved " + it.Tool.Name())
		}
	case it.Tool.Status() == protocol.ToolCallStatusPendingResultConfirmation:
		cp.confirmResult(it, true)
	default:
		cp.setError(fmt.Errorf("%s is %s: nothing to approve", it.Tool.Name(), it.Tool.Status()))
	}
	return nil
}

func (cp *chatPanel) deny() {
	it, ok := cp.selectedItem()
	if !ok {
		cp.setError(errNothingTo)
		return
	}
	switch {
	case it.Kind == itemInput:
		cp.form = newInputForm(cp.openChat, it.Input.Request, cp.keys.Input)
		cp.declineInput()
	case it.Tool.Status() == protocol.ToolCallStatusPendingConfirmation:
		if _, ok := cp.dispatch(cp.openChat, protocol.ChatToolCallDeniedAction{
			TurnId: it.TurnID, ToolCallId: it.ID, Approved: false,
			Reason: string(protocol.ToolCallCancellationReasonDenied),
		}); ok {
			cp.setStatus("denied " + it.Tool.Name())
		}
	case it.Tool.Status() == protocol.ToolCallStatusPendingResultConfirmation:
		cp.confirmResult(it, false)
	default:
		cp.setError(fmt.Errorf("%s is %s: nothing to deny", it.Tool.Name(), it.Tool.Status()))
	}
}

// confirmResult answers the result confirmation of tool call it; approving
// and denying a result differ only in the answer and the word reported.
func (cp *chatPanel) confirmResult(it chatItem, approved bool) {
	if _, ok := cp.dispatch(cp.openChat, protocol.ChatToolCallResultConfirmedAction{
		TurnId: it.TurnID, ToolCallId: it.ID, Approved: approved,
	}); ok {
		verdict := "denied"
		if approved {
			verdict = "approved"
		}
		cp.setStatus("result of " + it.Tool.Name() + " " + verdict)
	}
}

// toggleExpand opens or closes the selected card's full input and result;
// with no card selected it opens or closes the reasoning of the latest
// turn (reasoning is collapsed by default).
func (cp *chatPanel) toggleExpand() {
	if cp.sel.item != "" {
		cp.expanded[cp.sel.item] = !cp.expanded[cp.sel.item]
		return
	}
	// The latest turn that has reasoning: the running one, else the newest
	// finished turn with any.
	var parts []protocol.ResponsePart
	hasReasoning := func(ps []protocol.ResponsePart) bool {
		for _, p := range ps {
			if _, ok := p.Variant.(protocol.ReasoningResponsePart); ok {
				return true
			}
		}
		return false
	}
	if at := cp.chat.ActiveTurn; at != nil && hasReasoning(at.ResponseParts) {
		parts = at.ResponseParts
	} else {
		for i := len(cp.chat.Turns) - 1; i >= 0 && parts == nil; i-- {
			if hasReasoning(cp.chat.Turns[i].ResponseParts) {
				parts = cp.chat.Turns[i].ResponseParts
			}
		}
	}
	var ids []string
	open := true
	for _, p := range parts {
		if r, ok := p.Variant.(protocol.ReasoningResponsePart); ok {
			ids = append(ids, r.Id)
			open = open && cp.expanded[r.Id]
		}
	}
	if len(ids) == 0 {
		cp.setStatus("nothing to expand: [ ] pick a card, i writes a message")
		return
	}
	for _, id := range ids {
		cp.expanded[id] = !open
	}
}

// itemGrantRequirement is the auth challenge a transcript item shows a grant
// prompt for: the tool call's own auth-required state, or, for a call
// running against an MCP server that flipped to authRequired, the server's.
func (cp *chatPanel) itemGrantRequirement(it chatItem) *protocol.McpAuthRequirement {
	if it.Kind != itemToolCall {
		return nil
	}
	switch it.Tool.Status() {
	case protocol.ToolCallStatusAuthRequired:
		return it.Tool.AuthRequirement()
	case protocol.ToolCallStatusRunning:
		if s := it.Tool.McpServer(); s != "" {
			return serverAuth(mcpRows(cp.sess), s)
		}
	}
	return nil
}

func (cp *chatPanel) itemGrant(it chatItem) string {
	if r := cp.itemGrantRequirement(it); r != nil {
		return r.Resource.Resource
	}
	return ""
}

// selectedFlow is the grant flow behind the selected prompt, if one started.
func (cp *chatPanel) selectedFlow() *grantFlow {
	if cp.sel.prompt && len(cp.signin.prompts) > 0 {
		return cp.signin.grants[cp.signin.prompts[0].resource]
	}
	if it, ok := cp.selectedItem(); ok {
		return cp.signin.grants[cp.itemGrant(it)]
	}
	return nil
}

func (cp *chatPanel) acceptGrant() tea.Cmd {
	if cp.sel.prompt && len(cp.signin.prompts) > 0 {
		return cp.signin.startGrantReq(cp.signin.agentRequirement(cp.signin.prompts[0]))
	}
	it, ok := cp.selectedItem()
	if !ok {
		return nil
	}
	if r := cp.itemGrantRequirement(it); r != nil {
		return cp.signin.startGrant(*r)
	}
	return nil
}

// declineGrant refuses the prompt. For a tool call that fails the call with
// error code "cancelled" so the agent stops waiting for a token that will
// not come; an agent-resource prompt is just dismissed.
func (cp *chatPanel) declineGrant() {
	if cp.sel.prompt && len(cp.signin.prompts) > 0 {
		cp.signin.dropAgentPrompt(cp.signin.prompts[0].resource)
		cp.sel = chatSel{}
		cp.setStatus("sign-in declined")
		return
	}
	it, ok := cp.selectedItem()
	if !ok || cp.itemGrant(it) == "" {
		return
	}
	if g := cp.signin.grants[cp.itemGrant(it)]; g != nil && (g.phase == grantWaiting || g.phase == grantStarting) {
		cp.cancelGrant()
	}
	code := protocol.ToolCallErrorCodeCancelled
	_, ok = cp.dispatch(cp.openChat, protocol.ChatToolCallCompleteAction{
		TurnId: it.TurnID, ToolCallId: it.ID,
		Result: protocol.ToolCallResult{
			Success:          false,
			PastTenseMessage: protocol.PlainString("Access was not granted"),
			Error:            &protocol.ToolCallResultError{Message: "The user declined to grant access", Code: &code},
		},
	})
	if ok {
		cp.setStatus("access declined: " + it.Tool.Name() + " cancelled")
	}
}

func (cp *chatPanel) cancelGrant() {
	cp.signin.cancelFlow(cp.selectedFlow())
}
