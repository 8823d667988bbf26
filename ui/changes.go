package ui

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

// changesetClient is what the changes view needs beyond Client: a
// changeset channel's state, its operations and file contents.
// *client.Client has them; a client without them shows the catalogue only.
type changesetClient interface {
	State(channel string) (any, bool)
	InvokeChangesetOperation(ctx context.Context, p protocol.InvokeChangesetOperationParams) (protocol.InvokeChangesetOperationResult, error)
	ReadContent(ctx context.Context, ref protocol.ContentRef, maxBytes int) (string, error)
}

// maxDiffContent caps each side of a file the diff view reads: the host
// names the content, and a diff is read to be looked at, not archived.
const maxDiffContent = 4 << 20

// changesView is the changes view (C, issue 23): the open session's
// advertised changesets, then the files of the one opened, its
// operations, and a file's diff (diffState). It subscribes to a
// changeset's channel only while that changeset is open, and unsubscribes
// when it is left or the view closes.
type changesView struct {
	*app
	open    bool
	session string // the session the view was opened on
	sel     int
	// turn and orig are how many turns back from the latest the
	// {turnId}/{modifiedTurnId} and {originalTurnId} expansions pick.
	turn, orig int

	channel    string // the subscribed changeset's URI, "" when none is open
	entry      protocol.Changeset
	cs         protocol.ChangesetState
	hasCS      bool
	files      []views.ChangesetFileRow // all files, derived once per snapshot
	fileSel    int                      // index into shown()
	unreviewed bool
	confirm    int // the operation asking for a yes, -1 for none
	note       string
	diff       *diffState
}

type changesetSubscribedMsg struct {
	channel string
	err     error
}

type changesetOpMsg struct {
	channel, label string
	res            protocol.InvokeChangesetOperationResult
	err            error
}

func (v *changesView) csClient() (changesetClient, bool) {
	c, ok := v.client.(changesetClient)
	return c, ok && v.client != nil
}

// toggle opens the view on the open session, or closes it.
func (v *changesView) toggle() tea.Cmd {
	if v.open {
		return v.close()
	}
	if !v.hasSess {
		return reportInfo("open a session first: the changes view shows the open session's changesets")
	}
	v.open, v.session, v.sel, v.turn, v.orig, v.confirm = true, v.openSession, 0, 0, 1, -1
	return nil
}

// close leaves the view and unsubscribes from the open changeset.
func (v *changesView) close() tea.Cmd {
	cmd := v.leaveChangeset()
	v.open = false
	return cmd
}

func (v *changesView) leaveChangeset() tea.Cmd {
	ch := v.channel
	v.channel, v.hasCS, v.files, v.diff, v.note, v.confirm, v.unreviewed = "", false, nil, nil, "", -1, false
	c, ctx := v.client, v.ctx
	if ch == "" || c == nil {
		return nil
	}
	return func() tea.Msg {
		_ = c.Unsubscribe(ctx, ch)
		return nil
	}
}

// catalogue is the open session's advertised changesets.
func (v *changesView) catalogue() []protocol.Changeset {
	if !v.hasSess || v.openSession != v.session {
		return nil
	}
	return v.sess.Changesets
}

// expand fills a changeset's URI template with the picked turns of the
// open chat. It says why not when it cannot (too few turns, a variable
// the protocol does not define), and how it expanded it (row text).
func (v *changesView) expand(c protocol.Changeset) (uri, how, missing string) {
	turns := v.chat.Turns
	if !v.hasChat {
		turns = nil
	}
	pick := func(back int) (string, int, bool) {
		i := len(turns) - 1 - back
		if i < 0 || i >= len(turns) {
			return "", 0, false
		}
		return turns[i].ID, i + 1, true
	}
	// A turn is named by its number and its message's first words
	// (issue 36: "turn 8" alone did not say which message it was).
	named := func(n int) string {
		return fmt.Sprintf("turn %d %s", n, turnWords(turns[n-1].Message.Text))
	}
	uri = c.URITemplate
	vars := templateVars(uri)
	has := func(name string) bool { return vars[name] }
	for name := range vars {
		if name != "turnId" && name != "originalTurnId" && name != "modifiedTurnId" {
			return "", "", "needs {" + name + "}, which ahptui cannot fill"
		}
	}
	switch {
	case has("turnId"):
		id, n, ok := pick(v.turn)
		if !ok {
			return "", "", "no turn yet"
		}
		return strings.ReplaceAll(uri, "{turnId}", url.PathEscape(id)), named(n), ""
	case has("originalTurnId") || has("modifiedTurnId"):
		mod, nm, ok1 := pick(v.turn)
		org, no, ok2 := pick(v.turn + v.orig)
		if !ok1 || !ok2 {
			return "", "", "needs two turns"
		}
		uri = strings.ReplaceAll(uri, "{originalTurnId}", url.PathEscape(org))
		return strings.ReplaceAll(uri, "{modifiedTurnId}", url.PathEscape(mod)), named(no) + " → " + named(nm), ""
	}
	return uri, "", ""
}

// turnWordsMax is how many cells of a turn's message name it.
const turnWordsMax = 24

// turnWords is a message's first words, quoted, on one line: enough to
// tell which message a turn was.
func turnWords(text string) string {
	t := strings.Join(strings.Fields(views.SanitizeLine(text)), " ")
	if t == "" {
		return "(no text)"
	}
	return "“" + views.Truncate(t, turnWordsMax) + "”"
}

// templateVars names the {variables} of an RFC 6570 template.
func templateVars(t string) map[string]bool {
	out := map[string]bool{}
	for {
		i := strings.IndexByte(t, '{')
		if i < 0 {
			return out
		}
		j := strings.IndexByte(t[i:], '}')
		if j < 0 {
			return out
		}
		out[t[i+1:i+j]] = true
		t = t[i+j+1:]
	}
}

func reviewable(c protocol.Changeset) bool {
	return c.Capabilities != nil && c.Capabilities.Review != nil
}

// openChangeset subscribes to the selected changeset.
func (v *changesView) openChangeset() tea.Cmd {
	cat := v.catalogue()
	if v.sel >= len(cat) {
		return nil
	}
	uri, _, missing := v.expand(cat[v.sel])
	if missing != "" {
		return reportInfo(views.SanitizeLine(cat[v.sel].Label) + ": " + missing)
	}
	if v.client == nil {
		return reportError(errors.New("not connected"))
	}
	leave := v.leaveChangeset()
	v.channel, v.entry, v.fileSel = uri, cat[v.sel], 0
	c, ctx := v.client, v.ctx
	return tea.Sequence(leave, func() tea.Msg {
		return changesetSubscribedMsg{channel: uri, err: c.Subscribe(ctx, uri)}
	})
}

func (v *changesView) onSubscribed(msg changesetSubscribedMsg) tea.Cmd {
	if msg.channel != v.channel {
		return nil
	}
	if msg.err != nil {
		v.channel = ""
		return reportError(fmt.Errorf("could not open the changeset: %w", msg.err))
	}
	v.refresh(msg.channel)
	return nil
}

// refresh takes the changeset's new snapshot and derives its file rows.
func (v *changesView) refresh(channel string) {
	if !v.open || channel != v.channel {
		return
	}
	c, ok := v.csClient()
	if !ok {
		return
	}
	st, ok := c.State(channel)
	if !ok {
		return
	}
	cs, ok := st.(protocol.ChangesetState)
	if !ok {
		return
	}
	dir := ""
	if len(v.sess.WorkingDirectories) > 0 {
		dir = string(v.sess.WorkingDirectories[0])
	}
	v.cs, v.hasCS = cs, true
	v.files = views.ChangesetFileRows(cs, dir)
	v.fileSel = clampCursor(v.fileSel, len(v.shown()))
	if v.confirm >= len(cs.Operations) {
		v.confirm = -1
	}
}

// shown is the file rows the filter lets through.
func (v *changesView) shown() []views.ChangesetFileRow {
	if !v.unreviewed {
		return v.files
	}
	out := make([]views.ChangesetFileRow, 0, len(v.files))
	for _, f := range v.files {
		if !f.Reviewed {
			out = append(out, f)
		}
	}
	return out
}

// handleKey drives the view; it is modal, so every key stops here.
func (v *changesView) handleKey(msg tea.KeyPressMsg, quit, help func() tea.Cmd) tea.Cmd {
	g, k := v.keys.Global, v.keys.Changes
	if v.confirm >= 0 {
		return v.keyConfirm(msg)
	}
	if v.diff != nil {
		return v.keyDiff(msg, quit, help)
	}
	switch {
	case key.Matches(msg, g.Quit):
		return quit()
	case key.Matches(msg, g.Help):
		return help()
	case key.Matches(msg, g.Changes):
		return v.close()
	case key.Matches(msg, k.Back):
		if v.channel != "" {
			return v.leaveChangeset()
		}
		return v.close()
	}
	if v.channel == "" {
		return v.keyCatalogue(msg)
	}
	return v.keyFiles(msg)
}

func (v *changesView) keyCatalogue(msg tea.KeyPressMsg) tea.Cmd {
	k := v.keys.Changes
	n := len(v.catalogue())
	switch {
	case cursorKey(msg, k.Up, k.Down):
		v.sel = moveCursor(msg, k.Up, v.sel, n)
	case key.Matches(msg, k.Open):
		return v.openChangeset()
	case key.Matches(msg, k.TurnPrev):
		v.turn = min(v.turn+1, max(0, len(v.chat.Turns)-1))
	case key.Matches(msg, k.TurnNext):
		v.turn = max(0, v.turn-1)
	case key.Matches(msg, k.OrigPrev):
		v.orig = min(v.orig+1, max(1, len(v.chat.Turns)-1-v.turn))
	case key.Matches(msg, k.OrigNext):
		v.orig = max(1, v.orig-1)
	}
	return nil
}

func (v *changesView) keyFiles(msg tea.KeyPressMsg) tea.Cmd {
	k := v.keys.Changes
	files := v.shown()
	switch {
	case cursorKey(msg, k.Up, k.Down):
		v.fileSel = moveCursor(msg, k.Up, v.fileSel, len(files))
	case key.Matches(msg, k.Open):
		if v.fileSel < len(files) {
			return v.openDiff(files[v.fileSel].ID)
		}
	case key.Matches(msg, k.Reviewed):
		if v.fileSel < len(files) {
			return v.toggleReviewed(files[v.fileSel])
		}
	case key.Matches(msg, k.Unreviewed):
		if !reviewable(v.entry) {
			return reportInfo("this changeset does not offer review")
		}
		v.unreviewed = !v.unreviewed
		v.fileSel = clampCursor(v.fileSel, len(v.shown()))
	case key.Matches(msg, k.Operation):
		return v.pickOperation(int(msg.Code - '1'))
	}
	return nil
}

// toggleReviewed flips a file's reviewed mark on the host
// (changeset/filesReviewChanged), where the changeset offers review.
func (v *changesView) toggleReviewed(f views.ChangesetFileRow) tea.Cmd {
	if !reviewable(v.entry) {
		return reportInfo("this changeset does not offer review")
	}
	a := protocol.ChangesetFilesReviewChangedAction{Files: []string{f.ID}, Reviewed: !f.Reviewed}
	if _, err := v.client.Dispatch(v.channel, protocol.NewStateAction(a)); err != nil {
		return reportError(fmt.Errorf("could not mark %s: %w", f.Path, err))
	}
	return nil
}

// pickOperation runs operation i, asking first where the host says it is
// destructive (its confirmation).
func (v *changesView) pickOperation(i int) tea.Cmd {
	if !v.hasCS || i < 0 || i >= len(v.cs.Operations) {
		return reportInfo("this changeset has no operation with that number")
	}
	op := v.cs.Operations[i]
	switch op.Status {
	case protocol.ChangesetOperationStatusDisabled:
		return reportInfo(views.SanitizeLine(op.Label) + " is unavailable now")
	case protocol.ChangesetOperationStatusRunning:
		return reportInfo(views.SanitizeLine(op.Label) + " is already running")
	}
	if op.Confirmation != nil {
		v.confirm = i
		return nil
	}
	return v.invoke(op)
}

func (v *changesView) keyConfirm(msg tea.KeyPressMsg) tea.Cmd {
	i := v.confirm
	switch {
	case key.Matches(msg, v.keys.Confirm.Yes):
		v.confirm = -1
		if i < len(v.cs.Operations) {
			return v.invoke(v.cs.Operations[i])
		}
	case key.Matches(msg, v.keys.Confirm.No):
		v.confirm = -1
	}
	return nil
}

// invoke runs op through invokeChangesetOperation; its outcome and
// follow-up come back as changesetOpMsg.
func (v *changesView) invoke(op protocol.ChangesetOperation) tea.Cmd {
	c, ok := v.csClient()
	if !ok {
		return reportError(errors.New("this client cannot run changeset operations"))
	}
	p := protocol.InvokeChangesetOperationParams{Channel: protocol.URI(v.channel), OperationID: op.ID}
	if !slices.Contains(op.Scopes, protocol.ChangesetOperationScopeChangeset) {
		// A file's operation acts on the selected file; one on a range
		// of lines needs a range ahptui has no way to pick yet.
		if !slices.Contains(op.Scopes, protocol.ChangesetOperationScopeResource) {
			return reportInfo(views.SanitizeLine(op.Label) + " works on a range of lines, which ahptui cannot pick yet")
		}
		uri, ok := v.selectedURI()
		if !ok {
			return reportInfo("select a file for " + views.SanitizeLine(op.Label))
		}
		t := protocol.NewChangesetOperationTarget(protocol.ChangesetOperationResourceTarget{Resource: uri})
		p.Target = &t
	}
	ch, label, ctx := v.channel, views.SanitizeLine(op.Label), v.ctx
	v.note = label + ": running…"
	return func() tea.Msg {
		res, err := c.InvokeChangesetOperation(ctx, p)
		return changesetOpMsg{channel: ch, label: label, res: res, err: err}
	}
}

func (v *changesView) onOperation(msg changesetOpMsg) tea.Cmd {
	if msg.err != nil {
		if msg.channel == v.channel {
			v.note = msg.label + " failed"
		}
		return reportError(fmt.Errorf("%s failed: %w", msg.label, msg.err))
	}
	note := msg.label + ": done"
	if m := msg.res.Message; m != nil && strings.TrimSpace(m.Value) != "" {
		note = msg.label + ": " + views.SanitizeLine(m.Value)
	}
	if f := msg.res.FollowUp; f != nil {
		where := "follow-up: "
		if f.External != nil && *f.External {
			where = "follow-up (open outside): "
		}
		note += " · " + where + views.SanitizeLine(string(f.Content.URI))
	}
	if msg.channel == v.channel {
		v.note = note
	}
	return reportInfo(note)
}
