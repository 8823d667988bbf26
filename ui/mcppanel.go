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
}

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
	seq, err := mp.dispatch(mp.openSession, v)
	if err != nil {
		return reportError(err)
	}
	mp.pending[seq] = pendingOp{server: r.ID, verb: label, channel: mp.openSession}
	return tea.Tick(pendingTimeout, func(time.Time) tea.Msg { return settleMsg{seq: seq} })
}

func (mp *mcpPanel) handleKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := mp.keys.MCP
	rows := mp.signin.servers()
	switch {
	case key.Matches(msg, k.Up):
		mp.sel = max(0, mp.sel-1)
	case key.Matches(msg, k.Down):
		mp.sel = max(0, min(len(rows)-1, mp.sel+1))
	case key.Matches(msg, k.Start):
		return mp.mcpAction(rows, mcpStart), true
	case key.Matches(msg, k.Stop):
		return mp.mcpAction(rows, mcpStop), true
	case key.Matches(msg, k.Toggle):
		return mp.mcpAction(rows, mcpToggle), true
	case key.Matches(msg, k.SignIn):
		if mp.sel < len(rows) && rows[mp.sel].Auth != nil {
			return mp.signin.startGrant(*rows[mp.sel].Auth), true
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
	rows := mp.signin.servers()
	sel := max(0, min(mp.sel, len(rows)-1))
	pending := map[string]bool{}
	for _, p := range mp.pending {
		if p.channel == mp.openSession {
			pending[p.server] = true
		}
	}
	grants := map[string]views.GrantView{}
	for _, r := range rows {
		if r.Auth == nil {
			continue
		}
		if g := mp.signin.grants[r.Auth.Resource.Resource]; g != nil {
			grants[r.ID] = mp.signin.grantView(*r.Auth)
		}
	}
	// The panel redraws on every frame but changes rarely; lipgloss framing
	// makes it the costliest panel, so it is memoized on everything it shows.
	key := fmt.Sprintf("%v|%d|%v|%v|%d|%d|%v|%d", customizationsOf(mp.sess),
		sel, pending, grants, w, h, focused, mp.themeGen)
	if mp.memo.key != key {
		mp.memo.key = key
		mp.memo.lines = strings.Split(views.RenderMCPPanel(mp.th, rows, sel, pending, grants, w, h, focused), "\n")
	}
	return mp.memo.lines
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

// dropChannel forgets the pending actions of a dropped channel: the
// client forgets them too, so nothing will answer them now.
func (mp *mcpPanel) dropChannel(ch string) {
	for seq, p := range mp.pending {
		if p.channel == ch {
			delete(mp.pending, seq)
		}
	}
}

// reset forgets the selection and pending markers of the session that was
// open: another one is opening.
func (mp *mcpPanel) reset() {
	mp.sel, mp.pending = 0, map[int64]pendingOp{}
}
