package views

import (
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
