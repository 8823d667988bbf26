package ui

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/keymap"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
	"github.com/ahptui/ahptui/views"
)

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
	hosts := newHostSet(&cfg) // nil for one host
	keys.SetMultiHost(hosts != nil)
	ctx, cancel := context.WithCancel(context.Background())
	a := &app{
		cfg: cfg, keys: keys, clock: cfg.Clock, log: cfg.Logger, ctx: ctx, hosts: hosts,
		models: map[hostSession]*protocol.ModelSelection{},
		focus:  focusSessions,
		status: &statusLine{conn: connInfo{state: views.ConnConnecting, attempt: 1, since: cfg.Clock()}, ttl: statusTTLFor(cfg.Tick)},
	}
	m := &Model{app: a, isDark: cfg.Dark, showMCP: true, cancel: cancel}
	m.sessions = &sessionList{app: a}
	m.signin = &signIn{app: a, grants: map[string]*grantFlow{}, savedTried: map[savedKey]bool{}, hostHolds: map[string]bool{}}
	m.chatPanel = newChatPanel(a, m.signin, m.sessions)
	m.signin.chatPanel = m.chatPanel
	m.settings = &settingsSheet{app: a}
	m.queue = &queueSheet{app: a, chat: m.chatPanel}
	m.chats = &chatSwitcher{app: a, chat: m.chatPanel}
	m.changes = &changesView{app: a, confirm: -1}
	m.terms = &terminalView{app: a}
	a.requestTerminal = m.terms.openFromCard
	m.resources = &resourceSheet{app: a, reading: -1}
	m.mcp = &mcpPanel{app: a, signin: m.signin, pending: map[int64]pendingOp{}}
	// Components ask the root to change which channels are watched; the
	// root owns the subscriptions.
	a.requestSession = m.openSessionCmd
	a.requestChat = m.switchChat
	a.closeSession = m.closeSession
	m.help = help.New()
	m.applyTheme()
	m.resize(100, 30)
	m.settle()
	return m
}

func (m *Model) applyTheme() {
	m.th = views.NewTheme(m.isDark, m.cfg.NoColor)
	m.themeGen++
	m.help.Styles = m.th.Help
	m.chatPanel.applyTheme(m.isDark)
}

// Init starts connecting and asks the terminal for its background colour.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.connectCmd(), tea.RequestBackgroundColor, connTick(), m.status.notices(m.cfg.Notices, m.clock())}
	if m.cfg.Tick > 0 {
		cmds = append(cmds, m.tickCmd())
	}
	return tea.Batch(cmds...)
}

func (m *Model) tickCmd() tea.Cmd {
	return tea.Tick(m.cfg.Tick, func(t time.Time) tea.Msg { return tickMsg(t) })
}

// maxEventBatch bounds the events one update applies, so a key pressed
// during a flood waits for at most one batch.
const maxEventBatch = 256

// waitEvent waits for the next protocol events: everything already queued
// arrives as one message, so a burst of deltas costs one update and one
// frame, not one per delta.
func waitEvent(ch <-chan client.Event) tea.Cmd {
	return func() tea.Msg {
		evs, ok := client.ReceiveEvents(ch, maxEventBatch)
		if !ok {
			return eventsClosed{}
		}
		return eventsMsg{evs}
	}
}

// onEvents applies a batch of events in order, then waits for the next.
func (m *Model) onEvents(evs []client.Event) tea.Cmd {
	var cmds []tea.Cmd
	stateChanged := false
	for _, ev := range evs {
		cmds = append(cmds, m.onEvent(ev))
		if _, ok := ev.(client.ChannelStateEvent); ok {
			stateChanged = true
		}
	}
	if stateChanged {
		cmds = append(cmds, m.signin.stateChanged(), m.signin.syncAgentNeeds(), m.mcp.observeStarts())
	}
	if m.client != nil && m.hosts == nil { // several: each host's waiter re-arms itself
		cmds = append(cmds, waitEvent(m.client.Events()))
	}
	return tea.Batch(cmds...)
}

// Shutdown cancels every grant flow, waits for their loopback listeners to
// close and closes the client. main calls it after the program exits; it is
// safe to call more than once.
func (m *Model) Shutdown() {
	m.signin.cancelGrants()
	for _, g := range m.signin.grants {
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
	m.closeHosts()
}

func (m *Model) quit() tea.Cmd {
	m.signin.cancelGrants()
	c := m.client
	closed := m.closed
	m.closed = true
	others := m.otherClients()
	return tea.Sequence(func() tea.Msg {
		if c != nil && !closed {
			_ = c.Close()
		}
		for _, o := range others {
			_ = o.Close()
		}
		return closedMsg{}
	}, tea.Quit)
}

func (m *Model) resize(w, h int) {
	m.width, m.height = w, h
	m.layout = views.ComputeLayout(w, h, m.showMCP)
	m.baseLayout = m.layout
	m.chatPanel.resize(m.layout.Chat.W)
	m.help.SetWidth(w)
}

// Update routes one message, then settles what View reads (layout, MCP
// selection, the scroll a new selection asks for), so View only draws.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.route(msg)
	cmd = tea.Batch(cmd, m.chatPanel.writeWhenOpen(), m.chatPanel.sendWhenOpen())
	m.status.dropFalse()
	m.settle()
	return m, tea.Batch(cmd, m.guardTicks(), m.observeWaiting())
}

// route hands one message to the component it concerns.
func (m *Model) route(msg tea.Msg) tea.Cmd {
	if cmd, ok := m.routeHosts(msg); ok {
		return cmd
	}
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
		return nil
	case tea.BackgroundColorMsg:
		m.isDark = msg.IsDark()
		m.applyTheme()
		return nil
	case tea.FocusMsg:
		m.signals.onFocus(true)
		return nil
	case tea.BlurMsg:
		m.signals.onFocus(false)
		return nil
	case tea.KeyPressMsg:
		return m.handleKey(msg)
	case tea.PasteMsg:
		return m.handlePaste(msg)
	case tea.MouseWheelMsg:
		if m.sheetWheel(msg.Button == tea.MouseWheelDown) {
			return nil // a sheet covers the chat: the wheel is its
		}
		if m.layout.Chat.Contains(msg.X, msg.Y) || m.modal == modalNone {
			switch msg.Button {
			case tea.MouseWheelUp:
				m.chatPanel.scrollBy(3)
			case tea.MouseWheelDown:
				m.chatPanel.scrollBy(-3)
			}
		}
		return nil
	case editorDoneMsg:
		return m.chatPanel.onEditorDone(msg)
	case connectedMsg:
		return m.onConnected(msg)
	case retryConnect:
		if m.client != nil || m.closed || msg.try != m.connTries {
			return nil
		}
		m.status.connecting(m.connTries+1, m.clock())
		return tea.Batch(m.connectCmd(), connTick())
	case eventMsg:
		return m.onEvents([]client.Event{msg.ev})
	case eventsMsg:
		return m.onEvents(msg.evs)
	case statusMsg:
		msg.err = m.shownError(msg.err)
		return m.status.update(msg, m.clock())
	case statusExpiredMsg:
		m.status.expired(msg.seq)
		return nil
	case savedPushedMsg:
		return m.signin.onSavedPushed(msg)
	case pasteDoneMsg:
		return m.signin.onPasteDone(msg)
	case forgottenMsg:
		return m.signin.onForgotten(msg)
	case eventsClosed:
		if !m.closed {
			m.status.conn.state = views.ConnFailed
			m.status.conn.failedReason = "the connection closed"
			m.status.conn.failedHint = "restart ahptui"
		}
		return nil
	case subscribedMsg:
		if errors.Is(msg.err, client.ErrNotConnected) && m.status.conn.state != views.ConnFailed {
			// The connection dropped under the subscribe: the status bar
			// says so, and the channel is opened again once it is back.
			m.reopen = append(m.reopen, msg.channel)
			return nil
		}
		if msg.err != nil {
			return m.failed(fmt.Errorf("could not open %s: %w", msg.channel, msg.err), msg.channel)
		}
		m.refreshChannel(msg.channel)
		return tea.Batch(m.ensureChat(), m.markRead(msg.channel), m.signin.pushSavedTokens(), m.signin.syncAgentNeeds())
	case opDoneMsg:
		return m.onOpDone(msg)
	case changesetSubscribedMsg:
		return m.changes.onSubscribed(msg)
	case terminalSubscribedMsg:
		return m.terms.onSubscribed(msg)
	case changesetOpMsg:
		return m.changes.onOperation(msg)
	case diffReadMsg:
		return m.changes.onDiffRead(msg)
	case resourceMsg:
		return m.resources.onMsg(msg)
	case configResolvedMsg:
		return m.sessions.onConfigResolved(msg)
	case completionsMsg:
		return m.onCompletions(msg)
	case completionsDueMsg:
		return m.onCompletionsDue(msg)
	case chatCreatedMsg:
		return m.chats.onCreated(msg)
	case authRetryMsg, tokenPushedMsg:
		return m.onAgentAuth(msg)
	case grantStartedMsg:
		return m.signin.onGrantStarted(msg)
	case grantDoneMsg:
		return m.signin.onGrantDone(msg)
	case urlShownMsg:
		return m.signin.onURLShown(msg)
	case authenticatedMsg:
		return m.signin.onAuthenticated(msg)
	case browserCheckMsg:
		return m.signin.onBrowserCheck(msg)
	case settleMsg:
		return m.mcp.onSettle(msg)
	case startTickMsg:
		return m.mcp.onStartTick()
	case tickMsg:
		m.status.expire(m.clock())
		m.signin.tick()
		return m.tickCmd()
	case closedMsg:
		return nil
	case connTickMsg:
		if m.status.conn.state == views.ConnConnecting && m.client == nil {
			return connTick()
		}
		return nil
	}
	if m.modal == modalInput && m.form != nil {
		return m.form.update(msg)
	}
	if m.focus == focusComposer {
		return m.chatPanel.updateComposer(msg)
	}
	return nil
}

func (m *Model) onEvent(ev client.Event) tea.Cmd {
	switch e := ev.(type) {
	case client.ConnectionEvent:
		switch e.Status {
		case client.StatusConnecting:
			m.status.conn.state = views.ConnConnecting
		case client.StatusReady:
			m.status.conn = connInfo{state: views.ConnReady, version: e.ProtocolVersion}
			m.status.readies++
			if m.status.conn.version == "" {
				m.status.conn.version = m.client.ProtocolVersion()
			}
			return m.reopenChannels()
		case client.StatusReconnecting:
			m.status.reconnecting(e.Attempt, e.Cause, m.clock())
		case client.StatusFailed:
			if e.Cause != nil {
				m.status.connectFailed(e.Cause, m.clock())
			}
			m.status.conn.state = views.ConnFailed
			m.status.conn.failedHint = "press ctrl+r to reconnect"
		}
	case client.ChannelStateEvent:
		m.refreshChannel(e.Channel)
		m.changes.refresh(e.Channel)
		m.resources.refresh(e.Channel)
		if e.Channel == m.openSession {
			return tea.Batch(m.creationFailed(), m.ensureChat())
		}
		return m.terms.refresh(e.Channel)
	case client.ChannelDroppedEvent:
		// The client forgets a dropped channel's pending actions: nothing
		// will answer them now.
		m.mcp.dropChannel(e.Channel)
		if e.Channel == m.terms.channel {
			return m.terms.dropped(e.Channel, e.Reason)
		}
		if e.Channel == m.changes.channel && m.changes.channel != "" {
			// Back to the changesets: the host no longer serves this one.
			m.changes.channel, m.changes.hasCS, m.changes.files, m.changes.diff, m.changes.confirm = "", false, nil, nil, -1
			return reportError(fmt.Errorf("stopped watching the changeset: %s", views.SanitizeLine(e.Reason)))
		}
		var cmd tea.Cmd
		if e.Channel == m.openSession || e.Channel == m.openChat {
			cmd = reportError(fmt.Errorf("stopped watching %s: %s", e.Channel, e.Reason))
		}
		if e.Channel == m.openChat {
			m.openChat, m.hasChat = "", false
		}
		if e.Channel == m.openSession {
			m.openSession, m.hasSess = "", false
		}
		return cmd
	case client.SessionsListedEvent, client.SessionAddedEvent, client.SessionSummaryChangedEvent:
		return m.sessions.update(ev)
	case client.SessionRemovedEvent:
		m.closeSession(e.Session)
		return m.sessions.update(ev)
	case client.AuthRequiredEvent:
		// Only a resource the host declared can be signed in to (authpkce
		// refuses the rest), so anything else is dropped here, in O(1),
		// rather than queued as a prompt: a host may send them without end.
		res := e.Params.Resource
		if !m.signin.isAdvertised(res.Resource) {
			m.log.Debug("auth/required for a resource the host never advertised", "channel", e.Params.Channel)
			return nil
		}
		reason := ""
		if e.Params.Reason != nil {
			reason = string(*e.Params.Reason)
		}
		p := agentPrompt{resource: res.Resource, channel: e.Params.Channel, reason: reason}
		if !res.AsString && len(res.AuthorizationServers) > 0 {
			// 1.0 sends the resource's whole metadata (0.6 only its
			// identifier): sign in with what the host says now, as for
			// an AuthRequired error. Metadata naming no authorization
			// server adds nothing to what the agent advertised.
			meta := res.ProtectedResourceMetadata
			p.meta = &meta
		}
		return m.signin.addAgentPrompt(p)
	case client.ActionConfirmedEvent:
		m.mcp.settled(e.ClientSeq, true)
	case client.ActionRejectedEvent:
		m.mcp.settled(e.ClientSeq, false)
		return reportError(fmt.Errorf("could not %s: the host said: %s", m.userDid(e.Action), views.SanitizeLine(e.Reason)))
	case client.HostErrorEvent:
		return reportError(fmt.Errorf("host error: %w", e.Err))
	}
	return nil
}

func (m *Model) refreshChannel(ch string) {
	m.signin.forgetAdvertised()
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
			m.sessions.sessionChanged()
		}
	case ch == m.openChat:
		if c, ok := m.client.Chat(ch); ok {
			m.chat, m.hasChat = c, true
			m.keys.SetTurnRunning(c.ActiveTurn != nil)
			m.keys.SetTurnResumable(views.ResumableTurn(c) != "")
			m.chatPanel.blockersChanged()
		}
	}
	if ch == m.openSession && m.hasChat {
		// An MCP server flipping to authRequired makes its running calls wait.
		m.chatPanel.blockersChanged()
	}
}

// LastError is the error the status line showed when the program ended,
// "" when it showed none: main prints it after the screen is restored, so
// an error that ended the session can be read whole.
func (m *Model) LastError() string { return m.status.lastError() }
