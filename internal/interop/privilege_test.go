package interop

import (
	"strings"
	"time"

	"testing"

	"github.com/ahptui/ahptui/internal/e2e"
)

// confirmWiden answers the confirmation of a value that lets more run
// without asking (or of a host setting) with yes, as a person does: it
// checks the reach it names, waits out the second in which its keys are
// ignored, moves onto "Yes" and presses enter.
func (u *user) confirmWiden(reach string) {
	u.t.Helper()
	u.see("the confirmation naming its reach", func(sc string) bool {
		return strings.Contains(e2e.Flatten(strings.Split(sc, "\n")), "Applies to: "+reach)
	})
	time.Sleep(1200 * time.Millisecond)
	u.hit(km.Widen.Move)
	u.see("Yes highlighted", func(sc string) bool { return strings.Contains(sc, "▸ Yes") })
	u.hit(km.Widen.Choose)
	u.see("the confirmation closed", func(sc string) bool { return !strings.Contains(sc, "Applies to:") })
}

// TestVSCodeTypingHeyKeepsApprovals is security finding 6 against VS
// Code's real host: "hey" typed into the new-session settings once
// wrapped the approval mode from Manual to "Allow all" (h) and created
// the session (y), whose shell calls then ran without asking. Now the
// keys change nothing and create nothing; the session enter creates
// carries the default approval mode, and the host's state says so.
func TestVSCodeTypingHeyKeepsApprovals(t *testing.T) {
	s := newSuite(t)
	u := s.start(t, 140, 45)
	step := s.flatSteps(t)

	step("connect", func() { u.see("connected over AHP "+hostVersion, connected) })

	step("hey in the new-session settings, then enter", func() {
		u.focus("sessions", hint(km.Sessions.New))
		u.hit(km.Sessions.New)
		u.seeText("the new-session picker", "New session")
		u.hit(km.NewSession.Create)
		cfg := u.settingsStep(func() {
			u.seeText("the host's approval modes", approvalsTitle+": ‹ Manual permissions ›")
			u.s.SendText("hey")
			time.Sleep(time.Second) // what the keys would do, done
			for _, m := range u.sent() {
				if m["method"] == "createSession" {
					u.rec.Dump()
					t.Fatal("typing hey created the session")
				}
			}
			sc := u.see("the settings step still open", func(sc string) bool { _, open := e2e.Panel(sc, settingsTitle); return open })
			if d := e2e.PanelText(sc, settingsTitle); !strings.Contains(d, approvalsTitle+": ‹ Manual permissions ›") {
				t.Fatalf("typing hey changed the approvals:\n%s", d)
			}
		})
		if v, ok := cfg[approvalsProp]; ok && v != "default" {
			u.rec.Dump()
			t.Fatalf("createSession's config: %s is %v, want the default (config %v)", approvalsProp, v, cfg)
		}
		u.waitFrame("the new chat's snapshot", "←host", `"snapshot":{"resource":"ahp-chat://`)
		u.waitFrame("the session's state carries the default approvals", "←host", `"`+approvalsProp+`":"default"`)
		for _, f := range u.rec.Frames("←host") {
			if strings.Contains(f, `"`+approvalsProp+`":"`+allowAll+`"`) {
				u.rec.Dump()
				t.Fatalf("the host's state has Allow all: %s", f)
			}
		}
	})
}
