package e2e

import (
	"strings"
	"testing"
	"time"
)

// settingsTitle is the new-session dialog's title on its settings step.
const settingsTitle = "New session · settings"

// createSessionWithDefaults creates a session from the sessions panel
// through both steps of the dialog, the agent and then the settings,
// keeping the defaults, and waits until it is listed.
func (u *user) createSessionWithDefaults() {
	u.t.Helper()
	u.openSessionSettings()
	u.press("Enter")
	u.see("the new session is listed", func(s string) bool { return strings.Contains(PanelText(s, "Sessions ("), newSession) })
}

// openSessionSettings focuses the sessions, opens the new-session dialog
// and takes the first agent to the settings step; it returns that screen.
func (u *user) openSessionSettings() string {
	u.t.Helper()
	u.focus("sessions", km.Global.FocusNext, hint(km.Sessions.New))
	u.hit(km.Sessions.New)
	u.see("new-session dialog", func(s string) bool { _, ok := Panel(s, newSession); return ok })
	u.press("Enter")
	return u.see("the session's settings", func(s string) bool { return strings.Contains(PanelText(s, settingsTitle), "Approvals:") })
}

// TestNewSessionSettingsDialog: in a real terminal at 80x24 and 120x40,
// the new-session dialog shows the host's session settings by their
// labels with the defaults chosen and a readOnly one fixed; → reaches
// "Allow all" through a confirmation per broader mode and enter creates
// the session (issue 26, security finding 6).
func TestNewSessionSettingsDialog(t *testing.T) {
	t.Parallel()
	skipShort(t)
	eachSize(t, func(t *testing.T, w, h int) {
		u := startDemoSession(t, w, h)
		screen := u.openSessionSettings()
		if !strings.Contains(PanelText(screen, settingsTitle), "Approvals: ‹ Manual permissions ›") {
			t.Errorf("the default approvals are not chosen:\n%s", PanelText(screen, settingsTitle))
		}
		dialog := PanelText(screen, settingsTitle)
		for _, want := range []string{"Branch: main (set by the host)", "Isolation: ‹ Folder ›", hint(km.NewSession.Create)} {
			if !strings.Contains(dialog, want) {
				t.Errorf("the dialog lacks %q:\n%s", want, dialog)
			}
		}
		for range 2 {
			u.hit(km.NewSession.Next)
			u.confirmWiden("the new session")
		}
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

// TestSettingsFormInTerminal: in a real terminal, e on the demo's base
// branch opens the input form, whose choices are the host's completions
// for what is typed; a pick and a typed number go back to the dialog,
// and the session is created with both (issue 26).
func TestSettingsFormInTerminal(t *testing.T) {
	t.Parallel()
	skipShort(t)
	eachSize(t, func(t *testing.T, w, h int) {
		u := startDemoSession(t, w, h)
		u.openSessionSettings()
		u.hit(km.NewSession.Down)
		u.see("the base branch selected", func(s string) bool {
			d := PanelText(s, settingsTitle)
			return strings.Contains(d, "▸ Base branch: main") && strings.Contains(d, "e to edit")
		})
		u.hit(km.NewSession.Edit)
		u.seeText("the setting's form", "Change a setting")
		u.press("r", "e", "l")
		u.see("the host's matches only", func(s string) bool {
			return strings.Contains(s, "release/1.1") && !strings.Contains(s, "develop")
		})
		u.press("Down", "Enter", "C-s")
		u.see("the pick in the dialog", func(s string) bool {
			return strings.Contains(PanelText(s, settingsTitle), "Base branch: release/1.1")
		})
		for range 3 { // past the branch and the isolation
			u.hit(km.NewSession.Down)
		}
		u.see("max tool calls selected", func(s string) bool { return strings.Contains(PanelText(s, settingsTitle), "▸ Max tool calls: 20") })
		u.hit(km.NewSession.Edit)
		u.seeText("the number's form", "Change a setting")
		u.press("C-u", "7", "C-s")
		u.see("the number in the dialog", func(s string) bool {
			return strings.Contains(PanelText(s, settingsTitle), "Max tool calls: 7")
		})
		u.hit(km.NewSession.Create)
		u.see("the new session is listed", func(s string) bool {
			_, open := Panel(s, settingsTitle)
			return !open && strings.Contains(PanelText(s, "Sessions ("), "New session")
		})
		u.hit(km.Global.Settings)
		u.see("the new session's settings as created", func(s string) bool {
			p := Flatten(strings.Split(PanelText(s, "Settings"), "\n"))
			return strings.Contains(p, "Base branch: release/1.1") && strings.Contains(p, "Max tool calls: 7")
		})
	})
}

// confirmWiden answers the confirmation of a value that lets more run
// without asking with yes, as a person does: it waits out the second in
// which its keys are ignored, moves onto "Yes" and presses enter.
func (u *user) confirmWiden(reach string) {
	u.t.Helper()
	u.seeText("the confirmation naming its reach", "Applies to: "+reach)
	time.Sleep(1200 * time.Millisecond)
	u.press("Right")
	u.see("Yes highlighted", func(s string) bool { return strings.Contains(s, "▸ Yes") })
	u.press("Enter")
	u.see("the confirmation closed", func(s string) bool { return !strings.Contains(s, "Applies to:") })
}

// TestTypingHeyKeepsApprovals: "hey" typed into the new-session settings
// of a real terminal (security finding 6: h wrapped from Manual to
// "Allow all" and y created the session) leaves the approval mode at its
// default and creates nothing; enter then creates the session with the
// default, as its settings sheet shows.
func TestTypingHeyKeepsApprovals(t *testing.T) {
	t.Parallel()
	skipShort(t)
	u := startDemoSession(t, 120, 40)
	u.openSessionSettings()
	u.press("h", "e", "y")
	time.Sleep(500 * time.Millisecond) // what the keys would do, done
	screen := u.see("the settings step still open", func(s string) bool { _, open := Panel(s, settingsTitle); return open })
	if d := PanelText(screen, settingsTitle); !strings.Contains(d, "Approvals: ‹ Manual permissions ›") {
		t.Fatalf("typing hey changed the approvals:\n%s", d)
	}
	u.press("Enter")
	u.see("the new session is listed", func(s string) bool {
		_, open := Panel(s, settingsTitle)
		return !open && strings.Contains(PanelText(s, "Sessions ("), "New session")
	})
	u.hit(km.Global.Settings)
	u.see("the new session's approvals as created", func(s string) bool {
		p := Flatten(strings.Split(PanelText(s, "Settings"), "\n"))
		return strings.Contains(p, "Approvals: ‹ Manual permissions ›") && strings.Contains(p, "Max tool calls: 20")
	})
}
