package views

import (
	"fmt"
	"hash/maphash"
	"slices"
	"strings"
	"sync"
	"time"

	"charm.land/lipgloss/v2"

	"github.com/ahptui/ahptui/protocol"
)

// MCPServerRow is one MCP server as the MCP panel lists it. The panel and
// the UI's key handling both index rows from MCPServerRows, so a selected
// index always means the same server in both.
type MCPServerRow struct {
	ID       string // the McpServerCustomization id, for session/customizationToggled and start/stop actions
	Name     string // raw host string; sanitized when rendered
	ParentID string // the plugin or directory that contributes it; "" at top level
	Parent   string // that container's name
	// Enabled is the effective flag (the most specific decision);
	// Enablement the host's decision list it comes from, which a toggle
	// must send back whole with the session decision in front.
	Enabled    bool
	Enablement []protocol.CustomizationEnablement
	// StateKind is the McpServerState kind as on the wire ("starting",
	// "ready", "authRequired", "error", "stopped", or a newer host's kind).
	StateKind string
	// Auth is the challenge to answer when StateKind is "authRequired".
	Auth *protocol.McpAuthRequirement
	// Error is the failure message when StateKind is "error".
	Error string
	// Blocking: the server is starting and the host holds new messages
	// until it is up (1.0); the user may ask to move it to the background.
	Blocking bool
	// StartRequested: this client asked to start it and the host echoed
	// the request, but has not started it since (VS Code's host starts a
	// new session's servers with its first message).
	StartRequested bool
}

// MCPServerRows lists every MCP server in a session's customizations, in
// the host's order: top-level servers and the servers inside each plugin or
// directory, right after their container's position. A server id listed
// twice (a host may surface a client's plugin and its children again at top
// level) is listed once, where it first appears.
func MCPServerRows(customizations []protocol.Customization) []MCPServerRow {
	var rows []MCPServerRow
	seen := map[string]bool{}
	add := func(r MCPServerRow) {
		if !seen[r.ID] {
			seen[r.ID] = true
			rows = append(rows, r)
		}
	}
	for _, c := range customizations {
		switch v := c.Variant.(type) {
		case protocol.McpServerCustomization:
			add(mcpRow(v, "", ""))
		case protocol.PluginCustomization:
			addChildRows(add, v.Children, v.ID, v.Name)
		case protocol.DirectoryCustomization:
			addChildRows(add, v.Children, v.ID, v.Name)
		}
	}
	// Two servers of one name under one parent (a host restart can list
	// a server again under a new id) would be drawn alike: each says its
	// id.
	type key struct{ parent, name string }
	count := map[key]int{}
	for _, r := range rows {
		count[key{r.ParentID, r.Name}]++
	}
	for i, r := range rows {
		if count[key{r.ParentID, r.Name}] > 1 {
			rows[i].Name = r.Name + " (" + r.ID + ")"
		}
	}
	return rows
}

func addChildRows(add func(MCPServerRow), children []protocol.ChildCustomization, parentID, parent string) {
	for _, ch := range children {
		if s, ok := ch.Variant.(protocol.McpServerCustomization); ok {
			add(mcpRow(s, parentID, parent))
		}
	}
}

// SessionCustomizations is every customization of a session the panel and
// the cards name servers from: the session's own list, then the plugins its
// active clients publish (ClientPluginCustomization, whose children hold the
// client-contributed MCP servers) that the host has not surfaced in that
// list itself. With no client plugins it returns sess.Customizations as is.
func SessionCustomizations(sess protocol.SessionState) []protocol.Customization {
	var extra []protocol.Customization
	var listed map[string]bool
	for _, ac := range sess.ActiveClients {
		for _, p := range ac.Customizations {
			if listed == nil {
				listed = map[string]bool{}
				for _, c := range sess.Customizations {
					if v, ok := c.Variant.(protocol.PluginCustomization); ok {
						listed[v.ID] = true
					}
				}
			}
			if listed[p.ID] {
				continue
			}
			listed[p.ID] = true
			extra = append(extra, protocol.NewCustomization(protocol.PluginCustomization{
				ID: p.ID, URI: p.URI, Name: p.Name, Icons: p.Icons, Range: p.Range, Meta: p.Meta, Enablement: p.Enablement,
				ClientID: p.ClientID, Load: p.Load, Children: p.Children, Type: p.Type, Version: p.Version,
			}))
		}
	}
	if len(extra) == 0 {
		return sess.Customizations
	}
	return append(append([]protocol.Customization(nil), sess.Customizations...), extra...)
}

func mcpRow(s protocol.McpServerCustomization, parentID, parent string) MCPServerRow {
	r := MCPServerRow{ID: s.ID, Name: s.Name, ParentID: parentID, Parent: parent,
		Enabled: protocol.EffectiveEnabled(s.Enablement), Enablement: s.Enablement, StateKind: s.State.Kind()}
	switch st := s.State.Variant.(type) {
	case protocol.McpServerStartingState:
		r.Blocking = st.Blocking != nil && *st.Blocking
	case protocol.McpServerAuthRequiredState:
		r.Auth = &protocol.McpAuthRequirement{Reason: st.Reason, OauthClient: st.OauthClient, Resource: st.Resource,
			RequiredScopes: st.RequiredScopes, Description: st.Description}
	case protocol.McpServerErrorState:
		r.Error = st.Error.Message
	}
	if r.StateKind == "" {
		r.StateKind = "unknown"
	}
	return r
}

// BlockingStartText is how long a blocking MCP start has been holding new
// messages, as the panel says it: "starting… 12s", whole seconds (a start
// measured from when this client first saw it, the host sends no time).
func BlockingStartText(elapsed time.Duration) string {
	return fmt.Sprintf("starting… %s", elapsed.Truncate(time.Second))
}

// RenderMCPPanel draws the MCP server panel, framed, exactly width×height
// cells. rows come from MCPServerRows; pending holds the ids of servers
// with an optimistic action not yet confirmed by the host; grants holds
// the sign-in flow the UI runs for a server, by id; blocking holds, by id,
// how long each blocking start has been seen starting. A panel with room
// for a single inner line (the strip under the chat on narrow terminals)
// shows the servers as one line of badges.
func RenderMCPPanel(th Theme, rows []MCPServerRow, selected int, pending map[string]bool, grants map[string]GrantView, blocking map[string]time.Duration, width, height int, focused bool) string {
	if width < 4 || height < 3 {
		return ""
	}
	frame, titleStyle := th.Panel, th.PanelTitle
	if focused {
		frame, titleStyle = th.PanelFocused, th.PanelTitleFocused
	}
	if width >= 12 {
		frame = frame.Padding(0, 1)
	}
	inner := width - frame.GetHorizontalFrameSize()
	innerH := height - frame.GetVerticalFrameSize()
	var body []string
	if innerH == 1 {
		body = []string{mcpStrip(th, rows, selected, pending, blocking, inner)}
	} else {
		title := titleStyle.Render(Truncate(fmt.Sprintf("MCP servers (%d)", len(rows)), inner))
		body = append([]string{title}, mcpRowsWindow(th, rows, selected, pending, grants, blocking, inner, innerH-1, focused)...)
	}
	for len(body) < innerH {
		body = append(body, "")
	}
	return frame.Width(width).Height(height).Render(strings.Join(body[:innerH], "\n"))
}

// MCPPanelHeight is the fewest rows (frame included) in which RenderMCPPanel
// shows every one of rows with its state at width: the title and the
// compact one-line-per-server form. A strip under the chat needs no more.
func MCPPanelHeight(th Theme, rows []MCPServerRow, width int) int {
	frame := th.Panel
	if width >= 12 {
		frame = frame.Padding(0, 1)
	}
	inner := width - frame.GetHorizontalFrameSize()
	lines := 1
	if len(rows) > 0 && inner > 0 {
		lines = mcpCompactLayoutFor(th, rows, nil, inner, false).lines
	}
	return frame.GetVerticalFrameSize() + 1 + lines
}

// disabledBadge is a disabled server's badge where there is no room for
// its state and " · off" both: "⊘ off", narrower than any state's.
func disabledBadge(th Theme) Badge {
	b := th.EnabledBadge(false)
	b.Label = "off"
	return b
}

// MCPPanelFit is the rows (frame included) the panel needs at width, at
// most height: focused, what it draws in height rows (the list and the
// selected server's detail, with no empty rows under them); unfocused,
// the compact list and what each blocking start says.
func MCPPanelFit(th Theme, rows []MCPServerRow, selected int, pending map[string]bool, grants map[string]GrantView, blocking map[string]time.Duration, width, height int, focused bool) int {
	frame := th.Panel
	if width >= 12 {
		frame = frame.Padding(0, 1)
	}
	inner := width - frame.GetHorizontalFrameSize()
	fv := frame.GetVerticalFrameSize()
	if inner <= 0 || height-fv < 2 || len(rows) == 0 {
		return height
	}
	if focused {
		return min(height, fv+1+len(mcpRowsWindow(th, rows, selected, pending, grants, blocking, inner, height-fv-1, true)))
	}
	return min(height, MCPPanelHeight(th, rows, width)+len(mcpBlockingLines(th, rows, blocking, inner)))
}

// mcpBlockingLines is what every blocking start says under the unfocused
// compact list: its timer and the key that moves it to the background.
func mcpBlockingLines(th Theme, rows []MCPServerRow, blocking map[string]time.Duration, inner int) []string {
	var lines []string
	for _, r := range rows {
		if r.StateKind == "starting" && r.Blocking && r.Enabled {
			lines = append(lines, mcpBlockingDetail(th, r, blocking, inner, false, true, true)...)
		}
	}
	return lines
}

// mcpStrip is the one-line form: "● github ready  ⚠ deploy sign in …".
// Only the entries that reach the line are styled: with a thousand
// servers the line shows a handful.
func mcpStrip(th Theme, rows []MCPServerRow, selected int, pending map[string]bool, blocking map[string]time.Duration, inner int) string {
	if len(rows) == 0 {
		return th.Muted.Render(Truncate("MCP: no servers", inner))
	}
	const sep = 2 // "  " between entries
	part := func(i int) (plain, styled string) {
		r := rows[i]
		b := th.McpBadge(r.StateKind, authReason(r))
		if !r.Enabled {
			b = disabledBadge(th)
		}
		name := SanitizeLine(r.Name)
		label := b.Label
		if d, ok := blocking[r.ID]; ok && r.Blocking && r.Enabled {
			label = BlockingStartText(d)
		}
		plain = b.Glyph + " " + name + " " + label
		styled = b.Style.Render(b.Glyph) + " " + name + " " + b.Style.Render(label)
		if pending[r.ID] {
			plain += " …"
			styled += th.Muted.Render(" …")
		}
		if i == selected {
			plain = "›" + plain
			styled = th.Selected.Render("›") + styled
		}
		return plain, styled
	}
	// Keep the selected server on screen: drop servers from the front
	// until it fits, and say that some were dropped.
	first, prefix := 0, ""
	if selected > 0 && selected < len(rows) {
		first, prefix = selected, "… "
		// Widths of the entries up to the selected one, summed from it
		// backwards: the earliest first whose run still fits wins.
		total := 0
		fits := -1
		for i := selected; i >= 0; i-- {
			p, _ := part(i)
			total += lipgloss.Width(p)
			if i < selected {
				total += sep
			}
			pre := 0
			if i > 0 {
				pre = 2 // "… "
			}
			if total+pre <= inner {
				fits = i
			}
			if total > inner {
				break
			}
		}
		if fits >= 0 {
			first = fits
			if fits == 0 {
				prefix = ""
			}
		}
	}
	// Entries from first until the line overflows: Truncate cuts there
	// whatever follows.
	var b strings.Builder
	b.WriteString(prefix)
	w := lipgloss.Width(prefix)
	for i := first; i < len(rows) && w <= inner; i++ {
		p, st := part(i)
		if i > first {
			b.WriteString("  ")
			w += sep
		}
		b.WriteString(st)
		w += lipgloss.Width(p)
	}
	return Truncate(b.String(), inner)
}

func authReason(r MCPServerRow) string {
	if r.Auth != nil {
		return string(r.Auth.Reason)
	}
	return ""
}

// mcpRowsWindow renders the rows into at most h lines, scrolled so the
// selected row is fully visible.
func mcpRowsWindow(th Theme, rows []MCPServerRow, selected int, pending map[string]bool, grants map[string]GrantView, blocking map[string]time.Duration, inner, h int, focused bool) []string {
	if len(rows) == 0 {
		return wrapLines(th.Muted.Render("No MCP servers in this session."), inner)
	}
	// Blocks are drawn as needed: once they overflow h the panel turns
	// compact, and a thousand servers must not each be drawn in full.
	blocks := make([][]string, len(rows))
	block := func(i int) []string {
		if blocks[i] == nil {
			var g *GrantView
			if gv, ok := grants[rows[i].ID]; ok {
				g = &gv
			}
			blocks[i] = mcpRowLines(th, rows[i], i == selected, focused, pending[rows[i].ID], g, blocking, inner)
		}
		return blocks[i]
	}
	total := 0
	for i := range rows {
		if total += len(block(i)); total > h {
			break
		}
	}
	if total > h {
		// Too short for every server's details: one line per server, so
		// each one's state is on screen (a short panel once showed a single
		// name and nothing else).
		if selected >= 0 && selected < len(rows) && len(rows)-1+len(block(selected)) <= h {
			// The selected server in full, the others one line each.
			one := mcpCompact(th, rows, selected, pending, inner, len(rows), focused, true)
			var lines []string
			for i := range rows {
				if i == selected {
					lines = append(lines, blocks[i]...)
				} else {
					lines = append(lines, one[i])
				}
			}
			return lines
		}
		lines := mcpCompact(th, rows, selected, pending, inner, h, focused, false)
		if !focused {
			// Unfocused, a blocking start's timer and key show first:
			// new messages wait on it wherever the focus is.
			if b := mcpBlockingLines(th, rows, blocking, inner); len(b) > 0 && len(lines)+len(b) <= h {
				lines = append(lines, b...)
			}
		}
		if selected >= 0 && selected < len(rows) && (focused || !rows[selected].Blocking || rows[selected].StateKind != "starting") {
			// Room left: what the selected server says beyond its state.
			var g *GrantView
			if gv, ok := grants[rows[selected].ID]; ok {
				g = &gv
			}
			if d := mcpRowDetail(th, rows[selected], true, focused, g, blocking, inner); len(d) > 0 && len(lines)+len(d) <= h {
				lines = append(lines, d...)
			}
		}
		return lines
	}
	return windowBlocks(blocks, selected, h)
}

// mcpCompact lists servers one line each ("›Filesystem ○ stopped"), in as
// many columns as fit side by side (each as wide as its longest entry),
// scrolled so the selected one shows. oneColumn asks for a single column,
// one line per row in row order. Only the h lines shown are styled; the
// layout comes from mcpCompactLayoutFor (cached).
func mcpCompact(th Theme, rows []MCPServerRow, selected int, pending map[string]bool, inner, h int, focused, oneColumn bool) []string {
	const gap = 2
	n := len(rows)
	l := mcpCompactLayoutFor(th, rows, pending, inner, oneColumn)
	first := 0
	if sel := selected % l.lines; l.lines > h && selected >= 0 && sel >= h {
		first = sel - h + 1
	}
	out := make([]string, 0, min(h, l.lines))
	for line := first; line < l.lines && len(out) < h; line++ {
		var b strings.Builder
		// Column-major, so the order reads down like the full list.
		for col, i := 0, line; i < n; col, i = col+1, i+l.lines {
			c := Truncate(mcpCompactCell(th, rows[i], i == selected, focused, pending[rows[i].ID], oneColumn, l.bare), l.widths[col])
			if col > 0 {
				b.WriteString(strings.Repeat(" ", gap))
			}
			b.WriteString(c)
			if pad := l.widths[col] - lipgloss.Width(c); pad > 0 && i+l.lines < n {
				b.WriteString(strings.Repeat(" ", pad))
			}
		}
		out = append(out, b.String())
	}
	return out
}

// mcpCompactMarker points at the selected server; columns are tight, so
// there one cell is enough.
func mcpCompactMarker(selected, oneColumn bool) string {
	switch {
	case selected && oneColumn:
		return "› "
	case selected:
		return "›"
	case oneColumn:
		return "  "
	}
	return " "
}

// mcpCompactText is a compact entry without its marker or styling: what
// the column widths are measured on.
func mcpCompactText(th Theme, r MCPServerRow, pending, bare bool) (name string, b Badge, text string) {
	name = SanitizeLine(r.Name)
	if name == "" {
		name = "(unnamed)"
	}
	b = th.McpBadge(r.StateKind, authReason(r))
	if bare && !r.Enabled {
		// No room for " · off": the badge says it, never wider than the
		// state's it replaces, so the layout measured on states holds.
		b = disabledBadge(th)
	}
	text = name + " " + b.Glyph + " " + b.Label
	if bare {
		return name, b, text
	}
	if !r.Enabled {
		text += " · off"
	}
	if pending {
		text += " ⋯"
	}
	return name, b, text
}

// mcpCompactCell is one compact entry, styled.
func mcpCompactCell(th Theme, r MCPServerRow, selected, focused, pending, oneColumn, bare bool) string {
	marker := mcpCompactMarker(selected, oneColumn)
	name, b, text := mcpCompactText(th, r, pending, bare)
	if selected && focused {
		return th.Selected.Render(marker + text)
	}
	if bare {
		// No room for the suffixes: a disabled server says so in its
		// badge (mcpCompactText).
		return marker + th.Text.Bold(true).Render(name) + " " + b.Style.Render(b.Glyph+" "+b.Label)
	}
	styled := th.Text.Bold(true).Render(name) + " " + b.Style.Render(b.Glyph+" "+b.Label)
	if !r.Enabled {
		styled += th.Muted.Render(" · off")
	}
	if pending {
		styled += th.Muted.Render(" ⋯")
	}
	return marker + styled
}

// mcpCompactLayout is how many lines the compact list takes and how wide
// each of its columns is.
type mcpCompactLayout struct {
	lines  int
	widths []int
	// bare: the entries are drawn without their " · off" and " ⋯"
	// suffixes, because with them the list would need more lines. The
	// line count is chosen from names and badges alone, so disabling a
	// server or a pending change never reflows the badges from a row into
	// a grid.
	bare bool
}

// mcpLayoutMemo keeps the last compact layout: the UI asks for it on every
// frame (MCPPanelHeight for the narrow layout, the panel itself), and
// measuring a thousand entries costs about a millisecond while hashing
// what they depend on costs a few microseconds.
var mcpLayoutMemo struct {
	mu     sync.Mutex
	key    uint64
	layout mcpCompactLayout
}

var mcpLayoutSeed = maphash.MakeSeed()

// mcpCompactLayoutFor returns the compact layout of rows at inner width:
// the fewest lines whose columns fit side by side (or one column of one
// line per row). It is linear in the rows: each entry is measured once,
// and the search for the line count starts at the count the narrowest
// entries would allow.
func mcpCompactLayoutFor(th Theme, rows []MCPServerRow, pending map[string]bool, inner int, oneColumn bool) mcpCompactLayout {
	n := len(rows)
	if oneColumn || n == 0 {
		return mcpCompactLayout{lines: max(n, 1), widths: []int{inner}}
	}
	var h maphash.Hash
	h.SetSeed(mcpLayoutSeed)
	fmt.Fprintf(&h, "%d|%v|%v|%d|", inner, th.IsDark, th.NoColor, n)
	for _, r := range rows {
		h.WriteString(r.Name)
		h.WriteByte(0)
		h.WriteString(r.StateKind)
		h.WriteByte(0)
		h.WriteString(authReason(r))
		h.WriteByte(0)
		var flags byte
		if r.Enabled {
			flags |= 1
		}
		if pending[r.ID] {
			flags |= 2
		}
		h.WriteByte(flags)
	}
	key := h.Sum64()
	mcpLayoutMemo.mu.Lock()
	if mcpLayoutMemo.key == key && mcpLayoutMemo.layout.lines > 0 {
		l := mcpLayoutMemo.layout
		mcpLayoutMemo.mu.Unlock()
		return l
	}
	mcpLayoutMemo.mu.Unlock()

	// A start is measured as if it had settled: every server of a session
	// starts at once and most end ready, so a list laid out on "◌ starting"
	// would take more lines at start-up than a moment later, and the chat
	// above would jump when it shrank. A starting cell is cut to its
	// column where the line has no room to spare.
	widths := func(bare, settled bool) []int {
		ws := make([]int, n)
		for i, r := range rows {
			_, b, text := mcpCompactText(th, r, pending[r.ID], bare)
			ws[i] = lipgloss.Width(mcpCompactMarker(false, false) + text)
			if settled && r.StateKind == "starting" && r.Enabled {
				ws[i] -= max(0, lipgloss.Width(b.Label)-lipgloss.Width(th.McpBadge("ready", "").Label))
			}
		}
		return ws
	}
	l := mcpFitColumns(widths(true, true), inner)
	bare := true
	if full := mcpFitColumns(widths(false, true), inner); full.lines == l.lines {
		l, bare = full, false
	}
	l.bare = bare
	l.widths = mcpSpareWidths(l, widths(bare, false), inner)
	mcpLayoutMemo.mu.Lock()
	mcpLayoutMemo.key, mcpLayoutMemo.layout = key, l
	mcpLayoutMemo.mu.Unlock()
	return l
}

// mcpFitColumns is the fewest lines entries of widths ws fit in, side by
// side in columns within inner (one column of one line per entry when
// nothing narrower fits). It is linear in the entries: no line count
// below the one that fits columns of the narrowest entry can fit, and
// from there each try costs one pass over the widths.
func mcpFitColumns(ws []int, inner int) mcpCompactLayout {
	const gap = 2
	n := len(ws)
	narrowest := inner
	for _, w := range ws {
		narrowest = min(narrowest, w)
	}
	maxCols := max(1, (inner+gap)/(narrowest+gap))
	for lines := max(1, (n+maxCols-1)/maxCols); lines <= n; lines++ {
		cols := (n + lines - 1) / lines
		if cols == 1 {
			break
		}
		colW := make([]int, cols)
		total := gap * (cols - 1)
		for i, w := range ws {
			colW[i/lines] = max(colW[i/lines], w)
		}
		for _, w := range colW {
			total += w
		}
		if total <= inner {
			return mcpCompactLayout{lines: lines, widths: colW}
		}
	}
	return mcpCompactLayout{lines: n, widths: []int{inner}}
}

// mcpSpareWidths widens l's columns, left to right, towards the widths
// their entries really take (real, one per entry) with the cells the line
// has to spare.
func mcpSpareWidths(l mcpCompactLayout, real []int, inner int) []int {
	const gap = 2
	if len(l.widths) < 2 {
		return l.widths // one column: it has the whole width
	}
	ws := slices.Clone(l.widths)
	spare := inner - gap*(len(ws)-1)
	for _, w := range ws {
		spare -= w
	}
	for c := range ws {
		need := 0
		for i := c * l.lines; i < min(len(real), (c+1)*l.lines); i++ {
			need = max(need, real[i])
		}
		add := min(max(0, need-ws[c]), max(0, spare))
		ws[c] += add
		spare -= add
	}
	return ws
}

// windowBlocks picks consecutive blocks around selected that fit in h
// lines, starting as early as possible while keeping selected visible.
func windowBlocks(blocks [][]string, selected, h int) []string {
	if selected < 0 || selected >= len(blocks) {
		selected = 0
	}
	// Find the first block such that blocks[first..selected] fit.
	first, used := selected, len(blocks[selected])
	for first > 0 && used+len(blocks[first-1]) <= h {
		first--
		used += len(blocks[first])
	}
	// Prefer showing from the top when everything up to selected fits.
	total := 0
	for i := 0; i <= selected; i++ {
		total += len(blocks[i])
	}
	if total <= h {
		first = 0
	}
	var out []string
	for i := first; i < len(blocks) && len(out) < h; i++ {
		out = append(out, blocks[i]...)
	}
	if len(out) > h {
		out = out[:h]
	}
	return out
}

func mcpRowLines(th Theme, r MCPServerRow, selected, focused, pending bool, grant *GrantView, blocking map[string]time.Duration, inner int) []string {
	marker := "  "
	if selected {
		marker = "› "
	}
	name := SanitizeLine(r.Name)
	if name == "" {
		name = "(unnamed)"
	}
	nameStyle := th.Text.Bold(true)
	line1 := marker + nameStyle.Render(name)
	if pending {
		line1 += th.Muted.Render(" ⋯ pending")
	}
	line1 = Truncate(line1, inner)
	if selected && focused {
		line1 = th.Selected.Render(Truncate(marker+name+pendingSuffix(pending), inner))
	}
	b := th.McpBadge(r.StateKind, authReason(r))
	en := th.EnabledBadge(r.Enabled)
	line2 := "  " + b.String() + th.Subtle.Render(" · ") + en.String()
	lines := []string{line1}
	lines = append(lines, wrapIndented(line2, inner, "  ")...)
	if r.Parent != "" {
		lines = append(lines, th.Subtle.Render(Truncate("  from "+SanitizeLine(r.Parent), inner)))
	}
	return append(lines, mcpRowDetail(th, r, selected, focused, grant, blocking, inner)...)
}

// StartRequestedText is what a server row says under a start the host
// echoed but has not begun.
const StartRequestedText = "start requested: the host starts it when the session runs (with its first message)"

// mcpRowDetail is what a row says beyond its name and state: the error, the
// sign-in it needs, the grant flow running for it, how long a blocking start
// has held new messages.
func mcpRowDetail(th Theme, r MCPServerRow, selected, focused bool, grant *GrantView, blocking map[string]time.Duration, inner int) []string {
	var lines []string
	switch r.StateKind {
	case "starting":
		if r.StartRequested && !r.Blocking {
			for _, l := range wrapLines(StartRequestedText, inner-2) {
				lines = append(lines, "  "+th.Muted.Render(l))
			}
		}
		if r.Blocking {
			lines = append(lines, mcpBlockingDetail(th, r, blocking, inner, selected, false, !focused)...)
		}
	case "error":
		if msg := SanitizeLine(r.Error); msg != "" {
			for _, l := range wrapLines(msg, inner-2) {
				lines = append(lines, "  "+th.Error.Render(l))
			}
		}
	case "authRequired":
		if grant == nil && r.Auth != nil {
			var scopes []string
			for _, s := range r.Auth.RequiredScopes {
				scopes = append(scopes, SanitizeLine(s))
			}
			for _, l := range wrapLines(reasonText(string(r.Auth.Reason), scopes), inner-2) {
				lines = append(lines, "  "+th.Warning.Render(l))
			}
		}
	}
	if grant != nil {
		lines = append(lines, mcpGrantLines(th, *grant, inner)...)
	}
	// The ways to sign in, on the selected card while none runs: before
	// a first try and after one failed or was cancelled alike.
	if r.StateKind == "authRequired" && r.Auth != nil && selected &&
		(grant == nil || grant.Phase == GrantFailed || grant.Phase == GrantCancelled) {
		// One line when both keys fit, else a line each: a hint is
		// never broken inside its words.
		hints := []string{hintLine(th, hintKeys.MCP.SignIn, hintKeys.MCP.Token)}
		if lipgloss.Width(hints[0]) > inner-2 {
			hints = []string{hintLine(th, hintKeys.MCP.SignIn), hintLine(th, hintKeys.MCP.Token)}
		}
		for _, h := range hints {
			for _, l := range wrapLines(h, inner-2) {
				lines = append(lines, "  "+l)
			}
		}
	}
	return lines
}

// mcpBlockingDetail is what a blocking start says: how long new messages
// have waited and the key that moves it to the background, on the
// selected row of the focused panel or on every row of an unfocused one
// (away: the key works once the panel has the keys). named puts the
// server's name first, where its row is not drawn above.
func mcpBlockingDetail(th Theme, r MCPServerRow, blocking map[string]time.Duration, inner int, hint, named, away bool) []string {
	text := "starting… · new messages wait for it"
	if d, ok := blocking[r.ID]; ok {
		text = BlockingStartText(d) + " · new messages wait for it"
	}
	if named {
		text = SanitizeLine(r.Name) + " " + text
	}
	var lines []string
	for _, l := range wrapLines(text, inner-2) {
		lines = append(lines, "  "+th.Warning.Render(l))
	}
	if hint || away {
		h := hintLine(th, hintKeys.MCP.Background)
		if away {
			h += th.Muted.Render(" (in this panel)")
		}
		for _, l := range wrapLines(h, inner-2) {
			lines = append(lines, "  "+l)
		}
	}
	return lines
}

func pendingSuffix(p bool) string {
	if p {
		return " ⋯ pending"
	}
	return ""
}

// mcpGrantLines is the compact form of a grant in the narrow panel: the
// phase in a line, and while waiting the URL in full, hard-wrapped.
func mcpGrantLines(th Theme, g GrantView, inner int) []string {
	var lines []string
	ind := func(style lipgloss.Style, s string) {
		for _, l := range wrapLines(s, inner-2) {
			lines = append(lines, "  "+style.Render(l))
		}
	}
	switch g.Phase {
	case GrantOffered:
		ind(th.Warning, "sign-in offered")
	case GrantWaiting:
		ind(th.Warning, "waiting for browser sign-in…")
		if !g.BrowserOpened {
			ind(th.Muted, "open this URL:")
		}
		for _, l := range urlLines(th, g.URL, inner-2) {
			lines = append(lines, "  "+l)
		}
	case GrantSucceeded:
		ind(th.Success, "✓ signed in")
	case GrantFailed:
		ind(th.Error, "✗ sign-in failed: "+SanitizeLine(g.Err))
	case GrantCancelled:
		ind(th.Muted, "sign-in cancelled")
	}
	return lines
}

// wrapIndented wraps s to width and indents continuation lines.
func wrapIndented(s string, width int, indent string) []string {
	ls := wrapLines(s, width)
	if len(ls) <= 1 {
		return ls
	}
	out := []string{ls[0]}
	for _, l := range wrapLines(strings.Join(ls[1:], " "), width-len(indent)) {
		out = append(out, indent+l)
	}
	return out
}
