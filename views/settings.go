package views

import (
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
	body = append(body, configRowLines(th, rows, sel, inner, k.NewSession.Edit.Help().Key)...)
	nk := k.NewSession
	body = append(body, "")
	body = append(body, wrapLines(KeyHints(th, true, nk.Next, "change", nk.Create, nk.Create.Help().Desc, nk.Cancel, nk.Cancel.Help().Desc), inner)...)
	return RenderDialog(th, "New session · settings", body, w, min(maxH, len(body)+2))
}

// RenderSettingsSheet is the settings sheet: the open session's settings
// (those that may change while it runs are editable) and the host's.
func RenderSettingsSheet(th Theme, k keymap.KeyMap, session, host []ConfigRow, sel int, width, height int) string {
	width = max(width, 20)
	inner := width - 2
	var body []string
	body = append(body, th.Title.Render("This session"))
	if len(session) == 0 {
		body = append(body, wrapLines(th.Muted.Render("  No session settings: open a session whose host has them."), inner)...)
	}
	body = append(body, configRowLines(th, session, sel, inner, k.Settings.Edit.Help().Key)...)
	body = append(body, "", th.Title.Render("The host"))
	if len(host) == 0 {
		body = append(body, wrapLines(th.Muted.Render("  The host has no settings of its own."), inner)...)
	}
	body = append(body, configRowLines(th, host, sel-len(session), inner, k.Settings.Edit.Help().Key)...)
	sk := k.Settings
	body = append(body, "")
	body = append(body, wrapLines(KeyHints(th, true, sk.Next, "change", sk.Up, "move", sk.Close, sk.Close.Help().Desc), inner)...)
	return RenderDialog(th, "Settings", body, width, min(height, len(body)+2))
}

// configRowLines draws the rows; editKey is the key that opens the input
// form on a selected editable row without choices.
func configRowLines(th Theme, rows []ConfigRow, sel, inner int, editKey string) []string {
	var out []string
	for i, r := range rows {
		mark, style := "  ", th.Text.Render
		if i == sel {
			mark, style = "▸ ", th.Selected.Render
		}
		value := SanitizeLine(r.Value)
		if r.Editable && len(r.Choices) > 1 {
			value = "‹ " + value + " ›"
		}
		line := mark + SanitizeLine(r.Title) + ": " + value
		if !r.Editable && r.Why != "" {
			line += " (" + SanitizeLine(r.Why) + ")"
		}
		out = append(out, wrapLines(style(line), inner)...)
		if d := SanitizeLine(r.ValueDesc); d != "" {
			out = append(out, wrapLines(th.Muted.Render("    "+d), inner)...)
		}
		if i == sel {
			if d := SanitizeLine(r.Description); d != "" {
				out = append(out, wrapLines(th.Muted.Render("    "+d), inner)...)
			}
			if r.Editable && len(r.Choices) > 1 {
				out = append(out, wrapLines(th.Muted.Render("    choices: "+joinSanitized(r.Choices)), inner)...)
			} else if r.Editable {
				out = append(out, wrapLines(th.Muted.Render("    "+editKey+" to edit"), inner)...)
			}
		}
	}
	return out
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
