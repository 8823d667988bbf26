package interop

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"

	"github.com/ahptui/ahptui/internal/capimock"
	"github.com/ahptui/ahptui/internal/e2e"
)

// settingsTitle is the new-session dialog's title on its settings step
// (issue 26), what the host's resolveSessionConfig answer opens.
const settingsTitle = "New session · settings"

// settingsStep is the new-session dialog after the agent is picked: it
// waits for the session's settings (a host that has none gets the
// session created at once), runs choose in the dialog when it is given,
// creates the session, and returns the config createSession carried.
func (u *user) settingsStep(choose func()) map[string]any {
	u.t.Helper()
	var created map[string]any
	sentCreate := func() bool {
		for _, m := range u.sent() {
			if m["method"] == "createSession" {
				created = m
				return true
			}
		}
		return false
	}
	sc := u.see("the session's settings, or the session created", func(sc string) bool {
		_, open := e2e.Panel(sc, settingsTitle)
		return (open && !strings.Contains(sc, "Asking the host")) || sentCreate()
	})
	if _, open := e2e.Panel(sc, settingsTitle); open && !sentCreate() {
		if choose != nil {
			choose()
		}
		u.hit(km.NewSession.Create)
	}
	_, err := u.s.WaitForFunc(func(string) bool { return sentCreate() }, stepTimeout)
	if err != nil {
		u.rec.Dump()
		u.t.Fatalf("enter on the settings did not send createSession:\n%s", u.s.Capture())
	}
	p, _ := created["params"].(map[string]any)
	cfg, _ := p["config"].(map[string]any)
	return cfg
}

// selectSetting moves the settings cursor (▸) onto the row titled title,
// in the panel titled panel, pressing down.
func (u *user) selectSetting(panel, title string, down key.Binding) {
	u.t.Helper()
	u.selectRow(panel, title+":", down)
}

// selectRow moves the cursor (▸) of the panel titled panel onto the row
// that begins with row, pressing down.
func (u *user) selectRow(panel, row string, down key.Binding) {
	u.t.Helper()
	on := func(sc string) bool { return strings.Contains(e2e.PanelText(sc, panel), "▸ "+row) }
	for range 80 { // VS Code's host lists over forty settings of its own
		if on(u.s.Capture()) {
			return
		}
		before := e2e.PanelText(u.s.Capture(), panel)
		u.hit(down)
		_, _ = u.s.WaitForFunc(func(sc string) bool { return e2e.PanelText(sc, panel) != before }, stepTimeout/3)
	}
	u.see("the row "+row+" selected", on)
}

// chooseValue presses next (→) until the selected setting in panel
// shows label.
func (u *user) chooseValue(panel, title, label string, next key.Binding) string {
	u.t.Helper()
	want := "▸ " + title + ": ‹ " + label + " ›"
	has := func(sc string) bool {
		return strings.Contains(e2e.Flatten(strings.Split(e2e.PanelText(sc, panel), "\n")), want)
	}
	for range 6 {
		if has(u.s.Capture()) {
			break
		}
		before := e2e.PanelText(u.s.Capture(), panel)
		u.hit(next)
		_, _ = u.s.WaitForFunc(func(sc string) bool { return e2e.PanelText(sc, panel) != before }, stepTimeout/3)
	}
	return u.see(title+" set to "+label, has)
}

// hostActions are the actions of type typ among the host's frames of the
// current step, with their envelope (origin, serverSeq).
func (u *user) hostActions(typ string) []map[string]any {
	var out []map[string]any
	for _, f := range u.rec.Frames("←host") {
		var m map[string]any
		if json.Unmarshal([]byte(f), &m) != nil {
			continue
		}
		p, _ := m["params"].(map[string]any)
		a, _ := p["action"].(map[string]any)
		if a["type"] == typ {
			out = append(out, p)
		}
	}
	return out
}

// sheetTitle is the settings sheet's (O) title.
const sheetTitle = "Settings"

// The real host's approval setting (VS Code's agent host since 1.133):
// property autoApprove, values default / assisted / autoApprove, labelled
// Manual permissions / Assisted permissions / Allow all, sessionMutable.
const (
	approvalsTitle = "Approvals"
	approvalsProp  = "autoApprove"
	allowAll       = "autoApprove"
)

// TestVSCodeSessionSettings is issue 26's acceptance against the real
// host: a session created with "Allow all" chosen in the new-session
// dialog, through the confirmation each broader mode asks (security
// finding 6), runs a shell call without asking and its card says so, and
// the settings sheet (O) changes a sessionMutable setting and, once
// confirmed, one of the host's own, which the host takes.
func TestVSCodeSessionSettings(t *testing.T) {
	s := newSuite(t)
	u := s.start(t, 140, 45)
	step := s.flatSteps(t)

	step("connect", func() { u.see("connected over AHP "+hostVersion, connected) })

	step("create a session with Allow all chosen in the dialog", func() {
		u.focus("sessions", hint(km.Sessions.New))
		u.hit(km.Sessions.New)
		u.seeText("the new-session picker", "New session")
		u.hit(km.NewSession.Create)
		var dialog string
		cfg := u.settingsStep(func() {
			u.seeText("the host's approval modes", approvalsTitle+": ‹ Manual permissions ›")
			u.selectSetting(settingsTitle, approvalsTitle, km.NewSession.Down)
			u.hit(km.NewSession.Next)
			u.confirmWiden("the new session")
			u.hit(km.NewSession.Next)
			// "Allow all" is on screen already (the dialog's choices): wait
			// for the confirmation's own line before reading it.
			confirm := e2e.Flatten(strings.Split(u.see("the confirmation of Allow all", func(sc string) bool {
				return strings.Contains(e2e.Flatten(strings.Split(sc, "\n")), "Applies to: the new session")
			}), "\n"))
			if !strings.Contains(confirm, "Runs tool calls without asking") {
				t.Errorf("the confirmation does not say what Allow all means:\n%s", confirm)
			}
			u.confirmWiden("the new session")
			dialog = u.chooseValue(settingsTitle, approvalsTitle, "Allow all", km.NewSession.Next)
		})
		if !strings.Contains(e2e.Flatten(strings.Split(e2e.PanelText(dialog, settingsTitle), "\n")), "Runs tool calls without asking") {
			t.Errorf("the dialog does not say what Allow all means:\n%s", dialog)
		}
		if cfg[approvalsProp] != allowAll {
			u.rec.Dump()
			t.Fatalf("createSession's config: %s is %v, want %q (config %v)", approvalsProp, cfg[approvalsProp], allowAll, cfg)
		}
		u.waitFrame("the new chat's snapshot", "←host", `"snapshot":{"resource":"ahp-chat://`)
		u.waitFrame("the session's state carries Allow all", "←host", `"`+approvalsProp+`":"`+allowAll+`"`)
		u.see("the chat has the keys", func(sc string) bool {
			return strings.Contains(helpLine(sc), hint(km.Chat.NextBlocker))
		})
		// Issue 36 item 3: the header says how the session is set, an
		// Allow-all one marked as such, and where it works.
		u.see("the chat header names Allow all and the folder", func(sc string) bool {
			flat := e2e.Flatten(strings.Split(sc, "\n"))
			return strings.Contains(flat, "⚠ Allow all") && strings.Contains(flat, "…/"+filepath.Base(s.cwd))
		})
	})

	step("sign in to the agent's required resource", func() { u.signInByPaste(s) })

	step("a shell call runs without asking", func() {
		_ = os.Remove(filepath.Join(s.cwd, capimock.ShellFile))
		u.sendMessage(capimock.PromptShell)
		asked := false
		u.see("the shell call ran and the turn finished", func(sc string) bool {
			if strings.Contains(helpLine(sc), hint(km.Chat.Approve)) || strings.Contains(sc, "⚠ approve") {
				asked = true
			}
			return strings.Contains(sc, "tool finished")
		})
		if asked {
			u.rec.Dump()
			t.Fatal("the shell call waited for approval in an Allow all session")
		}
		if _, ok := u.sentAction("chat/toolCallConfirmed"); ok {
			u.rec.Dump()
			t.Fatal("ahptui confirmed a tool call in an Allow all session")
		}
		if _, err := os.Stat(filepath.Join(s.cwd, capimock.ShellFile)); err != nil {
			u.rec.Dump()
			t.Fatalf("the shell command did not run: %v", err)
		}
		// The host said so: the call was ready with no confirmation
		// needed, and it never waited for one.
		var notNeeded bool
		for _, p := range u.hostActions("chat/toolCallReady") {
			a, _ := p["action"].(map[string]any)
			switch a["confirmed"] {
			case "not-needed", "setting":
				notNeeded = true
			case nil:
				u.rec.Dump()
				t.Fatalf("the host asked for a confirmation: %v", a)
			}
		}
		if !notNeeded {
			u.rec.Dump()
			t.Fatal("no chat/toolCallReady with confirmed not-needed from the host")
		}
		u.seeText("the card says the call ran without asking", "without asking: Allow all in this session")
	})

	step("O changes a sessionMutable setting and the host takes it", func() {
		u.leaveComposer()
		u.hit(km.Global.Settings)
		u.see("the settings sheet", func(sc string) bool {
			return strings.Contains(e2e.PanelText(sc, sheetTitle), approvalsTitle+": ‹ Allow all ›")
		})
		u.selectSetting(sheetTitle, approvalsTitle, km.Settings.Down)
		// ← narrows: sent at once, no confirmation (→ stops at Allow
		// all rather than wrapping to Manual).
		u.chooseValue(sheetTitle, approvalsTitle, "Assisted permissions", km.Settings.Prev)
		u.configChangeTaken("session/configChanged", approvalsProp, "assisted")
	})

	step("O steps back to Manual permissions", func() {
		u.chooseValue(sheetTitle, approvalsTitle, "Manual permissions", km.Settings.Prev)
		u.configChangeTaken("session/configChanged", approvalsProp, "default")
	})

	step("O changes a host setting and the host takes it", func() {
		// A harmless switch among the host's own (root) settings.
		const title, id = "Disable Repository Information Telemetry", "disableRepoInfoTelemetry"
		u.selectSetting(sheetTitle, title, km.Settings.Down)
		u.hit(km.Settings.Next)
		// Every host setting reaches every client: it asks first.
		u.confirmWiden("every client of this host, VS Code windows included")
		u.chooseValue(sheetTitle, title, "true", km.Settings.Next)
		u.configChangeTaken("root/configChanged", id, true)
		u.hit(km.Settings.Close)
		u.see("the sheet closed", func(sc string) bool { _, open := e2e.Panel(sc, sheetTitle); return !open })
	})
}

// leaveComposer gives the keys back to the chat: the composer keeps them
// after a send (and may take them once the turn ends); esc leaves it.
func (u *user) leaveComposer() {
	u.t.Helper()
	chatKeys := func(sc string) bool { return strings.Contains(helpLine(sc), hint(km.Chat.NextBlocker)) }
	for range 5 {
		sc := u.s.Capture()
		if chatKeys(sc) {
			return
		}
		if strings.Contains(helpLine(sc), hint(km.Composer.Send)) {
			u.hit(km.Composer.Cancel)
		}
		_, _ = u.s.WaitForFunc(chatKeys, stepTimeout/9)
	}
	u.see("the chat has the keys", chatKeys)
}

// configChangeTaken checks that ahptui sent action (session/ or
// root/configChanged) changing only id to want, and that the host echoed
// it without a rejection.
func (u *user) configChangeTaken(action, id string, want any) {
	u.t.Helper()
	a, ok := u.waitAction(action)
	if !ok {
		u.rec.Dump()
		u.t.Fatalf("no %s sent", action)
	}
	if c, _ := a["config"].(map[string]any); c[id] != want || len(c) != 1 {
		u.rec.Dump()
		u.t.Fatalf("%s: want only %s=%v, got %v", action, id, want, a)
	}
	var echo map[string]any
	if _, err := u.s.WaitForFunc(func(string) bool {
		for _, p := range u.hostActions(action) {
			echo = p
			return true
		}
		return false
	}, stepTimeout); err != nil {
		u.rec.Dump()
		u.t.Fatalf("the host never echoed %s", action)
	}
	if echo["rejectionReason"] != nil {
		u.rec.Dump()
		u.t.Fatalf("the host refused the change: %v", echo["rejectionReason"])
	}
}
