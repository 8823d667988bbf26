package ui

import (
	"errors"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/protocol"
)

var (
	errNoAgents  = errors.New("the host offers no agents to create a session with")
	errNoChat    = errors.New("no chat open: pick a session and press enter")
	errNoURL     = errors.New("no sign-in URL yet: accept the grant first")
	errNoSignIn  = errors.New("this server does not need sign-in")
	errNoClient  = errors.New("not connected: wait for ready, or press ctrl+r")
	errNothingTo = errors.New("nothing here waits for an answer: ! jumps to what does, [ ] pick a card")
)

// isoTime formats t the way AHP timestamps are written.
func isoTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func (m *Model) dispatch(channel string, v protocol.StateActionVariant) (int64, bool) {
	if m.client == nil {
		m.setError(errNoClient)
		return 0, false
	}
	seq, err := m.client.Dispatch(channel, protocol.NewStateAction(v))
	if err != nil {
		m.setError(fmt.Errorf("could not send %s: %w", protocol.NewStateAction(v).Kind(), err))
		return 0, false
	}
	m.log.Debug("dispatch", "channel", channel, "type", protocol.NewStateAction(v).Kind(), "clientSeq", seq)
	return seq, true
}

// userMessage builds a user message with the session's chosen model.
func (m *Model) userMessage(text string) protocol.Message {
	return protocol.Message{
		Text:   text,
		Origin: protocol.MessageOrigin{Kind: protocol.MessageKindUser},
		Model:  m.models[m.openSession],
	}
}

// submitComposer sends the composer's text as a new turn, or queues it
// behind the running turn.
func (m *Model) submitComposer() tea.Cmd {
	text := strings.TrimSpace(m.composer.Value())
	if text == "" {
		return nil
	}
	if !m.hasChat {
		m.setError(errNoChat)
		return nil
	}
	if m.turnRunning() {
		_, ok := m.dispatch(m.openChat, protocol.ChatPendingMessageSetAction{
			Kind: protocol.PendingMessageKindQueued, ID: m.cfg.NewID(), Message: m.userMessage(text),
		})
		if ok {
			m.composer.Reset()
			m.setStatus("message queued: it starts when the running turn ends")
		}
		return nil
	}
	turnID := m.cfg.NewID()
	now := m.clock()
	_, ok := m.dispatch(m.openChat, protocol.ChatTurnStartedAction{
		TurnID: turnID, StartedAt: isoTime(now), Message: m.userMessage(text),
	})
	if ok {
		m.ourTurns[turnID] = now
		m.composer.Reset()
		m.scroll = 0
		m.setStatus("")
	}
	return nil
}

func (m *Model) cancelTurn() {
	if !m.turnRunning() {
		m.setError(errors.New("no turn is running"))
		return
	}
	t := m.chat.ActiveTurn
	start, ok := m.ourTurns[t.ID]
	if !ok {
		// Not our turn: the host's start stamp is the best we have.
		if ts, err := time.Parse(time.RFC3339Nano, t.StartedAt); err == nil {
			start = ts
		} else {
			start = m.clock()
		}
	}
	d := float64(max(m.clock().Sub(start), 0).Milliseconds())
	if _, ok := m.dispatch(m.openChat, protocol.ChatTurnCancelledAction{TurnID: t.ID, Duration: d}); ok {
		m.setStatus("turn cancelled")
	}
}

func (m *Model) selectedItem() (chatItem, bool) {
	if m.itemSel == "" || !m.hasChat {
		return chatItem{}, false
	}
	for _, it := range m.items() {
		if it.ID == m.itemSel {
			return it, true
		}
	}
	return chatItem{}, false
}

// selectDefaultItem selects the first item that needs the user, so focusing
// the chat puts approve/deny on the card that is waiting.
func (m *Model) selectDefaultItem() {
	if m.itemSel != "" {
		if _, ok := m.selectedItem(); ok {
			return
		}
	}
	if len(m.agentPrompts) > 0 {
		m.itemSel = agentPromptSel
		return
	}
	auth := authRequiredServers(mcpRows(m.sess))
	for _, it := range m.items() {
		if it.needsUser(auth) {
			m.itemSel = it.ID
			return
		}
	}
}

func (m *Model) moveItem(d int) {
	items := m.items()
	ids := make([]string, 0, len(items)+1)
	for _, it := range items {
		ids = append(ids, it.ID)
	}
	if len(m.agentPrompts) > 0 {
		ids = append(ids, agentPromptSel)
	}
	if len(ids) == 0 {
		return
	}
	i := -1
	for j, id := range ids {
		if id == m.itemSel {
			i = j
		}
	}
	switch {
	case i < 0 && d > 0:
		i = 0
	case i < 0:
		i = len(ids) - 1
	default:
		i = max(0, min(len(ids)-1, i+d))
	}
	m.itemSel = ids[i]
	m.scroll = 0
	m.pin = true
}

// approve confirms the selected pending tool call or its result, or opens
// the form of a selected input request.
func (m *Model) approve() tea.Cmd {
	it, ok := m.selectedItem()
	if !ok {
		m.setError(errNothingTo)
		return nil
	}
	switch {
	case it.Kind == itemInput:
		if it.Input.Response != nil {
			m.setError(errors.New("that input request is already answered"))
			return nil
		}
		m.form = newInputForm(m.openChat, it.Input.Request, m.keys.Input)
		m.modal = modalInput
		return nil
	case it.Tool.Status == "pending-confirmation":
		if _, ok := m.dispatch(m.openChat, protocol.ChatToolCallApprovedAction{
			TurnID: it.TurnID, ToolCallID: it.ID, Approved: true,
			Confirmed: protocol.ToolCallConfirmationReasonUserAction,
		}); ok {
			m.setStatus("approved " + it.Tool.Name)
		}
	case it.Tool.Status == "pending-result-confirmation":
		m.confirmResult(it, true)
	default:
		m.setError(fmt.Errorf("%s is %s: nothing to approve", it.Tool.Name, it.Tool.Status))
	}
	return nil
}

func (m *Model) deny() {
	it, ok := m.selectedItem()
	if !ok {
		m.setError(errNothingTo)
		return
	}
	switch {
	case it.Kind == itemInput:
		m.form = newInputForm(m.openChat, it.Input.Request, m.keys.Input)
		m.declineInput()
	case it.Tool.Status == "pending-confirmation":
		if _, ok := m.dispatch(m.openChat, protocol.ChatToolCallDeniedAction{
			TurnID: it.TurnID, ToolCallID: it.ID, Approved: false,
			Reason: string(protocol.ToolCallCancellationReasonDenied),
		}); ok {
			m.setStatus("denied " + it.Tool.Name)
		}
	case it.Tool.Status == "pending-result-confirmation":
		m.confirmResult(it, false)
	default:
		m.setError(fmt.Errorf("%s is %s: nothing to deny", it.Tool.Name, it.Tool.Status))
	}
}

// confirmResult answers the result confirmation of tool call it; approving
// and denying a result differ only in the answer and the word reported.
func (m *Model) confirmResult(it chatItem, approved bool) {
	if _, ok := m.dispatch(m.openChat, protocol.ChatToolCallResultConfirmedAction{
		TurnID: it.TurnID, ToolCallID: it.ID, Approved: approved,
	}); ok {
		verdict := "denied"
		if approved {
			verdict = "approved"
		}
		m.setStatus("result of " + it.Tool.Name + " " + verdict)
	}
}

// blocker is one thing somewhere that waits on the user.
type blocker struct {
	session, chat, item string
}

func (m *Model) blockers() []blocker {
	var out []blocker
	if m.hasSess {
		for _, r := range m.sess.InputNeeded {
			switch v := r.Variant.(type) {
			case protocol.SessionChatInputRequest:
				out = append(out, blocker{m.openSession, v.Chat, v.Request.ID})
			case protocol.SessionToolConfirmationRequest:
				id := ""
				switch tc := v.ToolCall.Variant.(type) {
				case protocol.ToolCallPendingConfirmationState:
					id = tc.ToolCallID
				case protocol.ToolCallPendingResultConfirmationState:
					id = tc.ToolCallID
				}
				out = append(out, blocker{m.openSession, v.Chat, id})
			case protocol.SessionToolAuthenticationRequest:
				out = append(out, blocker{m.openSession, v.Chat, v.ToolCall.ToolCallID})
			}
		}
	}
	for _, s := range m.sessions {
		if s.Resource != m.openSession && s.Status.Has(protocol.SessionStatusInputNeeded) {
			out = append(out, blocker{session: s.Resource})
		}
	}
	return out
}

// jumpTargets is blockers plus what the open chat shows as waiting but the
// host has not (yet) listed in the session's inputNeeded, so ! reaches every
// card that offers keys.
func (m *Model) jumpTargets() []blocker {
	all := m.blockers()
	var out, others []blocker
	for _, b := range all {
		if b.session == m.openSession && b.item != "" {
			out = append(out, b)
		} else {
			others = append(others, b)
		}
	}
	if m.hasChat {
		listed := map[string]bool{}
		for _, b := range out {
			if b.chat == m.openChat {
				listed[b.item] = true
			}
		}
		auth := authRequiredServers(mcpRows(m.sess))
		for _, it := range m.items() {
			if it.needsUser(auth) && !listed[it.ID] {
				out = append(out, blocker{m.openSession, m.openChat, it.ID})
			}
		}
	}
	return append(out, others...)
}

// nextBlocker jumps to the next thing waiting for the user: opens its
// session and chat and selects the card.
func (m *Model) nextBlocker() tea.Cmd {
	bs := m.jumpTargets()
	if len(bs) == 0 {
		m.setStatus("nothing is waiting for you")
		return nil
	}
	// Continue after the selected card; from anywhere else start at the
	// first target, so the first ! lands on what waits here.
	next := 0
	for i, b := range bs {
		if b.session == m.openSession && b.item != "" && b.item == m.itemSel {
			next = i + 1
		}
	}
	m.blockerAt = next % len(bs)
	b := bs[m.blockerAt]
	m.focus = focusChat
	if b.session != m.openSession {
		return m.openSessionCmd(b.session)
	}
	m.itemSel = b.item
	m.scroll = 0
	m.pin = true
	if b.chat != "" && b.chat != m.openChat {
		cmd := m.switchChat(b.chat)
		m.itemSel = b.item
		return cmd
	}
	return nil
}

func (m *Model) nextChat() tea.Cmd {
	if !m.hasSess || len(m.sess.Chats) < 2 {
		m.setStatus("this session has one chat")
		return nil
	}
	i := 0
	for j, c := range m.sess.Chats {
		if c.Resource == m.openChat {
			i = j
		}
	}
	return m.switchChat(m.sess.Chats[(i+1)%len(m.sess.Chats)].Resource)
}

type mcpVerb int

const (
	mcpStart mcpVerb = iota
	mcpStop
	mcpToggle
)

func (m *Model) mcpAction(rows []mcpRow, verb mcpVerb) tea.Cmd {
	if m.mcpSel >= len(rows) {
		m.setError(errors.New("no MCP server selected"))
		return nil
	}
	r := rows[m.mcpSel]
	var v protocol.StateActionVariant
	var label string
	switch verb {
	case mcpStart:
		v, label = protocol.SessionMcpServerStartRequestedAction{ID: r.ID}, "starting"
		if r.StateKind == "ready" {
			label = "restarting"
		}
	case mcpStop:
		v, label = protocol.SessionMcpServerStopRequestedAction{ID: r.ID}, "stopping"
	case mcpToggle:
		v = protocol.SessionCustomizationToggledAction{ID: r.ID, Enabled: !r.Enabled}
		label = map[bool]string{true: "enabling", false: "disabling"}[!r.Enabled]
	}
	seq, ok := m.dispatch(m.openSession, v)
	if !ok {
		return nil
	}
	m.pendingMCP[seq] = pendingOp{server: r.ID, verb: label, channel: m.openSession}
	return tea.Tick(pendingTimeout, func(time.Time) tea.Msg { return settleMsg{seq: seq} })
}

func (m *Model) disposeCmd(uri string) tea.Cmd {
	c, ctx := m.client, m.ctx
	if c == nil {
		m.setError(errNoClient)
		return nil
	}
	if uri == m.openSession {
		m.openSession, m.hasSess, m.openChat, m.hasChat = "", false, "", false
	}
	return func() tea.Msg {
		return opDoneMsg{what: "dispose session", err: c.DisposeSession(ctx, uri)}
	}
}

// newChoices lists every agent × model the root state offers (an agent
// without models is one choice with the host's default model).
func (m *Model) newChoices() []newChoice {
	var out []newChoice
	for _, a := range m.root.Agents {
		if len(a.Models) == 0 {
			out = append(out, newChoice{provider: a.Provider, agentName: a.DisplayName})
			continue
		}
		for _, md := range a.Models {
			out = append(out, newChoice{provider: a.Provider, agentName: a.DisplayName,
				model: &protocol.ModelSelection{ID: md.ID}, modelName: md.Name})
		}
	}
	return out
}

func (m *Model) createSessionCmd(ch newChoice) tea.Cmd {
	c, ctx := m.client, m.ctx
	if c == nil {
		m.setError(errNoClient)
		return nil
	}
	uri := "ahp-session:/" + m.cfg.NewID()
	m.models[uri] = ch.model
	provider := ch.provider
	m.setStatus("creating session…")
	return func() tea.Msg {
		err := c.CreateSession(ctx, protocol.CreateSessionParams{Channel: uri, Provider: &provider})
		return opDoneMsg{what: "create session", err: err, session: uri}
	}
}

// toggleExpand opens or closes the selected card's full input and result;
// with no card selected it opens or closes the reasoning of the latest
// turn (reasoning is collapsed by default).
func (m *Model) toggleExpand() {
	if m.itemSel != "" && m.itemSel != agentPromptSel {
		m.expanded[m.itemSel] = !m.expanded[m.itemSel]
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
	if at := m.chat.ActiveTurn; at != nil && hasReasoning(at.ResponseParts) {
		parts = at.ResponseParts
	} else {
		for i := len(m.chat.Turns) - 1; i >= 0 && parts == nil; i-- {
			if hasReasoning(m.chat.Turns[i].ResponseParts) {
				parts = m.chat.Turns[i].ResponseParts
			}
		}
	}
	var ids []string
	open := true
	for _, p := range parts {
		if r, ok := p.Variant.(protocol.ReasoningResponsePart); ok {
			ids = append(ids, r.ID)
			open = open && m.expanded[r.ID]
		}
	}
	if len(ids) == 0 {
		m.setStatus("nothing to expand: [ ] pick a card, i writes a message")
		return
	}
	for _, id := range ids {
		m.expanded[id] = !open
	}
}
