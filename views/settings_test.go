package views

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/keymap"
)

func testConfigRows() []ConfigRow {
	return []ConfigRow{
		{Title: "Approvals", Description: "Which tool calls the agent may run without asking", Value: "Allow all",
			ValueDesc: "Run every tool call without asking", Choices: []string{"Manual permissions", "Assisted permissions", "Allow all"}, Editable: true},
		{Title: "Branch", Description: "The branch the session works on", Value: "main", Why: "set by the host"},
		{Title: "Isolation\x1b[31m", Value: "Folder", ValueDesc: "Work in the folder itself", Choices: []string{"Folder", "Worktree"}, Editable: true},
	}
}

// TestSessionConfigGolden: the new-session dialog's settings step and the
// settings sheet at 80 and 120 columns (issue 26); host text is sanitized.
func TestSessionConfigGolden(t *testing.T) {
	k := keymap.DefaultKeyMap()
	rows := testConfigRows()
	host := []ConfigRow{{Title: "Proxy", Value: "(none)", Why: "not editable here"},
		{Title: "Strict proxy TLS", Value: "true", Choices: []string{"false", "true"}, Editable: true}}
	for _, w := range []int{80, 120} {
		out := RenderSessionConfigDialog(noColorTheme, k, "Demo agent · Demo model", rows, 0, false, DialogWidth(w), 24)
		checkScreen(t, noColorTheme, out, w)
		checkGolden(t, "session_config_dialog", w, out)
		plain := ansi.Strip(out)
		for _, want := range []string{"Approvals: ‹ Allow all ›", "Run every tool call without asking", "Branch: main (set by the host)", "choices: Manual permissions"} {
			if !strings.Contains(plain, want) {
				t.Errorf("dialog at %d lacks %q:\n%s", w, want, plain)
			}
		}
		if strings.Contains(out, "\x1b[31m") {
			t.Error("a host title's escape reached the screen")
		}
		out = RenderSettingsSheet(noColorTheme, k, rows, host, 4, w, 30)
		checkScreen(t, noColorTheme, out, w)
		checkGolden(t, "settings_sheet", w, out)
		if plain := ansi.Strip(out); !strings.Contains(plain, "▸ Strict proxy TLS: ‹ true ›") || !strings.Contains(plain, "The host") {
			t.Errorf("sheet at %d does not select the host's switch:\n%s", w, plain)
		}
	}
}

// TestSettingsSheetScrollsAndClips: a host with dozens of settings (VS
// Code's lists over forty) scrolls the sheet to keep the selected one in
// view with the key hints under it, and an object value (a map of glob
// patterns) takes one line, not a screenful (issue 26).
func TestSettingsSheetScrollsAndClips(t *testing.T) {
	k := keymap.DefaultKeyMap()
	var host []ConfigRow
	for i := range 40 {
		host = append(host, ConfigRow{Title: fmt.Sprintf("Setting %02d", i), Value: "false", Choices: []string{"false", "true"}, Editable: true,
			Description: "What setting " + fmt.Sprint(i) + " does"})
	}
	host[3] = ConfigRow{Title: "Edit Auto Approve Patterns", Value: `{"**/*":true,"**/.git/**":false,` + strings.Repeat(`"**/x.lock":false,`, 40) + `}`, Why: "not editable here"}
	for _, sel := range []int{0, 20, 39} {
		out := ansi.Strip(RenderSettingsSheet(noColorTheme, k, nil, host, sel, 100, 24))
		lines := strings.Split(out, "\n")
		if len(lines) > 24 {
			t.Fatalf("sel %d: the sheet is %d lines in 24", sel, len(lines))
		}
		want := fmt.Sprintf("▸ Setting %02d: ‹ false ›", sel)
		if !strings.Contains(out, want) || !strings.Contains(out, "What setting "+fmt.Sprint(sel)+" does") {
			t.Errorf("sel %d: the selected setting or its description is not in view:\n%s", sel, out)
		}
		if !strings.Contains(lines[len(lines)-2], "esc close") {
			t.Errorf("sel %d: the key hints are not at the bottom:\n%s", sel, out)
		}
		if sel > 0 && !strings.Contains(out, "↑ more") || sel < 39 && !strings.Contains(out, "↓ more") {
			t.Errorf("sel %d: the sheet does not say more rows are above or below:\n%s", sel, out)
		}
		if sel == 0 && strings.Count(out, "**/x.lock") > 8 {
			t.Errorf("the object value is not cut to one line:\n%s", out)
		}
	}
}

// TestSessionConfigDialogScrolls: a host with more session settings than
// a short terminal holds keeps the selected one and the key hints in the
// new-session dialog (issue 26).
func TestSessionConfigDialogScrolls(t *testing.T) {
	k := keymap.DefaultKeyMap()
	var rows []ConfigRow
	for i := range 20 {
		rows = append(rows, ConfigRow{Title: fmt.Sprintf("Option %02d", i), Value: "a", Choices: []string{"a", "b"}, Editable: true,
			ValueDesc: "what a means", Description: "what option " + fmt.Sprint(i) + " is"})
	}
	for _, sel := range []int{0, 10, 19} {
		out := ansi.Strip(RenderSessionConfigDialog(noColorTheme, k, "Agent", rows, sel, false, 60, 20))
		lines := strings.Split(out, "\n")
		if len(lines) > 20 {
			t.Fatalf("sel %d: the dialog is %d lines in 20", sel, len(lines))
		}
		if !strings.Contains(out, fmt.Sprintf("▸ Option %02d: ‹ a ›", sel)) || !strings.Contains(out, "what option "+fmt.Sprint(sel)+" is") {
			t.Errorf("sel %d: the selected setting is not in view:\n%s", sel, out)
		}
		if !strings.Contains(lines[len(lines)-2], "n/esc cancel") {
			t.Errorf("sel %d: the key hints are not at the bottom:\n%s", sel, out)
		}
	}
}
