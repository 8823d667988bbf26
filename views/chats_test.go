package views

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/keymap"
	"github.com/ahptui/ahptui/protocol"
)

// TestChatSwitcherGolden: the chat switcher at 80 and 120 columns, in
// colour and without: each chat with how it came to be, its status and
// what waits in it; the creation keys only where the agent allows them,
// ! (open what waits) only where something waits, and a hostile title
// inert.
func TestChatSwitcherGolden(t *testing.T) {
	k := keymap.DefaultKeyMap()
	rows := []ChatRow{
		{Title: "Release 1.4", Origin: "user", Status: protocol.SessionStatusIdle, Open: true},
		{Title: "Fork of Release 1.4", Origin: "fork", Status: protocol.SessionStatusInProgress, Activity: "Running the tests"},
		{Title: "Investigate flake\x1b]0;pwned\x07", Origin: "tool", Status: protocol.SessionStatusInputNeeded, Waiting: 2, ReadOnly: true},
		{Title: "Ask about the API", Origin: "sideChat", Status: protocol.SessionStatusIdle},
	}
	for _, w := range []int{80, 120} {
		for _, c := range []struct {
			name string
			th   Theme
		}{{"chat_switcher", noColorTheme}, {"chat_switcher_color", colorTheme}} {
			out := RenderChatSwitcher(c.th, k, rows, 2, true, true, false, min(w, 72), 24)
			checkScreen(t, c.th, out, w)
			checkGolden(t, c.name, w, out)
			if strings.Contains(out, "\x1b]0;") {
				t.Fatal("a chat title's escape sequence reached the screen")
			}
			plain := ansi.Strip(out)
			for _, want := range []string{"Release 1.4 · on screen", "fork · ◐ in progress · Running the tests", "▸ Investigate flake",
				"subagent · ◆ needs input · ◆ 2 waiting for you · read-only", "side chat · ○ idle", "f fork", "! open what waits"} {
				if !strings.Contains(plain, want) {
					t.Errorf("%s at %d lacks %q:\n%s", c.name, w, want, plain)
				}
			}
			if strings.Contains(plain, "s side chat") {
				t.Errorf("the side chat key is offered where the agent makes none:\n%s", plain)
			}
		}
	}
	one := ansi.Strip(RenderChatSwitcher(noColorTheme, k, rows[:1], 0, false, false, false, 72, 24))
	if !strings.Contains(one, "does not let a client create") || strings.Contains(one, "n new chat") || strings.Contains(one, "! open") {
		t.Errorf("an agent with one chat a session is not said so:\n%s", one)
	}
}
