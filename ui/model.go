package ui

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/authpkce"
	"github.com/ahptui/ahptui/keymap"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

type focus int

const (
	focusSessions focus = iota
	focusChat
	focusComposer
	focusMCP
)

type modal int

const (
	modalNone modal = iota
	modalConfirmDispose
	modalNewSession
	modalInput
)

type connInfo struct {
	state        views.ConnState
	attempt      int
	cause        string
	failedReason string
	failedHint   string
	version      string
}

// grantPhase is where one "grant additional access" flow is.
type grantPhase int

const (
	grantPrompt    grantPhase = iota // asking: accept or decline
	grantStarting                    // discovery/registration before the URL exists
	grantWaiting                     // browser open (or URL shown), waiting for the callback
	grantPushing                     // token obtained, `authenticate` in flight
	grantDone                        // host accepted the token
	grantFailed                      // err says why; accept again retries
	grantCancelled                   // user pressed esc while waiting
)

// grantFlow is one OAuth flow, keyed by resource: a token serves every tool
// call and server asking for the same resource, so one flow answers them all.
type grantFlow struct {
	resource    string
	requirement authpkce.Requirement
	phase       grantPhase
	url         string
	browserErr  error
	browserSeen bool
	err         error
	cancel      context.CancelFunc
	grant       *authpkce.Grant
}

// agentPrompt is an auth/required notification (or AuthRequiredError) for
// an agent resource, shown until answered.
type agentPrompt struct {
	resource string
	channel  string
	reason   string
	meta     *protocol.ProtectedResourceMetadata // from an AuthRequiredError
}

// pendingOp is an MCP action sent but not yet answered, keyed in
// Model.pendingMCP by the clientSeq Dispatch returned. The host's echo
// (protocol.ActionConfirmedEvent) or its rejection (ActionRejectedEvent)
// for that clientSeq settles it; a dropped channel ends it. The client
// re-dispatches un-echoed actions after a reconnect with the same clientSeq,
// so a marker rightly survives a reconnect and settles on the late echo.
type pendingOp struct {
	server  string // MCP customization id the marker is drawn on
	verb    string // "stopping", "enabling", … for the status line
	channel string // the session the action was dispatched on
}

// pendingTimeout is only a safety net for a host that never answers: a
// conformant host echoes or rejects every dispatch, so the marker normally
// settles long before this and the timeout says so when it does not.
const pendingTimeout = 30 * time.Second

type newChoice struct {
	provider, agentName string
	model               *protocol.ModelSelection
	modelName           string
}

// Model is the root Bubble Tea model of ahptui.
type Model struct {
	cfg   Config
	keys  keymap.KeyMap
	th    views.Theme
	clock func() time.Time
	log   *slog.Logger

	isDark        bool
	width, height int
	layout        views.Layout
	baseLayout    views.Layout // ComputeLayout's; layout may give the chat what the MCP strip does not need
	showMCP       bool

	ctx      context.Context
	cancel   context.CancelFunc
	client   Client
	conn     connInfo
	status   string
	isErr    bool
	statusAt time.Time

	sessions []protocol.SessionSummary
	sessSel  int
	root     protocol.RootState

	openSession string
	sess        protocol.SessionState
	hasSess     bool
	openChat    string
	chat        protocol.ChatState
	hasChat     bool
	models      map[string]*protocol.ModelSelection

	focus   focus
	modal   modal
	confirm string
	newSel  int
	showAll bool // full help overlay

	itemSel   string
	expanded  map[string]bool
	scroll    int
	composer  textarea.Model
	ourTurns  map[string]time.Time
	blockerAt int

	mcpSel     int
	pendingMCP map[int64]pendingOp

	grants       map[string]*grantFlow
	agentPrompts []agentPrompt

	form *inputForm
	help help.Model

	// tr caches the open chat's rendered turns; pin asks the next frame
	// to scroll the selected card into view.
	tr           *views.Transcript
	itemsMemo    itemsMemo
	mcpMemo      panelMemo
	composerMemo panelMemo // the blurred composer's last drawing
	themeGen     int
	pin          bool
	closed       bool
	autoOpened   bool // the first session list opened its newest session
	// savedTried records, per resource and required scopes, that a saved
	// token was looked for (and pushed if found) on this connection.
	savedTried map[string]bool
	// seenBlockers holds the ids of the open chat's items that have waited
	// on the user (seenChat is the chat they belong to), so only a blocker
	// that is new moves the selection and focus to itself.
	seenBlockers map[string]bool
	seenChat     string
}

// New builds the model. Run it with tea.NewProgram(m); call Shutdown after
// the program returns to wait for grant flows and close the client.
func New(cfg Config) *Model {
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	if cfg.NewID == nil {
		cfg.NewID = randomID
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Tick == 0 {
		cfg.Tick = 15 * time.Second
	}
	keys := keymap.DefaultKeyMap()
	if cfg.Keys != nil {
		keys = *cfg.Keys
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &Model{
		cfg: cfg, keys: keys, clock: cfg.Clock, log: cfg.Logger,
		isDark: cfg.Dark, showMCP: true,
		ctx: ctx, cancel: cancel,
		conn:       connInfo{state: views.ConnConnecting},
		models:     map[string]*protocol.ModelSelection{},
		expanded:   map[string]bool{},
		ourTurns:   map[string]time.Time{},
		pendingMCP: map[int64]pendingOp{},
		grants:     map[string]*grantFlow{},
		savedTried: map[string]bool{},
		focus:      focusSessions,
	}
	m.composer = textarea.New()
	m.composer.Placeholder = "Write a message…"
	m.composer.ShowLineNumbers = false
	m.composer.Prompt = "│ "
	m.composer.CharLimit = 0
	m.composer.KeyMap.InsertNewline = key.NewBinding(key.WithKeys(m.keys.Composer.Newline.Keys()...))
	m.help = help.New()
	m.applyTheme()
	m.resize(100, 30)
	return m
}

func (m *Model) applyTheme() {
	m.th = views.NewTheme(m.isDark, m.cfg.NoColor)
	m.themeGen++
	m.help.Styles = m.th.Help
	st := textarea.DefaultStyles(m.isDark)
	st.Cursor.Blink = false
	if m.cfg.NoColor {
		plain := textarea.StyleState{}
		st.Focused, st.Blurred = plain, plain
		st.Cursor.Color = nil
	}
	m.composer.SetStyles(st)
	m.tr = nil
}

// Init starts connecting and asks the terminal for its background colour.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.connectCmd(), tea.RequestBackgroundColor}
	if m.cfg.Tick > 0 {
		cmds = append(cmds, m.tickCmd())
	}
	return tea.Batch(cmds...)
}

func (m *Model) tickCmd() tea.Cmd {
	return tea.Tick(m.cfg.Tick, func(t time.Time) tea.Msg { return tickMsg(t) })
}

func (m *Model) connectCmd() tea.Cmd {
	connect, ctx := m.cfg.Connect, m.ctx
	return func() tea.Msg {
		if connect == nil {
			return connectedMsg{err: errors.New("no host configured: start with --host ws://… or --demo")}
		}
		c, err := connect(ctx)
		return connectedMsg{client: c, err: err}
	}
}

func waitEvent(ch <-chan protocol.Event) tea.Cmd {
	return func() tea.Msg {
		ev, ok := <-ch
		if !ok {
			return eventsClosed{}
		}
		return eventMsg{ev}
	}
}

// Shutdown cancels every grant flow, waits for their loopback listeners to
// close and closes the client. main calls it after the program exits; it is
// safe to call more than once.
func (m *Model) Shutdown() {
	m.cancelGrants()
	for _, g := range m.grants {
		if g.grant != nil {
			select {
			case <-g.grant.Done():
			case <-time.After(5 * time.Second):
			}
		}
	}
	m.cancel()
	if m.client != nil && !m.closed {
		m.closed = true
		_ = m.client.Close()
	}
}

func (m *Model) cancelGrants() {
	for _, g := range m.grants {
		if g.grant != nil {
			g.grant.Cancel()
		}
		if g.cancel != nil {
			g.cancel()
		}
	}
}

func (m *Model) quit() tea.Cmd {
	m.cancelGrants()
	c := m.client
	closed := m.closed
	m.closed = true
	return tea.Sequence(func() tea.Msg {
		if c != nil && !closed {
			_ = c.Close()
		}
		return closedMsg{}
	}, tea.Quit)
}

func (m *Model) setStatus(s string) { m.status, m.isErr, m.statusAt = s, false, m.clock() }
func (m *Model) setError(err error) { m.status, m.isErr, m.statusAt = err.Error(), true, m.clock() }

// statusTTL is how long an informational status message stays; errors stay
// until the next message, so one is never missed.
const statusTTL = 10 * time.Second

func (m *Model) resize(w, h int) {
	m.width, m.height = w, h
	m.layout = views.ComputeLayout(w, h, m.showMCP)
	m.baseLayout = m.layout
	cw := max(m.layout.Chat.W-4, 4)
	m.composer.SetWidth(cw)
	m.composer.SetHeight(composerHeight)
	m.help.SetWidth(w)
	m.tr = nil
}

const composerHeight = 3

// Update routes one message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
		return m, nil
	case tea.BackgroundColorMsg:
		m.isDark = msg.IsDark()
		m.applyTheme()
		return m, nil
	case tea.KeyPressMsg:
		return m, m.handleKey(msg)
	case tea.PasteMsg:
		if m.focus == focusComposer && m.modal == modalNone {
			var cmd tea.Cmd
			m.composer, cmd = m.composer.Update(msg)
			return m, cmd
		}
		if m.modal == modalInput && m.form != nil {
			return m, m.form.update(msg)
		}
		return m, nil
	case tea.MouseWheelMsg:
		if m.layout.Chat.Contains(msg.X, msg.Y) || m.modal == modalNone {
			switch msg.Button {
			case tea.MouseWheelUp:
				m.scrollBy(3)
			case tea.MouseWheelDown:
				m.scrollBy(-3)
			}
		}
		return m, nil
	case connectedMsg:
		return m, m.onConnected(msg)
	case eventMsg:
		cmd := m.onEvent(msg.ev)
		if _, ok := msg.ev.(protocol.ChannelStateEvent); ok {
			cmd = tea.Batch(cmd, m.pushSavedTokens())
		}
		if m.client != nil {
			return m, tea.Batch(cmd, waitEvent(m.client.Events()))
		}
		return m, cmd
	case savedPushedMsg:
		m.onSavedPushed(msg)
		return m, nil
	case eventsClosed:
		if !m.closed {
			m.conn.state = views.ConnFailed
			m.conn.failedReason = "the connection closed"
			m.conn.failedHint = "restart ahptui"
		}
		return m, nil
	case subscribedMsg:
		if msg.err != nil {
			m.setError(fmt.Errorf("could not open %s: %w", msg.channel, msg.err))
			return m, m.maybeAuthError(msg.err, msg.channel)
		}
		m.refreshChannel(msg.channel)
		return m, tea.Batch(m.ensureChat(), m.pushSavedTokens())
	case opDoneMsg:
		if msg.err != nil {
			m.setError(fmt.Errorf("%s failed: %w", msg.what, msg.err))
			return m, m.maybeAuthError(msg.err, "")
		}
		m.setStatus(msg.what + ": done")
		if msg.session != "" {
			return m, m.openSessionCmd(msg.session)
		}
		return m, nil
	case grantStartedMsg:
		return m, m.onGrantStarted(msg)
	case grantDoneMsg:
		return m, m.onGrantDone(msg)
	case authenticatedMsg:
		g := m.grants[msg.resource]
		if g != nil {
			if msg.err != nil {
				g.phase, g.err = grantFailed, msg.err
				m.setError(fmt.Errorf("the host refused the token for %s: %w", msg.resource, msg.err))
			} else {
				g.phase = grantDone
				m.setStatus("access granted for " + msg.resource)
				m.dropAgentPrompt(msg.resource)
			}
		}
		return m, nil
	case browserCheckMsg:
		return m, m.onBrowserCheck(msg)
	case settleMsg:
		if p, ok := m.pendingMCP[msg.seq]; ok {
			delete(m.pendingMCP, msg.seq)
			m.setError(fmt.Errorf("no answer from host to %s %s after %s: the panel shows the host's last known state; press ctrl+r to reconnect if it stays stuck",
				p.verb, views.SanitizeLine(p.server), pendingTimeout))
		}
		return m, nil
	case tickMsg:
		if !m.isErr && m.status != "" && m.clock().Sub(m.statusAt) >= statusTTL {
			m.status = ""
		}
		for _, g := range m.grants {
			if g.phase == grantWaiting && g.grant != nil && !g.browserSeen {
				if err := g.grant.BrowserErr(); err != nil {
					g.browserErr, g.browserSeen = err, true
				}
			}
		}

		return m, m.tickCmd()
	case closedMsg:
		return m, nil
	}
	if m.modal == modalInput && m.form != nil {
		return m, m.form.update(msg)
	}
	if m.focus == focusComposer {
		var cmd tea.Cmd
		m.composer, cmd = m.composer.Update(msg)
		return m, cmd
	}
	return m, nil
}

func (m *Model) onConnected(msg connectedMsg) tea.Cmd {
	if msg.err != nil {
		m.conn = connInfo{state: views.ConnFailed, failedReason: msg.err.Error(),
			failedHint: "ctrl+r retries (check --host)"}
		var uv *protocol.UnsupportedProtocolVersionError
		if errors.As(msg.err, &uv) {
			m.conn.failedHint = fmt.Sprintf("the host speaks %v; this ahptui speaks %v", uv.Supported, protocol.SupportedProtocolVersions)
		}
		return nil
	}
	m.client = msg.client
	m.savedTried = map[string]bool{}
	m.conn = connInfo{state: views.ConnReady, version: m.client.ProtocolVersion()}
	if r, ok := m.client.Root(); ok {
		m.root = r
	}
	return tea.Batch(waitEvent(m.client.Events()), m.pushSavedTokens())
}

func (m *Model) onEvent(ev protocol.Event) tea.Cmd {
	switch e := ev.(type) {
	case protocol.ConnectionEvent:
		cause := ""
		if e.Cause != nil {
			cause = e.Cause.Error()
		}
		switch e.Status {
		case protocol.StatusConnecting:
			m.conn.state = views.ConnConnecting
		case protocol.StatusReady:
			m.conn = connInfo{state: views.ConnReady, version: e.ProtocolVersion}
			if m.conn.version == "" {
				m.conn.version = m.client.ProtocolVersion()
			}
		case protocol.StatusReconnecting:
			m.conn.state, m.conn.attempt, m.conn.cause = views.ConnReconnecting, e.Attempt, cause
		case protocol.StatusFailed:
			m.conn.state, m.conn.failedReason = views.ConnFailed, cause
			m.conn.failedHint = "press ctrl+r to reconnect"
		}
	case protocol.ChannelStateEvent:
		m.refreshChannel(e.Channel)
		if e.Channel == m.openSession {
			return m.ensureChat()
		}
	case protocol.ChannelDroppedEvent:
		// The client forgets a dropped channel's pending actions: nothing
		// will answer them now.
		for seq, p := range m.pendingMCP {
			if p.channel == e.Channel {
				delete(m.pendingMCP, seq)
			}
		}
		if e.Channel == m.openSession || e.Channel == m.openChat {
			m.setError(fmt.Errorf("stopped watching %s: %s", e.Channel, e.Reason))
		}
		if e.Channel == m.openChat {
			m.openChat, m.hasChat = "", false
		}
		if e.Channel == m.openSession {
			m.openSession, m.hasSess = "", false
		}
	case protocol.SessionsListedEvent:
		m.sessions = append([]protocol.SessionSummary(nil), e.Sessions...)
		m.sortSessions()
		return m.autoOpen()
	case protocol.SessionAddedEvent:
		m.sessions = append(m.withoutSession(e.Summary.Resource), e.Summary)
		m.sortSessions()
	case protocol.SessionRemovedEvent:
		m.sessions = m.withoutSession(e.Session)
		if e.Session == m.openSession {
			m.openSession, m.hasSess, m.openChat, m.hasChat = "", false, "", false
		}
		m.clampSessSel()
	case protocol.SessionSummaryChangedEvent:
		for i := range m.sessions {
			if m.sessions[i].Resource == e.Session {
				m.sessions[i] = applySummaryChanges(m.sessions[i], e.Changes)
			}
		}
		m.sortSessions()
	case protocol.AuthRequiredEvent:
		reason := ""
		if e.Params.Reason != nil {
			reason = string(*e.Params.Reason)
		}
		m.addAgentPrompt(agentPrompt{resource: e.Params.Resource, channel: e.Params.Channel, reason: reason})
	case protocol.ActionConfirmedEvent:
		delete(m.pendingMCP, e.ClientSeq)
	case protocol.ActionRejectedEvent:
		delete(m.pendingMCP, e.ClientSeq)
		m.setError(fmt.Errorf("host rejected %s: %s", e.Action.Kind(), views.SanitizeLine(e.Reason)))
	case protocol.HostErrorEvent:
		m.setError(fmt.Errorf("host error: %w", e.Err))
	}
	return nil
}

func (m *Model) refreshChannel(ch string) {
	if m.client == nil {
		return
	}
	switch {
	case ch == protocol.RootChannel:
		if r, ok := m.client.Root(); ok {
			m.root = r
		}
	case ch == m.openSession:
		if s, ok := m.client.Session(ch); ok {
			m.sess, m.hasSess = s, true
		}
	case ch == m.openChat:
		if c, ok := m.client.Chat(ch); ok {
			m.chat, m.hasChat = c, true
			m.keys.SetTurnRunning(c.ActiveTurn != nil)
			m.followBlocker()
			m.noticeBlockers()
		}
	}
	if ch == m.openSession && m.hasChat {
		// An MCP server flipping to authRequired makes its running calls wait.
		m.noticeBlockers()
	}
}

// noticeBlockers brings a blocker that just appeared in the open chat
// within reach of the keys its card shows. From an empty composer or a
// transcript with nothing selected it selects the newest one and focuses
// the transcript; a composer holding a draft keeps focus (the user is
// typing), and the card says how to get there instead.
func (m *Model) noticeBlockers() {
	if m.seenChat != m.openChat || m.seenBlockers == nil {
		m.seenChat, m.seenBlockers = m.openChat, map[string]bool{}
	}
	auth := authRequiredServers(mcpRows(m.sess))
	newest := ""
	for _, it := range m.items() {
		if it.needsUser(auth) && !m.seenBlockers[it.ID] {
			m.seenBlockers[it.ID] = true
			newest = it.ID
		}
	}
	if newest == "" || m.modal != modalNone {
		return
	}
	switch m.focus {
	case focusComposer:
		if strings.TrimSpace(m.composer.Value()) != "" {
			return
		}
		m.composer.Blur()
		m.focus = focusChat
	case focusChat:
		if m.itemSel == agentPromptSel {
			return
		}
		if _, ok := m.selectedItem(); ok {
			return
		}
	default:
		return
	}
	m.itemSel, m.scroll, m.pin = newest, 0, true
}

// newestBlocker is the open chat's most recent item that waits on the user.
func (m *Model) newestBlocker() (chatItem, bool) {
	auth := authRequiredServers(mcpRows(m.sess))
	items := m.items()
	for i := len(items) - 1; i >= 0; i-- {
		if items[i].needsUser(auth) {
			return items[i], true
		}
	}
	return chatItem{}, false
}

// ensureChat subscribes to the open session's default chat once the session
// snapshot names it.
func (m *Model) ensureChat() tea.Cmd {
	if !m.hasSess || m.openChat != "" {
		return nil
	}
	target := ""
	if m.sess.DefaultChat != nil {
		target = *m.sess.DefaultChat
	} else if len(m.sess.Chats) > 0 {
		target = m.sess.Chats[0].Resource
	}
	if target == "" {
		return nil
	}
	return m.switchChat(target)
}

func (m *Model) switchChat(target string) tea.Cmd {
	prev := m.openChat
	m.openChat, m.hasChat, m.itemSel, m.scroll = target, false, "", 0
	m.tr = nil
	c, ctx := m.client, m.ctx
	if c == nil {
		return nil
	}
	if ch, ok := c.Chat(target); ok {
		m.chat, m.hasChat = ch, true
	}
	return func() tea.Msg {
		if prev != "" && prev != target {
			_ = c.Unsubscribe(ctx, prev)
		}
		return subscribedMsg{channel: target, err: c.Subscribe(ctx, target)}
	}
}

func (m *Model) openSessionCmd(uri string) tea.Cmd {
	if m.client == nil {
		m.setError(errors.New("not connected yet: wait for the status bar to say ready"))
		return nil
	}
	if uri == m.openSession {
		return nil
	}
	prevS, prevC := m.openSession, m.openChat
	m.openSession, m.hasSess, m.openChat, m.hasChat = uri, false, "", false
	m.itemSel, m.scroll, m.mcpSel = "", 0, 0
	m.pendingMCP = map[int64]pendingOp{}
	m.tr = nil
	for i, s := range m.sessions {
		if s.Resource == uri {
			m.sessSel = i
		}
	}
	c, ctx := m.client, m.ctx
	return func() tea.Msg {
		if prevC != "" {
			_ = c.Unsubscribe(ctx, prevC)
		}
		if prevS != "" {
			_ = c.Unsubscribe(ctx, prevS)
		}
		return subscribedMsg{channel: uri, err: c.Subscribe(ctx, uri)}
	}
}

// autoOpen opens the most recently modified session the first time the
// host lists any, so a newcomer sees a chat at once instead of an empty
// panel. Focus stays on the session list, where it was, so the keys the
// help line offers still mean what they say; it happens once per run, so
// a user who closed or disposed a session is not pulled back to another.
func (m *Model) autoOpen() tea.Cmd {
	if m.autoOpened || m.openSession != "" || len(m.sessions) == 0 || m.client == nil {
		return nil
	}
	m.autoOpened = true
	return m.openSessionCmd(m.sessions[0].Resource)
}

func (m *Model) withoutSession(uri string) []protocol.SessionSummary {
	out := make([]protocol.SessionSummary, 0, len(m.sessions))
	for _, s := range m.sessions {
		if s.Resource != uri {
			out = append(out, s)
		}
	}
	return out
}

// sortSessions keeps the most recently modified first, keeping the selected
// session selected.
func (m *Model) sortSessions() {
	sel := ""
	if m.sessSel >= 0 && m.sessSel < len(m.sessions) {
		sel = m.sessions[m.sessSel].Resource
	}
	sort.SliceStable(m.sessions, func(i, j int) bool {
		return m.sessions[i].ModifiedAt > m.sessions[j].ModifiedAt
	})
	for i, s := range m.sessions {
		if s.Resource == sel {
			m.sessSel = i
		}
	}
	m.clampSessSel()
}

func (m *Model) clampSessSel() {
	m.sessSel = max(0, min(m.sessSel, len(m.sessions)-1))
}

func applySummaryChanges(s protocol.SessionSummary, c protocol.PartialSessionSummary) protocol.SessionSummary {
	if c.Title != nil {
		s.Title = *c.Title
	}
	if c.Status != nil {
		s.Status = *c.Status
	}
	if c.Activity != nil {
		s.Activity = c.Activity
	}
	if c.ModifiedAt != nil {
		s.ModifiedAt = *c.ModifiedAt
	}
	if c.Provider != nil {
		s.Provider = *c.Provider
	}
	return s
}

// followBlocker moves the transcript selection to the first card that
// waits on the user when the selected one no longer does, so approve and
// the grant keys act on what is waiting without hunting for it. It does not
// scroll: a user reading older turns stays where they are.
func (m *Model) followBlocker() {
	if m.focus != focusChat || m.itemSel == agentPromptSel {
		return
	}
	auth := authRequiredServers(mcpRows(m.sess))
	if it, ok := m.selectedItem(); ok && it.needsUser(auth) {
		return
	}
	for _, it := range m.items() {
		if it.needsUser(auth) {
			m.itemSel = it.ID
			return
		}
	}
}

func (m *Model) scrollBy(n int) {
	m.scroll = max(0, m.scroll+n)
}

func (m *Model) turnRunning() bool { return m.hasChat && m.chat.ActiveTurn != nil }
