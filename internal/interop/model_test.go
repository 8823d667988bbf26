package interop

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ahptui/ahptui/internal/capimock"
	"github.com/ahptui/ahptui/internal/e2e"
)

// The real host's one model for the Copilot agent, "Auto", and its own
// setting (its configSchema): "Optimize for", property tier.
const (
	autoModel     = "auto"
	optimizeTitle = "Optimize for"
	optimizeProp  = "tier"
)

// TestVSCodeModelSettingsMidSession is issue 36 item 3 against VS Code's
// real host: after a turn, the settings sheet (O) shows the model's own
// settings the host advertises (Auto's "Optimize for") under the model;
// changing it mid-session goes with the next message as the spec says
// (Message.model = {id, config}), the host takes that turn with it (its
// echo of the turn carries the selection) and the header names it.
func TestVSCodeModelSettingsMidSession(t *testing.T) {
	s := newSuite(t)
	u := s.start(t, 140, 45)
	step := s.flatSteps(t)

	u.defaultSessionSignedIn(s, step)
	step("a first turn", func() {
		u.sendMessage(firstMessage)
		u.see("the reply", func(sc string) bool { return strings.Contains(sc, capimock.Reply) })
	})
	step("O shows the model's Optimize for and changes it", func() {
		u.leaveComposer()
		u.hit(km.Global.Settings)
		u.see("the model's setting in the sheet", func(sc string) bool {
			return strings.Contains(e2e.PanelText(sc, sheetTitle), optimizeTitle+": ‹ Balance ›")
		})
		u.selectSetting(sheetTitle, optimizeTitle, km.Settings.Down)
		sc := u.chooseValue(sheetTitle, optimizeTitle, "Intelligence", km.Settings.Next)
		if !strings.Contains(e2e.Flatten(strings.Split(e2e.PanelText(sc, sheetTitle), "\n")), "Biases which models Auto routes") {
			t.Errorf("the sheet does not say what Optimize for does:\n%s", sc)
		}
		u.hit(km.Settings.Close)
		u.see("the sheet closed", func(sc string) bool { _, open := e2e.Panel(sc, sheetTitle); return !open })
		u.see("the chat header names the model and its setting", func(sc string) bool {
			return strings.Contains(e2e.Flatten(strings.Split(sc, "\n")), "Auto (Intelligence)")
		})
	})
	step("the next turn goes with it and the host takes it", func() {
		u.sendMessage("second turn")
		a, ok := u.waitAction("chat/turnStarted")
		if !ok {
			u.rec.Dump()
			t.Fatal("no chat/turnStarted sent")
		}
		want := `{"config":{"` + optimizeProp + `":"intelligence"},"id":"` + autoModel + `"}`
		msg, _ := a["message"].(map[string]any)
		if b, _ := json.Marshal(msg["model"]); string(b) != want {
			u.rec.Dump()
			t.Fatalf("the turn's model is %s, want %s", b, want)
		}
		// The host's echo of the turn (what every client's state holds)
		// carries the selection, and the turn completes.
		echoed := func(string) bool {
			for _, p := range u.hostActions("chat/turnStarted") {
				b, _ := json.Marshal(p["action"])
				if strings.Contains(string(b), `"model":`+want) {
					return true
				}
			}
			return false
		}
		if _, err := u.s.WaitForFunc(echoed, stepTimeout); err != nil {
			u.rec.Dump()
			t.Fatal("the host's chat/turnStarted does not carry the model's setting")
		}
		u.waitFrame("the turn completed", "←host", `"type":"chat/turnComplete"`)
		u.see("the reply", func(sc string) bool { return strings.Count(sc, capimock.Reply) >= 2 })
	})
}
