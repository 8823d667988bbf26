package ui

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
	"github.com/ahptui/ahptui/views"
)

// sessionList is the session list panel and its two dialogs (dispose
// confirmation, new-session picker).
type sessionList struct {
	*app
	list    []protocol.SessionSummary
	sel     int
	confirm string // the session the dispose dialog asks about
	newSel  int    // the highlighted choice of the new-session picker
	// cfgStep is the new-session dialog's settings step, nil while the
	// agent is being picked (settings.go).
	cfgStep *newConfig
	// created is the session this client asked the host to create, until
	// the list shows it: then the cursor moves onto it, so d and enter act
	// on the session the user just made.
	created string
	// autoOpened records that the first session list opened its newest
	// session, which happens once per run.
	autoOpened bool
	// listedOnce: the host has listed its sessions at least once.
	listedOnce bool
	// truncated: the host listed more sessions than the client keeps
	// (client.SessionsListedEvent.Truncated); the panel title says so
	// ("Sessions (N+)") and the status line in words.
	truncated bool
	// unlisted is the open (or just created) session while the host's
	// list leaves it out: VS Code's host lists a session only after its
	// first message. Its entry is drawn from the session's own state.
	unlisted string
	ownEntry protocol.SessionSummary // the entry drawn for it, kept across listings
}

type newChoice struct {
	provider, agentName string
	model               *protocol.ModelSelection
	modelName           string
	multipleDirs        bool // the agent takes more than one working directory
}

func (sl *sessionList) view(w, h int) []string {
	waiting := sl.client == nil && len(sl.list) == 0
	return views.RenderSessionsPanel(sl.th, sl.list, sl.truncated, sl.sel, waiting, sl.clock(), w, h, sl.focus == focusSessions)
}

func (sl *sessionList) handleKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := sl.keys.Sessions
	switch {
	case cursorKey(msg, k.Up, k.Down):
		sl.sel = moveCursor(msg, k.Up, sl.sel, len(sl.list))
		sl.clampSessSel()
	case key.Matches(msg, k.Open):
		if sl.sel < len(sl.list) {
			cmd := sl.requestSession(sl.list[sl.sel].Resource)
			sl.focus = focusChat
			return cmd, true
		}
	case key.Matches(msg, k.Write):
		uri := sl.selected()
		if uri == "" {
			return reportError(errNoChat), true
		}
		// The composer opens once the session's chat is there
		// (chatPanel.writeWhenOpen): at once for the open session.
		sl.writeIn, sl.focus = uri, focusChat
		return sl.requestSession(uri), true
	case key.Matches(msg, k.New):
		if sl.client == nil {
			// Nothing is known of the host's agents yet: it is the
			// connection that is missing, not an agent.
			return reportError(errNoClient), true
		}
		if len(sl.newChoices()) == 0 {
			return reportError(errNoAgents), true
		}
		sl.modal, sl.newSel, sl.cfgStep = modalNewSession, 0, nil
	case key.Matches(msg, k.Dispose):
		if sl.sel < len(sl.list) {
			sl.modal, sl.confirm = modalConfirmDispose, sl.list[sl.sel].Resource
		}
	case key.Matches(msg, k.Rename):
		return sl.rename(), true
	default:
		return nil, false
	}
	return nil, true
}

func (sl *sessionList) keyConfirm(msg tea.KeyPressMsg) tea.Cmd {
	k := sl.keys.Confirm
	switch {
	case key.Matches(msg, k.Yes):
		uri := sl.confirm
		sl.modal, sl.confirm = modalNone, ""
		return sl.disposeCmd(uri)
	case key.Matches(msg, k.No):
		sl.modal, sl.confirm = modalNone, ""
	}
	return nil
}

// keyNewSession drives the agent/model picker: up/down choose, enter
// creates, esc/n backs out.
func (sl *sessionList) keyNewSession(msg tea.KeyPressMsg) tea.Cmd {
	if sl.cfgStep != nil {
		return sl.keyConfigStep(msg)
	}
	choices := sl.newChoices()
	switch {
	case cursorKey(msg, sl.keys.NewSession.Up, sl.keys.NewSession.Down):
		sl.newSel = moveCursor(msg, sl.keys.NewSession.Up, sl.newSel, len(choices))
	case key.Matches(msg, sl.keys.NewSession.Create):
		if sl.newSel < len(choices) && sl.client != nil {
			// The dialog stays open on its settings step until the
			// host says which settings the session takes.
			return sl.resolveConfigCmd(choices[sl.newSel])
		}
		sl.modal = modalNone
	case key.Matches(msg, sl.keys.NewSession.Cancel):
		sl.modal = modalNone
	}
	return nil
}

func (sl *sessionList) withoutSession(uri string) []protocol.SessionSummary {
	out := make([]protocol.SessionSummary, 0, len(sl.list))
	for _, s := range sl.list {
		if s.Resource != uri {
			out = append(out, s)
		}
	}
	return out
}

// selected is the session under the cursor, "" for none.
func (sl *sessionList) selected() string {
	if sl.sel >= 0 && sl.sel < len(sl.list) {
		return sl.list[sl.sel].Resource
	}
	return ""
}

func (sl *sessionList) listed(uri string) bool {
	return slices.ContainsFunc(sl.list, func(s protocol.SessionSummary) bool { return s.Resource == uri })
}

// keepOwn lists the session this client created or has open when the
// host's list leaves it out, so it is never invisible while in use; once
// the host lists it, the host's entry is the one kept.
func (sl *sessionList) keepOwn() {
	own := sl.openSession
	if own == "" {
		own = sl.created
	}
	if sl.unlisted != "" && sl.unlisted != own {
		sl.list = sl.withoutSession(sl.unlisted)
		sl.unlisted = ""
	}
	if own == "" || (sl.listed(own) && sl.unlisted != own) {
		return
	}
	s := sl.ownEntry
	if s.Resource != own {
		s = protocol.SessionSummary{Resource: own, Title: "New session", Status: protocol.SessionStatusIdle,
			CreatedAt: protocol.Timestamp(sl.clock()), ModifiedAt: protocol.Timestamp(sl.clock())}
	}
	if sl.hasSess && own == sl.openSession {
		s.Provider, s.Title, s.Status, s.Activity = sl.sess.Provider, sl.sess.Title, sl.sess.Status, sl.sess.Activity
		if s.Title == "" {
			s.Title = "New session"
		}
	}
	sl.list = append(sl.withoutSession(own), s)
	sl.unlisted, sl.ownEntry = own, s
}

// sortSessions keeps the most recently modified first, keeping sel (the
// session the cursor was on before the list changed) selected, or the one
// just created once it is listed.
func (sl *sessionList) sortSessions(sel string) {
	sl.keepOwn()
	if sl.created != "" && sl.listed(sl.created) {
		sel = sl.created
		if sl.created == sl.openSession || sl.unlisted != sl.created {
			sl.created = "" // open, or listed by the host: done
		}
	}
	sort.SliceStable(sl.list, func(i, j int) bool {
		return sl.list[i].ModifiedAt > sl.list[j].ModifiedAt
	})
	for i, s := range sl.list {
		if s.Resource == sel {
			sl.sel = i
		}
	}
	sl.clampSessSel()
}

func (sl *sessionList) clampSessSel() {
	sl.sel = clampCursor(sl.sel, len(sl.list))
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

// autoOpen opens the most recently modified session the first time the
// host lists any, so a newcomer sees a chat at once instead of an empty
// panel. Focus stays on the session list, where it was, so the keys the
// help line offers still mean what they say; it happens once per run, so
// a user who closed or disposed a session is not pulled back to another.
func (sl *sessionList) autoOpen() tea.Cmd {
	if sl.autoOpened || sl.openSession != "" || len(sl.list) == 0 || sl.client == nil {
		return nil
	}
	sl.autoOpened = true
	return sl.requestSession(sl.list[0].Resource)
}

// newChoices lists every agent × model the root state offers (an agent
// without models is one choice with the host's default model).
func (sl *sessionList) newChoices() []newChoice {
	var out []newChoice
	for _, a := range sl.root.Agents {
		multi := a.Capabilities != nil && a.Capabilities.MultipleWorkingDirectories != nil
		if len(a.Models) == 0 {
			out = append(out, newChoice{provider: a.Provider, agentName: a.DisplayName, multipleDirs: multi})
			continue
		}
		for _, md := range a.Models {
			out = append(out, newChoice{provider: a.Provider, agentName: a.DisplayName,
				model: &protocol.ModelSelection{ID: md.ID}, modelName: md.Name, multipleDirs: multi})
		}
	}
	return out
}

func (sl *sessionList) createSessionCmd(ch newChoice, dirs []protocol.URI, config map[string]json.RawMessage) tea.Cmd {
	c, ctx := sl.client, sl.ctx
	if c == nil {
		return reportError(errNoClient)
	}
	uri := "ahp-session:/" + sl.cfg.NewID()
	sl.models[hostSession{sl.cfg.Host, uri}] = ch.model
	sl.created = uri
	p := protocol.CreateSessionParams{Channel: uri, Provider: &ch.provider, WorkingDirectories: slices.Clone(dirs), Config: config}
	return tea.Batch(reportInfo("creating session…"), withAuthRetry(func() tea.Msg {
		err := c.CreateSession(ctx, p)
		return opDoneMsg{what: "create session", err: err, session: uri}
	}))
}

// workingDirectories is what a new session for ch is created in: the
// configured directories, cut to the first unless the agent advertises
// multipleWorkingDirectories (a client MUST NOT send more otherwise).
func (sl *sessionList) workingDirectories(ch newChoice) []protocol.URI {
	dirs := sl.cfg.WorkingDirectories
	if len(dirs) > 1 && !ch.multipleDirs {
		dirs = dirs[:1]
	}
	return slices.Clone(dirs)
}

func (sl *sessionList) disposeCmd(uri string) tea.Cmd {
	c, ctx := sl.client, sl.ctx
	if c == nil {
		return reportError(errNoClient)
	}
	sl.closeSession(uri)
	return withAuthRetry(func() tea.Msg {
		return opDoneMsg{what: "dispose session", err: c.DisposeSession(ctx, uri)}
	})
}

// update applies the host's session list events: the list, the additions,
// removals and summary changes. The first listing opens the newest session.
//
// The cursor stays on its session: the list is looked up by resource, not
// by index, after it changed (a host may list oldest first).
func (sl *sessionList) update(ev client.Event) tea.Cmd {
	cur := sl.selected()
	hostHas := func(uri string) {
		if uri == sl.unlisted {
			sl.unlisted = "" // the host's entry replaces ours
		}
	}
	switch e := ev.(type) {
	case client.SessionsListedEvent:
		sl.listedOnce = true
		sl.list = append([]protocol.SessionSummary(nil), e.Sessions...)
		sl.unlisted = ""
		sl.sortSessions(cur)
		sl.truncated = e.Truncated
		if e.Truncated {
			return tea.Batch(sl.autoOpen(), reportInfo(fmt.Sprintf(
				"the host lists more sessions than ahptui keeps; showing the first %d it sent", len(sl.list))))
		}
		return sl.autoOpen()
	case client.SessionAddedEvent:
		hostHas(e.Summary.Resource)
		sl.list = append(sl.withoutSession(e.Summary.Resource), e.Summary)
		sl.sortSessions(cur)
	case client.SessionRemovedEvent:
		hostHas(e.Session)
		sl.list = sl.withoutSession(e.Session)
		sl.sortSessions(cur)
	case client.SessionSummaryChangedEvent:
		for i := range sl.list {
			if sl.list[i].Resource == e.Session {
				sl.list[i] = applySummaryChanges(sl.list[i], e.Changes)
			}
		}
		sl.sortSessions(cur)
	}
	return nil
}

// sessionChanged redraws the entry of an open session the host does not
// list yet from its new state (its title, status).
func (sl *sessionList) sessionChanged() {
	if sl.unlisted != "" && sl.unlisted == sl.openSession {
		sl.sortSessions(sl.selected())
	}
}

// confirmTitle is the title of the session the dispose dialog asks about.
func (sl *sessionList) confirmTitle() string {
	for _, s := range sl.list {
		if s.Resource == sl.confirm {
			return s.Title
		}
	}
	return sl.confirm
}

// newChoiceViews is the new-session picker's choices as the dialog
// shows them.
func (sl *sessionList) newChoiceViews() []views.NewSessionChoice {
	choices := sl.newChoices()
	out := make([]views.NewSessionChoice, len(choices))
	for i, c := range choices {
		out[i] = views.NewSessionChoice{Agent: c.agentName, Model: c.modelName}
	}
	return out
}
