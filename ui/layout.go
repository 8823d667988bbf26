package ui

import (
	"slices"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/ahptui/ahptui/keymap"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

// View draws the whole screen.
func (m *Model) View() tea.View {
	content := m.Render()
	if m.closed {
		// Quitting: the last frame is blank. On leaving the alternate
		// screen a terminal that was resized meanwhile (tmux) may carry
		// the alternate screen's rows into the normal one; blank rows
		// leave no panel borders behind.
		content = ""
	}
	v := tea.NewView(content)
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	// While a sign-in URL is on screen, let the terminal have the mouse so
	// the user can select and copy the URL (wheel scrolling pauses).
	for _, g := range m.signin.grants {
		if g.phase == grantWaiting && g.url != "" {
			v.MouseMode = tea.MouseModeNone
		}
	}
	v.WindowTitle = "ahptui"
	// Signals go out only while we are not in front (signal.go).
	v.ReportFocus = true
	return v
}

// Render is the screen as a string, exactly width×height cells; View wraps
// it. Tests and goldens call it directly.
func (m *Model) Render() string {
	l := m.fittedLayout()
	if l.Width <= 0 || l.Height <= 0 {
		return ""
	}
	overlay := m.overlay()
	if overlay != "" {
		// An overlay as large as the screen (the ? list at 80x24, a
		// sheet on a small terminal) hides everything under it: drawing
		// the panels and composing them would be half a frame's work
		// for nothing seen.
		if w, h := lipgloss.Size(overlay); w == l.Width && h == l.Height {
			return overlay
		}
	}
	panels := []views.ScreenPanel{
		{Rect: l.Sessions, Lines: m.sessionsView(l.Sessions.W, l.Sessions.H)},
		{Rect: l.Chat, Lines: m.chatPanel.view(l.Chat)},
	}
	if !l.MCP.Empty() {
		panels = append(panels, views.ScreenPanel{Rect: l.MCP, Lines: m.mcp.view(l.MCP.W, l.MCP.H)})
	}
	return views.ComposeScreen(l, panels, m.helpLine(), m.status.view(m.th, m.cfg.Host, len(m.chatPanel.blockers()), l.Width, m.clock(), m.questionWaits()), overlay)
}

// fittedLayout gives the chat the rows the MCP strip under it does not
// need for the open session's servers while it is not focused, so a short
// terminal keeps every line of transcript it can. It only reads: Update
// stores its result in m.layout, and Render asks it afresh.
func (m *Model) fittedLayout() views.Layout {
	l := m.baseLayout
	// Focused, the panel takes the rows the selected server's error or
	// sign-in detail needs under the list, and no more.
	if l.MCPBelow && m.hasSess {
		need := max(views.MinMCPBelow, m.mcp.fit(l.MCP.W, l.MCP.H))
		if d := l.MCP.H - need; d > 0 {
			l.MCP.Y += d
			l.MCP.H -= d
			l.Chat.H += d
			if !l.Sessions.Empty() {
				l.Sessions.H += d
			}
		}
	}
	return l
}

// settle brings the state View reads in line after a message: the fitted
// layout, the MCP selection within the panel's rows, and the scroll that
// shows a card the selection just moved to. View then only draws.
func (m *Model) settle() {
	m.layout = m.fittedLayout()
	m.mcp.sel = clampCursor(m.mcp.sel, len(m.signin.servers()))
	m.keys.SetBlockingSelected(m.mcp.blockingSelected())
	m.keys.SetChatCreation(m.chats.caps())
	m.chatPanel.settle(m.layout.Chat)
	m.settleGuards()
}

func (m *Model) helpLine() string {
	if m.grantFooter() {
		// Cut, not fitted: its keys are all the overlay's own.
		return m.help.ShortHelpView(m.hintBindings())
	}
	return views.FitShortHelp(m.help, m.keys.Global, m.hintBindings(), m.width)
}

// grantFooter reports whether the footer is the waiting sign-in's.
func (m *Model) grantFooter() bool {
	ctx := m.context()
	return m.modal == modalNone && ctx != keymap.ContextConfirm && ctx != keymap.ContextSignIns && ctx != keymap.ContextPaste &&
		ctx != keymap.ContextMessages && m.signin.waitingGrant() != nil
}

// hintBindings is what the footer offers: the short help of the context
// that has the keys (keymap.Help), with approve and deny said the way the
// selected card says them (keymap.ChatKeys.Answers) and left out when they
// would act on nothing.
func (m *Model) hintBindings() []key.Binding {
	ctx := m.context()
	if m.grantFooter() {
		return []key.Binding{m.keys.Grant.Cancel, m.keys.Grant.CopyURL, m.keys.Grant.ShowURL, m.keys.Grant.Paste, m.keys.Global.Quit}
	}
	short := m.keys.Help(ctx).ShortHelp()
	if m.modal == modalNone && m.focus == focusChat && m.chatPanel.guard.active(m.clock()) && ctx != keymap.ContextMessages {
		// The card's keys work once the guard's second is over: offered then.
		return nil
	}
	if ctx == keymap.ContextInput && m.form != nil && m.form.setting != nil {
		return append(m.keys.Input.SettingHelp(), m.keys.Global.Interrupt)
	}
	if ctx == keymap.ContextComposer && m.chatPanel.editing != nil {
		// Editing a pending message: enter saves it where it is.
		return relabel(short, map[key.Help]string{m.keys.Composer.Send.Help(): "save", m.keys.Composer.Queue.Help(): "save"})
	}
	if ctx == keymap.ContextNewSession && m.sessions.cfgStep == nil {
		// The picker's enter goes on to the settings; it creates there.
		return relabel(short, map[key.Help]string{m.keys.NewSession.Create.Help(): "continue"})
	}
	if ctx == keymap.ContextChatGrant && m.chatPanel.sel.prompt && len(m.signin.prompts) > 0 {
		// The agent's sign-in prompt: enter takes its first way, n
		// dismisses it (it comes back while the agent needs it).
		out := relabel(short, map[key.Help]string{m.keys.Grant.Decline.Help(): "dismiss"})
		for i, b := range out {
			if b.Help() == m.keys.Grant.Accept.Help() {
				out[i].SetHelp("enter", m.signin.firstOfferWords(m.signin.prompts[0]))
			}
		}
		return out
	}
	if ctx == keymap.ContextResources && len(m.resources.attachments()) == 0 {
		// Nothing to read: enter would do nothing.
		return slices.DeleteFunc(slices.Clone(short), func(b key.Binding) bool { return views.SameKeys(b, m.keys.Resources.Read) })
	}
	if ctx != keymap.ContextChat {
		return short
	}
	// a/y and x act on the selected card, or on the newest blocker when
	// nothing is selected: offered only when that waits on the user, in
	// the words its card uses.
	it, ok := m.chatPanel.selectedItem()
	if !ok {
		it, ok = m.chatPanel.newestBlocker()
	}
	live := ok && it.needsUser(m.signin.waitingServers())
	approve, deny := m.keys.Chat.Answers(answerOf(it))
	out := make([]key.Binding, 0, len(short)+3)
	// The selected card's own keys, where they act on it (issue 36:
	// the footer never named e, w or o): after the chat's own keys,
	// before the sheets (keymap.More), so a narrow footer drops them last.
	// What only this card does (its terminal, its subagent's chat) comes
	// first, so a narrow footer drops the keys every card has (e, Y)
	// before it.
	var card []key.Binding
	if sel, ok := m.chatPanel.selectedItem(); ok && sel.Kind == itemToolCall {
		if sel.Tool.SubagentChat() != "" {
			card = append(card, m.keys.Chat.Subagent)
		}
		if _, ok := sel.Tool.TerminalRef(); ok {
			card = append(card, m.keys.Chat.Terminal)
		}
		card = append(card, m.keys.Chat.ToggleExpand, m.keys.Chat.Copy)
	}
	more := m.keys.More(ctx)
	for _, b := range short {
		if len(card) > 0 && len(more) > 0 && views.SameKeys(b, more[0]) {
			out, card = append(out, card...), nil
		}
		switch {
		case views.SameKeys(b, m.keys.Chat.Approve):
			b = approve
		case views.SameKeys(b, m.keys.Chat.Deny):
			b = deny
		default:
			out = append(out, b)
			continue
		}
		if live {
			out = append(out, b)
		}
	}
	return out
}

// answerOf is what approve and deny do to it.
func answerOf(it chatItem) keymap.Answer {
	switch {
	case it.Kind == itemInput:
		return keymap.AnswerInput
	case it.Tool.Status() == protocol.ToolCallStatusPendingResultConfirmation:
		return keymap.AnswerResult
	}
	return keymap.AnswerToolCall
}

// overlay is what covers the panels, if anything: the full help, a
// dialog, the input form or the sign-in URL of a waiting flow.
func (m *Model) overlay() string {
	maxW := views.DialogWidth(m.width)
	switch {
	case m.showAll:
		return m.fullHelpLaidOut().Render(m.th, m.keys, m.helpOffset)
	case m.showMsgs:
		// Centred and four rows short of the screen, the history leaves
		// the footer and the status line it is the history of in view.
		return views.RenderMessageHistory(m.th, m.keys, m.status.history, m.width, max(5, m.height-4))
	case m.modal == modalConfirmQuit:
		return views.RenderQuitDialog(m.th, m.keys, m.chatPanel.composer.Value() != "", m.chatPanel.waitingHere(), maxW)
	case m.modal == modalWiden && m.widen != nil:
		return views.RenderWidenDialog(m.th, m.keys, m.widen.view, maxW)
	case m.modal == modalConfirmDispose:
		return views.RenderDisposeDialog(m.th, m.keys, m.sessions.confirmTitle(), maxW)
	case m.modal == modalNewSession && m.sessions.cfgStep != nil:
		return views.RenderSessionConfigDialog(m.th, m.keys, m.sessions.configAgent(), m.sessions.configRows(), m.sessions.cfgStep.sel, m.sessions.cfgStep.loading, maxW, m.height)
	case m.modal == modalNewSession:
		return views.RenderNewSessionDialog(m.th, m.keys, m.sessions.newChoiceViews(), m.sessions.newSel, maxW, m.height)
	case m.modal == modalInput && m.form != nil:
		return views.RenderInputRequest(m.th, m.form.request, m.form.state, maxW)
	}
	if a, ok := m.signin.pendingAsk(); ok && m.askShown() {
		return views.RenderAsk(m.th, m.keys, a.view, maxW)
	}
	if m.settings.open {
		return m.settings.view(m.width, m.height)
	}
	if m.queue.open {
		return m.queue.view(min(m.width, proseSheetWidth), m.height)
	}
	if m.chats.open {
		return m.chats.view(min(m.width, proseSheetWidth), m.height)
	}
	if m.resources.open {
		return m.resources.view()
	}
	if m.inbox.open {
		return views.RenderInbox(m.th, m.keys, m.inboxRows(), m.inbox.sel, m.width, m.height)
	}
	if m.terms.open {
		return m.terms.view(m.width, m.height)
	}
	if m.changes.open {
		return m.changes.view(m.width, m.height)
	}
	if m.signin.list.open {
		return views.RenderSignIns(m.th, m.keys, m.signin.signInRows(), m.signin.list.sel, m.signin.listNote(), m.signin.forgetText(), m.signin.forgetQuestion(), m.clock(), m.width, m.height)
	}
	if g := m.signin.waitingGrant(); g != nil {
		return views.RenderGrantOverlay(m.th, m.signin.overlayView(g), m.width, m.height)
	}
	if f := m.signin.agent.token; f.open && !m.signin.tokenInChat() {
		// A token opened elsewhere than the agent's prompt in the chat
		// (an MCP server, a card, the sign-in sheet): a sheet draws it.
		return views.RenderTokenSheet(m.th, m.keys, f.resource, f.in.View(), min(m.width, proseSheetWidth))
	}
	return ""
}

// composerHeight is the composer's height in lines while it holds a draft
// (composerLines).
const composerHeight = 3

// sheetWheel scrolls the open sheet that covers the chat (a terminal, the
// changes view's diff), if one is open.
func (m *Model) sheetWheel(down bool) bool {
	switch {
	case m.terms.open:
		d := -3
		if down {
			d = 3
		}
		m.terms.scrollBy(d)
	case m.changes.open:
		m.changes.wheel(down)
	default:
		return false
	}
	return true
}

// openHelp opens the ? overlay on the keys of where the keyboard is now.
// It lays the list out afresh: the key map may have changed since the
// last time.
func (m *Model) openHelp() {
	m.helpHere = m.context()
	m.showAll = true
	m.fullHelp = nil
}

// fullHelpLaidOut is the open overlay's list laid out for the screen,
// kept while the screen's size and theme stay: laying it out walks the
// whole key map (milliseconds; seconds under -race), and a frame is drawn
// for every key and every event while the overlay is up.
func (m *Model) fullHelpLaidOut() views.FullHelp {
	f := m.fullHelp
	if f == nil || f.Here != m.helpHere || f.Width != m.width || f.Height != m.height || m.fullHelpGen != m.themeGen {
		laid := views.NewFullHelp(m.th, m.help, m.keys, m.helpHere, m.width, m.height)
		m.fullHelp, m.fullHelpGen = &laid, m.themeGen
	}
	return *m.fullHelp
}

// relabel is short with the bindings whose help is a key of desc saying
// that instead: what the key does here (a copy; the key map is shared).
func relabel(short []key.Binding, desc map[key.Help]string) []key.Binding {
	out := slices.Clone(short)
	for i, b := range out {
		if d, ok := desc[b.Help()]; ok {
			out[i].SetHelp(b.Help().Key, d)
		}
	}
	return out
}
