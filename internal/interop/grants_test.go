package interop

import (
	"strings"
	"testing"

	"github.com/ahptui/ahptui/internal/capimock"
	"github.com/ahptui/ahptui/internal/e2e"
)

// TestVSCodeSessionGrants is issue 36 item 6 against VS Code's real
// host: "Allow in this Session" (option 1, confirmed as a widening)
// lands in the session's Permissions setting; the settings sheet lists
// it in words, not raw JSON, and the user takes it out again (e, space,
// enter), which the host takes, with no privilege confirmation.
func TestVSCodeSessionGrants(t *testing.T) {
	s := newSuite(t)
	u := s.start(t, 140, 45)
	step := s.flatSteps(t)

	u.defaultSessionSignedIn(s, step)

	step("allow the shell in this session", func() {
		u.sendMessage(capimock.PromptShell)
		u.see("the shell call waits for approval", func(sc string) bool {
			return strings.Contains(helpLine(sc), hint(km.Chat.Approve))
		})
		u.s.SendText("1") // VS Code's first option: "Allow in this Session"
		u.confirmWiden("this session")
		u.see("the shell call ran and the turn finished", func(sc string) bool {
			return strings.Contains(e2e.Flatten(strings.Split(sc, "\n")), "tool finished")
		})
		u.waitFrame("the host records the grant", "←host", `"allow":["`)
	})

	step("T lists the terminal the shell call ran in", func() {
		// Issue 36 item 9: VS Code's host lists no terminals in its root
		// state; the chat's tool calls name theirs.
		u.leaveComposer()
		u.hit(km.Global.Terminals)
		sc := u.see("the terminals list", func(sc string) bool { return strings.Contains(sc, "Terminals") })
		if strings.Contains(sc, "lists no terminals") {
			t.Fatalf("T lists no terminal after a shell call:\n%s", sc)
		}
		u.seeText("the shell call's terminal", "from a tool call")
		u.hit(km.Terminals.Close)
		u.see("the list closed", func(sc string) bool { return !strings.Contains(sc, "from a tool call") })
	})

	var tool string
	step("the sheet lists the grant in words and takes it out", func() {
		u.leaveComposer()
		u.hit(km.Global.Settings)
		sc := u.see("the grant in words", func(sc string) bool {
			return strings.Contains(e2e.Flatten(strings.Split(e2e.PanelText(sc, sheetTitle), "\n")), "Permissions: Allowed tools: ")
		})
		sheet := e2e.Flatten(strings.Split(e2e.PanelText(sc, sheetTitle), "\n"))
		if strings.Contains(sheet, `{"allow"`) || strings.Contains(sheet, "not editable here") {
			t.Fatalf("the grants are shown as JSON or not editable:\n%s", sheet)
		}
		_, rest, _ := strings.Cut(sheet, "Allowed tools: ")
		tool, _, _ = strings.Cut(rest, ";")
		tool = strings.TrimSpace(tool)
		u.selectSetting(sheetTitle, "Permissions", km.Settings.Down)
		u.hit(km.Settings.Edit)
		u.seeText("the grants form", "[x] "+tool)
		u.s.SendKeys("Space")
		u.seeText("the grant unchosen", "[ ] "+tool)
		u.s.SendKeys("Tab")
		u.s.SendKeys("Enter")
		if strings.Contains(u.s.Capture(), "Applies to:") {
			t.Fatal("revoking a grant asked for a privilege confirmation")
		}
		a, ok := u.waitAction("session/configChanged")
		if !ok {
			u.rec.Dump()
			t.Fatal("no session/configChanged sent")
		}
		c, _ := a["config"].(map[string]any)
		perm, _ := c["permissions"].(map[string]any)
		if allow, _ := perm["allow"].([]any); len(allow) != 0 || len(c) != 1 {
			u.rec.Dump()
			t.Fatalf("sent %v, want only permissions with an empty allow list", a)
		}
		u.see("the sheet says no tool is allowed", func(sc string) bool {
			return strings.Contains(e2e.Flatten(strings.Split(e2e.PanelText(sc, sheetTitle), "\n")), "Permissions: Allowed tools: none")
		})
	})
}
