package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/keymap"
	"github.com/ahptui/ahptui/views"
)

// View draws the whole screen.
func (m *Model) View() tea.View {
	v := tea.NewView(m.Render())
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
	return v
}

// Render is the screen as a string, exactly width×height cells; View wraps
// it. Tests and goldens call it directly.
func (m *Model) Render() string {
	l := m.fittedLayout()
	if l.Width <= 0 || l.Height <= 0 {
		return ""
	}
	panels := []views.ScreenPanel{
		{Rect: l.Sessions, Lines: m.sessions.view(l.Sessions.W, l.Sessions.H)},
		{Rect: l.Chat, Lines: m.chatPanel.view(l.Chat)},
	}
	if !l.MCP.Empty() {
		panels = append(panels, views.ScreenPanel{Rect: l.MCP, Lines: m.mcp.view(l.MCP.W, l.MCP.H)})
	}
	return views.ComposeScreen(l, panels, m.helpLine(), m.status.view(m.th, m.cfg.Host, len(m.chatPanel.blockers()), l.Width, m.clock(), m.questionWaits()), m.overlay())
}

// fittedLayout gives the chat the rows the MCP strip under it does not
// need for the open session's servers while it is not focused, so a short
// terminal keeps every line of transcript it can. It only reads: Update
// stores its result in m.layout, and Render asks it afresh.
func (m *Model) fittedLayout() views.Layout {
	l := m.baseLayout
	// Focused, the panel keeps its rows: there the selected server's error
	// or sign-in detail shows under the list.
	if l.MCPBelow && m.hasSess && m.focus != focusMCP {
		need := max(views.MinMCPBelow, views.MCPPanelHeight(m.th, m.signin.servers(), l.MCP.W))
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
	m.mcp.sel = max(0, min(m.mcp.sel, len(m.signin.servers())-1))
	m.keys.SetBlockingSelected(m.mcp.blockingSelected())
	m.chatPanel.settle(m.layout.Chat)
	m.settleGuards()
}

func (m *Model) helpLine() string {
	ctx := m.context()
	if m.modal == modalNone && ctx != keymap.ContextConfirm && ctx != keymap.ContextSignIns && ctx != keymap.ContextPaste && m.signin.waitingGrant() != nil {
		return m.help.ShortHelpView([]key.Binding{m.keys.Grant.Cancel, m.keys.Grant.CopyURL, m.keys.Grant.ShowURL, m.keys.Grant.Paste, m.keys.Global.Quit})
	}
	short := m.keys.Help(ctx).ShortHelp()
	if m.modal == modalNone && m.focus == focusChat && m.chatPanel.guard.active(m.clock()) {
		// The card's keys work once the guard's second is over: offered then.
		short = nil
	}
	if ctx == keymap.ContextChat {
		// a/y and x act on the selected card, or on the newest blocker when
		// nothing is selected: offer them only when that waits on the user,
		// and on an input request say they answer and decline it rather than
		// "approve"/"deny", which name tool-call verbs.
		it, ok := m.chatPanel.selectedItem()
		if !ok {
			it, ok = m.chatPanel.newestBlocker()
		}
		live := ok && it.needsUser(m.signin.waitingServers())
		out := make([]key.Binding, 0, len(short))
		for _, b := range short {
			answer := views.SameKeys(b, m.keys.Chat.Approve) || views.SameKeys(b, m.keys.Chat.Deny)
			if answer && !live {
				continue
			}
			if answer && it.Kind == itemInput {
				desc := "answer"
				if views.SameKeys(b, m.keys.Chat.Deny) {
					desc = "decline"
				}
				b.SetHelp(b.Help().Key, desc)
			}
			out = append(out, b)
		}
		short = out
	}
	if ctx == keymap.ContextInput && m.form != nil && m.form.setting != nil {
		// A setting's form: esc cancels, and there is nothing to decline.
		out := make([]key.Binding, 0, len(short))
		for _, b := range short {
			switch {
			case views.SameKeys(b, m.keys.Input.Decline):
				continue
			case views.SameKeys(b, m.keys.Input.Close):
				b.SetHelp(b.Help().Key, "cancel")
			}
			out = append(out, b)
		}
		short = out
	}
	return views.FitShortHelp(m.help, m.keys.Global, short, m.width)
}

// overlay is what covers the panels, if anything: the full help, a
// dialog, the input form or the sign-in URL of a waiting flow.
func (m *Model) overlay() string {
	maxW := views.DialogWidth(m.width)
	switch {
	case m.showAll:
		return views.RenderFullHelp(m.th, m.help, m.keys, m.width, m.height, m.helpOffset)
	case m.showMsgs:
		return views.RenderMessageHistory(m.th, m.keys, m.status.history, m.width, m.height)
	case m.modal == modalConfirmQuit:
		return views.RenderQuitDialog(m.th, m.keys, m.chatPanel.composer.Value() != "", m.chatPanel.waitingHere(), maxW)
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
	if m.signin.list.open {
		return views.RenderSignIns(m.th, m.keys, m.signin.signInRows(), m.signin.list.sel, m.signin.listNote(), m.signin.forgetText(), m.signin.forgetQuestion(), m.clock(), m.width, m.height)
	}
	if g := m.signin.waitingGrant(); g != nil {
		return views.RenderGrantOverlay(m.th, m.signin.overlayView(g), m.width, m.height)
	}
	return ""
}

// composerHeight is the composer's height in lines while it holds a draft
// (composerLines).
const composerHeight = 3
