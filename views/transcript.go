package views

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"unsafe"

	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/protocol"
)

// TranscriptOptions are the UI's view state over a chat: they change what
// is drawn, never the chat.
type TranscriptOptions struct {
	// SelectedToolCall is the tool call id whose card has the selection
	// (highlighted frame, key hints), or the id of an input request, which
	// is then framed like a selected card with the keys that answer it.
	SelectedToolCall string
	// SelectedTurn, when set, is the turn of the selected card: a host may
	// reuse a tool call id in a later turn, and only the card in this turn
	// is the selected one.
	SelectedTurn string
	// Expanded holds reasoning part ids and tool call ids the user opened.
	Expanded map[string]bool
	// Grant holds the grant prompt to show on a tool call's card, by tool
	// call id: for an auth-required call, or a running one whose MCP server
	// needs sign-in (see CardContext.Grant).
	Grant map[string]GrantView
	// Reach holds, by tool call or input request id, what to press to get
	// to a card's keys when they do not work from where the user is (e.g.
	// typing in the composer): shown instead of the card's key hints.
	Reach map[string]string
	// ResumeTurn is the id of the turn the resume key would resume (the
	// latest turn, stopped at a resumable error part), or "": its footer
	// then offers the key.
	ResumeTurn string
	// AutoApproval is what in the session's settings runs tool calls
	// without asking (CardContext.AutoApproval).
	AutoApproval string
}

// Transcript renders a chat's turns into a scrollable viewport, fast enough
// to redraw on every streamed delta. It caches each finished turn's lines by
// (turn, width, the options that touch the turn) and, inside a turn, each
// part's lines by (the part's value, width, the options that touch the
// part), so a selection that moves between cards redraws those two cards
// and nothing else. Per frame it reassembles only the active turn from its
// cached parts (a streaming markdown part renders only its open paragraph
// or code segment, see markdownStream), and walks from the bottom only as
// far as the viewport needs.
//
// A Transcript is a cache: mutable, not safe for concurrent use, and it never
// changes the chat it is given. Use one per open chat, from the UI goroutine.
type Transcript struct {
	th       Theme
	chat     protocol.ChatState
	servers  map[string]string // MCP customization id → server name
	serverFP string            // fingerprint of servers, part of every cache key
	turns    map[string]*renderedTurn
	activeID string
	streams  map[string]*markdownStream // active turn's markdown parts, by part id
	userMsg  *renderedTurn              // active turn's user message
	active   []partLines                // active turn's parts as last drawn
	// The active turn's lines are rebuilt every frame; two buffers take
	// turns holding them, so a frame reuses the array two frames old
	// instead of allocating one as long as the answer. The parts of the
	// last frame (active) are views of the other buffer.
	activeBuf [2][]string
	activeGen int
}

// renderedTurn is one turn's lines at one width and option set.
type renderedTurn struct {
	key   string
	lines []string
	cards map[string][2]int // tool call id → [first line, line count] within lines
	// What the lines were assembled from, so that re-rendering the turn for
	// a new option set (the selection moved onto or off one of its cards)
	// redraws only the parts the options touch.
	user    userKey
	userLns []string
	parts   []partLines
}

// partLines is one response part's rendered, indented lines and what they
// depend on. Snapshots are immutable, so the same variant box (see
// samePart) means the same content; key holds the width and the options
// that touch the part.
type partLines struct {
	part  protocol.ResponsePart
	key   string
	lines []string
}

// samePart reports whether a and b are the very same variant value: the
// same dynamic type and the same boxed data. Reducers build a new part
// whenever they change one and share it otherwise (the premise of turnKey
// too), so this identifies unchanged content without walking it. Different
// boxes with equal content only cost a re-render.
func samePart(a, b protocol.ResponsePart) bool {
	wa := *(*[2]unsafe.Pointer)(unsafe.Pointer(&a.Variant))
	wb := *(*[2]unsafe.Pointer)(unsafe.Pointer(&b.Variant))
	return wa == wb && a.Variant != nil
}

// userKey is what a turn's user message lines depend on.
type userKey struct {
	width int
	text  string // compared by content (pointer-equal in the common case)
	kind  protocol.MessageKind
	att   unsafe.Pointer // attachments' backing array: shared while unchanged
	natt  int
}

func userKeyOf(m protocol.Message, width int) userKey {
	return userKey{width: width, text: m.Text, kind: m.Origin.Kind,
		att: unsafe.Pointer(unsafe.SliceData(m.Attachments)), natt: len(m.Attachments)}
}

// NewTranscript returns an empty transcript drawn with th.
func NewTranscript(th Theme) *Transcript {
	return &Transcript{th: th, turns: map[string]*renderedTurn{}, streams: map[string]*markdownStream{}}
}

// SetTheme switches the theme (e.g. after the terminal reported its
// background) and drops every cached line.
func (t *Transcript) SetTheme(th Theme) {
	t.th = th
	t.turns = map[string]*renderedTurn{}
	t.streams = map[string]*markdownStream{}
	t.userMsg = nil
	t.active = nil
}

// SetChat points the transcript at the newest snapshot of the chat and the
// session's customizations (for the MCP server names on tool cards). It is
// cheap: nothing is rendered until Render.
func (t *Transcript) SetChat(chat protocol.ChatState, sessionCustomizations []protocol.Customization) {
	t.chat = chat
	servers := map[string]string{}
	var fp strings.Builder
	for _, r := range MCPServerRows(sessionCustomizations) {
		servers[r.ID] = r.Name
		fp.WriteString(r.ID)
		fp.WriteByte(0)
		fp.WriteString(r.Name)
		fp.WriteByte(0)
	}
	t.servers = servers
	if s := fp.String(); s != t.serverFP {
		t.serverFP = s
		t.turns = map[string]*renderedTurn{}
		t.userMsg = nil
		t.active = nil
	}
	if len(t.turns) > len(chat.Turns)+64 {
		live := make(map[string]bool, len(chat.Turns))
		for _, tr := range chat.Turns {
			live[tr.ID] = true
		}
		for id := range t.turns {
			if !live[id] {
				delete(t.turns, id)
			}
		}
	}
	if chat.ActiveTurn == nil || chat.ActiveTurn.ID != t.activeID {
		t.streams = map[string]*markdownStream{}
		t.userMsg = nil
		t.active = nil
		t.activeID = ""
		if chat.ActiveTurn != nil {
			t.activeID = chat.ActiveTurn.ID
		}
	}
}

// segments is the number of blocks in the transcript: the finished turns,
// then the active turn.
func (t *Transcript) segments() int {
	n := len(t.chat.Turns)
	if t.chat.ActiveTurn != nil {
		n++
	}
	return n
}

// segment returns block i's lines at width.
func (t *Transcript) segment(i, width int, opts TranscriptOptions) *renderedTurn {
	if i < len(t.chat.Turns) {
		return t.finishedTurn(&t.chat.Turns[i], width, opts.inTurn(t.chat.Turns[i].ID))
	}
	return t.activeTurn(t.chat.ActiveTurn, width, opts.inTurn(t.chat.ActiveTurn.ID))
}

// inTurn is opts as the turn with id turnID sees them: the selection is
// not in it when it names another turn.
func (o TranscriptOptions) inTurn(turnID string) TranscriptOptions {
	if o.SelectedTurn != "" && o.SelectedTurn != turnID {
		o.SelectedToolCall = ""
	}
	// Spent: a turn's caches must not key on which turn is selected.
	o.SelectedTurn = ""
	return o
}

// segmentHas reports whether segment i may hold the card toolCallID looks
// for: any turn, unless it is the selected card and its turn is known.
func (t *Transcript) segmentHas(i int, opts TranscriptOptions, toolCallID string) bool {
	if opts.SelectedTurn == "" || toolCallID != opts.SelectedToolCall {
		return true
	}
	if i < len(t.chat.Turns) {
		return t.chat.Turns[i].ID == opts.SelectedTurn
	}
	return t.chat.ActiveTurn != nil && t.chat.ActiveTurn.ID == opts.SelectedTurn
}

// Render returns the viewport: exactly height lines (padded with empty
// lines when the transcript is shorter), none wider than width, ending
// scrollFromBottom lines above the end of the transcript. A scroll offset
// past the top is clamped so the first line shows at the top.
func (t *Transcript) Render(width, height, scrollFromBottom int, opts TranscriptOptions) string {
	if width < 1 || height < 1 {
		return ""
	}
	scrollFromBottom = max(scrollFromBottom, 0)
	need := scrollFromBottom + height
	// Gather blocks from the bottom until the viewport is covered.
	var chunks [][]string // bottom first
	acc := 0
	n := t.segments()
	for i := n - 1; i >= 0 && acc < need; i-- {
		if i < n-1 {
			chunks = append(chunks, blankLine)
			acc++
		}
		l := t.segment(i, width, opts).lines
		chunks = append(chunks, l)
		acc += len(l)
	}
	if acc < need { // reached the top
		scrollFromBottom = max(0, acc-height)
	}
	// Lines [start, end) counted from the top of the gathered part.
	end := acc - scrollFromBottom
	start := max(0, end-height)
	out := make([]string, 0, height)
	pos := 0
	for c := len(chunks) - 1; c >= 0 && pos < end; c-- {
		l := chunks[c]
		if pos+len(l) <= start {
			pos += len(l)
			continue
		}
		from := max(0, start-pos)
		to := min(len(l), end-pos)
		out = append(out, l[from:to]...)
		pos += len(l)
	}
	for len(out) < height {
		out = append(out, "")
	}
	return strings.Join(out, "\n")
}

var blankLine = []string{""}

// ClampScroll is scrollFromBottom limited to the offset that shows the
// transcript's first line at the top of a height-line viewport. Like
// Render it only renders the turns from the end up to the viewport, so a
// scroll key on a long chat costs what drawing it does.
func (t *Transcript) ClampScroll(width, height, scrollFromBottom int, opts TranscriptOptions) int {
	scrollFromBottom = max(scrollFromBottom, 0)
	if width < 1 || height < 1 {
		return 0
	}
	need := scrollFromBottom + height
	acc := 0
	n := t.segments()
	for i := n - 1; i >= 0 && acc < need; i-- {
		if i < n-1 {
			acc++
		}
		acc += len(t.segment(i, width, opts).lines)
	}
	if acc < need {
		return max(0, acc-height)
	}
	return scrollFromBottom
}

// TotalLines is the height of the whole transcript at width with opts. It
// renders every turn not yet cached at this width, so the first call after
// a resize costs a full render.
func (t *Transcript) TotalLines(width int, opts TranscriptOptions) int {
	total := 0
	n := t.segments()
	for i := 0; i < n; i++ {
		if i > 0 {
			total++
		}
		total += len(t.segment(i, width, opts).lines)
	}
	return total
}

// Warm renders up to maxTurns finished turns not yet cached at width with
// opts, newest first, and reports whether every turn is now cached. The
// first TotalLines or LocateToolCall at a new width renders the whole chat
// (about a millisecond per turn with colour); a UI that calls Warm from an
// idle tick after a resize spreads that cost over frames.
func (t *Transcript) Warm(width int, opts TranscriptOptions, maxTurns int) (done bool) {
	for i := len(t.chat.Turns) - 1; i >= 0; i-- {
		o := opts.inTurn(t.chat.Turns[i].ID)
		if t.cached(&t.chat.Turns[i], width, o) {
			continue
		}
		if maxTurns <= 0 {
			return false
		}
		t.finishedTurn(&t.chat.Turns[i], width, o)
		maxTurns--
	}
	return true
}

func (t *Transcript) cached(tr *protocol.Turn, width int, opts TranscriptOptions) bool {
	r, ok := t.turns[tr.ID]
	return ok && r.key == turnKey(tr, width, opts)
}

// LocateToolCall returns where a tool call's card (or an input request,
// by its id) is: its first line,
// counted from the top of the transcript, and its height in lines.
func (t *Transcript) LocateToolCall(width int, opts TranscriptOptions, toolCallID string) (top, height int, ok bool) {
	pos := 0
	n := t.segments()
	for i := 0; i < n; i++ {
		if i > 0 {
			pos++
		}
		r := t.segment(i, width, opts)
		if c, found := r.cards[toolCallID]; found && t.segmentHas(i, opts, toolCallID) {
			top, height, ok = pos+c[0], c[1], true
		}
		pos += len(r.lines)
	}
	return top, height, ok
}

// LocateToolCallFromEnd is LocateToolCall counted from the other end: how
// many lines lie from the card's first line to the end of the transcript
// (the card's own lines included), and the card's height. It renders only
// the turns from the card's down, so finding a card near the end of a
// long chat costs those turns, not the whole chat.
func (t *Transcript) LocateToolCallFromEnd(width int, opts TranscriptOptions, toolCallID string) (fromEnd, height int, ok bool) {
	acc := 0
	for i := t.segments() - 1; i >= 0; i-- {
		if i < t.segments()-1 {
			acc++ // the blank line between blocks
		}
		r := t.segment(i, width, opts)
		if c, found := r.cards[toolCallID]; found && t.segmentHas(i, opts, toolCallID) {
			return acc + len(r.lines) - c[0], c[1], true
		}
		acc += len(r.lines)
	}
	return 0, 0, false
}

// ScrollToToolCall returns the scrollFromBottom that shows a tool call's
// card with its top at the top of a height-line viewport (or as close as
// the transcript's end allows).
func (t *Transcript) ScrollToToolCall(width, height int, opts TranscriptOptions, toolCallID string) (scrollFromBottom int, ok bool) {
	fromEnd, _, ok := t.LocateToolCallFromEnd(width, opts, toolCallID)
	if !ok {
		return 0, false
	}
	// The card's top is at total-fromEnd, so the offset never passes the
	// top of the transcript: no need to know its total height.
	return max(fromEnd-height, 0), true
}

// ToolCallIDs lists the chat's tool call ids in transcript order, for
// next/previous navigation.
func (t *Transcript) ToolCallIDs() []string {
	var ids []string
	collect := func(parts []protocol.ResponsePart) {
		for _, p := range parts {
			if tc, ok := p.Variant.(protocol.ToolCallResponsePart); ok {
				ids = append(ids, tc.ToolCall.ID())
			}
		}
	}
	for i := range t.chat.Turns {
		collect(t.chat.Turns[i].ResponseParts)
	}
	if t.chat.ActiveTurn != nil {
		collect(t.chat.ActiveTurn.ResponseParts)
	}
	return ids
}

// optionsKey is the part of opts that changes how parts render, restricted
// to the parts given: a turn whose parts no option touches keeps its cache
// whatever else is selected or expanded.
func optionsKey(parts []protocol.ResponsePart, opts TranscriptOptions) string {
	var b []byte
	for _, p := range parts {
		var id string
		switch v := p.Variant.(type) {
		case protocol.ReasoningResponsePart:
			if opts.Expanded[v.ID] {
				b = append(b, "r:"+v.ID+";"...)
			}
			continue
		case protocol.ToolCallResponsePart:
			id = v.ToolCall.ID()
		default:
			continue
		}
		if id == "" {
			continue
		}
		if opts.SelectedToolCall == id {
			b = append(b, "s:"+id+";"...)
		}
		if opts.Expanded[id] {
			b = append(b, "e:"+id+";"...)
		}
		if g, ok := opts.Grant[id]; ok {
			b = append(b, fmt.Sprintf("g:%s:%v;", id, g)...)
		}
		if r, ok := opts.Reach[id]; ok {
			b = append(b, "R:"+id+":"+r+";"...)
		}
	}
	return string(b)
}

// turnKey identifies what a finished turn's lines depend on. The parts'
// backing array identifies the snapshot: reducers copy a turn's parts when
// they change them and share them when they don't.
func turnKey(tr *protocol.Turn, width int, opts TranscriptOptions) string {
	var ptr uintptr
	if len(tr.ResponseParts) > 0 {
		ptr = uintptr(unsafe.Pointer(unsafe.SliceData(tr.ResponseParts)))
	}
	state := string(tr.State)
	if opts.ResumeTurn != "" && opts.ResumeTurn == tr.ID {
		state += "|resume" // the footer offers the resume key
	}
	if opts.AutoApproval != "" {
		state += "|auto:" + opts.AutoApproval // its cards say what ran without asking
	}
	return fmt.Sprintf("%d|%x|%d|%s|%s", width, ptr, len(tr.ResponseParts), state, optionsKey(tr.ResponseParts, opts))
}

func (t *Transcript) finishedTurn(tr *protocol.Turn, width int, opts TranscriptOptions) *renderedTurn {
	key := turnKey(tr, width, opts)
	if r, ok := t.turns[tr.ID]; ok && r.key == key {
		return r
	}
	old := t.turns[tr.ID]
	r := &renderedTurn{key: key, cards: map[string][2]int{}, user: userKeyOf(tr.Message, width)}
	if old != nil && old.user == r.user {
		r.userLns = old.userLns
	} else {
		r.userLns = t.userLines(tr.Message, width)
	}
	var oldParts []partLines
	if old != nil {
		oldParts = old.parts
	}
	r.lines = make([]string, 0, len(r.userLns)+1+estimateLines(oldParts)+4)
	r.lines = append(r.lines, r.userLns...)
	r.lines = append(r.lines, "")
	r.parts = make([]partLines, 0, len(tr.ResponseParts))
	r.lines = t.appendParts(r, oldParts, tr.ResponseParts, width, opts, false, tr.State)
	r.lines = t.appendFooter(r.lines, tr, width, opts.ResumeTurn != "" && opts.ResumeTurn == tr.ID)
	t.turns[tr.ID] = r
	return r
}

func estimateLines(parts []partLines) int {
	n := 0
	for _, p := range parts {
		n += len(p.lines) + 1
	}
	return n
}

func (t *Transcript) activeTurn(at *protocol.ActiveTurn, width int, opts TranscriptOptions) *renderedTurn {
	if t.userMsg == nil || t.userMsg.key != fmt.Sprint(width) {
		t.userMsg = &renderedTurn{key: fmt.Sprint(width), lines: t.userLines(at.Message, width)}
	}
	r := &renderedTurn{cards: map[string][2]int{}}
	t.activeGen ^= 1
	r.lines = t.activeBuf[t.activeGen][:0]
	r.lines = append(r.lines, t.userMsg.lines...)
	r.lines = append(r.lines, "")
	r.parts = make([]partLines, 0, len(at.ResponseParts))
	r.lines = t.appendParts(r, t.active, at.ResponseParts, width, opts, true, "")
	t.active = r.parts
	defer func() { t.activeBuf[t.activeGen] = r.lines }()
	// What the agent is doing now, in the host's words.
	activity := "working…"
	if a := SanitizeLine(strOr(t.chat.Activity)); strings.TrimSpace(a) != "" {
		activity = a
	}
	if len(at.ResponseParts) > 0 {
		r.lines = append(r.lines, "")
	}
	if t.chat.Status.Has(protocol.SessionStatusInputNeeded) {
		// Say so where the eye is: the end of the streaming turn.
		wait := "◆ waiting for you · " + hintKeys.Chat.NextBlocker.Help().Key + " " + hintKeys.Chat.NextBlocker.Help().Desc
		r.lines = append(r.lines, "  "+t.th.Warning.Bold(true).Render(Truncate(wait, width-2)))
	} else {
		r.lines = append(r.lines, "  "+t.th.Info.Render(Truncate("◐ "+activity, width-2)))
	}
	if u := usageText(at.Usage); u != "" {
		r.lines = append(r.lines, "  "+t.th.Subtle.Render(Truncate(u, width-2)))
	}
	return r
}

// userLines renders the message that started a turn: a label naming who
// sent it, then its text behind a bar.
func (t *Transcript) userLines(m protocol.Message, width int) []string {
	th := t.th
	label := "You"
	switch m.Origin.Kind {
	case protocol.MessageKindAgent:
		label = "Agent"
	case protocol.MessageKindTool:
		label = "Tool"
	case protocol.MessageKindSystemNotification:
		label = "System"
	}
	text := strings.TrimRight(Sanitize(m.Text), "\n ")
	inner := max(width-2, 1) // bar and padding
	var body []string
	body = append(body, th.UserLabel.Render(label))
	for _, l := range strings.Split(text, "\n") {
		w := wrapLines(l, inner)
		if len(w) == 0 {
			w = []string{""}
		}
		for _, x := range w {
			body = append(body, th.Text.Render(x))
		}
	}
	for _, a := range m.Attachments {
		body = append(body, attachmentLines(th, a, inner)...)
	}
	return strings.Split(th.UserMessage.Render(strings.Join(body, "\n")), "\n")
}

// attachmentLines is one attachment's line in a message; a reference
// (a ContentRef, never fetched to draw it) says which key reads it, on the
// same line where it fits, else on the next.
func attachmentLines(th Theme, a protocol.MessageAttachment, inner int) []string {
	line := "📎 " + SanitizeLine(attachmentLabel(a))
	if _, ref := a.Variant.(protocol.MessageResourceAttachment); !ref {
		return []string{th.Muted.Render(Truncate(line, inner))}
	}
	k, sep, does := hintKeys.Chat.Resources.Help().Key, " · ", " reads it"
	hint := th.HelpKey.Render(k) + th.Muted.Render(does)
	if ansi.StringWidth(line+sep+k+does) <= inner {
		return []string{th.Muted.Render(line) + th.Subtle.Render(sep) + hint}
	}
	return []string{th.Muted.Render(Truncate(line, inner)), Truncate(th.Muted.Render("   ")+hint, inner)}
}

// attachmentLabel is one attachment as the transcript lists it: its
// label, its kind (the host's displayKind, else what it is) and, where
// known, its size. Its content is never fetched to say so: a resource's
// size is the host's hint, an embedded one's is its decoded length.
func attachmentLabel(a protocol.MessageAttachment) string {
	var label, kind string
	var display *string
	size := int64(-1)
	switch v := a.Variant.(type) {
	case protocol.SimpleMessageAttachment:
		label, kind, display = v.Label, v.Type, v.DisplayKind
	case protocol.MessageResourceAttachment:
		label, kind, display = v.Label, "resource", v.DisplayKind
		if v.ContentType != nil && *v.ContentType != "" {
			kind = *v.ContentType
		}
		if v.SizeHint != nil && *v.SizeHint >= 0 {
			size = *v.SizeHint
		}
	case protocol.MessageEmbeddedResourceAttachment:
		label, kind, display = v.Label, v.ContentType, v.DisplayKind
		size = int64(base64.RawStdEncoding.DecodedLen(len(strings.TrimRight(v.Data, "="))))
	case protocol.MessageAnnotationsAttachment:
		label, kind, display = v.Label, "annotations", v.DisplayKind
	case protocol.MessageChatAttachment:
		label, kind, display = v.Label, "chat", v.DisplayKind
	default:
		return a.Kind() + " attachment"
	}
	if display != nil && *display != "" {
		kind = *display
	}
	parts := []string{label}
	if kind != "" {
		parts = append(parts, kind)
	}
	if size >= 0 {
		parts = append(parts, byteSize(size))
	}
	return strings.Join(parts, " · ")
}

// byteSize says n bytes the way a person reads a file size.
func byteSize(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KiB", float64(n)/1024)
	default:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1024*1024))
	}
}

// appendParts renders response parts in stream order, one blank line
// apart, indented under the turn, into r (lines, cards and parts). A part
// whose variant and key match old at the same index (parts only ever
// append or change in place) reuses its lines: moving the selection across
// a long turn redraws the two cards it touches, not the turn's markdown.
// ended is how a finished turn ended ("" for the running one).
func (t *Transcript) appendParts(r *renderedTurn, old []partLines, parts []protocol.ResponsePart, width int, opts TranscriptOptions, active bool, ended protocol.TurnState) []string {
	lines := r.lines
	inner := max(width-2, 1)
	asks := HasInputRequest(parts)
	drawn := 0
	for i, p := range parts {
		if asks && AskedAsQuestion(p) {
			// The question's own card says it: the tool that asked is not
			// drawn beside it (its index keeps its place in r.parts).
			r.parts = append(r.parts, partLines{part: p, key: "asked"})
			continue
		}
		if drawn > 0 {
			lines = append(lines, "")
		}
		drawn++
		key := partKey(t, p, width, opts)
		start := len(lines)
		md, streaming := p.Variant.(protocol.MarkdownResponsePart)
		var ls []string
		switch {
		case i < len(old) && old[i].key == key && samePart(old[i].part, p):
			ls = old[i].lines
			lines = append(lines, ls...)
		case streaming && active:
			// The stream's lines come indented and shared: copied into
			// lines, never written. lines is not written below its length
			// again, so the part's lines are a view of it.
			s, ok := t.streams[md.ID]
			if !ok {
				s = &markdownStream{}
				t.streams[md.ID] = s
			}
			for _, piece := range s.render(t.th, md.Content.String(), inner, "  ") {
				lines = append(lines, piece...)
			}
			ls = lines[start:len(lines):len(lines)]
		default:
			ls = indentLines(t.renderPart(p, inner, opts, ended))
			lines = append(lines, ls...)
		}
		if active {
			// The active turn's lines live in a buffer that is reused
			// two frames on: its parts keep views of it, never of the
			// buffer the next frame overwrites.
			ls = lines[start:len(lines):len(lines)]
		}
		if id := cardID(p); id != "" {
			r.cards[id] = [2]int{start, len(ls)}
		}
		r.parts = append(r.parts, partLines{part: p, key: key, lines: ls})
	}
	return lines
}

// indentLines puts a part under its turn: two cells in, blank lines kept
// empty so the viewport pads nothing.
func indentLines(ls []string) []string {
	for i, l := range ls {
		if l != "" {
			ls[i] = "  " + l
		}
	}
	return ls
}

// cardID is the id a part is located and selected by: a tool call's id or
// an input request's, "" for anything else.
func cardID(p protocol.ResponsePart) string {
	switch v := p.Variant.(type) {
	case protocol.ToolCallResponsePart:
		return v.ToolCall.ID()
	case protocol.InputRequestResponsePart:
		return v.Request.ID
	}
	return ""
}

// partKey is the width and the options a part's lines depend on.
func partKey(t *Transcript, p protocol.ResponsePart, width int, opts TranscriptOptions) string {
	w := strconv.Itoa(width)
	switch v := p.Variant.(type) {
	case protocol.ReasoningResponsePart:
		if opts.Expanded[v.ID] {
			return w + "|e"
		}
	case protocol.InputRequestResponsePart:
		if v.Request.ID != "" && v.Request.ID == opts.SelectedToolCall {
			return w + "|s"
		}
		if r, ok := opts.Reach[v.Request.ID]; ok {
			return w + "|r" + r
		}
	case protocol.ToolCallResponsePart:
		n := normalizeToolCall(v.ToolCall)
		if n.id == "" {
			return w
		}
		k := w
		if opts.SelectedToolCall == n.id {
			k += "|s"
		}
		if opts.Expanded[n.id] {
			k += "|e"
		}
		if g, ok := opts.Grant[n.id]; ok {
			k += fmt.Sprintf("|g%v", g)
		}
		if r, ok := opts.Reach[n.id]; ok {
			k += "|r" + r
		}
		if opts.AutoApproval != "" {
			k += "|a" + opts.AutoApproval
		}
		return k + "|" + t.servers[n.contributorMCP]
	}
	return w
}

// renderPart draws one response part at inner width, not yet indented.
// The result is owned by the caller. ended is how the part's turn ended,
// "" while it runs: a question it left unanswered is closed.
func (t *Transcript) renderPart(p protocol.ResponsePart, inner int, opts TranscriptOptions, ended protocol.TurnState) []string {
	th := t.th
	switch v := p.Variant.(type) {
	case protocol.MarkdownResponsePart:
		return RenderMarkdown(th, v.Content.String(), inner)
	case protocol.ReasoningResponsePart:
		return reasoningLines(th, v, opts.Expanded[v.ID], inner)
	case protocol.ToolCallResponsePart:
		id := v.ToolCall.ID()
		ctx := CardContext{
			ServerName: t.servers[normalizeToolCall(v.ToolCall).contributorMCP],
			Selected:   id != "" && id == opts.SelectedToolCall,
			Expanded:   opts.Expanded[id],
			Reach:      opts.Reach[id],

			AutoApproval: opts.AutoApproval,
		}
		if g, ok := opts.Grant[id]; ok {
			ctx.Grant = &g
		}
		return strings.Split(RenderToolCard(th, v.ToolCall, ctx, inner), "\n")
	case protocol.InputRequestResponsePart:
		if v.Request.ID != "" && v.Request.ID == opts.SelectedToolCall {
			return selectedInputRequest(th, v, inner, ended)
		}
		lines := inputRequestSummary(th, v, inner, ended)
		if r := SanitizeLine(opts.Reach[v.Request.ID]); r != "" && v.Response == nil && ended == "" {
			lines = append(lines, reachLines(th, r, inner)...)
		}
		return lines
	case protocol.SystemNotificationResponsePart:
		text := Sanitize(v.Content.Value)
		var ls []string
		for j, l := range strings.Split(strings.TrimRight(text, "\n "), "\n") {
			prefix := "  "
			if j == 0 {
				prefix = "ℹ "
			}
			for k, w := range wrapLines(l, inner-2) {
				if k > 0 {
					prefix = "  "
				}
				ls = append(ls, th.Info.Render(prefix+w))
			}
		}
		return ls
	case protocol.ResourceResponsePart:
		ref := protocol.ContentRef{URI: v.URI, SizeHint: v.SizeHint, ContentType: v.ContentType}
		return []string{th.Muted.Render(Truncate("[content "+SanitizeLine(contentRefText(ref))+"]", inner))}
	case protocol.ErrorResponsePart:
		return errorPartLines(th, v, inner)
	}
	return []string{th.Muted.Render(Truncate("[a "+SanitizeLine(p.Kind())+" part this client cannot show]", inner))}
}

// errorPartLines draws an error response part: the host's message and
// error type, sanitized. Whether it can be resumed is the turn footer's to
// say, since only the latest turn can.
func errorPartLines(th Theme, p protocol.ErrorResponsePart, inner int) []string {
	msg := SanitizeLine(p.Error.Message)
	if strings.TrimSpace(msg) == "" {
		msg = "the turn failed"
	}
	if et := SanitizeLine(p.Error.ErrorType); et != "" {
		msg += " (" + et + ")"
	}
	var lines []string
	for _, l := range wrapLines("✗ error: "+msg, inner) {
		lines = append(lines, th.Error.Render(l))
	}
	return lines
}

// lastErrorPart is the error part a turn stopped at: its last part, when
// that is an error part.
func lastErrorPart(parts []protocol.ResponsePart) (protocol.ErrorResponsePart, bool) {
	if len(parts) == 0 {
		return protocol.ErrorResponsePart{}, false
	}
	e, ok := parts[len(parts)-1].Variant.(protocol.ErrorResponsePart)
	return e, ok
}

// ResumableTurn is the id of the chat turn chat/turnResume may resume: the
// latest turn, ended in error at a resumable error part, with no turn
// running after it (DELTA §7.7). "" when there is none.
func ResumableTurn(chat protocol.ChatState) string {
	if chat.ActiveTurn != nil || len(chat.Turns) == 0 {
		return ""
	}
	tr := &chat.Turns[len(chat.Turns)-1]
	if tr.State != protocol.TurnStateError {
		return ""
	}
	if e, ok := lastErrorPart(tr.ResponseParts); ok && e.Resumable != nil && *e.Resumable {
		return tr.ID
	}
	return ""
}

// reasoningLines shows reasoning collapsed to one line unless expanded:
// it is the model's scratch work, useful on demand, noise by default.
func reasoningLines(th Theme, p protocol.ReasoningResponsePart, expanded bool, width int) []string {
	text := p.Content.String()
	words := countWords(text)
	if !expanded {
		return []string{th.Reasoning.Render(Truncate(fmt.Sprintf("▸ Reasoning (%d word%s)", words, plural(words)), width))}
	}
	lines := []string{th.Reasoning.Render(Truncate(fmt.Sprintf("▾ Reasoning (%d word%s)", words, plural(words)), width))}
	for _, l := range strings.Split(strings.TrimRight(Sanitize(text), "\n "), "\n") {
		for _, w := range wrapLines(l, width-2) {
			lines = append(lines, "  "+th.Reasoning.Render(w))
		}
	}
	return lines
}

// countWords counts whitespace-separated words without allocating: it runs
// on every frame while reasoning streams.
func countWords(s string) int {
	n := 0
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		space := c == ' ' || c == '\n' || c == '\t' || c == '\r'
		if !space && !in {
			n++
		}
		in = !space
	}
	return n
}

// appendFooter adds how a finished turn ended (when not simply complete)
// and its token usage.
func (t *Transcript) appendFooter(lines []string, tr *protocol.Turn, width int, resume bool) []string {
	th := t.th
	inner := max(width-2, 1)
	var foot []string
	switch tr.State {
	case protocol.TurnStateError:
		// The error itself is a response part (1.0; a 0.6 turn.error
		// arrives converted to one) and is drawn where it happened. A
		// host that ends a turn in error without one still says so.
		if _, ok := lastErrorPart(tr.ResponseParts); !ok {
			foot = append(foot, th.Error.Render(Truncate("✗ error: the turn failed", inner)))
		}
		if resume {
			foot = append(foot, wrapLines(th.Info.Render("↻ the host can resume this turn · ")+hintLine(th, hintKeys.Chat.ResumeTurn), inner)...)
		}
	case protocol.TurnStateCancelled:
		foot = append(foot, th.Muted.Render("⊘ turn cancelled"))
	}
	if u := usageText(tr.Usage); u != "" {
		foot = append(foot, th.Subtle.Render(Truncate(u, inner)))
	}
	if len(foot) > 0 {
		if len(tr.ResponseParts) > 0 {
			lines = append(lines, "")
		}
		for _, l := range foot {
			lines = append(lines, "  "+l)
		}
	}
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// usageText is "1,234 in · 567 out · 89 cached · model", or "".
func usageText(u *protocol.UsageInfo) string {
	if u == nil {
		return ""
	}
	var parts []string
	if u.InputTokens != nil {
		parts = append(parts, groupDigits(*u.InputTokens)+" in")
	}
	if u.OutputTokens != nil {
		parts = append(parts, groupDigits(*u.OutputTokens)+" out")
	}
	if u.CacheReadTokens != nil && *u.CacheReadTokens > 0 {
		parts = append(parts, groupDigits(*u.CacheReadTokens)+" cached")
	}
	if len(parts) > 0 {
		parts[0] = "tokens: " + parts[0]
	}
	if u.Model != nil && strings.TrimSpace(*u.Model) != "" {
		parts = append(parts, SanitizeLine(*u.Model))
	}
	return strings.Join(parts, " · ")
}

func groupDigits(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// HasInputRequest reports whether a turn's parts hold an input request.
func HasInputRequest(parts []protocol.ResponsePart) bool {
	for _, p := range parts {
		if _, ok := p.Variant.(protocol.InputRequestResponsePart); ok {
			return true
		}
	}
	return false
}

// AskedAsQuestion reports whether p is the agent's ask-the-user tool
// call (ask_user, askQuestions, AskUserQuestion, …): in a turn that holds
// an input request (HasInputRequest), the host asks its question through
// that request, whose card is the question; the tool's card, its input
// the same question as JSON, is not drawn or selected beside it.
func AskedAsQuestion(p protocol.ResponsePart) bool {
	tc, ok := p.Variant.(protocol.ToolCallResponsePart)
	if !ok {
		return false
	}
	name := strings.Map(func(r rune) rune {
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		if r >= 'a' && r <= 'z' {
			return r
		}
		return -1
	}, tc.ToolCall.ToolName())
	return strings.HasPrefix(name, "ask") && (strings.Contains(name, "user") || strings.Contains(name, "question"))
}
