package ui

import (
	"errors"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

// Limits on what a host's terminal may make us allocate: its pty size
// and the output fed when a pane is (re)built from a whole snapshot.
const (
	maxTermCols = 500
	maxTermRows = 200
	// maxTermReplay is the tail of a snapshot fed on a rebuild: more
	// than the scrollback holds at any sane width.
	maxTermReplay = 4 << 20
)

// terminalView is the terminals list (T) and one open terminal pane
// (issue 23). It subscribes to a terminal's channel only while its pane is
// open, keeps one emulator for it, and feeds the emulator only the output
// it has not fed yet.
type terminalView struct {
	*app
	open bool
	sel  int
	// card is a terminal opened from a tool call's card, listed beside
	// the host's own while the sheet is open.
	card views.TerminalRow
	// cardRef is the card's terminal content: its preview stands in
	// when the host no longer serves the terminal (kept).
	cardRef protocol.ToolResultTerminalContent
	kept    bool
	// fromChat: the pane was opened from a card (w), so esc goes back
	// to the chat rather than to the list.
	fromChat bool

	channel string // the open pane's terminal, "" when the list shows
	title   string
	st      protocol.TerminalState
	hasSt   bool
	scr     vtScreen
	fed     []int  // bytes fed of each content part
	fedTail string // the last bytes fed, to tell an extension from new content
	top     int
	follow  bool
	input   bool // keys go to the terminal (Input pressed, claim held)
	feeding bool // a terminalSubscribedMsg with more is on its way
	note    string
	// waits says a question of the host's waits behind the typing, and
	// how to reach it: the pane covers the status line that says so
	// elsewhere (Model.settleGuards sets it).
	waits string
	// newScreen makes the pane's emulator (newVTScreen; tests count
	// what is fed through it).
	newScreen func(cols, rows int) vtScreen
}

// terminalSubscribedMsg is a subscription's outcome, or (left) the end
// of one: that says nothing to the pane, but tells a test it happened.
type terminalSubscribedMsg struct {
	channel string
	err     error
	left    bool
	more    bool // feed the next bytes of a burst (sync)
}

// toggle opens the list, or closes the sheet.
func (t *terminalView) toggle() tea.Cmd {
	if t.open {
		return t.close()
	}
	t.open, t.sel = true, 0
	return nil
}

// openFromCard opens the terminal a tool call's content references.
func (t *terminalView) openFromCard(ref protocol.ToolResultTerminalContent) tea.Cmd {
	uri := string(ref.Resource)
	t.open, t.cardRef, t.fromChat = true, ref, true
	t.card = views.TerminalRow{URI: uri, Title: ref.Title, FromRun: true}
	if ref.Result != nil && ref.Result.ExitCode != nil {
		t.card.Exited, t.card.Code = true, ref.Result.ExitCode
	}
	for i, r := range t.rows() {
		if r.URI == uri {
			t.sel = i
		}
	}
	return t.openTerminal(uri, ref.Title)
}

func (t *terminalView) close() tea.Cmd {
	cmd := t.leave()
	t.open, t.card, t.cardRef, t.fromChat = false, views.TerminalRow{}, protocol.ToolResultTerminalContent{}, false
	return cmd
}

// leave closes the pane: its emulator and its subscription.
func (t *terminalView) leave() tea.Cmd {
	ch, kept := t.channel, t.kept
	t.reset()
	// The state goes with the pane: a finished build's output is not
	// kept alive until another terminal is opened.
	t.channel, t.st, t.hasSt, t.input, t.note, t.kept = "", protocol.TerminalState{}, false, false, "", false
	c, ctx := t.client, t.ctx
	if ch == "" || c == nil || kept {
		return nil
	}
	return func() tea.Msg {
		return terminalSubscribedMsg{channel: ch, err: c.Unsubscribe(ctx, ch), left: true}
	}
}

func (t *terminalView) reset() {
	if t.scr != nil {
		t.scr.Close()
	}
	t.scr, t.fed, t.fedTail, t.feeding = nil, nil, "", false
}

// rows is the list: the host's terminals, then the card's if the host
// does not list it.
func (t *terminalView) rows() []views.TerminalRow {
	self := ""
	if t.client != nil {
		self = t.client.ClientID()
	}
	var out []views.TerminalRow
	for _, ti := range t.root.Terminals {
		r := views.TerminalRow{Title: ti.Title, URI: ti.Resource, Claim: views.ClaimWords(ti.Claim, self)}
		if ex, ok := ti.Lifecycle.Variant.(protocol.TerminalExitedLifecycleState); ok {
			r.Exited, r.Code = true, ex.ExitCode
		}
		out = append(out, r)
	}
	if t.card.URI != "" && !containsTerminal(out, t.card.URI) {
		c := t.card
		c.Claim = "from the tool call"
		out = append(out, c)
	}
	// The terminals the open chat's tool calls ran in, newest first: a
	// host may not list them (VS Code's does not), yet they are there.
	refs := t.chatTerminals()
	for i := len(refs) - 1; i >= 0; i-- {
		ref := refs[i]
		if containsTerminal(out, string(ref.Resource)) {
			continue
		}
		out = append(out, refRow(ref))
	}
	return out
}

func containsTerminal(rows []views.TerminalRow, uri string) bool {
	for _, r := range rows {
		if r.URI == uri {
			return true
		}
	}
	return false
}

func (t *terminalView) openTerminal(uri, title string) tea.Cmd {
	if t.client == nil {
		return reportError(errors.New("not connected"))
	}
	leave := t.leave()
	t.channel, t.title, t.follow, t.top = uri, title, true, 0
	c, ctx := t.client, t.ctx
	return tea.Sequence(leave, func() tea.Msg {
		return terminalSubscribedMsg{channel: uri, err: c.Subscribe(ctx, uri)}
	})
}

func (t *terminalView) onSubscribed(msg terminalSubscribedMsg) tea.Cmd {
	if msg.more && msg.channel == t.channel && t.hasSt {
		t.feeding = false
		return t.sync()
	}
	if msg.more || msg.left || msg.channel != t.channel {
		return nil
	}
	if msg.err != nil {
		if t.keep(msg.channel) {
			return t.sync()
		}
		t.channel = ""
		return reportError(fmt.Errorf("could not open the terminal: %w", msg.err))
	}
	return t.refresh(msg.channel)
}

// dropped is the host no longer serving the open terminal.
func (t *terminalView) dropped(channel, reason string) tea.Cmd {
	if channel == "" || channel != t.channel {
		return nil
	}
	t.reset()
	t.channel, t.st, t.hasSt, t.input = "", protocol.TerminalState{}, false, false
	return reportError(fmt.Errorf("stopped watching the terminal: %s", views.SanitizeLine(reason)))
}

// refresh takes the terminal's new snapshot and feeds its emulator.
func (t *terminalView) refresh(channel string) tea.Cmd {
	if !t.open || channel == "" || channel != t.channel || t.client == nil {
		return nil
	}
	st, ok := t.client.Terminal(channel)
	if !ok {
		return nil
	}
	t.st, t.hasSt = st, true
	if t.input && !t.holdsClaim() {
		t.input, t.note = false, "the claim moved: typing stopped"
	}
	return t.sync()
}

// termSize is the terminal's pty size, bounded.
func termSize(st protocol.TerminalState) (cols, rows int) {
	cols, rows = 80, 24
	if st.Cols != nil && *st.Cols > 0 {
		cols = int(min(*st.Cols, maxTermCols))
	}
	if st.Rows != nil && *st.Rows > 0 {
		rows = int(min(*st.Rows, maxTermRows))
	}
	return cols, rows
}

// partText is a content part's output. The pane reads it by range
// (Text.Slice), never whole: joining a long run would copy it all again.
func partText(p protocol.TerminalContentPart) protocol.Text {
	switch v := p.Variant.(type) {
	case protocol.TerminalUnclassifiedPart:
		return v.Value
	case protocol.TerminalCommandPart:
		return v.Output
	}
	return protocol.Text{}
}

const fedTailLen = 32

// maxFeedPerFrame is what one update feeds the emulator: about 2 ms of
// x/vt's parsing on a loaded 2-core machine.
const maxFeedPerFrame = 8 << 10

// sync feeds the emulator what the snapshot holds beyond what was fed,
// at most maxFeedPerFrame bytes per update: parsing is the frame's cost,
// so a burst is fed over several frames (a terminalSubscribedMsg with
// more asks for the next) and keys stay answered. A snapshot that does
// not extend what was fed (terminal/cleared, a reconnect's fresh state,
// a rewritten part) rebuilds the emulator, and so does a backlog past
// maxTermReplay: only its tail could still be seen.
func (t *terminalView) sync() tea.Cmd {
	cols, rows := termSize(t.st)
	parts := t.st.Content
	if t.scr == nil || !t.extends(parts) || t.unfed(parts) > maxTermReplay {
		t.rebuild(cols, rows)
	}
	t.scr.Resize(cols, rows)
	budget := maxFeedPerFrame
	for i := max(0, len(t.fed)-1); i < len(parts) && budget > 0; i++ {
		s, from := partText(parts[i]), t.pos(i)
		to := min(s.Len(), from+budget)
		t.feed(i, s, from, to)
		budget -= to - from
	}
	if t.feeding || t.unfed(parts) == 0 {
		return nil
	}
	t.feeding = true
	ch := t.channel
	return func() tea.Msg { return terminalSubscribedMsg{channel: ch, more: true} }
}

// pos is how far part i has been fed (or skipped).
func (t *terminalView) pos(i int) int {
	if i < len(t.fed) {
		return t.fed[i]
	}
	return 0
}

// unfed is how many bytes of parts are not fed yet.
func (t *terminalView) unfed(parts []protocol.TerminalContentPart) int {
	n := 0
	for i := max(0, len(t.fed)-1); i < len(parts); i++ {
		n += partText(parts[i]).Len() - t.pos(i)
	}
	return n
}

// extends reports whether parts continue what was fed: every fed part
// but the last unchanged in length, the last no shorter and ending in
// the bytes fed last.
func (t *terminalView) extends(parts []protocol.TerminalContentPart) bool {
	n := len(t.fed)
	if n == 0 {
		return true
	}
	if len(parts) < n {
		return false
	}
	for i := range n - 1 {
		if partText(parts[i]).Len() != t.fed[i] {
			return false
		}
	}
	last := partText(parts[n-1])
	f := t.fed[n-1]
	return last.Len() >= f && strings.HasSuffix(last.Slice(f-fedTailLen, f), t.fedTail)
}

// feed feeds s[from:to], part i's next bytes.
func (t *terminalView) feed(i int, s protocol.Text, from, to int) {
	for len(t.fed) <= i {
		t.fed = append(t.fed, 0)
	}
	if from < to {
		t.scr.Feed(s.Slice(from, to))
	}
	t.fed[i] = to
	// A copy: a slice of s would keep the whole part's text alive.
	t.fedTail = strings.Clone(s.Slice(to-fedTailLen, to))
}

// rebuild starts a new emulator for the snapshot and skips all but its
// last maxTermReplay bytes (what lies further back would scroll out),
// from a line's start; sync then feeds the rest.
func (t *terminalView) rebuild(cols, rows int) {
	t.reset()
	mk := t.newScreen
	if mk == nil {
		mk = newVTScreen
	}
	t.scr = mk(cols, rows)
	parts := t.st.Content
	skip := -maxTermReplay
	for _, p := range parts {
		skip += partText(p).Len()
	}
	for i, p := range parts {
		s := partText(p)
		if skip <= 0 {
			break
		}
		at := min(skip, s.Len())
		skip -= at
		if at < s.Len() {
			if nl := strings.IndexByte(s.Slice(at, at+4096), '\n'); nl >= 0 {
				at += nl + 1
			}
		}
		t.feed(i, s, at, at)
	}
}

// holdsClaim is whether this client holds the terminal's claim.
func (t *terminalView) holdsClaim() bool {
	c, ok := t.st.Claim.Variant.(protocol.TerminalClientClaim)
	return ok && t.client != nil && c.ClientID == t.client.ClientID() && c.ClientID != ""
}

// pageRows is how many lines the pane shows at the screen's size.
func (t *terminalView) pageRows() int { return views.TerminalScreenRows(t.pane(), t.height) }

// firstShown is the first line on screen now.
func (t *terminalView) firstShown() int {
	if t.scr == nil {
		return 0
	}
	n := t.scr.Lines()
	if t.follow {
		return max(0, n-t.pageRows())
	}
	return max(0, min(t.top, n-t.pageRows()))
}

func (t *terminalView) scrollBy(d int) {
	if t.scr == nil {
		return
	}
	top := t.firstShown() + d
	bottom := max(0, t.scr.Lines()-t.pageRows())
	t.top, t.follow = max(0, min(top, bottom)), top >= bottom
}

// pane is what views draws for the open terminal.
func (t *terminalView) pane() views.TerminalPane {
	p := views.TerminalPane{Title: t.title, Top: t.top, Follow: t.follow, Input: t.input, Note: t.note}
	if t.input && t.waits != "" {
		p.Note = t.waits
	}
	if t.scr != nil {
		p.Grid = t.scr
	}
	if !t.hasSt {
		p.Note = "loading…"
		return p
	}
	if strings.TrimSpace(t.st.Title) != "" {
		p.Title = t.st.Title
	}
	if ex, ok := t.st.Lifecycle.Variant.(protocol.TerminalExitedLifecycleState); ok {
		p.Exited, p.ExitCode = true, ex.ExitCode
	}
	p.CanInput = t.holdsClaim()
	if !p.CanInput && t.client != nil && !t.kept {
		p.Claim = views.ClaimWords(t.st.Claim, t.client.ClientID())
	}
	p.Detects = t.st.SupportsCommandDetection != nil && *t.st.SupportsCommandDetection
	if p.Detects {
		for _, part := range t.st.Content {
			if c, ok := part.Variant.(protocol.TerminalCommandPart); ok {
				p.Commands = append(p.Commands, views.TermCommandRow{Line: c.CommandLine, Running: !c.IsComplete, ExitCode: c.ExitCode})
			}
		}
	}
	return p
}

func (t *terminalView) view(width, height int) string {
	if t.channel == "" {
		return views.RenderTerminals(t.th, t.keys, t.rows(), t.sel, width, height)
	}
	p := t.pane()
	p.Top = t.firstShown()
	return views.RenderTerminal(t.th, t.keys, p, width, height)
}
