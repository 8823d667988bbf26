package views

import (
	"fmt"
	"strings"

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
	Enabled  bool
	// StateKind is the McpServerState kind as on the wire ("starting",
	// "ready", "authRequired", "error", "stopped", or a newer host's kind).
	StateKind string
	// Auth is the challenge to answer when StateKind is "authRequired".
	Auth *protocol.McpAuthRequirement
	// Error is the failure message when StateKind is "error".
	Error string
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
			addChildRows(add, v.Children, v.Id, v.Name)
		case protocol.DirectoryCustomization:
			addChildRows(add, v.Children, v.Id, v.Name)
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
						listed[v.Id] = true
					}
				}
			}
			if listed[p.Id] {
				continue
			}
			listed[p.Id] = true
			extra = append(extra, protocol.NewCustomization(protocol.PluginCustomization{
				Id: p.Id, Uri: p.Uri, Name: p.Name, Icons: p.Icons, Range: p.Range, Meta: p.Meta, Enabled: p.Enabled,
				ClientId: p.ClientId, Load: p.Load, Children: p.Children, Type: p.Type, Version: p.Version,
			}))
		}
	}
	if len(extra) == 0 {
		return sess.Customizations
	}
	return append(append([]protocol.Customization(nil), sess.Customizations...), extra...)
}

func mcpRow(s protocol.McpServerCustomization, parentID, parent string) MCPServerRow {
	r := MCPServerRow{ID: s.Id, Name: s.Name, ParentID: parentID, Parent: parent, Enabled: s.Enabled, StateKind: s.State.Kind()}
	switch st := s.State.Variant.(type) {
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

// RenderMCPPanel draws the MCP server panel, framed, exactly width×height
// cells. rows come from MCPServerRows; pending holds the ids of servers
// with an optimistic action not yet confirmed by the host; grants holds
// the sign-in flow the UI runs for a server, by id. A panel with room for a
// single inner line (the strip under the chat on narrow terminals) shows
// the servers as one line of badges.
func RenderMCPPanel(th Theme, rows []MCPServerRow, selected int, pending map[string]bool, grants map[string]GrantView, width, height int, focused bool) string {
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
		body = []string{mcpStrip(th, rows, selected, pending, inner)}
	} else {
		title := titleStyle.Render(Truncate(fmt.Sprintf("MCP servers (%d)", len(rows)), inner))
		body = append([]string{title}, mcpRowsWindow(th, rows, selected, pending, grants, inner, innerH-1, focused)...)
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
		lines = len(mcpCompact(th, rows, -1, nil, inner, len(rows), false, false))
	}
	return frame.GetVerticalFrameSize() + 1 + lines
}

// mcpStrip is the one-line form: "● github ready  ⚠ deploy sign in …".
func mcpStrip(th Theme, rows []MCPServerRow, selected int, pending map[string]bool, inner int) string {
	if len(rows) == 0 {
		return th.Muted.Render(Truncate("MCP: no servers", inner))
	}
	var parts []string
	for i, r := range rows {
		b := th.McpBadge(r.StateKind, authReason(r))
		s := b.Style.Render(b.Glyph) + " " + SanitizeLine(r.Name) + " " + b.Style.Render(b.Label)
		if pending[r.ID] {
			s += th.Muted.Render(" …")
		}
		if i == selected {
			s = th.Selected.Render("›") + s
		}
		parts = append(parts, s)
	}
	// Keep the selected server on screen: drop servers from the front
	// until it fits, and say that some were dropped.
	if selected > 0 && selected < len(parts) {
		for first := 0; first < selected; first++ {
			prefix := ""
			if first > 0 {
				prefix = "… "
			}
			if lipgloss.Width(prefix+strings.Join(parts[first:selected+1], "  ")) <= inner {
				return Truncate(prefix+strings.Join(parts[first:], "  "), inner)
			}
		}
		return Truncate("… "+strings.Join(parts[selected:], "  "), inner)
	}
	return Truncate(strings.Join(parts, "  "), inner)
}

func authReason(r MCPServerRow) string {
	if r.Auth != nil {
		return string(r.Auth.Reason)
	}
	return ""
}

// mcpRowsWindow renders the rows into at most h lines, scrolled so the
// selected row is fully visible.
func mcpRowsWindow(th Theme, rows []MCPServerRow, selected int, pending map[string]bool, grants map[string]GrantView, inner, h int, focused bool) []string {
	if len(rows) == 0 {
		return wrapLines(th.Muted.Render("No MCP servers in this session."), inner)
	}
	blocks := make([][]string, len(rows))
	total := 0
	for i, r := range rows {
		var g *GrantView
		if gv, ok := grants[r.ID]; ok {
			g = &gv
		}
		blocks[i] = mcpRowLines(th, r, i == selected, focused, pending[r.ID], g, inner)
		total += len(blocks[i])
	}
	if total > h {
		// Too short for every server's details: one line per server, so
		// each one's state is on screen (a short panel once showed a single
		// name and nothing else).
		if selected >= 0 && selected < len(rows) && len(rows)-1+len(blocks[selected]) <= h {
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
		if selected >= 0 && selected < len(rows) {
			// Room left: what the selected server says beyond its state.
			var g *GrantView
			if gv, ok := grants[rows[selected].ID]; ok {
				g = &gv
			}
			if d := mcpRowDetail(th, rows[selected], true, g, inner); len(d) > 0 && len(lines)+len(d) <= h {
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
// one line per row in row order.
func mcpCompact(th Theme, rows []MCPServerRow, selected int, pending map[string]bool, inner, h int, focused, oneColumn bool) []string {
	// The layout (how many lines, which columns) is chosen from the names
	// and badges alone, so disabling a server or a pending change does not
	// reflow the badges from a row into a grid; their suffixes show when
	// the chosen layout has room for them, and a disabled server is muted
	// when it has not.
	base := make([]string, len(rows))
	plain := make([]string, len(rows))
	cells := make([]string, len(rows))
	baseCells := make([]string, len(rows))
	for i, r := range rows {
		marker := "  "
		if !oneColumn {
			marker = " " // columns are tight: one cell is enough to point
		}
		if i == selected {
			marker = "›" + marker[1:]
		}
		name := SanitizeLine(r.Name)
		if name == "" {
			name = "(unnamed)"
		}
		b := th.McpBadge(r.StateKind, authReason(r))
		text := name + " " + b.Glyph + " " + b.Label
		styled := th.Text.Bold(true).Render(name) + " " + b.Style.Render(b.Glyph+" "+b.Label)
		base[i] = marker + text
		baseCells[i] = marker + styled
		if !r.Enabled {
			baseCells[i] = marker + th.Muted.Render(text)
			text += " · off"
			styled += th.Muted.Render(" · off")
		}
		if pending[r.ID] {
			text += " ⋯"
			styled += th.Muted.Render(" ⋯")
		}
		plain[i] = marker + text
		cells[i] = marker + styled
	}
	const gap = 2
	n := len(rows)
	nLines, widths := n, []int{inner}
	if !oneColumn {
		nLines, widths = mcpColumns(base, inner, gap)
		if full, ws := mcpColumns(plain, inner, gap); full != nLines {
			// The suffixes do not fit the layout: show the rows without.
			plain, cells = base, baseCells
		} else {
			widths = ws
		}
	}
	for i := range rows {
		if i == selected && focused {
			cells[i] = th.Selected.Render(plain[i])
		}
	}
	out := make([]string, nLines)
	for i := range rows {
		// Column-major, so the order reads down like the full list.
		line, col := i%nLines, i/nLines
		c := Truncate(cells[i], widths[col])
		if col > 0 {
			out[line] += strings.Repeat(" ", gap)
		}
		if pad := widths[col] - lipgloss.Width(c); pad > 0 && i+nLines < n {
			c += strings.Repeat(" ", pad)
		}
		out[line] += c
	}
	if len(out) <= h {
		return out
	}
	first := 0
	if sel := selected % nLines; selected >= 0 && sel >= h {
		first = sel - h + 1
	}
	return out[first : first+h]
}

// mcpColumns is the fewest lines the cells fit in, side by side in
// columns gap cells apart within inner, and the columns' widths (one
// column of inner cells when nothing narrower fits).
func mcpColumns(cells []string, inner, gap int) (lines int, widths []int) {
	n := len(cells)
	for lines := 1; lines <= n; lines++ {
		cols := (n + lines - 1) / lines
		ws := make([]int, cols)
		total := gap * (cols - 1)
		for i, c := range cells {
			ws[i/lines] = max(ws[i/lines], lipgloss.Width(c))
		}
		for _, w := range ws {
			total += w
		}
		if cols == 1 {
			return lines, []int{inner}
		}
		if total <= inner {
			return lines, ws
		}
	}
	return n, []int{inner}
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

func mcpRowLines(th Theme, r MCPServerRow, selected, focused, pending bool, grant *GrantView, inner int) []string {
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
	return append(lines, mcpRowDetail(th, r, selected, grant, inner)...)
}

// mcpRowDetail is what a row says beyond its name and state: the error, the
// sign-in it needs and the grant flow running for it.
func mcpRowDetail(th Theme, r MCPServerRow, selected bool, grant *GrantView, inner int) []string {
	var lines []string
	switch r.StateKind {
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
			if selected {
				for _, l := range wrapLines(hintLine(th, hintKeys.MCP.SignIn), inner-2) {
					lines = append(lines, "  "+l)
				}
			}
		}
	}
	if grant != nil {
		lines = append(lines, mcpGrantLines(th, *grant, inner)...)
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
