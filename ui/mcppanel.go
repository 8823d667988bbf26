package ui

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

// mcpPanel is the open session's MCP servers: the selection, and the
// start/stop/toggle actions sent but not yet answered.
type mcpPanel struct {
	*app
	signin  *signIn // sign-in prompts drawn under a server
	sel     int
	pending map[int64]pendingOp
	memo    panelMemo
	// startSeen is when this client first saw each of the open session's
	// servers starting, by id: the host sends no start time, and a
	// blocking start says how long it has held new messages from there.
	// Entries go when the server leaves starting.
	startSeen map[string]time.Time
	// startNoted: the status line has said this start blocks new messages.
	startNoted map[string]bool
	startOf    customizationsID // the snapshot startSeen was last updated from
	// startTicking: a startTickMsg is on its way; one at a time.
	startTicking bool
	// requested holds the servers whose start request the host echoed
	// while they have not left starting since: until a session's first
	// message VS Code's host does nothing more, so the row says the
	// start waits for the session to run rather than "starting" for good.
	requested views.StartRequests
}

// startTickMsg redraws a blocking start's elapsed time once a second.
type startTickMsg struct{}

// startTick is how often a blocking start's timer is redrawn.
const startTick = time.Second

// pendingOp is an MCP action sent but not yet answered, keyed in
// mcpPanel.pending by the clientSeq Dispatch returned. The host's echo
// (client.ActionConfirmedEvent) or its rejection (ActionRejectedEvent)
// for that clientSeq settles it; a dropped channel ends it. The client
// re-dispatches un-echoed actions after a reconnect with the same clientSeq,
// so a marker rightly survives a reconnect and settles on the late echo.
type pendingOp struct {
	server  string // MCP customization id the marker is drawn on
	verb    string // "stopping", "enabling", … for the status line
	channel string // the session the action was dispatched on
	start   bool   // a start request (see mcpPanel.requested)
}

// pendingTimeout is only a safety net for a host that never answers: a
// conformant host echoes or rejects every dispatch, so the marker normally
// settles long before this and the timeout says so when it does not.
const pendingTimeout = 30 * time.Second

type mcpVerb int

const (
	mcpStart mcpVerb = iota
	mcpStop
	mcpToggle
	mcpBackground
)

func (mp *mcpPanel) mcpAction(rows []mcpRow, verb mcpVerb) tea.Cmd {
	if mp.sel >= len(rows) {
		return reportError(errors.New("no MCP server selected"))
	}
	r := rows[mp.sel]
	var v protocol.StateActionVariant
	var label string
	switch verb {
	case mcpStart:
		if !r.Enabled {
			// A disabled server does not start: the request would sit as
			// "starting" forever.
			return reportError(fmt.Errorf("could not start %s: it is disabled in this session; enable it before starting it (%s, then %s)",
				views.SanitizeLine(r.Name), mp.keys.MCP.Toggle.Help().Key, mp.keys.MCP.Start.Help().Key))
		}
		v, label = protocol.SessionMcpServerStartRequestedAction{ID: r.ID}, "starting"
		if r.StateKind == "ready" {
			label = "restarting"
		}
	case mcpStop:
		v, label = protocol.SessionMcpServerStopRequestedAction{ID: r.ID}, "stopping"
	case mcpToggle:
		v = protocol.SessionCustomizationToggledAction{ID: r.ID, Enablement: protocol.WithSessionEnablement(r.Enablement, !r.Enabled)}
		label = map[bool]string{true: "enabling", false: "disabling"}[!r.Enabled]
	case mcpBackground:
		// Only a blocking start can be backgrounded (the reducer ignores
		// the rest), and only the 1.0 wire has the action: say so rather
		// than send what a 0.6 host would reject.
		if err := mp.cannot(featBackground); err != nil {
			return reportError(err)
		}
		if r.StateKind != "starting" || !r.Blocking {
			return reportInfo(views.SanitizeLine(r.Name) + " is not holding new messages: nothing to move to the background")
		}
		v, label = protocol.SessionMcpServerBackgroundRequestedAction{ID: r.ID}, "moving to the background"
	}
	seq, err := mp.dispatch(mp.openSession, v)
	if err != nil {
		return reportError(err)
	}
	mp.pending[seq] = pendingOp{server: r.ID, verb: label, channel: mp.openSession, start: verb == mcpStart}
	return tea.Tick(pendingTimeout, func(time.Time) tea.Msg { return settleMsg{seq: seq} })
}

func (mp *mcpPanel) handleKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := mp.keys.MCP
	rows := mp.signin.servers()
	switch {
	case cursorKey(msg, k.Up, k.Down):
		mp.sel = moveCursor(msg, k.Up, mp.sel, len(rows))
	case key.Matches(msg, k.Start):
		return mp.mcpAction(rows, mcpStart), true
	case key.Matches(msg, k.Stop):
		return mp.mcpAction(rows, mcpStop), true
	case key.Matches(msg, k.Toggle):
		return mp.mcpAction(rows, mcpToggle), true
	case key.Matches(msg, k.Background):
		return mp.mcpAction(rows, mcpBackground), true
	case key.Matches(msg, k.SignIn):
		if mp.sel < len(rows) && rows[mp.sel].Auth != nil {
			return mp.signin.startGrant(*rows[mp.sel].Auth), true
		}
		return reportError(errNoSignIn), true
	case key.Matches(msg, k.Token):
		// The token goes, as every hand token does, only for the
		// resource the host advertised for this server.
		if mp.sel < len(rows) && rows[mp.sel].Auth != nil {
			return mp.signin.openToken(rows[mp.sel].Auth.Resource.Resource, false), true
		}
		return reportError(errNoSignIn), true
	default:
		return nil, false
	}
	return nil, true
}

func (mp *mcpPanel) view(w, h int) []string {
	if w <= 0 || h <= 0 {
		return nil
	}
	focused := mp.focus == focusMCP
	if !mp.hasSess {
		return views.RenderMCPPanelNoSession(mp.th, w, h, focused)
	}
	rows, sel, pending, grants, blocking := mp.drawn()
	// The panel redraws on every frame but changes rarely; lipgloss framing
	// makes it the costliest panel, so it is memoized on everything it shows.
	key := fmt.Sprintf("%v|%d|%v|%v|%v|%v|%d|%d|%v|%d", customizationsOf(mp.sess),
		sel, pending, mp.requested, grants, blocking, w, h, focused, mp.themeGen)
	if mp.memo.key != key {
		mp.memo.key = key
		mp.memo.lines = strings.Split(views.RenderMCPPanel(mp.th, rows, sel, pending, grants, blocking, w, h, focused), "\n")
	}
	return mp.memo.lines
}

// drawn is what the panel draws from: the rows, the selection clamped,
// and the pending markers, grants and blocking starts by server id.
func (mp *mcpPanel) drawn() (rows []mcpRow, sel int, pending map[string]bool, grants map[string]views.GrantView, blocking map[string]time.Duration) {
	rows = mp.requested.Mark(mp.signin.servers()) // a copy when it marks: the sign-in manager's rows are shared
	sel = clampCursor(mp.sel, len(rows))
	pending = map[string]bool{}
	for _, p := range mp.pending {
		if p.channel == mp.openSession {
			pending[p.server] = true
		}
	}
	grants = map[string]views.GrantView{}
	for _, r := range rows {
		if r.Auth == nil {
			continue
		}
		if g := mp.signin.flowFor(r.Auth.Resource.Resource, serverChallenge(r.ID)); g != nil {
			grants[r.ID] = mp.signin.grantView(*r.Auth, serverChallenge(r.ID))
		}
	}
	for _, r := range rows {
		if since, ok := mp.startSeen[r.ID]; ok && r.Blocking {
			if blocking == nil {
				blocking = map[string]time.Duration{}
			}
			// Whole seconds: the memo key changes once a second, not
			// on every frame.
			blocking[r.ID] = max(mp.clock().Sub(since), 0).Truncate(time.Second)
		}
	}
	return rows, sel, pending, grants, blocking
}

// fit is the rows the panel under the chat needs at w, at most h (see
// views.MCPPanelFit).
func (mp *mcpPanel) fit(w, h int) int {
	rows, sel, pending, grants, blocking := mp.drawn()
	return views.MCPPanelFit(mp.th, rows, sel, pending, grants, blocking, w, h, mp.focus == focusMCP)
}

// onSettle fires pendingTimeout after an action: if the host never
// answered it, the marker goes and the status line says so.
func (mp *mcpPanel) onSettle(msg settleMsg) tea.Cmd {
	p, ok := mp.pending[msg.seq]
	if !ok {
		return nil
	}
	delete(mp.pending, msg.seq)
	return reportError(fmt.Errorf("no answer from host to %s %s after %s: the panel shows the host's last known state; press ctrl+r to reconnect if it stays stuck",
		p.verb, views.SanitizeLine(p.server), pendingTimeout))
}

// settled ends the marker of the action the host echoed or rejected as
// clientSeq seq; an echoed start request is remembered (requested).
func (mp *mcpPanel) settled(seq int64, echoed bool) {
	p, ok := mp.pending[seq]
	if !ok {
		return
	}
	delete(mp.pending, seq)
	if echoed && p.start && p.channel == mp.openSession {
		mp.requested.Echoed(p.server)
	}
}

// dropChannel forgets the pending actions of a dropped channel: the
// client forgets them too, so nothing will answer them now.
func (mp *mcpPanel) dropChannel(ch string) {
	for seq, p := range mp.pending {
		if p.channel == ch {
			delete(mp.pending, seq)
		}
	}
}

// reset forgets the selection, pending markers and start times of the
// session that was open: another one is opening.
func (mp *mcpPanel) reset() {
	mp.sel, mp.pending, mp.requested = 0, map[int64]pendingOp{}, nil
	mp.startSeen, mp.startNoted, mp.startOf = nil, nil, customizationsID{}
}

// observeStarts notes when each server of the open session was first seen
// starting (once per session snapshot) and keeps a one-second tick going
// while a blocking start is on screen, so its timer counts. It returns
// the tick to arm, or nil.
func (mp *mcpPanel) observeStarts() tea.Cmd {
	rows := mp.signin.servers()
	var report tea.Cmd
	if id := customizationsOf(mp.sess); id != mp.startOf || !mp.hasSess {
		mp.startOf = id
		mp.requested.Observe(rows) // forgets the servers the host moved on
		seen, noted := map[string]time.Time{}, map[string]bool{}
		for _, r := range rows {
			if r.StateKind != "starting" {
				continue
			}
			since, ok := mp.startSeen[r.ID]
			if !ok {
				since = mp.clock()
			}
			seen[r.ID] = since
			noted[r.ID] = mp.startNoted[r.ID]
			if r.Blocking && !noted[r.ID] {
				// Said once per start, where the eye is: the panel may
				// be hidden, and a message sent now just waits.
				noted[r.ID] = true
				report = reportInfo(blockingNote(r.Name, mp.keys.MCP.Background.Help().Key))
			}
		}
		mp.startSeen, mp.startNoted = seen, noted
	}
	if mp.startTicking || mp.cfg.Tick < 0 || !anyBlocking(rows) {
		return report
	}
	mp.startTicking = true
	return tea.Batch(report, tea.Tick(startTick, func(time.Time) tea.Msg { return startTickMsg{} }))
}

// blockingNote is the status line's word on a blocking start.
func blockingNote(server, key string) string {
	// Short enough for an 80-column status line: the panel, shown focused
	// or not, has the timer and the key's hint.
	return views.SanitizeLine(server) + " holds new messages (" + key + " in the MCP panel)"
}

// onStartTick redraws the timers (View reads the clock) and re-arms the
// tick while a blocking start remains.
func (mp *mcpPanel) onStartTick() tea.Cmd {
	mp.startTicking = false
	return mp.observeStarts()
}

// blockingSelected reports whether the selected server is a blocking
// start: the footer then offers to move it to the background.
func (mp *mcpPanel) blockingSelected() bool {
	rows := mp.signin.servers()
	return mp.hasSess && mp.sel < len(rows) && rows[mp.sel].StateKind == "starting" && rows[mp.sel].Blocking && mp.cannot(featBackground) == nil
}

func anyBlocking(rows []mcpRow) bool {
	for _, r := range rows {
		if r.StateKind == "starting" && r.Blocking {
			return true
		}
	}
	return false
}
