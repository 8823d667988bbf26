package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/internal/tmuxtest"
)

// TestTerminalPaneInTerminal is issue 23's terminals in a real terminal at
// 80x24 and 120x40: T lists the demo's terminal, enter opens it (its
// output, the commands with their exit codes, who holds it), i says only
// the holder types, esc goes back and esc closes; then w on the history
// turn's "Run the tests" card opens the same terminal. Over an older
// wire the demo lists none, and the list says so.
func TestTerminalPaneInTerminal(t *testing.T) {
	t.Parallel()
	skipShort(t)
	eachSize(t, func(t *testing.T, w, h int) {
		u := startOnHistorySession(t, w, h)
		u.hit(km.Global.Terminals)
		if suiteVersion != demohost.Version10 {
			u.see("no terminals over "+suiteVersion, func(s string) bool {
				return strings.Contains(PanelText(s, "Terminals"), "The host lists no terminals.")
			})
			return
		}
		u.see("the terminals list", func(s string) bool {
			return strings.Contains(PanelText(s, "Terminals"), demohost.DemoTerminalURI)
		})
		u.hit(km.Terminals.Open)
		pane := func(s string) string { return PanelText(s, "Terminal · "+demohost.DemoTerminalTitle) }
		screen := u.see("the terminal pane", func(s string) bool {
			return strings.Contains(pane(s), "make: *** [test] Error 2") && strings.Contains(pane(s), "✗ exit 2  make test")
		})
		for _, want := range []string{"build ok", "--- FAIL: TestReconnect", "✓ exit 0  make build", "held by the agent"} {
			if !strings.Contains(pane(screen), want) {
				t.Errorf("the pane lacks %q:\n%s", want, pane(screen))
			}
		}
		u.hit(km.Terminal.Input)
		u.see("typing refused", func(s string) bool { return strings.Contains(pane(s), "only its holder types") })
		u.hit(km.Terminal.Back)
		u.see("back to the list", func(s string) bool { _, ok := Panel(s, "Terminals"); return ok })
		u.hit(km.Terminals.Close)
		u.see("the list closed", func(s string) bool { _, ok := Panel(s, "Terminals"); return !ok })

		// From the card: "Run the tests" runs in it; [ walks back from the
		// turn's last tool call until w opens it (the others name none).
		opened := func(s string) bool { return strings.Contains(pane(s), "✗ exit 2  make test") }
		for range 4 {
			u.hit(km.Chat.PrevToolCall)
			u.hit(km.Chat.Terminal)
			if _, err := u.s.WaitForFunc(opened, 5*time.Second); err == nil {
				return
			}
		}
		t.Fatalf("w on the history turn's tool calls never opened the terminal:\n%s", u.s.Capture())
	})
}

// TestHostileTerminalInert opens the hostile host's terminal, whose output
// carries an OSC 8 link, an OSC 52 clipboard write, title sets and DA/DSR
// queries (and whose title and command carry every payload): its words
// show, and none of it reaches the real terminal.
func TestHostileTerminalInert(t *testing.T) {
	t.Parallel()
	skipShort(t)
	versionFixed(t)
	bin := tmuxtest.Build(t, "github.com/ahptui/ahptui")
	hostd := tmuxtest.Build(t, "github.com/ahptui/ahptui/protocol/internal/hostilehost/cmd/hostilehostd")
	url := startHostileHost(t, hostd)
	s := tmuxtest.Start(t, tmuxtest.Options{Width: 120, Height: 40,
		Cmd: []string{bin, "--host", url, "--no-browser", "--config-dir", t.TempDir()}})
	u := &user{t: t, s: s}
	u.see("connected", func(s string) bool {
		return strings.Contains(statusLine(s), "connected") && !strings.Contains(statusLine(s), "disconnected")
	})
	u.hit(km.Global.Terminals)
	u.see("the terminals list", func(s string) bool { return strings.Contains(s, "agenthost-terminal://hostile/t1") })
	u.hit(km.Terminals.Open)
	u.see("the hostile terminal's end", func(s string) bool { return strings.Contains(s, "✗ exit 3") })
	u.hit(km.Terminal.Top)
	screen := u.see("the hostile terminal", func(s string) bool {
		return strings.Contains(s, "after-link") && strings.Contains(s, "queries-done") && strings.Contains(s, "red-text")
	})
	for _, want := range []string{"before-link click-me after-link", "clipboard-done", "title-done", "held by another client"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the pane lacks %q", want)
		}
	}
	assertScreenInert(t, s, screen)
	u.hit(km.Global.Quit)
	if code, err := s.WaitExit(stepTimeout); err != nil || code != 0 {
		t.Fatalf("q did not quit cleanly: status %d, %v", code, err)
	}
}
