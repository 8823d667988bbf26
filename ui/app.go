package ui

import (
	"context"
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

// app is what every component reads and none owns alone: configuration,
// keys, theme, the client and the snapshots it handed out for the watched
// channels. The root model writes the snapshots (it owns subscriptions);
// components read them and change them only by asking the root through
// requestSession, requestChat and closeSession. focus, modal and form are
// shared UI state: a component sets them to take the keyboard into
// itself, open its dialog or open the input form.
type app struct {
	cfg      Config
	keys     keymap.KeyMap
	th       views.Theme
	themeGen int
	clock    func() time.Time
	log      *slog.Logger
	ctx      context.Context
	client   Client

	width, height int
	// layout is the settled layout (Update keeps it; Render recomputes).
	layout views.Layout
	// focus is the panel with the keyboard. The root moves it between
	// panels; the chat moves it between its transcript and composer.
	focus focus
	modal modal
	// form is the open input form (an answer to an input request).
	form *inputForm
	// widen is the open confirmation of a value that lets more run
	// without asking (modalWiden).
	widen *widenAsk

	root        protocol.RootState
	openSession string
	sess        protocol.SessionState
	hasSess     bool
	openChat    string
	chat        protocol.ChatState
	hasChat     bool
	// reopen is the open channels whose subscribe a dropped connection
	// cut short: they are subscribed again when it is ready.
	reopen []string
	// writeIn is the session whose composer opens as soon as its chat is
	// open (i from the session list or the MCP panel), "" for none.
	writeIn string
	// models is the model picked for each session this client created,
	// by host and session: two hosts may name their sessions alike.
	models map[hostSession]*protocol.ModelSelection

	status *statusLine
	// hosts is every host when there are several (hosts.go), nil for one;
	// client, root and the open channels above are the active host's.
	hosts *hostSet

	// requestSession opens a session; requestChat switches the open
	// session's chat. Both are the root's and return its command.
	requestSession func(uri string) tea.Cmd
	requestChat    func(uri string) tea.Cmd
	// closeSession stops showing session uri if it is the open one (it
	// is being disposed).
	closeSession func(uri string)
	// requestTerminal opens a tool call's terminal in the terminal pane.
	requestTerminal func(ref protocol.ToolResultTerminalContent) tea.Cmd
}

// Model is the root Bubble Tea model of ahptui. It routes messages to the
// components (session list, chat, MCP panel, sign-in manager, input form,
// status line), owns the subscriptions and lays the panels out.
type Model struct {
	*app

	sessions  *sessionList
	chatPanel *chatPanel
	mcp       *mcpPanel
	signin    *signIn
	settings  *settingsSheet
	queue     *queueSheet
	chats     *chatSwitcher
	changes   *changesView
	terms     *terminalView
	resources *resourceSheet

	cancel      context.CancelFunc
	isDark      bool
	baseLayout  views.Layout // ComputeLayout's; layout may give the chat what the MCP strip does not need
	showMCP     bool
	showAll     bool            // full help overlay
	helpOffset  int             // the full help overlay's scroll, in rows
	helpHere    keymap.Context  // where the keyboard was when ? opened it: its keys come first
	fullHelp    *views.FullHelp // the overlay laid out, for fullHelpGen (fullHelpLaidOut)
	fullHelpGen int             // the themeGen fullHelp was laid out in
	showMsgs    bool            // the message history overlay
	help        help.Model
	closed      bool
	// connTries counts failed first connects since the last success; the
	// retry a failure schedules carries it, so a retry overtaken by a
	// newer one (ctrl+r) does nothing.
	connTries int
	// failedSession is the session whose failed creation the status line
	// has reported, so each failure is said once.
	failedSession string

	// waits tracks what waits on the user and since when (waiting.go);
	// signals rings when something new does while we are not in front
	// (signal.go); inbox is the overlay listing them (inbox.go).
	waits   waitTracker
	signals signals
	inbox   inbox
}

// versionFeature is something only some AHP versions can do: the action
// that does it, and what it does in the user's words.
type versionFeature struct{ action, does string }

// The features a key asks for that an older host lacks. A key checks its
// feature first (cannot), so an older host hears once what its version
// cannot do, rather than why the key has nothing to act on.
var (
	featBackground = versionFeature{"session/mcpServerBackgroundRequested", "move a server start to the background"}
	featResume     = versionFeature{"chat/turnResume", "resume a turn"}
)

// cannot says what the connected host's AHP version cannot do of f, or
// nil when it can (or nothing is connected: nothing is sent then, and
// dispatch says why).
func (a *app) cannot(f versionFeature) error {
	if a.client == nil {
		return nil
	}
	v := a.client.ProtocolVersion()
	if client.ActionDefined(v, f.action) {
		return nil
	}
	return fmt.Errorf("this host speaks AHP %s, which cannot %s (AHP 1.0 can)", views.SanitizeLine(v), f.does)
}

// hostSession is a session on a host (Config.Host, token-free).
type hostSession struct{ host, session string }
