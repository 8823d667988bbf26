package views

import (
	"slices"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"

	"github.com/ahptui/ahptui/keymap"
)

// SameKeys reports whether two bindings answer the same keys.
func SameKeys(a, b key.Binding) bool { return slices.Equal(a.Keys(), b.Keys()) }

// FitShortHelp renders the short help in width cells. When it does not
// fit it drops the view's own hints from the end first and the global ones
// after, never "? help": that is where every other key is listed, so it
// must survive the narrowest terminal.
func FitShortHelp(h help.Model, g keymap.GlobalKeys, short []key.Binding, width int) string {
	measure := h
	measure.SetWidth(0)
	short = append([]key.Binding(nil), short...)
	isHelp := func(b key.Binding) bool { return SameKeys(b, g.Help) }
	isGlobal := func(b key.Binding) bool {
		return isHelp(b) || SameKeys(b, g.Quit) || SameKeys(b, g.Interrupt)
	}
	for lipgloss.Width(measure.ShortHelpView(short)) > width {
		drop := -1
		for i := len(short) - 1; i >= 0 && drop < 0; i-- {
			if !isGlobal(short[i]) {
				drop = i
			}
		}
		for i := len(short) - 1; i >= 0 && drop < 0; i-- {
			if !isHelp(short[i]) {
				drop = i
			}
		}
		if drop < 0 {
			break
		}
		short = append(short[:drop], short[drop+1:]...)
	}
	return h.ShortHelpView(short)
}

// RenderFullHelp is the ? overlay: every binding of the keymap, one
// bubbles/help column per view, flowed into as many columns as a
// width×height screen holds.
func RenderFullHelp(th Theme, h help.Model, k keymap.KeyMap, width, height int) string {
	sections := []struct {
		title  string
		groups [][]key.Binding
	}{
		{"Everywhere", k.Global.FullHelp()}, {"Sessions", k.Sessions.FullHelp()}, {"Chat", k.Chat.FullHelp()},
		{"Composer", k.Composer.FullHelp()}, {"MCP servers", k.MCP.FullHelp()}, {"Sign-in prompt", k.Grant.FullHelp()},
		{"Input form", append(k.Input.FullHelp(), k.Input.ChoiceHelp(), k.Input.BooleanHelp())}, {"Confirm", k.Confirm.FullHelp()},
		{"New session", k.NewSession.FullHelp()},
	}
	h.ShowAll = true
	h.SetWidth(0)
	var blocks [][]string
	for _, sec := range sections {
		block := []string{th.Title.Render(sec.title)}
		block = append(block, strings.Split(h.FullHelpView([][]key.Binding{helpBindings(k, sec.groups)}), "\n")...)
		blocks = append(blocks, append(block, ""))
	}
	body := strings.Split(lipgloss.JoinHorizontal(lipgloss.Top, helpColumns(blocks, max(6, height-6))...), "\n")
	body = append(body, th.Muted.Render("any key closes this help"))
	w := 0
	for i, l := range body {
		body[i] = " " + l
		w = max(w, lipgloss.Width(body[i]))
	}
	return RenderDialog(th, "Keys", body, min(width, w+3), min(height, len(body)+2))
}

// helpBindings flattens a section's groups into the lines it lists.
func helpBindings(k keymap.KeyMap, groups [][]key.Binding) []key.Binding {
	var flat []key.Binding
	for _, g := range groups {
		for _, b := range g {
			switch {
			case len(b.Keys()) == 0:
				continue
			case SameKeys(b, k.Composer.Queue) && b.Help() == k.Composer.Queue.Help():
				// Send and Queue share enter, one enabled at a time: one
				// line says both.
				continue
			case SameKeys(b, k.Composer.Send) && b.Help() == k.Composer.Send.Help():
				b.SetHelp(b.Help().Key, b.Help().Desc+" (while a turn runs: "+k.Composer.Queue.Help().Desc+")")
			}
			b.SetEnabled(true)
			flat = append(flat, b)
		}
	}
	return flat
}

// helpColumns flows blocks into columns of at most maxRows lines, each
// padded to its widest line, three spaces apart.
func helpColumns(blocks [][]string, maxRows int) []string {
	var cols [][]string
	var col []string
	for _, b := range blocks {
		if len(col) > 0 && len(col)+len(b) > maxRows {
			cols = append(cols, col)
			col = nil
		}
		col = append(col, b...)
	}
	cols = append(cols, col)
	rows := 0
	for _, c := range cols {
		rows = max(rows, len(c))
	}
	var parts []string
	for i, c := range cols {
		w := 0
		for _, l := range c {
			w = max(w, lipgloss.Width(l))
		}
		var b strings.Builder
		for r := range rows {
			if r > 0 {
				b.WriteByte('\n')
			}
			l := ""
			if r < len(c) {
				l = c[r]
			}
			b.WriteString(Fit(l, w))
			if i < len(cols)-1 {
				b.WriteString("   ")
			}
		}
		parts = append(parts, b.String())
	}
	return parts
}
