package views

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/keymap"
)

// TestWidenDialog: the confirmation names its effect and reach, shows
// "No" highlighted until moved, offers enter (never a printable yes),
// and strips control sequences from the host's words.
func TestWidenDialog(t *testing.T) {
	v := WidenView{Title: "Allow more without asking?", Question: "Set Approvals to “Allow all\x1b[2J”?",
		Effect: []string{"Allow all: Runs tool calls without asking"}, Reach: "every client of this host, VS Code windows included"}
	out := RenderWidenDialog(NewTheme(true, true), keymap.DefaultKeyMap(), v, 80)
	plain := ansi.Strip(out)
	for _, want := range []string{"Allow more without asking?", "Runs tool calls without asking",
		"Applies to: every client of this host, VS Code windows included.", "▸ No", "enter choose", "esc no"} {
		if !strings.Contains(plain, want) {
			t.Errorf("the dialog lacks %q:\n%s", want, plain)
		}
	}
	if strings.Contains(out, "\x1b[2J") || strings.Contains(plain, "▸ Yes") {
		t.Errorf("host control sequence kept, or Yes highlighted from the start:\n%s", plain)
	}
	v.OnYes = true
	if plain := ansi.Strip(RenderWidenDialog(NewTheme(true, true), keymap.DefaultKeyMap(), v, 80)); !strings.Contains(plain, "▸ Yes") || strings.Contains(plain, "▸ No") {
		t.Errorf("moved to Yes, the dialog shows:\n%s", plain)
	}
}
