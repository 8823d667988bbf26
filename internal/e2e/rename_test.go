package e2e

import (
	"strings"
	"testing"
)

// TestRenameSessionInTerminal is issue 35 item 6 (rename) in a real
// terminal at 80x24 and 120x40: R on the open session in the list opens
// a one-line form on its title; the new title goes to the demo host
// (session/titleChanged) and comes back in the list.
func TestRenameSessionInTerminal(t *testing.T) {
	t.Parallel()
	skipShort(t)
	eachSize(t, func(t *testing.T, w, h int) {
		u := startDemoSession(t, w, h)
		u.focus("sessions", km.Global.FocusPrev, hint(km.Sessions.New))
		u.hit(km.Sessions.Rename)
		u.see("the title form", func(s string) bool { return strings.Contains(s, "Session title") })
		u.press("C-u")
		u.s.SendText("Renamed")
		u.press("C-s")
		u.see("the list shows the new title", func(s string) bool {
			return strings.Contains(PanelText(s, "Sessions ("), "Renamed") && !strings.Contains(s, "Session title")
		})
	})
}
