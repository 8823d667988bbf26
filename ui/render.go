package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/keymap"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

// View draws the whole screen.
func (m *Model) View() tea.View {
	v := tea.NewView(m.Render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	// While a sign-in URL is on screen, let the terminal have the mouse so
	// the user can select and copy the URL (wheel scrolling pauses).
	for _, g := range m.grants {
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
	m.fitMCPStrip()
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

// fitMCPStrip gives the chat the rows the MCP strip under it does not need
// for the open session's servers while it is not focused, so a short
// terminal keeps every line of transcript it can.
func (m *Model) fitMCPStrip() {
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
	m.layout = l
}

// fit truncates or pads s to exactly w cells.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	// Measuring a styled line walks its grapheme clusters; fit runs on
	// every line of every panel per frame, so measure once when it fits.
	sw := lipgloss.Width(s)
	if sw > w {
		s = views.Truncate(s, w)
		sw = lipgloss.Width(s)
	}
	if d := w - sw; d > 0 {
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
	if m.modal == modalNone && m.waitingGrant() != nil {
		return m.help.ShortHelpView([]key.Binding{m.keys.Grant.Cancel, m.keys.Grant.CopyURL, m.keys.Global.Quit})
	}
	ctx := m.context()
	short := m.keys.Help(ctx).ShortHelp()
	if ctx == keymap.ContextChat {
		// a/y and x act on the selected card, or on the newest blocker when
		// nothing is selected: offer them only when that waits on the user,
		// and on an input request say they answer and decline it rather than
		// "approve"/"deny", which name tool-call verbs.
		it, ok := m.selectedItem()
		if !ok {
			it, ok = m.newestBlocker()
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

func sameKeys(a, b key.Binding) bool {
	return strings.Join(a.Keys(), "\x00") == strings.Join(b.Keys(), "\x00")
}

// box frames a panel exactly w×h cells the way views frames the MCP panel:
// border, one cell of padding, the title on the first inside line. It draws
// the frame by hand: lipgloss's general Render costs a third of a frame on
// a large chat, and this is on every key press.
func (m *Model) box(title string, body []string, w, h int, focused bool) []string {
	if w < 4 || h < 3 {
		return nil
	}
	frame, tst := m.th.Panel, m.th.PanelTitle
	if focused {
		frame, tst = m.th.PanelFocused, m.th.PanelTitleFocused
	}
	b := frame.GetBorderStyle()
	bc := lipgloss.NewStyle().Foreground(frame.GetBorderTopForeground())
	inner := w - 4
	left, right := bc.Render(b.Left)+" ", " "+bc.Render(b.Right)
	out := make([]string, 0, h)
	out = append(out, bc.Render(b.TopLeft+strings.Repeat(b.Top, w-2)+b.TopRight))
	out = append(out, left+fit(tst.Render(views.Truncate(title, inner)), inner)+right)
	for i := 0; i < h-3; i++ {
		line := ""
		if i < len(body) {
			line = body[i]
		}
		out = append(out, left+fit(line, inner)+right)
	}
	out = append(out, bc.Render(b.BottomLeft+strings.Repeat(b.Bottom, w-2)+b.BottomRight))
	return out
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

func (m *Model) renderSessions(w, h int) []string {
	if w <= 0 || h <= 0 {
		return nil
	}
	inner, innerH := w-4, h-3
	title := fmt.Sprintf("Sessions (%d)", len(m.sessions))
	var body string
	if m.client == nil && len(m.sessions) == 0 {
		body = m.th.Muted.Render("waiting for the host…")
	} else {
		body = views.RenderSessionList(m.th, m.sessions, m.sessSel, inner, innerH, m.clock())
	}
	// Mark the open session: the list highlights the cursor, not what is open.
	return m.box(title, strings.Split(body, "\n"), w, h, m.focus == focusSessions)
}

// ---- chat panel ----

func (m *Model) transcriptHeight() int {
	return max(1, m.layout.Chat.H-3-1-(composerHeight+1)-len(m.inputNeededLines()))
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
	inner, innerH := w-4, h-3
	focused := m.focus == focusChat || m.focus == focusComposer
	var body []string
	if m.openSession == "" {
		body = append(body, "", m.th.Muted.Render("Select a session and press enter to open it,"),
			m.th.Muted.Render("or press n for a new one."))
		return m.box("Chat", body, w, h, focused)
	}
	if !m.hasChat {
		body = append(body, m.th.Muted.Render("opening…"))
		return m.box(m.chatTitle(), body, w, h, focused)
	}
	body = append(body, m.chatHeader(inner))
	body = append(body, m.inputNeededLines()...)
	var prompts []string
	for i, p := range m.agentPrompts {
		prompts = append(prompts, strings.Split(views.RenderGrant(m.th, m.agentGrantView(p), inner), "\n")...)
		if i == 0 && m.itemSel == agentPromptSel && m.focus == focusChat {
			prompts = append(prompts, m.hints(true, m.keys.Grant.Accept, "sign in", m.keys.Grant.Decline, "dismiss"))
		}
	}
	th := max(1, innerH-len(body)-len(prompts)-(composerHeight+1))
	body = append(body, strings.Split(m.transcriptView(inner, th), "\n")...)
	body = append(body, prompts...)
	for len(body) < innerH-(composerHeight+1) {
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

func (m *Model) sessionStatus(st protocol.SessionStatus) (string, lipgloss.Style) {
	switch {
	case st.Has(protocol.SessionStatusInputNeeded):
		return "◆ needs input", m.th.Warning.Bold(true) // the session list's glyph
	case st.Has(protocol.SessionStatusError):
		return "✗ error", m.th.Error
	case st.Has(protocol.SessionStatusInProgress):
		return "◐ working", m.th.Info
	}
	return "· idle", m.th.Muted
}

func (m *Model) composerView() string {
	if m.chat.Interactivity != nil && *m.chat.Interactivity != protocol.ChatInteractivityFull {
		return m.th.Muted.Render("this chat is read-only") + "\n\n"
	}
	if m.composer.Focused() {
		return m.composer.View()
	}
	// Blurred, the composer shows no cursor and cannot change; the textarea
	// measures every cell when drawn, a sixth of a frame, so keys that act
	// on the transcript reuse its last drawing.
	key := fmt.Sprintf("%d|%d|%d|%d|%d|%d|%s", m.composer.Width(), m.composer.Height(), m.composer.ScrollYOffset(),
		m.composer.Line(), m.composer.Column(), m.themeGen, m.composer.Value())
	if m.composerMemo.key != key || len(m.composerMemo.lines) != 1 {
		m.composerMemo.key = key
		m.composerMemo.lines = []string{m.composer.View()}
	}
	return m.composerMemo.lines[0]
}

// inputNeededLines lists the open session's blockers (at most a third of
// the chat), so a watcher sees everything that waits on them.
func (m *Model) inputNeededLines() []string {
	if !m.hasSess || len(m.sess.InputNeeded) == 0 {
		return nil
	}
	limit := max(2, m.layout.Chat.H/4)
	s := views.RenderInputNeeded(m.th, m.sess.InputNeeded, -1, max(1, m.layout.Chat.W-4))
	lines := strings.Split(s, "\n")
	if len(lines) > limit {
		lines = append(lines[:limit-1], m.th.Warning.Render(fmt.Sprintf("…and more: press %s to jump", m.keys.Chat.NextBlocker.Help().Key)))
	}
	return lines
}

// transcriptOptions is the view state the transcript draws with: the
// selected card, what is expanded, and the grant prompt of every card that
// asks for access — an auth-required call, or a running call whose MCP
// server flipped to authRequired (the prompt sits on that call's card).
func (m *Model) transcriptOptions() views.TranscriptOptions {
	opts := views.TranscriptOptions{Expanded: m.expanded}
	if m.focus == focusChat {
		opts.SelectedToolCall = m.itemSel
	}
	auth := authRequiredServers(mcpRows(m.sess))
	if m.focus == focusComposer {
		// The card's keys are transcript keys: say how to get there.
		reach := fmt.Sprintf("%s then %s to answer", m.keys.Composer.Cancel.Help().Key, m.keys.Chat.NextBlocker.Help().Key)
		for _, it := range m.items() {
			if it.needsUser(auth) {
				if opts.Reach == nil {
					opts.Reach = map[string]string{}
				}
				opts.Reach[it.ID] = reach
			}
		}
	}
	for _, it := range m.items() {
		if !it.Active || it.Kind != itemToolCall {
			continue
		}
		if it.Tool.Status != "auth-required" && !(it.Tool.Status == "running" && auth[it.Tool.Server]) {
			continue
		}
		if req := m.itemGrantRequirement(it); req != nil {
			if opts.Grant == nil {
				opts.Grant = map[string]views.GrantView{}
			}
			opts.Grant[it.ID] = m.grantView(*req)
		}
	}
	return opts
}

func (m *Model) transcriptView(w, h int) string {
	if m.tr == nil {
		m.tr = views.NewTranscript(m.th)
	}
	m.tr.SetChat(m.chat, views.SessionCustomizations(m.sess))
	opts := m.transcriptOptions()
	if m.pin && m.itemSel != "" {
		// Counted from the end, so only the turns below the card render:
		// the first selection on a long chat does not draw the whole chat.
		if fromEnd, height, ok := m.tr.LocateToolCallFromEnd(w, opts, m.itemSel); ok {
			// The viewport shows lines [fromEnd of scroll+h, scroll) counted
			// from the end; scroll only when the card is not all inside.
			if fromEnd > m.scroll+h || fromEnd-height < m.scroll {
				m.scroll = max(fromEnd-h, 0)
			}
		}
	}
	m.pin = false
	return m.tr.Render(w, h, m.scroll, opts)
}

// grantView is what the prompt for req shows, given the flow running for
// its resource (if any).
func (m *Model) grantView(req protocol.McpAuthRequirement) views.GrantView {
	scopes := req.RequiredScopes
	if len(scopes) == 0 {
		scopes = req.Resource.Scopes_supported
	}
	gv := views.GrantView{Resource: req.Resource.Resource, Reason: string(req.Reason), Scopes: scopes,
		Description: deref(req.Description)}
	if name := deref(req.Resource.Resource_name); name != "" {
		gv.Resource = name + " (" + req.Resource.Resource + ")"
	}
	m.applyFlow(&gv, m.grants[req.Resource.Resource])
	return gv
}

func (m *Model) applyFlow(gv *views.GrantView, g *grantFlow) {
	if g == nil {
		return
	}
	switch g.phase {
	case grantStarting, grantWaiting, grantPushing:
		gv.Phase = views.GrantWaiting
		gv.URL = g.url
		gv.BrowserOpened = g.browserSeen && g.browserErr == nil
		gv.BrowserDisabled = m.cfg.NoBrowser || browserDisabledErr(g.browserErr)
	case grantDone:
		gv.Phase = views.GrantSucceeded
	case grantFailed:
		gv.Phase = views.GrantFailed
		if g.err != nil {
			gv.Err = g.err.Error()
		}
	case grantCancelled:
		gv.Phase = views.GrantCancelled
	}
}

// browserDisabledErr recognises the error main's --no-browser opener
// returns, for a caller that does not set Config.NoBrowser: the flag is a
// choice, not a failure to report.
func browserDisabledErr(err error) bool {
	return err != nil && strings.Contains(err.Error(), "--no-browser")
}

func (m *Model) agentGrantView(p agentPrompt) views.GrantView {
	req := m.agentRequirement(p)
	gv := views.GrantView{Resource: p.resource, Reason: p.reason, Scopes: req.Resource.ScopesSupported}
	if req.Resource.ResourceName != "" {
		gv.Resource = req.Resource.ResourceName + " (" + p.resource + ")"
	}
	m.applyFlow(&gv, m.grants[p.resource])
	return gv
}

// ---- MCP panel ----

func (m *Model) renderMCP(w, h int) []string {
	if w <= 0 || h <= 0 {
		return nil
	}
	focused := m.focus == focusMCP
	if !m.hasSess {
		return m.box("MCP servers", []string{m.th.Muted.Render("open a session to see its servers")}, w, h, focused)
	}
	rows := mcpRows(m.sess)
	m.mcpSel = max(0, min(m.mcpSel, len(rows)-1))
	pending := map[string]bool{}
	for _, p := range m.pendingMCP {
		if p.channel == m.openSession {
			pending[p.server] = true
		}
	}
	grants := map[string]views.GrantView{}
	for _, r := range rows {
		if r.Auth == nil {
			continue
		}
		if g := m.grants[r.Auth.Resource.Resource]; g != nil {
			grants[r.ID] = m.grantView(*r.Auth)
		}
	}
	// The panel redraws on every frame but changes rarely; lipgloss framing
	// makes it the costliest panel, so it is memoized on everything it shows.
	var first *protocol.Customization
	if len(m.sess.Customizations) > 0 {
		first = &m.sess.Customizations[0]
	}
	// Client plugins (activeClients) add servers too.
	var clients *protocol.SessionActiveClient
	if len(m.sess.ActiveClients) > 0 {
		clients = &m.sess.ActiveClients[0]
	}
	key := fmt.Sprintf("%p|%d|%p|%d|%d|%v|%v|%d|%d|%v|%d", first, len(m.sess.Customizations), clients, len(m.sess.ActiveClients),
		m.mcpSel, pending, grants, w, h, focused, m.themeGen)
	if m.mcpMemo.key != key {
		m.mcpMemo.key = key
		m.mcpMemo.lines = strings.Split(views.RenderMCPPanel(m.th, rows, m.mcpSel, pending, grants, w, h, focused), "\n")
	}
	return m.mcpMemo.lines
}

// panelMemo is one memoized panel rendering.
type panelMemo struct {
	key   string
	lines []string
}

// ---- overlays ----

func (m *Model) overlay() string {
	th := m.th
	maxW := max(20, min(m.width-4, 72))
	switch {
	case m.showAll:
		return m.fullHelp()
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
		nk := m.keys.NewSession
		body = append(body, "", m.hints(true, nk.Create, nk.Create.Help().Desc, nk.Cancel, nk.Cancel.Help().Desc))
		return strings.Join(drawBox(th.PanelFocused, th.PanelTitleFocused.Render("New session"), body, min(maxW, 60), min(m.height, len(body)+2)), "\n")
	case m.modal == modalInput && m.form != nil:
		return m.renderForm(maxW)
	}
	if g := m.waitingGrant(); g != nil {
		gv := views.GrantView{Phase: views.GrantWaiting, Resource: g.resource}
		if name := g.requirement.Resource.ResourceName; name != "" {
			gv.Resource = name + " (" + g.resource + ")"
		}
		m.applyFlow(&gv, g)
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
		{"New session", k.NewSession.FullHelp()},
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

func indentAll(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = " " + l
	}
	return out
}

func (m *Model) renderForm(w int) string {
	return views.RenderInputRequest(m.th, m.form.request, m.form.state, w)
}

// hints renders inline key hints ("a/y approve · x deny"). Unselected
// items say how to select them: keys act on the selection only.
func (m *Model) hints(selected bool, pairs ...any) string {
	var parts []string
	for i := 0; i+1 < len(pairs); i += 2 {
		parts = append(parts, m.th.HelpKey.Render(helpKeyOf(pairs[i]))+" "+m.th.HelpDesc.Render(fmt.Sprint(pairs[i+1])))
	}
	s := strings.Join(parts, m.th.Subtle.Render(" · "))
	if !selected {
		s = m.th.Subtle.Render("select with [ ] to answer: ") + s
	}
	return s
}

func helpKeyOf(v any) string {
	if b, ok := v.(key.Binding); ok {
		return b.Help().Key
	}
	return fmt.Sprint(v)
}

func ansiStrip(s string) string { return ansi.Strip(s) }
