package ui

import (
	"errors"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

// userMessage builds a user message with the session's chosen model.
func (cp *chatPanel) userMessage(text string) protocol.Message {
	return protocol.Message{
		Text:   text,
		Origin: protocol.MessageOrigin{Kind: protocol.MessageKindUser},
		Model:  cp.models[hostSession{cp.cfg.Host, cp.openSession}],
	}
}

// submitComposer sends the composer's text as a new turn, or queues it
// behind the running turn.
func (cp *chatPanel) submitComposer() tea.Cmd {
	text := strings.TrimSpace(cp.composer.Value())
	if text == "" {
		return nil
	}
	if cp.editing != nil {
		return cp.saveEdit(text)
	}
	if !cp.hasChat {
		if cp.openSession == "" {
			return reportError(errNoChat)
		}
		// Written as the session opened: it goes once the chat is in.
		cp.sendOnOpen = cp.openSession
		return reportInfo("the chat is still loading: your message goes as soon as it is in")
	}
	if cp.turnRunning() {
		if _, err := cp.dispatch(cp.openChat, protocol.ChatPendingMessageSetAction{
			Kind: protocol.PendingMessageKindQueued, ID: cp.cfg.NewID(), Message: cp.userMessage(text),
		}); err != nil {
			return reportError(err)
		}
		cp.composer.Reset()
		chat, turn := cp.openChat, cp.chat.ActiveTurn.ID
		return reportInfoUntil("message queued: it starts when the running turn ends", func() bool {
			return cp.openChat != chat || !cp.turnRunning() || cp.chat.ActiveTurn.ID != turn
		})
	}
	turnID := cp.cfg.NewID()
	now := cp.clock()
	if _, err := cp.dispatch(cp.openChat, protocol.ChatTurnStartedAction{
		TurnID: turnID, StartedAt: protocol.Timestamp(now), Message: cp.userMessage(text),
	}); err != nil {
		return reportError(err)
	}
	cp.ourTurns[turnID] = now
	cp.composer.Reset()
	cp.scroll = 0
	return reportInfo("")
}

func (cp *chatPanel) cancelTurn() tea.Cmd {
	if !cp.turnRunning() {
		return reportError(errors.New("no turn is running"))
	}
	t := cp.chat.ActiveTurn
	start, ok := cp.ourTurns[t.ID]
	if !ok {
		// Not our turn: the host's start stamp is the best we have.
		if ts, err := time.Parse(time.RFC3339Nano, t.StartedAt); err == nil {
			start = ts
		} else {
			start = cp.clock()
		}
	}
	d := float64(max(cp.clock().Sub(start), 0).Milliseconds())
	return cp.dispatchThen(cp.openChat, protocol.ChatTurnCancelledAction{TurnID: t.ID, Duration: d}, "turn cancelled")
}

// resumeTurn asks the host to resume the latest turn where it stopped at
// a resumable error (chat/turnResume). The host decides whether it can;
// the key is offered only when the chat says so.
func (cp *chatPanel) resumeTurn() tea.Cmd {
	if !cp.hasChat {
		return reportError(errNoChat)
	}
	if err := cp.cannot(featResume); err != nil {
		return reportError(err)
	}
	id := views.ResumableTurn(cp.chat)
	if id == "" {
		return reportError(errors.New("no turn to resume: only the latest turn, stopped at an error the host marks resumable, can be resumed"))
	}
	cp.scroll = 0
	if _, err := cp.dispatch(cp.openChat, protocol.ChatTurnResumeAction{TurnID: id}); err != nil {
		return reportError(err)
	}
	// Said until the host resumes it: the turn then runs (or ends
	// otherwise), and "resuming" would be stale.
	return reportInfoUntil("resuming the turn", func() bool { return views.ResumableTurn(cp.chat) != id })
}

// approve confirms the selected pending tool call or its result, or opens
// the form of a selected input request.
func (cp *chatPanel) approve() tea.Cmd {
	it, ok := cp.selectedItem()
	if !ok {
		return reportError(errNothingTo)
	}
	switch {
	case it.Kind == itemInput:
		if it.Input.Response != nil {
			return reportError(errors.New("that input request is already answered"))
		}
		if why := cp.closedInput(cp.openChat, it.ID); why != "" {
			return reportInfo(why)
		}
		cp.form = newInputForm(cp.openChat, it.Input.Request, cp.keys.Input)
		cp.modal = modalInput
		return nil
	case it.Tool.Status() == protocol.ToolCallStatusPendingConfirmation:
		// With options, approve allows this one call: the host's broader
		// ones ("Allow in this Session") are picked by number.
		if o, ok := onceOption(confirmOptions(it)); ok {
			return cp.confirmWith(it, o)
		}
		if _, ok := firstOption(it, protocol.ConfirmationOptionKindApprove); ok {
			return reportError(fmt.Errorf("%s offers no option that allows just this call: pick one by number (%s), broader ones ask first",
				views.SanitizeLine(it.Tool.Name()), cp.keys.Chat.PickOption.Help().Key))
		}
		return cp.dispatchThen(cp.openChat, protocol.ChatToolCallApprovedAction{
			TurnID: it.TurnID, ToolCallID: it.ID, Approved: true,
			Confirmed: protocol.ToolCallConfirmationReasonUserAction,
		}, "approved "+it.Tool.Name())
	case it.Tool.Status() == protocol.ToolCallStatusPendingResultConfirmation:
		return cp.confirmResult(it, true)
	}
	return reportError(fmt.Errorf("%s is %s: nothing to approve", it.Tool.Name(), it.Tool.Status()))
}

// confirmOptions are the options the host offers on a call waiting for
// confirmation, in the order the card numbers them.
func confirmOptions(it chatItem) []protocol.ConfirmationOption {
	if pc, ok := it.Tool.Variant.(protocol.ToolCallPendingConfirmationState); ok && it.Kind == itemToolCall {
		return pc.Options
	}
	return nil
}

// firstOption is the first option of kind on the card: with options, the
// deny key picks the first denying one.
func firstOption(it chatItem, kind protocol.ConfirmationOptionKind) (protocol.ConfirmationOption, bool) {
	for _, o := range confirmOptions(it) {
		if o.Kind == kind {
			return o, true
		}
	}
	return protocol.ConfirmationOption{}, false
}

// pickOption confirms the selected call with the option at position n
// (from 1) on its card.
func (cp *chatPanel) pickOption(n int) tea.Cmd {
	it, ok := cp.selectedItem()
	if !ok {
		return reportError(errNothingTo)
	}
	opts := confirmOptions(it)
	if len(opts) == 0 {
		return reportError(fmt.Errorf("%s offers no options: %s approves, %s denies",
			views.SanitizeLine(it.Tool.Name()), cp.keys.Chat.Approve.Help().Key, cp.keys.Chat.Deny.Help().Key))
	}
	if n < 1 || n > len(opts) {
		return reportError(fmt.Errorf("no option %d: the card offers 1-%d", n, len(opts)))
	}
	o := opts[n-1]
	if widerOption(o, opts) {
		return cp.askWiden(optionView(o, it.Tool.Name()), func() tea.Cmd { return cp.confirmWith(it, o) })
	}
	return cp.confirmWith(it, o)
}

// confirmWith answers the call's confirmation with option o: approved or
// denied as its kind says, carrying its id. A kind this client does not
// know is neither; it is refused rather than guessed.
func (cp *chatPanel) confirmWith(it chatItem, o protocol.ConfirmationOption) tea.Cmd {
	id, label := o.ID, views.SanitizeLine(o.Label)
	switch o.Kind {
	case protocol.ConfirmationOptionKindApprove:
		return cp.dispatchThen(cp.openChat, protocol.ChatToolCallApprovedAction{
			TurnID: it.TurnID, ToolCallID: it.ID, Approved: true,
			Confirmed: protocol.ToolCallConfirmationReasonUserAction, SelectedOptionID: &id,
		}, label+": "+it.Tool.Name())
	case protocol.ConfirmationOptionKindDeny:
		return cp.dispatchThen(cp.openChat, protocol.ChatToolCallDeniedAction{
			TurnID: it.TurnID, ToolCallID: it.ID, Approved: false,
			Reason: string(protocol.ToolCallCancellationReasonDenied), SelectedOptionID: &id,
		}, label+": "+it.Tool.Name())
	}
	return reportError(fmt.Errorf("option %q is of a kind this ahptui does not know (%q): pick another", label, views.SanitizeLine(string(o.Kind))))
}

func (cp *chatPanel) deny() tea.Cmd {
	it, ok := cp.selectedItem()
	if !ok {
		return reportError(errNothingTo)
	}
	switch {
	case it.Kind == itemInput:
		if why := cp.closedInput(cp.openChat, it.ID); why != "" {
			return reportInfo(why)
		}
		cp.form = newInputForm(cp.openChat, it.Input.Request, cp.keys.Input)
		return cp.declineInput()
	case it.Tool.Status() == protocol.ToolCallStatusPendingConfirmation:
		if o, ok := firstOption(it, protocol.ConfirmationOptionKindDeny); ok {
			return cp.confirmWith(it, o)
		}
		return cp.dispatchThen(cp.openChat, protocol.ChatToolCallDeniedAction{
			TurnID: it.TurnID, ToolCallID: it.ID, Approved: false,
			Reason: string(protocol.ToolCallCancellationReasonDenied),
		}, "denied "+it.Tool.Name())
	case it.Tool.Status() == protocol.ToolCallStatusPendingResultConfirmation:
		return cp.confirmResult(it, false)
	}
	return reportError(fmt.Errorf("%s is %s: nothing to deny", it.Tool.Name(), it.Tool.Status()))
}

// confirmResult answers the result confirmation of tool call it; approving
// and denying a result differ only in the answer and the word reported.
func (cp *chatPanel) confirmResult(it chatItem, approved bool) tea.Cmd {
	verdict := "denied"
	if approved {
		verdict = "approved"
	}
	return cp.dispatchThen(cp.openChat, protocol.ChatToolCallResultConfirmedAction{
		TurnID: it.TurnID, ToolCallID: it.ID, Approved: approved,
	}, "result of "+it.Tool.Name()+" "+verdict)
}

// toggleExpand opens or closes the selected card's full input and result,
// with the reasoning of its turn; with no card selected it opens or closes
// the reasoning of the latest turn (reasoning is collapsed by default).
func (cp *chatPanel) toggleExpand() tea.Cmd {
	if it, ok := cp.selectedItem(); ok {
		return cp.toggleCard(it)
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
			ids = append(ids, r.ID)
			open = open && cp.expanded[r.ID]
		}
	}
	if len(ids) == 0 {
		return reportInfo("nothing to expand: [ ] pick a card, i writes a message")
	}
	for _, id := range ids {
		cp.expanded[id] = !open
	}
	return nil
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
			return cp.signin.serverAuth(s)
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
		res := cp.signin.prompts[0].resource
		return cp.signin.flowFor(res, agentChallenge(res))
	}
	if it, ok := cp.selectedItem(); ok {
		return cp.signin.flowFor(cp.itemGrant(it), itemChallenge(it))
	}
	return nil
}

func (cp *chatPanel) acceptGrant(enter bool) tea.Cmd {
	if cp.sel.prompt && len(cp.signin.prompts) > 0 {
		if enter {
			return cp.signin.firstOffer(cp.signin.prompts[0])
		}
		return cp.signin.browserSignIn(cp.signin.prompts[0])
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
func (cp *chatPanel) declineGrant() tea.Cmd {
	if cp.sel.prompt && len(cp.signin.prompts) > 0 {
		cp.signin.dropAgentPrompt(cp.signin.prompts[0].resource)
		cp.sel = chatSel{}
		return reportInfo("sign-in declined")
	}
	it, ok := cp.selectedItem()
	if !ok || cp.itemGrant(it) == "" {
		return nil
	}
	if g := cp.signin.grants[cp.itemGrant(it)]; g != nil && (g.phase == grantWaiting || g.phase == grantStarting) {
		// The report of the flow's end is superseded by the one below.
		cp.cancelGrant()
	}
	code := protocol.ToolCallErrorCodeCancelled
	return cp.dispatchThen(cp.openChat, protocol.ChatToolCallCompleteAction{
		TurnID: it.TurnID, ToolCallID: it.ID,
		Result: protocol.ToolCallResult{
			Success:          false,
			PastTenseMessage: protocol.PlainString("Access was not granted"),
			Error:            &protocol.ToolCallResultError{Message: "The user declined to grant access", Code: &code},
		},
	}, "access declined: "+it.Tool.Name()+" cancelled")
}

// cancelGrant is esc on a grant prompt: it cancels the sign-in that runs
// for it; on a prompt with none running it closes the prompt, which keeps
// waiting (declining is n's: it fails the tool call).
func (cp *chatPanel) cancelGrant() tea.Cmd {
	if g := cp.selectedFlow(); g != nil && (g.phase == grantWaiting || g.phase == grantStarting) {
		return cp.signin.cancelFlow(g)
	}
	return cp.closeGrantPrompt()
}
