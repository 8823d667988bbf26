package interop

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ahptui/ahptui/internal/capimock"
	"github.com/ahptui/ahptui/internal/e2e"
)

// TestVSCodeRenameSession is issue 35 item 6 (rename) against VS Code's
// real host: R on the open session sends session/titleChanged, the host
// takes it (its echo carries the title) and the list shows the new name;
// `ahptui rename` does the same for a script.
func TestVSCodeRenameSession(t *testing.T) {
	s := newSuite(t)
	u := s.start(t, 140, 45)
	step := s.flatSteps(t)

	u.defaultSessionSignedIn(s, step)
	step("a first turn, so the host lists the session", func() {
		u.sendMessage(firstMessage)
		u.see("the reply", func(sc string) bool { return strings.Contains(sc, capimock.Reply) })
	})
	echoed := func(title string) func(string) bool {
		return func(string) bool {
			for _, p := range u.hostActions("session/titleChanged") {
				if b, _ := json.Marshal(p["action"]); strings.Contains(string(b), `"title":"`+title+`"`) {
					return true
				}
			}
			return false
		}
	}
	step("R renames it", func() {
		u.leaveComposer()
		u.focus("sessions", hint(km.Sessions.New))
		u.hit(km.Sessions.Rename)
		u.seeText("the title form", "Session title")
		u.s.SendKeys("C-u")
		u.s.SendText("Renamed by ahptui")
		u.s.SendKeys("C-s")
		if _, ok := u.waitAction("session/titleChanged"); !ok {
			u.rec.Dump()
			t.Fatal("no session/titleChanged sent")
		}
		if _, err := u.s.WaitForFunc(echoed("Renamed by ahptui"), stepTimeout); err != nil {
			u.rec.Dump()
			t.Fatal("the host did not take the new title")
		}
		u.see("the list shows it", func(sc string) bool {
			return strings.Contains(e2e.PanelText(sc, "Sessions ("), "Renamed by")
		})
	})
	step("ahptui rename does it from a script", func() {
		var ss []struct {
			Session string `json:"session"`
		}
		if r := s.cli(t, 0, "sessions", "--json"); json.Unmarshal([]byte(r.stdout), &ss) != nil || len(ss) == 0 {
			t.Fatalf("sessions --json: %s", r.stdout)
		}
		s.cli(t, 0, "rename", ss[0].Session, "Renamed by a script")
		u.see("the UI's list follows", func(sc string) bool {
			return strings.Contains(e2e.PanelText(sc, "Sessions ("), "Renamed by a sc")
		})
	})
}
