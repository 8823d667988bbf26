package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
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
		{l.Sessions, m.sessions.renderSessions(l.Sessions.W, l.Sessions.H)},
		{l.Chat, m.chatPanel.renderChat(l.Chat)},
	}
	if !l.MCP.Empty() {
		panels = append(panels, panel{l.MCP, m.mcp.renderMCP(l.MCP.W, l.MCP.H)})
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
		// The compositor drops trailing blank cells; the screen stays
		// exactly width×height so every frame overwrites the last.
		lines := strings.Split(out, "\n")
		for i := range lines {
			lines[i] = fit(lines[i], l.Width)
		}
		out = strings.Join(lines, "\n")
	}
	return out
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
		need := max(views.MinMCPBelow, views.MCPPanelHeight(m.th, mcpRows(m.sess), l.MCP.W))
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
	m.mcp.sel = max(0, min(m.mcp.sel, len(mcpRows(m.sess))-1))
	if !m.chatPanel.pin || m.openSession == "" || !m.hasChat {
		return
	}
	m.chatPanel.pin = false
	if m.chatPanel.sel.item == "" {
		return
	}
	_, _, w, h := m.chatPanel.chatParts(m.layout.Chat)
	opts := m.chatPanel.transcriptOptions()
	tr := m.chatPanel.transcript()
	// Counted from the end, so only the turns below the card render:
	// the first selection on a long chat does not draw the whole chat.
	if fromEnd, height, ok := tr.LocateToolCallFromEnd(w, opts, m.chatPanel.sel.item); ok {
		// The viewport shows lines [fromEnd of scroll+h, scroll) counted
		// from the end; scroll only when the card is not all inside.
		if fromEnd > m.chatPanel.scroll+h || fromEnd-height < m.chatPanel.scroll {
			m.chatPanel.scroll = max(fromEnd-h, 0)
		}
	}
}

func (m *Model) statusBar() views.StatusBar {
	sb := views.StatusBar{
		Host: m.cfg.Host, ProtocolVersion: m.status.conn.version, State: m.status.conn.state,
		Attempt: m.status.conn.attempt, Cause: m.status.conn.cause,
		FailedReason: m.status.conn.failedReason, FailedHint: m.status.conn.failedHint,
		NeedsInput: len(m.chatPanel.blockers()), Message: m.status.text, MessageIsError: m.status.isErr,
	}
	return sb
}

func (m *Model) helpLine() string {
	if m.modal == modalNone && m.signin.waitingGrant() != nil {
		return m.help.ShortHelpView([]key.Binding{m.keys.Grant.Cancel, m.keys.Grant.CopyURL, m.keys.Global.Quit})
	}
	ctx := m.context()
	short := m.keys.Help(ctx).ShortHelp()
	if ctx == keymap.ContextChat {
		// a/y and x act on the selected card, or on the newest blocker when
		// nothing is selected: offer them only when that waits on the user,
		// and on an input request say they answer and decline it rather than
		// "approve"/"deny", which name tool-call verbs.
		it, ok := m.chatPanel.selectedItem()
		if !ok {
			it, ok = m.chatPanel.newestBlocker()
		}
		live := ok && it.needsUser(authRequiredServers(mcpRows(m.sess)))
		out := make([]key.Binding, 0, len(short))
		for _, b := range short {
			answer := sameKeys(b, m.keys.Chat.Approve) || sameKeys(b, m.keys.Chat.Deny)
			if answer && !live {
				continue
			}
			if answer && it.Kind == itemInput {
				desc := "answer"
				if sameKeys(b, m.keys.Chat.Deny) {
					desc = "decline"
				}
				b.SetHelp(b.Help().Key, desc)
			}
			out = append(out, b)
		}
		short = out
	}
	return m.fitHelp(short)
}

// fitHelp renders the short help in the terminal's width. When it does not
// fit it drops the view's own hints from the end first and the global ones
// after, never "? help": that is where every other key is listed, so it
// must survive the narrowest terminal.
func (m *Model) fitHelp(short []key.Binding) string {
	measure := m.help
	measure.SetWidth(0)
	short = append([]key.Binding(nil), short...)
	isHelp := func(b key.Binding) bool { return sameKeys(b, m.keys.Global.Help) }
	isGlobal := func(b key.Binding) bool {
		g := m.keys.Global
		return isHelp(b) || sameKeys(b, g.Quit) || sameKeys(b, g.Interrupt)
	}
	for lipgloss.Width(measure.ShortHelpView(short)) > m.width {
		drop := -1
		for i := len(short) - 1; i >= 0 && drop < 0; i-- {
			if !isGlobal(short[i]) {
				drop = i
			}
		}
		for i := len(short) - 1; i >= 0 && drop < 0; i-- {
			if !isHelp(short[i]) {
				drop = i
			}
		}
		if drop < 0 {
			break
		}
		short = append(short[:drop], short[drop+1:]...)
	}
	return m.help.ShortHelpView(short)
}

func (m *Model) overlay() string {
	th := m.th
	maxW := max(20, min(m.width-4, 72))
	switch {
	case m.showAll:
		return m.fullHelp()
	case m.modal == modalConfirmDispose:
		title := m.sessions.confirm
		for _, s := range m.sessions.list {
			if s.Resource == m.sessions.confirm {
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
		choices := m.sessions.newChoices()
		body := []string{th.Muted.Render("Pick the agent and model:")}
		for i, c := range choices {
			label := views.SanitizeLine(c.agentName)
			if c.modelName != "" {
				label += " · " + views.SanitizeLine(c.modelName)
			}
			if i == m.sessions.newSel {
				body = append(body, th.Selected.Render("▸ "+label))
			} else {
				body = append(body, "  "+label)
			}
		}
		body = append(body, "", m.hints(true, m.keys.Sessions.Open, "create", m.keys.Confirm.No, "cancel"))
		return strings.Join(drawBox(th.PanelFocused, th.PanelTitleFocused.Render("New session"), body, min(maxW, 60), min(m.height, len(body)+2)), "\n")
	case m.modal == modalInput && m.form != nil:
		return views.RenderInputRequest(m.th, m.form.request, m.form.state, maxW)
	}
	if g := m.signin.waitingGrant(); g != nil {
		gv := views.GrantView{Phase: views.GrantWaiting, Resource: g.resource}
		if name := g.requirement.Resource.ResourceName; name != "" {
			gv.Resource = name + " (" + g.resource + ")"
		}
		m.signin.applyFlow(&gv, g)
		return views.RenderGrantOverlay(th, gv, m.width, m.height)
	}
	return ""
}

// fullHelp is the ? overlay: every binding of the keymap, one bubbles/help
// column per view, flowed into as many columns as the screen holds.
func (m *Model) fullHelp() string {
	th := m.th
	k := m.keys
	sections := []struct {
		title  string
		groups [][]key.Binding
	}{
		{"Everywhere", k.Global.FullHelp()}, {"Sessions", k.Sessions.FullHelp()}, {"Chat", k.Chat.FullHelp()},
		{"Composer", k.Composer.FullHelp()}, {"MCP servers", k.MCP.FullHelp()}, {"Sign-in prompt", k.Grant.FullHelp()},
		{"Input form", append(k.Input.FullHelp(), k.Input.ChoiceHelp(), k.Input.BooleanHelp())}, {"Confirm", k.Confirm.FullHelp()},
	}
	h := m.help
	h.ShowAll = true
	h.SetWidth(0)
	var blocks [][]string
	for _, sec := range sections {
		var flat []key.Binding
		for _, g := range sec.groups {
			for _, b := range g {
				switch {
				case len(b.Keys()) == 0:
					continue
				case sameKeys(b, k.Composer.Queue) && b.Help() == k.Composer.Queue.Help():
					// Send and Queue share enter, one enabled at a time: one
					// line says both.
					continue
				case sameKeys(b, k.Composer.Send) && b.Help() == k.Composer.Send.Help():
					b.SetHelp(b.Help().Key, b.Help().Desc+" (while a turn runs: "+k.Composer.Queue.Help().Desc+")")
				}
				b.SetEnabled(true)
				flat = append(flat, b)
			}
		}
		block := []string{th.Title.Render(sec.title)}
		block = append(block, strings.Split(h.FullHelpView([][]key.Binding{flat}), "\n")...)
		blocks = append(blocks, append(block, ""))
	}
	maxRows := max(6, m.height-6)
	var cols [][]string
	var col []string
	for _, b := range blocks {
		if len(col) > 0 && len(col)+len(b) > maxRows {
			cols = append(cols, col)
			col = nil
		}
		col = append(col, b...)
	}
	cols = append(cols, col)
	rows := 0
	for _, c := range cols {
		rows = max(rows, len(c))
	}
	var parts []string
	for i, c := range cols {
		w := 0
		for _, l := range c {
			w = max(w, lipgloss.Width(l))
		}
		var b strings.Builder
		for r := range rows {
			if r > 0 {
				b.WriteByte('\n')
			}
			l := ""
			if r < len(c) {
				l = c[r]
			}
			b.WriteString(fit(l, w))
			if i < len(cols)-1 {
				b.WriteString("   ")
			}
		}
		parts = append(parts, b.String())
	}
	body := strings.Split(lipgloss.JoinHorizontal(lipgloss.Top, parts...), "\n")
	body = append(body, th.Muted.Render("any key closes this help"))
	w := 0
	for _, l := range body {
		w = max(w, lipgloss.Width(l))
	}
	w = min(m.width, w+4)
	return strings.Join(drawBox(th.PanelFocused, th.PanelTitleFocused.Render("Keys"), indentAll(body), w, min(m.height, len(body)+2)), "\n")
}

const composerHeight = 3
