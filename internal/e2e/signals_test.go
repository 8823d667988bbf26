package e2e

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// The focus reports a terminal sends with focus reporting on (CSI ?1004h):
// tmux's send-keys -H writes them to the program as raw bytes, as the
// terminal would.
var (
	focusIn  = []string{"-H", "1b", "5b", "49"} // ESC [ I
	focusOut = []string{"-H", "1b", "5b", "4f"} // ESC [ O
)

// notification matches the desktop notification the program writes inside
// tmux: the bell, then OSC 9 wrapped for passthrough (every ESC doubled).
var notification = regexp.MustCompile("\a\x1bPtmux;\x1b\x1b\\]9;ahptui: ([^\a\x1b]*)\a\x1b\\\\")

// approveWhenOffered presses approve until the selected approval card
// goes (keys of a card's first second are dropped).
func (u *user) approveWhenOffered(gone func(string) bool) {
	u.t.Helper()
	u.see("its keys are offered", func(s string) bool { return strings.Contains(helpLine(s), hint(km.Chat.Approve)) })
	for i := 0; !gone(u.s.Capture()); i++ {
		if i == 5 {
			u.t.Fatalf("approve never landed:\n%s", u.s.Capture())
		}
		u.hit(km.Chat.Approve)
		_, _ = u.s.WaitForFunc(gone, 5*time.Second)
	}
}

// TestSignalsWhileUnfocused is issue 25's signal check on one host: the
// real binary in tmux, its raw output recorded (pipe-pane). Focused (the
// terminal said ESC [ I), a new approval rings nothing; unfocused (ESC [
// O), the next one writes the bell and the OSC 9 notification, wrapped
// for tmux, naming the host, the session and the approval.
func TestSignalsWhileUnfocused(t *testing.T) {
	t.Parallel()
	skipShort(t)
	u := startDemoSession(t, 120, 40)
	// What already waits at start (the demo's failed and sign-in servers)
	// signals before any focus report: the terminal may never send one.
	u.see("servers settle", func(s string) bool { return mcpBadgeIs("Flaky", "✗ error")(s) && mcpBadgeIs("GitHub", "⚠")(s) })
	u.s.SendKeys(focusIn...)
	output := u.s.RecordOutput()

	u.sendMessage("write the changelog")
	u.see("approval card", chatMatches(`needs approval\s+Write file`))
	u.approveWhenOffered(chatHas("That is all."))

	u.s.SendKeys(focusOut...)
	u.sendMessage("write it again")
	u.see("second approval card", chatMatches(`needs approval\s+Write file`))
	var found [][]string
	deadline := time.Now().Add(stepTimeout)
	for len(found) == 0 && time.Now().Before(deadline) {
		found = notification.FindAllStringSubmatch(output(), -1)
		time.Sleep(50 * time.Millisecond) // the pipe's cat is not ours to wait on
	}
	if len(found) != 1 {
		t.Fatalf("want one notification (the unfocused approval), got %d: %q", len(found), found)
	}
	text := found[0][1]
	for _, want := range []string{"ws://127.0.0.1:", "Demo: MCP", "approval (Write file) waits"} {
		if !strings.Contains(text, want) {
			t.Errorf("the notification %q does not say %q", text, want)
		}
	}
	if strings.Contains(text, "tkn") {
		t.Errorf("the notification names a connection token: %q", text)
	}
}

// TestInboxApproveInPlace: an approval appears in the inbox (I) with its
// host and session, enter opens it in place, and the approve key answers
// it from there.
func TestInboxApproveInPlace(t *testing.T) {
	t.Parallel()
	skipShort(t)
	u := startDemoSession(t, 120, 40)
	u.see("servers settle", func(s string) bool { return mcpBadgeIs("Flaky", "✗ error")(s) && mcpBadgeIs("GitHub", "⚠")(s) })
	u.sendMessage("write the changelog")
	u.see("approval card", chatMatches(`needs approval\s+Write file`))
	u.hit(km.Global.FocusNext) // away from the card: the inbox must bring it back
	u.hit(km.Global.Inbox)
	screen := u.see("the inbox lists the approval", func(s string) bool {
		return strings.Contains(PanelText(s, "Inbox"), "approval: Write file")
	})
	inbox := PanelText(screen, "Inbox")
	for _, want := range []string{"Demo: MCP", "on ws://127.0.0.1:", "waiting", "MCP server failed: Flaky"} {
		if !strings.Contains(inbox, want) {
			t.Errorf("the inbox lacks %q:\n%s", want, inbox)
		}
	}
	// Move to the approval row: press down until it is selected.
	for i := 0; !strings.Contains(PanelText(u.s.Capture(), "Inbox"), "▸ approval: Write file"); i++ {
		if i == 10 {
			t.Fatalf("never selected the approval:\n%s", u.s.Capture())
		}
		before := u.s.Capture()
		u.hit(km.Inbox.Down)
		_, _ = u.s.WaitForFunc(func(s string) bool { return s != before }, 5*time.Second)
	}
	u.hit(km.Inbox.Open)
	u.see("the inbox closed on the card", func(s string) bool {
		_, open := Panel(s, "Inbox")
		return !open && strings.Contains(helpLine(s), hint(km.Chat.Approve))
	})
	u.approveWhenOffered(chatHas("That is all."))
	u.hit(km.Global.Inbox)
	screen = u.see("the inbox again", func(s string) bool { _, ok := Panel(s, "Inbox"); return ok })
	if strings.Contains(PanelText(screen, "Inbox"), "approval") {
		t.Errorf("the approved call is still in the inbox:\n%s", PanelText(screen, "Inbox"))
	}
}
