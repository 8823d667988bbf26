package views

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"
)

// Fit truncates or pads s to exactly w cells.
func Fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	// Measuring a styled line walks its grapheme clusters; Fit runs on
	// every line of every panel per frame, so measure once when it fits.
	sw := lipgloss.Width(s)
	if sw > w {
		s = Truncate(s, w)
		sw = lipgloss.Width(s)
	}
	if d := w - sw; d > 0 {
		s += strings.Repeat(" ", d)
	}
	return s
}

// RenderPanel frames a panel exactly w×h cells the way the MCP panel is
// framed: border, one cell of padding, the title on the first inside line.
// It draws the frame by hand: lipgloss's general Render costs a third of a
// frame on a large chat, and this is on every key press.
func RenderPanel(th Theme, title string, body []string, w, h int, focused bool) []string {
	if w < 4 || h < 3 {
		return nil
	}
	frame, tst := th.Panel, th.PanelTitle
	if focused {
		frame, tst = th.PanelFocused, th.PanelTitleFocused
	}
	b := frame.GetBorderStyle()
	bc := lipgloss.NewStyle().Foreground(frame.GetBorderTopForeground())
	inner := w - 4
	left, right := bc.Render(b.Left)+" ", " "+bc.Render(b.Right)
	out := make([]string, 0, h)
	out = append(out, bc.Render(b.TopLeft+strings.Repeat(b.Top, w-2)+b.TopRight))
	out = append(out, left+Fit(tst.Render(Truncate(title, inner)), inner)+right)
	for i := 0; i < h-3; i++ {
		line := ""
		if i < len(body) {
			line = body[i]
		}
		out = append(out, left+Fit(line, inner)+right)
	}
	out = append(out, bc.Render(b.BottomLeft+strings.Repeat(b.Bottom, w-2)+b.BottomRight))
	return out
}

// RenderDialog frames a dialog w×h cells with its title set into the top
// border, in the focused panel style.
func RenderDialog(th Theme, title string, body []string, w, h int) string {
	st := th.PanelFocused
	b := st.GetBorderStyle()
	bc := lipgloss.NewStyle().Foreground(st.GetBorderTopForeground())
	inner := w - 2
	top := b.TopLeft
	if title != "" && inner > 4 {
		t := Truncate(th.PanelTitleFocused.Render(title), inner-3)
		top += b.Top + " " + t + " "
		top += strings.Repeat(b.Top, max(0, inner-3-lipgloss.Width(t)))
	} else {
		top += strings.Repeat(b.Top, inner)
	}
	out := make([]string, 0, h)
	out = append(out, bc.Render(top+b.TopRight))
	left, right := bc.Render(b.Left), bc.Render(b.Right)
	for i := 0; i < h-2; i++ {
		line := ""
		if i < len(body) {
			line = body[i]
		}
		out = append(out, left+Fit(line, inner)+right)
	}
	out = append(out, bc.Render(b.BottomLeft+strings.Repeat(b.Bottom, inner)+b.BottomRight))
	return strings.Join(out, "\n")
}

// KeyHints renders inline key hints ("a/y approve · x deny") from pairs of
// a key (a key.Binding or its text) and what it does. Unselected items say
// how to select them: keys act on the selection only.
func KeyHints(th Theme, selected bool, pairs ...any) string {
	var parts []string
	for i := 0; i+1 < len(pairs); i += 2 {
		parts = append(parts, th.HelpKey.Render(helpKeyOf(pairs[i]))+" "+th.HelpDesc.Render(fmt.Sprint(pairs[i+1])))
	}
	s := strings.Join(parts, th.Subtle.Render(" · "))
	if !selected {
		s = th.Subtle.Render("select with [ ] to answer: ") + s
	}
	return s
}

func helpKeyOf(v any) string {
	if b, ok := v.(key.Binding); ok {
		return b.Help().Key
	}
	return fmt.Sprint(v)
}
