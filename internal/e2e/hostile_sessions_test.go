package e2e

import (
	"strings"
	"testing"

	"github.com/ahptui/ahptui/internal/tmuxtest"
)

// TestHostileEndlessSessionList: against a host whose listSessions pages
// forever with fresh cursors, the real binary in a real terminal connects,
// keeps a bounded list, and says it is truncated in the sessions panel's
// title and on the status line; it still answers its keys (issue 21,
// finding 4).
func TestHostileEndlessSessionList(t *testing.T) {
	t.Parallel()
	skipShort(t)
	versionFixed(t)
	bin := tmuxtest.Build(t, "github.com/ahptui/ahptui")
	hostd := tmuxtest.Build(t, "github.com/ahptui/ahptui/protocol/internal/hostilehost/cmd/hostilehostd")
	url := startHostileHost(t, hostd, "-scenario", "endless-sessions")
	s := tmuxtest.Start(t, tmuxtest.Options{
		Width: 140, Height: 40,
		Cmd: []string{bin, "--host", url, "--no-browser", "--config-dir", t.TempDir()},
	})
	u := &user{t: t, s: s}
	screen := u.see("the truncated session list", func(s string) bool {
		_, ok := Panel(s, "Sessions (10000+)")
		return ok && strings.Contains(s, "more sessions than ahptui keeps")
	})
	if !strings.Contains(statusLine(screen), "connected") {
		t.Errorf("not connected with a truncated list:\n%s", screen)
	}
	u.hit(km.Global.Quit)
	if code, err := s.WaitExit(stepTimeout); err != nil || code != 0 {
		t.Fatalf("q did not quit cleanly: status %d, %v", code, err)
	}
}
