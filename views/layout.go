package views

// Rect is a screen rectangle in cells; (X, Y) is its top-left corner. A
// zero-size Rect means the region is hidden.
type Rect struct{ X, Y, W, H int }

// Empty reports whether the rectangle has no cells, i.e. is not drawn.
func (r Rect) Empty() bool { return r.W <= 0 || r.H <= 0 }

// Contains reports whether the cell (x, y) lies inside r.
func (r Rect) Contains(x, y int) bool {
	return !r.Empty() && x >= r.X && x < r.X+r.W && y >= r.Y && y < r.Y+r.H
}

// Overlaps reports whether r and o share at least one cell.
func (r Rect) Overlaps(o Rect) bool {
	if r.Empty() || o.Empty() {
		return false
	}
	return r.X < o.X+o.W && o.X < r.X+r.W && r.Y < o.Y+o.H && o.Y < r.Y+r.H
}

// Inset shrinks r by dx cells on the left and right and dy cells on the top
// and bottom (a border is Inset(1, 1)), never below zero size.
func (r Rect) Inset(dx, dy int) Rect {
	r.X, r.Y = r.X+dx, r.Y+dy
	r.W, r.H = max(r.W-2*dx, 0), max(r.H-2*dy, 0)
	return r
}

// Layout is where each part of the screen goes for one terminal size. The
// non-empty rectangles tile the screen: no overlaps, no gaps.
type Layout struct {
	Width, Height int

	Sessions Rect // session list, left
	Chat     Rect // transcript and composer, centre
	MCP      Rect // MCP server panel: right when wide, a strip below when narrow
	Help     Rect // one line of key help, above the status bar
	Status   Rect // the status bar, bottom line

	// MCPBelow is set when the MCP panel is the collapsed strip under the
	// sessions and chat rather than a column on the right.
	MCPBelow bool
}

// Layout thresholds. Below NarrowWidth the MCP panel moves under the chat
// so the chat keeps a readable width; the minimums are the narrowest a
// panel is still useful at (borders included).
const (
	NarrowWidth     = 100
	MinChatWidth    = 30
	MinSessionsWide = 24
	MaxSessionsWide = 36
	MinSessions     = 18
	MaxSessions     = 26
	MinMCPWide      = 28
	MaxMCPWide      = 44
	MinChatHeight   = 5
	MinMCPBelow     = 3 // a bordered single row of badges
	MaxMCPBelow     = 8
	minHelpHeight   = 6 // below this many rows the help line gives way
)

// ComputeLayout places the panels for a width×height terminal. It is pure and
// total: any size, including nonsense ones, gives a valid Layout, and from
// 60×10 up every panel is present (the MCP panel when showMCP is set). The
// chat gets the space left over, so it grows with the terminal while the
// side panels stay near their preferred share.
func ComputeLayout(width, height int, showMCP bool) Layout {
	l := Layout{Width: max(width, 0), Height: max(height, 0)}
	if l.Width == 0 || l.Height == 0 {
		return l
	}
	w, h := l.Width, l.Height

	l.Status = Rect{0, h - 1, w, 1}
	mainH := h - 1
	if h >= minHelpHeight {
		l.Help = Rect{0, h - 2, w, 1}
		mainH = h - 2
	}
	if mainH <= 0 {
		return l
	}

	narrow := w < NarrowWidth
	var sessW, mcpW, mcpH int
	if narrow {
		if w-MinSessions >= MinChatWidth {
			sessW = layoutClamp(w*28/100, MinSessions, MaxSessions)
			sessW = min(sessW, w-MinChatWidth)
		}
		if showMCP && mainH-MinMCPBelow >= MinChatHeight {
			// A third: at 60×20 the panel keeps a title and three lines, at
			// 80×24 four, enough for every server in the compact form.
			mcpH = layoutClamp(mainH/3, MinMCPBelow, MaxMCPBelow)
			mcpH = min(mcpH, mainH-MinChatHeight)
		}
	} else {
		// Size both side panels from one share of the width so together
		// they grow by at most a cell per column: the chat never shrinks
		// as the terminal widens.
		if showMCP {
			sides := w * 46 / 100
			sessW = layoutClamp(sides*22/46, MinSessionsWide, MaxSessionsWide)
			mcpW = layoutClamp(sides-sessW, MinMCPWide, MaxMCPWide)
		} else {
			sessW = layoutClamp(w*22/100, MinSessionsWide, MaxSessionsWide)
		}
	}

	topH := mainH - mcpH
	l.Sessions = Rect{0, 0, sessW, topH}
	if sessW == 0 {
		l.Sessions = Rect{}
	}
	l.Chat = Rect{sessW, 0, w - sessW - mcpW, topH}
	switch {
	case mcpW > 0:
		l.MCP = Rect{w - mcpW, 0, mcpW, topH}
	case mcpH > 0:
		l.MCP = Rect{0, topH, w, mcpH}
		l.MCPBelow = true
	}
	return l
}

func layoutClamp(v, lo, hi int) int {
	return max(lo, min(v, hi))
}
