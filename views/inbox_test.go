package views

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/keymap"
)

func inboxRows() []InboxRow {
	return []InboxRow{
		{Host: "ws://127.0.0.1:4000", Session: "Fix the flaky test", What: "approval", Detail: "run_in_terminal", Waited: 2*time.Hour + 5*time.Minute},
		{Host: "ws://127.0.0.1:4000", Session: "Deploy\x1b]52;c;AAAA\x07 staging\x1b[2J", What: "sign-in", Detail: "deploy\x1b[31m-mcp", Waited: 4 * time.Minute},
		{Host: "ws://127.0.0.1:4000", Session: "", What: "needs input", Waited: 12 * time.Second},
		{Host: "ws://127.0.0.1:4000", Session: "Refactor", What: "MCP server failed", Detail: "github", Waited: 0},
	}
}

// TestInboxGolden: the inbox at 80x24 and 120x40, in colour and NO_COLOR,
// with a hostile session title and server name inert.
func TestInboxGolden(t *testing.T) {
	k := keymap.DefaultKeyMap()
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		w, h := size[0], size[1]
		for _, th := range []struct {
			name string
			th   Theme
		}{{"inbox", noColorTheme}, {"inbox_color", colorTheme}} {
			out := RenderInbox(th.th, k, inboxRows(), 1, w, h)
			checkScreen(t, th.th, out, w)
			if n := strings.Count(out, "\n") + 1; n > h {
				t.Errorf("%dx%d: %d rows", w, h, n)
			}
			checkGolden(t, fmt.Sprintf("%s_h%d", th.name, h), w, out)
			plain := ansi.Strip(out)
			for _, want := range []string{"approval: run_in_terminal · waiting 2h5m", "▸ sign-in: deploy-mcp · waiting 4m",
				"Deploy staging · on ws://127.0.0.1:4000", "(untitled session)", "waiting 12s", "MCP server failed: github · waiting 0s", "enter open in place"} {
				if !strings.Contains(plain, want) {
					t.Errorf("%s %dx%d lacks %q:\n%s", th.name, w, h, want, plain)
				}
			}
			if strings.Contains(out, "]52;") || strings.Contains(out, "\x1b[2J") || strings.Contains(out, "\x07") {
				t.Errorf("a host string's escape reached the screen: %q", out)
			}
		}
	}
}

// A list taller than the sheet keeps the selected row on screen.
func TestInboxScrollsToSelection(t *testing.T) {
	var rows []InboxRow
	for i := range 30 {
		rows = append(rows, InboxRow{Host: "h", Session: fmt.Sprintf("session %02d", i), What: "approval", Waited: time.Duration(30-i) * time.Minute})
	}
	out := ansi.Strip(RenderInbox(noColorTheme, keymap.DefaultKeyMap(), rows, 25, 80, 12))
	if !strings.Contains(out, "session 25") || strings.Contains(out, "session 00") {
		t.Errorf("selection 25 not shown:\n%s", out)
	}
	if strings.Count(out, "\n")+1 > 12 {
		t.Errorf("taller than 12:\n%s", out)
	}
	if out := ansi.Strip(RenderInbox(noColorTheme, keymap.DefaultKeyMap(), nil, 0, 80, 12)); !strings.Contains(out, "Nothing is waiting for you.") {
		t.Errorf("empty inbox:\n%s", out)
	}
}
