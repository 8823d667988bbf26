package e2e

import (
	"strings"
	"testing"
)

// settingsTitle is the new-session dialog's title on its settings step.
const settingsTitle = "New session · settings"

// TestNewSessionSettingsDialog: in a real terminal at 80x24 and 120x40,
// the new-session dialog shows the host's session settings by their
// labels with the defaults chosen and a readOnly one fixed; → reaches
// "Allow all" and enter creates the session (issue 26).
func TestNewSessionSettingsDialog(t *testing.T) {
	skipShort(t)
	eachSize(t, func(t *testing.T, w, h int) {
		u := startDemoSession(t, w, h)
		u.focus("sessions", km.Global.FocusNext, hint(km.Sessions.New))
		u.hit(km.Sessions.New)
		u.see("new-session dialog", func(s string) bool { _, ok := Panel(s, "New session"); return ok })
		u.press("Enter")
		screen := u.see("the session's settings", func(s string) bool {
			return strings.Contains(PanelText(s, settingsTitle), "Approvals: ‹ Manual permissions ›")
		})
		dialog := PanelText(screen, settingsTitle)
		for _, want := range []string{"Branch: main (set by the host)", "Isolation: ‹ Folder ›", hint(km.NewSession.Create)} {
			if !strings.Contains(dialog, want) {
				t.Errorf("the dialog lacks %q:\n%s", want, dialog)
			}
		}
		u.hit(km.NewSession.Next)
		u.hit(km.NewSession.Next)
		u.see("Allow all chosen", func(s string) bool {
			return strings.Contains(PanelText(s, settingsTitle), "Approvals: ‹ Allow all ›")
		})
		u.hit(km.NewSession.Create)
		u.see("the new session is listed", func(s string) bool {
			_, open := Panel(s, settingsTitle)
			return !open && strings.Contains(PanelText(s, "Sessions ("), "New session")
		})
	})
}
