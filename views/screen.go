package views

import (
	"strings"

	"charm.land/lipgloss/v2"
)

// ScreenPanel is one panel's drawing and where it goes.
type ScreenPanel struct {
	Rect  Rect
	Lines []string
}

// ComposeScreen lays the panels, the help line and the status line out in
// l and centres overlay (if any) over them. The result is exactly
// l.Width×l.Height cells, so every frame overwrites the last.
func ComposeScreen(l Layout, panels []ScreenPanel, helpLine, statusLine, overlay string) string {
	if l.Width <= 0 || l.Height <= 0 {
		return ""
	}
	screen := make([]string, l.Height)
	// Panels tile the screen left to right within each row band, so
	// appending in X order builds every line.
	for _, p := range panels {
		if p.Rect.Empty() {
			continue
		}
		for i := 0; i < p.Rect.H && i < len(p.Lines); i++ {
			screen[p.Rect.Y+i] += p.Lines[i]
		}
	}
	if !l.Help.Empty() {
		screen[l.Help.Y] = Fit(helpLine, l.Width)
	}
	screen[l.Status.Y] = statusLine
	blank := strings.Repeat(" ", l.Width)
	for i := range screen {
		if screen[i] == "" {
			screen[i] = blank
		}
	}
	out := strings.Join(screen, "\n")
	if overlay == "" {
		return out
	}
	w, h := lipgloss.Size(overlay)
	x, y := max(0, (l.Width-w)/2), max(0, (l.Height-h)/2)
	base := lipgloss.NewLayer(out)
	top := lipgloss.NewLayer(overlay).X(x).Y(y).Z(1)
	out = lipgloss.NewCompositor(base, top).Render()
	// The compositor drops trailing blank cells.
	lines := strings.Split(out, "\n")
	for i := range lines {
		lines[i] = Fit(lines[i], l.Width)
	}
	return strings.Join(lines, "\n")
}
