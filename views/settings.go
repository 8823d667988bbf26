package views

import (
	"slices"

	"charm.land/lipgloss/v2"

	"github.com/ahptui/ahptui/keymap"
)

// ConfigRow is one setting as the new-session dialog and the settings
// sheet show it. Every string is host text; the renderers sanitize it.
type ConfigRow struct {
	Title       string
	Description string
	Value       string // the current value's label
	ValueDesc   string // what the current value means (its enumDescription)
	// Choices is the labels of an enum's values, in the schema's order
	// (empty for a free value).
	Choices []string
	// Editable: it changes here, by ←/→ through Choices when it has
	// them, else in the input form (the edit key). A readOnly property,
	// or one that cannot change while the session runs, is shown with
	// Why instead.
	Editable bool
	Why      string
}

// RenderSessionConfigDialog is the new-session dialog's second step: the
// settings the host resolved for the picked agent, the selected one
// highlighted; enter creates the session with them.
func RenderSessionConfigDialog(th Theme, k keymap.KeyMap, agent string, rows []ConfigRow, sel int, loading bool, maxW, maxH int) string {
	w := min(maxW, dialogMaxWidth)
	inner := max(10, w-2)
	body := []string{th.Muted.Render(Truncate("Agent: "+SanitizeLine(agent), inner))}
	if loading {
		body = append(body, "", th.Muted.Render("Asking the host for the session's settings…"))
	}
	lines, at := configRows(th, rows, sel, inner, k.NewSession.Edit.Help().Key)
	selLine := -1
	if at >= 0 {
		selLine = len(body) + at
	}
	body = append(body, lines...)
	nk := k.NewSession
	foot := append([]string{""}, wrapLines(KeyHints(th, true, nk.Next, "change", nk.Edit, "edit", nk.Create, nk.Create.Help().Desc, nk.Cancel, nk.Cancel.Help().Desc), inner)...)
	body = append(scrollTo(th, body, selLine, maxH-2-len(foot)), foot...)
	return RenderDialog(th, "New session · settings", body, w, min(maxH, len(body)+2))
}

// RenderSettingsSheet is the settings sheet: the open session's settings
// (those that may change while it runs are editable) and the host's. A
// host may list dozens: the rows scroll to keep the selected one in view,
// under fixed key hints.
func RenderSettingsSheet(th Theme, k keymap.KeyMap, session, host []ConfigRow, sel int, width, height int) string {
	width = max(width, 20)
	inner := width - 2
	editKey := k.Settings.Edit.Help().Key
	var body []string
	selLine := -1
	body = append(body, th.Title.Render("This session"))
	if len(session) == 0 {
		body = append(body, wrapLines(th.Muted.Render("  No session settings: open a session whose host has them."), inner)...)
	}
	lines, at := configRows(th, session, sel, inner, editKey)
	if at >= 0 {
		selLine = len(body) + at
	}
	body = append(body, lines...)
	body = append(body, "", th.Title.Render("The host"))
	if len(host) == 0 {
		body = append(body, wrapLines(th.Muted.Render("  The host has no settings of its own."), inner)...)
	}
	lines, at = configRows(th, host, sel-len(session), inner, editKey)
	if at >= 0 {
		selLine = len(body) + at
	}
	body = append(body, lines...)
	sk := k.Settings
	foot := append([]string{""}, wrapLines(KeyHints(th, true, sk.Next, "change", sk.Edit, "edit", sk.Up, "move", sk.Close, sk.Close.Help().Desc), inner)...)
	body = append(scrollTo(th, body, selLine, height-2-len(foot)), foot...)
	return RenderDialog(th, "Settings", body, width, min(height, len(body)+2))
}

// scrollTo cuts body to room lines that show line selLine (the selected
// row), a line above it and the descriptions under it, saying where more
// lines are above or below.
func scrollTo(th Theme, body []string, selLine, room int) []string {
	room = max(3, room)
	if len(body) <= room {
		return body
	}
	start := 0
	if selLine > room-5 {
		start = min(selLine-1, len(body)-room)
	}
	end := start + room
	more := end < len(body)
	body = slices.Clone(body[start:end])
	if start > 0 {
		body[0] = th.Muted.Render("  ↑ more")
	}
	if more {
		body[len(body)-1] = th.Muted.Render("  ↓ more")
	}
	return body
}

// configRows draws the rows, each value on one line (a host's object
// value can be long); editKey is the key that opens the input form on a
// selected editable row without choices. at is the line the selected row
// starts on, -1 when it is not among them.
func configRows(th Theme, rows []ConfigRow, sel, inner int, editKey string) (out []string, at int) {
	at = -1
	for i, r := range rows {
		mark, style := "  ", th.Text.Render
		if i == sel {
			mark, style = "▸ ", th.Selected.Render
			at = len(out)
		}
		value := SanitizeLine(r.Value)
		if r.Editable && len(r.Choices) > 1 {
			value = "‹ " + value + " ›"
		}
		why := ""
		if !r.Editable && r.Why != "" {
			why = " (" + SanitizeLine(r.Why) + ")"
		}
		head := mark + SanitizeLine(r.Title) + ": "
		if w := inner - lipgloss.Width(head) - lipgloss.Width(why); lipgloss.Width(value) > w && w > 8 {
			value = Truncate(value, w)
		}
		out = append(out, wrapLines(style(head+value+why), inner)...)
		if d := SanitizeLine(r.ValueDesc); d != "" {
			out = append(out, mutedHanging(th, "    ", d, "    ", inner)...)
		}
		if i == sel {
			if d := SanitizeLine(r.Description); d != "" {
				out = append(out, mutedHanging(th, "    ", d, "    ", inner)...)
			}
			if r.Editable && len(r.Choices) > 1 {
				out = append(out, mutedHanging(th, "    choices: ", joinSanitized(r.Choices), "             ", inner)...)
			} else if r.Editable {
				out = append(out, mutedHanging(th, "    ", editKey+" to edit", "    ", inner)...)
			}
		}
	}
	return out, at
}

func joinSanitized(ss []string) string {
	out := ""
	for i, s := range ss {
		if i > 0 {
			out += " · "
		}
		out += SanitizeLine(s)
	}
	return out
}

// mutedHanging is lead+text wrapped to width, its continuation lines
// indented by hang so they stay under the text, not at column 0, muted.
func mutedHanging(th Theme, lead, text, hang string, width int) []string {
	ls := wrapIndented(lead+text, width, hang)
	for i, l := range ls {
		ls[i] = th.Muted.Render(l)
	}
	return ls
}
