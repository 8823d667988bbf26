package ui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

// View draws the whole screen.
func (m *Model) View() tea.View {
	v := tea.NewView(m.Render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "ahptui"
	return v
}

// Render is the screen as a string, exactly width×height cells; View wraps
// it. Tests and goldens call it directly.
func (m *Model) Render() string {
	l := m.layout
	if l.Width <= 0 || l.Height <= 0 {
		return ""
	}
	screen := make([]string, l.Height)
	blank := strings.Repeat(" ", l.Width)
	for i := range screen {
		screen[i] = ""
	}
	type panel struct {
		r     views.Rect
		lines []string
	}
	panels := []panel{
		{l.Sessions, m.renderSessions(l.Sessions.W, l.Sessions.H)},
		{l.Chat, m.renderChat(l.Chat.W, l.Chat.H)},
	}
	if !l.MCP.Empty() {
		panels = append(panels, panel{l.MCP, m.renderMCP(l.MCP.W, l.MCP.H)})
	}
	// Panels tile the screen left to right within each row band, so
	// appending in X order builds every line.
	for _, p := range panels {
		if p.r.Empty() {
			continue
		}
		for i := 0; i < p.r.H && i < len(p.lines); i++ {
			screen[p.r.Y+i] += p.lines[i]
		}
	}
	if !l.Help.Empty() {
		screen[l.Help.Y] = fit(m.helpLine(), l.Width)
	}
	screen[l.Status.Y] = views.RenderStatusBar(m.th, m.statusBar(), l.Width)
	for i := range screen {
		if screen[i] == "" {
			screen[i] = blank
		}
	}
	out := strings.Join(screen, "\n")
	if ov := m.overlay(); ov != "" {
		w, h := lipgloss.Size(ov)
		x, y := max(0, (l.Width-w)/2), max(0, (l.Height-h)/2)
		base := lipgloss.NewLayer(out)
		top := lipgloss.NewLayer(ov).X(x).Y(y).Z(1)
		out = lipgloss.NewCompositor(base, top).Render()
	}
	return out
}

// fit truncates or pads s to exactly w cells.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	s = views.Truncate(s, w)
	if d := w - lipgloss.Width(s); d > 0 {
		s += strings.Repeat(" ", d)
	}
	return s
}

func (m *Model) statusBar() views.StatusBar {
	sb := views.StatusBar{
		Host: m.cfg.Host, ProtocolVersion: m.conn.version, State: m.conn.state,
		Attempt: m.conn.attempt, Cause: m.conn.cause,
		FailedReason: m.conn.failedReason, FailedHint: m.conn.failedHint,
		NeedsInput: len(m.blockers()), Message: m.status, MessageIsError: m.isErr,
	}
	return sb
}

func (m *Model) helpLine() string {
	ctx := m.context()
	return m.help.ShortHelpView(m.keys.Help(ctx).ShortHelp())
}

// box draws a bordered panel of exactly w×h cells with title in the top
// border; body lines are cut or padded to the inside width.
func (m *Model) box(title string, body []string, w, h int, focused bool) []string {
	if w < 2 || h < 2 {
		return nil
	}
	st, tst := m.th.Panel, m.th.PanelTitle
	if focused {
		st, tst = m.th.PanelFocused, m.th.PanelTitleFocused
	}
	return drawBox(st, tst.Render(title), body, w, h)
}

func drawBox(st lipgloss.Style, title string, body []string, w, h int) []string {
	b := st.GetBorderStyle()
	bc := lipgloss.NewStyle().Foreground(st.GetBorderTopForeground())
	inner := w - 2
	top := b.TopLeft
	if title != "" && inner > 4 {
		t := views.Truncate(title, inner-3)
		top += b.Top + " " + t + " "
		top += strings.Repeat(b.Top, max(0, inner-3-lipgloss.Width(t)))
	} else {
		top += strings.Repeat(b.Top, inner)
	}
	out := make([]string, 0, h)
	out = append(out, bc.Render(top+b.TopRight))
	left, right := bc.Render(b.Left), bc.Render(b.Right)
	for i := 0; i < h-2; i++ {
		line := ""
		if i < len(body) {
			line = body[i]
		}
		out = append(out, left+fit(line, inner)+right)
	}
	out = append(out, bc.Render(b.BottomLeft+strings.Repeat(b.Bottom, inner)+b.BottomRight))
	return out
}

// age renders how long ago an ISO 8601 timestamp was, compactly.
func (m *Model) age(ts string) string {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return ""
	}
	d := m.clock().Sub(t)
	switch {
	case d < time.Minute:
		return "now"
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

func (m *Model) sessionStatus(st protocol.SessionStatus) (string, lipgloss.Style) {
	switch {
	case st.Has(protocol.SessionStatusInputNeeded):
		return "! needs input", m.th.Warning.Bold(true)
	case st.Has(protocol.SessionStatusError):
		return "✗ error", m.th.Error
	case st.Has(protocol.SessionStatusInProgress):
		return "◐ working", m.th.Info
	}
	return "· idle", m.th.Muted
}

func (m *Model) renderSessions(w, h int) []string {
	if w <= 0 || h <= 0 {
		return nil
	}
	inner := w - 2
	var body []string
	if len(m.sessions) == 0 {
		switch {
		case m.client == nil:
			body = append(body, m.th.Muted.Render("waiting for the host…"))
		default:
			body = append(body, m.th.Muted.Render("no sessions yet"), m.th.Muted.Render("press n to create one"))
		}
	}
	rows := (h - 2) / 2
	start := 0
	if m.sessSel >= rows && rows > 0 {
		start = m.sessSel - rows + 1
	}
	for i := start; i < len(m.sessions) && len(body) < h-2; i++ {
		s := m.sessions[i]
		mark := "  "
		if s.Resource == m.openSession {
			mark = "▸ "
		}
		title := views.SanitizeLine(s.Title)
		if title == "" {
			title = views.SanitizeLine(s.Resource)
		}
		label, st := m.sessionStatus(s.Status)
		detail := label
		if s.Activity != nil && *s.Activity != "" && !s.Status.Has(protocol.SessionStatusInputNeeded) {
			detail = views.SanitizeLine(*s.Activity)
		}
		ageS := m.age(s.ModifiedAt)
		l1 := fit(mark+title, inner)
		dw := max(0, inner-2-lipgloss.Width(ageS)-1)
		l2 := "  " + fit(st.Render(views.Truncate(detail, dw)), dw) + " " + m.th.Muted.Render(ageS)
		if i == m.sessSel && m.focus == focusSessions {
			l1 = m.th.Selected.Render(fit(mark+title, inner))
		} else if s.Resource == m.openSession {
			l1 = m.th.Title.Render(l1)
		}
		body = append(body, l1, l2)
	}
	title := fmt.Sprintf("Sessions (%d)", len(m.sessions))
	return m.box(title, body, w, h, m.focus == focusSessions)
}

// ---- chat panel ----

func (m *Model) transcriptHeight() int {
	h := m.layout.Chat.H - 2 - 1 - (composerHeight + 1) - len(m.blockerLines(1<<20))
	return max(1, h)
}

func (m *Model) chatTitle() string {
	if !m.hasSess {
		return "Chat"
	}
	t := views.SanitizeLine(m.sess.Title)
	if len(m.sess.Chats) > 1 {
		for i, c := range m.sess.Chats {
			if c.Resource == m.openChat {
				t += fmt.Sprintf(" · chat %d/%d %s", i+1, len(m.sess.Chats), views.SanitizeLine(c.Title))
			}
		}
	}
	return t
}

func (m *Model) renderChat(w, h int) []string {
	if w <= 0 || h <= 0 {
		return nil
	}
	inner := w - 2
	focused := m.focus == focusChat || m.focus == focusComposer
	var body []string
	if m.openSession == "" {
		body = append(body, "", m.th.Muted.Render(" Select a session and press enter to open it,"),
			m.th.Muted.Render(" or press n for a new one."))
		return m.box("Chat", body, w, h, focused)
	}
	if !m.hasChat {
		body = append(body, m.th.Muted.Render(" opening…"))
		return m.box(m.chatTitle(), body, w, h, focused)
	}
	// Header: status and activity of the chat.
	head := m.chatHeader(inner)
	body = append(body, head)
	bl := m.blockerLines(3)
	body = append(body, bl...)
	th := max(1, h-2-len(body)-(composerHeight+1))
	body = append(body, m.transcriptWindow(inner, th)...)
	for len(body) < h-2-(composerHeight+1) {
		body = append(body, "")
	}
	body = append(body, m.th.Subtle.Render(strings.Repeat("─", inner)))
	body = append(body, strings.Split(m.composerView(), "\n")...)
	return m.box(m.chatTitle(), body, w, h, focused)
}

func (m *Model) chatHeader(w int) string {
	label, st := m.sessionStatus(m.chat.Status)
	parts := st.Render(label)
	if m.chat.Activity != nil && *m.chat.Activity != "" {
		parts += m.th.Muted.Render(" · " + views.SanitizeLine(*m.chat.Activity))
	}
	if n := len(m.chat.QueuedMessages); n > 0 {
		parts += m.th.Muted.Render(fmt.Sprintf(" · %d queued", n))
	}
	if m.scroll > 0 {
		parts += m.th.Muted.Render(" · scrolled (end to follow)")
	}
	return fit(parts, w)
}

func (m *Model) composerView() string {
	if m.chat.Interactivity != nil && *m.chat.Interactivity != protocol.ChatInteractivityFull {
		return m.th.Muted.Render(" this chat is read-only") + "\n\n"
	}
	return m.composer.View()
}

// blockerLines lists the open session's inputNeeded entries (views of what
// waits on the user), at most limit lines.
func (m *Model) blockerLines(limit int) []string {
	if !m.hasSess || len(m.sess.InputNeeded) == 0 {
		return nil
	}
	inner := m.layout.Chat.W - 2
	var out []string
	for i, r := range m.sess.InputNeeded {
		if len(out) == limit-1 && len(m.sess.InputNeeded)-i > 1 {
			out = append(out, m.th.Warning.Render(fmt.Sprintf(" ! …and %d more (press ! to jump)", len(m.sess.InputNeeded)-i)))
			break
		}
		var what string
		switch v := r.Variant.(type) {
		case protocol.SessionChatInputRequest:
			what = "input requested: " + views.SanitizeLine(deref(v.Request.Message))
		case protocol.SessionToolConfirmationRequest:
			switch tc := v.ToolCall.Variant.(type) {
			case protocol.ToolCallPendingConfirmationState:
				what = views.SanitizeLine(tc.ToolName) + " awaits approval"
			case protocol.ToolCallPendingResultConfirmationState:
				what = views.SanitizeLine(tc.ToolName) + " result awaits approval"
			default:
				what = "a tool call awaits confirmation"
			}
		case protocol.SessionToolAuthenticationRequest:
			what = views.SanitizeLine(v.ToolCall.ToolName) + " needs sign-in to " + views.SanitizeLine(v.ToolCall.Auth.Resource.Resource)
		case protocol.SessionToolClientExecutionRequest:
			what = "a tool waits for client " + views.SanitizeLine(v.ClientId)
		default:
			what = "waiting: " + views.SanitizeLine(r.Kind())
		}
		out = append(out, fit(m.th.Warning.Render(" ! "+what), inner))
	}
	return out
}

// transcriptWindow renders the visible slice of the transcript.
func (m *Model) transcriptWindow(w, h int) []string {
	lines, selAt := m.transcriptLines(w)
	total := len(lines)
	if m.cache.pin && selAt >= 0 {
		// Keep the selected card in view: scroll so it sits in the window.
		bottom := total - m.scroll
		if selAt < bottom-h || selAt >= bottom {
			m.scroll = max(0, total-selAt-h/2)
		}
	}
	m.cache.pin = false
	m.scroll = max(0, min(m.scroll, total-h))
	end := total - m.scroll
	start := max(0, end-h)
	return lines[start:end]
}

func (m *Model) transcriptLines(w int) ([]string, int) {
	m.cache.check(w)
	var out []string
	selAt := -1
	for i := range m.chat.Turns {
		t := &m.chat.Turns[i]
		lines, items := m.cache.turn(m, t, w)
		if m.itemSel != "" {
			if off, ok := items[m.itemSel]; ok {
				selAt = len(out) + off
			}
		}
		out = append(out, lines...)
	}
	if at := m.chat.ActiveTurn; at != nil {
		lines, items := m.renderTurn(at.Id, at.Message, at.ResponseParts, "", nil, w, true)
		if off, ok := items[m.itemSel]; ok && m.itemSel != "" {
			selAt = len(out) + off
		}
		out = append(out, lines...)
	}
	for _, q := range m.chat.QueuedMessages {
		out = append(out, fit(m.th.Muted.Render("⏳ queued: "+views.SanitizeLine(q.Message.Text)), w))
	}
	if m.chat.SteeringMessage != nil {
		out = append(out, fit(m.th.Muted.Render("↪ steering: "+views.SanitizeLine(m.chat.SteeringMessage.Message.Text)), w))
	}
	for i, p := range m.agentPrompts {
		if i == 0 && m.itemSel == agentPromptSel {
			selAt = len(out)
		}
		out = append(out, m.renderAgentPrompt(p, w, i == 0 && m.itemSel == agentPromptSel)...)
	}
	if len(out) == 0 {
		out = append(out, m.th.Muted.Render(" No messages yet. Press i to write one."))
	}
	return out, selAt
}

func wrap(s string, w int) []string {
	if w <= 0 {
		return nil
	}
	return strings.Split(lipgloss.Wrap(s, w, ""), "\n")
}

func indent(lines []string, n int) []string {
	pad := strings.Repeat(" ", n)
	for i := range lines {
		lines[i] = pad + lines[i]
	}
	return lines
}

// renderTurn draws one turn. items maps every selectable item id in it to
// its first line, for scrolling to a selection.
func (m *Model) renderTurn(id string, msg protocol.Message, parts []protocol.ResponsePart, state protocol.TurnState, turnErr *protocol.ErrorInfo, w int, active bool) ([]string, map[string]int) {
	th := m.th
	items := map[string]int{}
	var out []string
	out = append(out, th.UserLabel.Render("You"))
	for _, l := range wrap(views.Sanitize(msg.Text), w-2) {
		out = append(out, "  "+th.UserMessage.Render(l))
	}
	agent := "Agent"
	if active {
		agent += th.Muted.Render(" · working…")
	}
	out = append(out, th.AgentLabel.Render("Agent")+strings.TrimPrefix(agent, "Agent"))
	for _, p := range parts {
		switch v := p.Variant.(type) {
		case protocol.MarkdownResponsePart:
			for _, l := range wrap(views.Sanitize(v.Content.String()), w-2) {
				out = append(out, "  "+th.AgentMessage.Render(l))
			}
		case protocol.ReasoningResponsePart:
			if m.expanded[""] {
				for _, l := range wrap(views.Sanitize(v.Content.String()), w-4) {
					out = append(out, "  "+th.Reasoning.Render("┊ "+l))
				}
			} else {
				out = append(out, "  "+th.Reasoning.Render(fmt.Sprintf("▸ thinking (%d chars, e to expand)", v.Content.Len())))
			}
		case protocol.ToolCallResponsePart:
			tc := flattenToolCall(v.ToolCall)
			items[tc.ID] = len(out)
			out = append(out, indent(m.renderToolCard(chatItem{Kind: itemToolCall, ID: tc.ID, TurnID: id, Active: active, Tool: tc}, w-2), 2)...)
		case protocol.InputRequestResponsePart:
			items[v.Request.Id] = len(out)
			out = append(out, indent(m.renderInputCard(v, w-2, active), 2)...)
		case protocol.SystemNotificationResponsePart:
			for _, l := range wrap(views.Sanitize(v.Content.Value), w-4) {
				out = append(out, "  "+th.Info.Render("ℹ "+l))
			}
		case protocol.ResourceReponsePart:
			out = append(out, "  "+th.Muted.Render("[content "+views.SanitizeLine(v.Uri)+"]"))
		}
	}
	switch state {
	case protocol.TurnStateCancelled:
		out = append(out, "  "+th.Warning.Render("⊘ turn cancelled"))
	case protocol.TurnStateError:
		msg := "turn failed"
		if turnErr != nil {
			msg += ": " + views.SanitizeLine(turnErr.Message)
		}
		for _, l := range wrap(msg, w-4) {
			out = append(out, "  "+th.Error.Render("✗ "+l))
		}
	}
	out = append(out, "")
	return out, items
}

func (m *Model) renderToolCard(it chatItem, w int) []string {
	th := m.th
	tc := it.Tool
	selected := m.itemSel == it.ID && m.focus == focusChat
	inner := max(4, w-4)
	var body []string
	badge := th.ToolCallBadge(tc.Status, tc.Failed)
	name := views.SanitizeLine(tc.Display)
	if name == "" {
		name = views.SanitizeLine(tc.Name)
	}
	body = append(body, badge.String()+"  "+th.Title.Render(name))
	if tc.Invocation != "" {
		for _, l := range wrap(views.Sanitize(tc.Invocation), inner) {
			body = append(body, th.Muted.Render(l))
		}
	}
	if m.expanded[it.ID] {
		if tc.Input != "" {
			body = append(body, th.Subtle.Render("input:"))
			body = append(body, capLines(wrap(views.Sanitize(tc.Input), inner), 12)...)
		}
		if tc.Result != "" {
			body = append(body, th.Subtle.Render("result:"))
			body = append(body, capLines(wrap(views.Sanitize(tc.Result), inner), 12)...)
		}
	} else if tc.Result != "" && tc.Status != "running" {
		body = append(body, th.Muted.Render(views.Truncate(views.SanitizeLine(tc.Result), inner)))
	}
	if tc.ErrMsg != "" {
		for _, l := range wrap(views.Sanitize(tc.ErrMsg), inner) {
			body = append(body, th.Error.Render(l))
		}
	}
	grantReq := m.itemGrantRequirement(it)
	switch {
	case grantReq != nil && it.Active:
		body = append(body, "")
		body = append(body, m.grantPromptLines(*grantReq, inner, selected)...)
	case tc.Status == "pending-confirmation" && it.Active:
		body = append(body, m.hints(selected, m.keys.Chat.Approve, "approve", m.keys.Chat.Deny, "deny"))
	case tc.Status == "pending-result-confirmation" && it.Active:
		body = append(body, m.hints(selected, m.keys.Chat.Approve, "accept result", m.keys.Chat.Deny, "reject result"))
	}
	st := th.Panel
	if grantReq != nil && it.Active {
		st = th.GrantBox.UnsetPadding()
	}
	if selected {
		st = th.PanelFocused
	}
	title := ""
	if selected {
		title = th.PanelTitleFocused.Render("selected")
	}
	// The card is as tall as its body.
	lines := make([]string, 0, len(body))
	for _, b := range body {
		lines = append(lines, " "+b)
	}
	return drawBox(st, title, lines, w, len(lines)+2)
}

func capLines(l []string, n int) []string {
	if len(l) <= n {
		return l
	}
	return append(l[:n:n], fmt.Sprintf("… %d more lines", len(l)-n))
}

// hints renders inline key hints ("a/y approve · x deny"), dimmed unless
// the card is selected (the keys act on the selection only).
func (m *Model) hints(selected bool, pairs ...any) string {
	var parts []string
	for i := 0; i+1 < len(pairs); i += 2 {
		k := helpKeyOf(pairs[i])
		parts = append(parts, m.th.HelpKey.Render(k)+" "+m.th.HelpDesc.Render(pairs[i+1].(string)))
	}
	s := strings.Join(parts, m.th.Subtle.Render(" · "))
	if !selected {
		s = m.th.Subtle.Render("select with [ ] to answer: ") + s
	}
	return s
}

func (m *Model) renderInputCard(p protocol.InputRequestResponsePart, w int, active bool) []string {
	th := m.th
	inner := max(4, w-4)
	selected := m.itemSel == p.Request.Id && m.focus == focusChat
	var body []string
	head := th.Warning.Bold(true).Render("? Input requested")
	if p.Response != nil {
		head = th.Muted.Render("? Input request · " + string(*p.Response))
	}
	body = append(body, head)
	if p.Request.Message != nil {
		body = append(body, wrap(views.Sanitize(*p.Request.Message), inner)...)
	}
	if p.Request.Url != nil {
		body = append(body, wrap(th.GrantURL.Render(views.SanitizeLine(*p.Request.Url)), inner)...)
	}
	for i, q := range p.Request.Questions {
		_, title, msg, req := questionBase(q)
		label := title
		if label == "" {
			label = msg
		}
		if req {
			label += " *"
		}
		body = append(body, th.Text.Render(fmt.Sprintf("%d. %s", i+1, views.SanitizeLine(label))))
	}
	if p.Response == nil && active {
		body = append(body, m.hints(selected, m.keys.Chat.Approve, "answer", m.keys.Chat.Deny, "decline"))
	}
	st := th.Panel
	if selected {
		st = th.PanelFocused
	}
	lines := make([]string, 0, len(body))
	for _, b := range body {
		lines = append(lines, " "+b)
	}
	return drawBox(st, "", lines, w, len(lines)+2)
}

func resourceName(r protocol.ProtectedResourceMetadata) string {
	name := views.SanitizeLine(deref(r.Resource_name))
	if name == "" {
		return views.SanitizeLine(r.Resource)
	}
	return name + " (" + views.SanitizeLine(r.Resource) + ")"
}

// grantPromptLines is the inline "grant additional access" prompt: what is
// asked for, then the flow's phase with the keys that act on it.
func (m *Model) grantPromptLines(req protocol.McpAuthRequirement, w int, selected bool) []string {
	th := m.th
	var out []string
	out = append(out, th.GrantTitle.Render("🔑 Grant additional access"))
	out = append(out, wrap(th.Text.Render("Resource: ")+resourceName(req.Resource), w)...)
	reason := string(req.Reason)
	switch req.Reason {
	case protocol.McpAuthRequiredReasonInsufficientScope:
		reason = "more access needed (insufficientScope)"
	case protocol.McpAuthRequiredReasonExpired:
		reason = "sign-in expired"
	case protocol.McpAuthRequiredReasonRequired:
		reason = "sign-in required"
	}
	out = append(out, "Reason: "+views.SanitizeLine(reason))
	scopes := req.RequiredScopes
	if len(scopes) == 0 {
		scopes = req.Resource.Scopes_supported
	}
	if len(scopes) > 0 {
		out = append(out, wrap("Scopes: "+views.SanitizeLine(strings.Join(scopes, " ")), w)...)
	}
	if req.Description != nil && *req.Description != "" {
		out = append(out, wrap(th.Muted.Render(views.Sanitize(*req.Description)), w)...)
	}
	out = append(out, m.flowLines(m.grants[req.Resource.Resource], w, selected, true)...)
	return out
}

func (m *Model) flowLines(g *grantFlow, w int, selected, declinable bool) []string {
	th := m.th
	k := m.keys.Grant
	var out []string
	prompt := func() string {
		if declinable {
			return m.hints(selected, k.Accept, "grant access", k.Decline, "decline")
		}
		return m.hints(selected, k.Accept, "sign in")
	}
	if g == nil {
		return append(out, prompt())
	}
	switch g.phase {
	case grantPrompt:
		out = append(out, prompt())
	case grantStarting:
		out = append(out, th.Info.Render("◐ Contacting the authorization server…"), m.hints(selected, k.Cancel, "cancel"))
	case grantWaiting:
		if g.url == "" {
			out = append(out, th.Info.Render("◐ Finishing sign-in…"))
			break
		}
		switch {
		case g.browserErr != nil:
			out = append(out, th.Warning.Render("Browser not opened ("+views.SanitizeLine(g.browserErr.Error())+")."))
			out = append(out, "Open this URL to sign in:")
		case g.browserSeen:
			out = append(out, th.Info.Render("◐ Browser opened: finish signing in there."), "Or open this URL:")
		default:
			out = append(out, th.Info.Render("◐ Opening the browser…"), "Sign-in URL:")
		}
		// The URL is shown whole, hard-wrapped, never truncated: a user
		// on SSH copies it into a browser elsewhere.
		u := views.SanitizeLine(g.url)
		for len(u) > 0 {
			n := min(len(u), max(1, w))
			out = append(out, th.GrantURL.Render(u[:n]))
			u = u[n:]
		}
		out = append(out, m.hints(selected, k.Cancel, "cancel sign-in", k.CopyURL, "copy URL"))
	case grantPushing:
		out = append(out, th.Info.Render("◐ Signed in; sending the token to the host…"))
	case grantDone:
		out = append(out, th.Success.Render("✓ Access granted."))
	case grantFailed:
		msg := "sign-in failed"
		if g.err != nil {
			msg += ": " + g.err.Error()
		}
		out = append(out, wrap(th.Error.Render("✗ "+views.SanitizeLine(msg)), w)...)
		out = append(out, prompt())
	case grantCancelled:
		out = append(out, th.Warning.Render("⊘ Sign-in cancelled."), prompt())
	}
	return out
}

func (m *Model) renderAgentPrompt(p agentPrompt, w int, selected bool) []string {
	th := m.th
	inner := max(4, w-4)
	var body []string
	body = append(body, th.GrantTitle.Render("🔑 The agent needs you to sign in"))
	req := m.agentRequirement(p)
	name := views.SanitizeLine(req.Resource.ResourceName)
	res := views.SanitizeLine(p.resource)
	if name != "" {
		res = name + " (" + res + ")"
	}
	body = append(body, wrap("Resource: "+res, inner)...)
	if p.reason != "" {
		body = append(body, "Reason: "+views.SanitizeLine(p.reason))
	}
	if len(req.Resource.ScopesSupported) > 0 {
		body = append(body, wrap("Scopes: "+views.SanitizeLine(strings.Join(req.Resource.ScopesSupported, " ")), inner)...)
	}
	body = append(body, m.flowLines(m.grants[p.resource], inner, selected, true)...)
	st := th.GrantBox.UnsetPadding()
	if selected {
		st = th.PanelFocused
	}
	lines := make([]string, 0, len(body))
	for _, b := range body {
		lines = append(lines, " "+b)
	}
	return drawBox(st, "", lines, w, len(lines)+2)
}

// ---- MCP panel ----

func (m *Model) renderMCP(w, h int) []string {
	if w <= 0 || h <= 0 {
		return nil
	}
	inner := w - 2
	focused := m.focus == focusMCP
	rows := mcpRows(m.sess)
	var body []string
	if !m.hasSess {
		body = append(body, m.th.Muted.Render("open a session to see"), m.th.Muted.Render("its MCP servers"))
		return m.box("MCP servers", body, w, h, focused)
	}
	if len(rows) == 0 {
		body = append(body, m.th.Muted.Render("no MCP servers"))
	}
	m.mcpSel = max(0, min(m.mcpSel, len(rows)-1))
	avail := h - 2
	detail := m.mcpDetail(rows, inner)
	if avail-len(rows) >= len(detail)+1 && len(detail) > 0 {
		avail -= len(detail) + 1
	} else {
		detail = nil
	}
	start := 0
	if m.mcpSel >= avail {
		start = m.mcpSel - avail + 1
	}
	for i := start; i < len(rows) && len(body) < avail; i++ {
		body = append(body, m.mcpRowLine(rows[i], inner, i == m.mcpSel && focused))
	}
	if detail != nil {
		for len(body) < avail {
			body = append(body, "")
		}
		body = append(body, m.th.Subtle.Render(strings.Repeat("─", inner)))
		body = append(body, detail...)
	}
	return m.box(fmt.Sprintf("MCP servers (%d)", countServers(rows)), body, w, h, focused)
}

func countServers(rows []mcpRow) int {
	n := 0
	for _, r := range rows {
		if r.Server {
			n++
		}
	}
	return n
}

func (m *Model) mcpRowLine(r mcpRow, w int, selected bool) string {
	th := m.th
	name := strings.Repeat("  ", r.Depth) + views.SanitizeLine(r.Name)
	var badge string
	if p, ok := m.pendingMCP[r.ID]; ok {
		badge = th.Info.Render("⟳ " + p.verb + "…")
	} else if r.Server {
		if !r.Enabled {
			badge = th.EnabledBadge(false).String()
		} else {
			badge = th.McpBadge(r.Kind, r.Reason).String()
		}
	} else {
		badge = th.EnabledBadge(r.Enabled).String()
		name += th.Muted.Render(" (plugin)")
	}
	bw := lipgloss.Width(badge)
	nw := max(1, w-bw-1)
	line := fit(name, nw) + " " + badge
	if selected {
		return th.Selected.Render(fit(ansiStrip(name), nw)) + " " + badge
	}
	return line
}

func (m *Model) mcpDetail(rows []mcpRow, w int) []string {
	if m.mcpSel >= len(rows) {
		return nil
	}
	r := rows[m.mcpSel]
	th := m.th
	var out []string
	switch {
	case r.ErrMsg != "":
		out = append(out, capLines(wrap(th.Error.Render(views.SanitizeLine(r.ErrMsg)), w), 2)...)
		out = append(out, m.hints(true, m.keys.MCP.Start, "restart"))
	case r.Auth != nil:
		out = append(out, views.Truncate(th.Text.Render("Sign in: ")+resourceName(r.Auth.Resource), w))
		if len(r.Auth.RequiredScopes) > 0 {
			out = append(out, views.Truncate("Scopes: "+views.SanitizeLine(strings.Join(r.Auth.RequiredScopes, " ")), w))
		}
		if g := m.grants[r.Auth.Resource.Resource]; g != nil && g.phase != grantPrompt {
			fl := m.flowLines(g, w, true, false)
			out = append(out, fl...)
		} else {
			out = append(out, m.hints(true, m.keys.MCP.SignIn, "sign in"))
		}
	default:
		return nil
	}
	return out
}

// ---- overlays ----

func (m *Model) overlay() string {
	th := m.th
	maxW := max(20, min(m.width-4, 72))
	switch {
	case m.showAll:
		h := m.help
		h.ShowAll = true
		h.SetWidth(maxW - 4)
		body := strings.Split(h.FullHelpView(m.keys.FullHelp()), "\n")
		body = append(body, "", th.Muted.Render("any key closes this help"))
		return strings.Join(drawBox(th.PanelFocused, th.PanelTitleFocused.Render("Keys"), body, min(m.width, maxW+8), min(m.height, len(body)+2)), "\n")
	case m.modal == modalConfirmDispose:
		title := m.confirm
		for _, s := range m.sessions {
			if s.Resource == m.confirm {
				title = s.Title
			}
		}
		body := []string{
			"Dispose session " + th.Title.Render("“"+views.SanitizeLine(title)+"”") + "?",
			th.Muted.Render("Its chats end and the host forgets it."),
			"",
			m.hints(true, m.keys.Confirm.Yes, "dispose", m.keys.Confirm.No, "keep"),
		}
		return strings.Join(drawBox(th.PanelFocused, th.PanelTitleFocused.Render("Dispose"), body, min(maxW, 60), len(body)+2), "\n")
	case m.modal == modalNewSession:
		choices := m.newChoices()
		body := []string{th.Muted.Render("Pick the agent and model:")}
		for i, c := range choices {
			label := views.SanitizeLine(c.agentName)
			if c.modelName != "" {
				label += " · " + views.SanitizeLine(c.modelName)
			}
			if i == m.newSel {
				body = append(body, th.Selected.Render("▸ "+label))
			} else {
				body = append(body, "  "+label)
			}
		}
		body = append(body, "", m.hints(true, m.keys.Sessions.Open, "create", m.keys.Confirm.No, "cancel"))
		return strings.Join(drawBox(th.PanelFocused, th.PanelTitleFocused.Render("New session"), body, min(maxW, 60), min(m.height, len(body)+2)), "\n")
	case m.modal == modalInput && m.form != nil:
		return m.renderForm(maxW)
	}
	return ""
}

func (m *Model) renderForm(w int) string {
	th := m.th
	f := m.form
	inner := w - 4
	var body []string
	if f.request.Message != nil {
		body = append(body, wrap(views.Sanitize(*f.request.Message), inner)...)
	}
	if f.request.Url != nil {
		body = append(body, th.GrantURL.Render(views.SanitizeLine(*f.request.Url)))
	}
	for i, q := range f.request.Questions {
		_, title, msg, req := questionBase(q)
		label := views.SanitizeLine(title)
		if label == "" {
			label = views.SanitizeLine(msg)
		}
		if req {
			label += " *"
		}
		st := th.Text
		if i == f.idx {
			st = th.Title
		}
		body = append(body, "", st.Render(label))
		if title != "" && msg != "" {
			body = append(body, wrap(th.Muted.Render(views.Sanitize(msg)), inner)...)
		}
		switch q.Variant.(type) {
		case protocol.ChatInputBooleanQuestion:
			body = append(body, th.Muted.Render("yes or no"))
		case protocol.ChatInputMultiSelectQuestion:
			body = append(body, th.Muted.Render("numbers, comma-separated"))
		}
		for j, o := range questionOptions(q) {
			body = append(body, th.Muted.Render(fmt.Sprintf("  %d) %s", j+1, views.SanitizeLine(o.Label))))
		}
		f.fields[i].SetWidth(max(4, inner-4))
		body = append(body, f.fields[i].View())
	}
	if f.err != "" {
		body = append(body, "", th.Error.Render(views.SanitizeLine(f.err)))
	}
	body = append(body, "", m.hints(true, m.keys.Input.NextField, "next", m.keys.Input.Submit, "submit", m.keys.Input.Decline, "decline"))
	return strings.Join(drawBox(th.PanelFocused, th.PanelTitleFocused.Render("Input requested"), body, w, min(m.height, len(body)+2)), "\n")
}

func helpKeyOf(v any) string {
	if b, ok := v.(key.Binding); ok {
		return b.Help().Key
	}
	return fmt.Sprint(v)
}

func ansiStrip(s string) string { return ansi.Strip(s) }
