package ui

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
	"github.com/charmbracelet/x/ansi"
)

// fit truncates or pads s to exactly w cells.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	// Measuring a styled line walks its grapheme clusters; fit runs on
	// every line of every panel per frame, so measure once when it fits.
	sw := lipgloss.Width(s)
	if sw > w {
		s = views.Truncate(s, w)
		sw = lipgloss.Width(s)
	}
	if d := w - sw; d > 0 {
		s += strings.Repeat(" ", d)
	}
	return s
}

func sameKeys(a, b key.Binding) bool {
	return slices.Equal(a.Keys(), b.Keys())
}

// box frames a panel exactly w×h cells the way views frames the MCP panel:
// border, one cell of padding, the title on the first inside line. It draws
// the frame by hand: lipgloss's general Render costs a third of a frame on
// a large chat, and this is on every key press.
func (a *app) box(title string, body []string, w, h int, focused bool) []string {
	if w < 4 || h < 3 {
		return nil
	}
	frame, tst := a.th.Panel, a.th.PanelTitle
	if focused {
		frame, tst = a.th.PanelFocused, a.th.PanelTitleFocused
	}
	b := frame.GetBorderStyle()
	bc := lipgloss.NewStyle().Foreground(frame.GetBorderTopForeground())
	inner := w - 4
	left, right := bc.Render(b.Left)+" ", " "+bc.Render(b.Right)
	out := make([]string, 0, h)
	out = append(out, bc.Render(b.TopLeft+strings.Repeat(b.Top, w-2)+b.TopRight))
	out = append(out, left+fit(tst.Render(views.Truncate(title, inner)), inner)+right)
	for i := 0; i < h-3; i++ {
		line := ""
		if i < len(body) {
			line = body[i]
		}
		out = append(out, left+fit(line, inner)+right)
	}
	out = append(out, bc.Render(b.BottomLeft+strings.Repeat(b.Bottom, w-2)+b.BottomRight))
	return out
}

func drawBox(st lipgloss.Style, title string, body []string, w, h int) []string {
	b := st.GetBorderStyle()
	bc := lipgloss.NewStyle().Foreground(st.GetBorderTopForeground())
	inner := w - 2
	top := b.TopLeft
	if title != "" && inner > 4 {
		t := views.Truncate(title, inner-3)
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
		out = append(out, left+fit(line, inner)+right)
	}
	out = append(out, bc.Render(b.BottomLeft+strings.Repeat(b.Bottom, inner)+b.BottomRight))
	return out
}

func indentAll(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = " " + l
	}
	return out
}

// hints renders inline key hints ("a/y approve · x deny"). Unselected
// items say how to select them: keys act on the selection only.
func (a *app) hints(selected bool, pairs ...any) string {
	var parts []string
	for i := 0; i+1 < len(pairs); i += 2 {
		parts = append(parts, a.th.HelpKey.Render(helpKeyOf(pairs[i]))+" "+a.th.HelpDesc.Render(fmt.Sprint(pairs[i+1])))
	}
	s := strings.Join(parts, a.th.Subtle.Render(" · "))
	if !selected {
		s = a.th.Subtle.Render("select with [ ] to answer: ") + s
	}
	return s
}

func helpKeyOf(v any) string {
	if b, ok := v.(key.Binding); ok {
		return b.Help().Key
	}
	return fmt.Sprint(v)
}

func ansiStrip(s string) string { return ansi.Strip(s) }

// dispatch sends one action on channel (optimistically: the client applies
// it at once) and returns its clientSeq; the error says what could not be
// sent, for the status line.
func (a *app) dispatch(channel string, v protocol.StateActionVariant) (int64, error) {
	if a.client == nil {
		return 0, errNoClient
	}
	act := protocol.NewStateAction(v)
	seq, err := a.client.Dispatch(channel, act)
	if err != nil {
		return 0, fmt.Errorf("could not send %s: %w", act.Kind(), err)
	}
	a.log.Debug("dispatch", "channel", channel, "type", act.Kind(), "clientSeq", seq)
	return seq, nil
}

// dispatchThen sends one action and reports done on the status line, or
// the error when it could not be sent.
func (a *app) dispatchThen(channel string, v protocol.StateActionVariant, done string) tea.Cmd {
	if _, err := a.dispatch(channel, v); err != nil {
		return reportError(err)
	}
	return reportInfo(done)
}

// panelMemo is one memoized panel rendering.
type panelMemo struct {
	key   string
	lines []string
}
