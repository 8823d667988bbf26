package e2e

// Issue 22, "the first hour, second pass": items 3, 7 and 12, fixed in
// ui with model tests (ui/issue22_test.go), seen here in the real binary
// at 80x24 and 120x40. (Item 8, status lifetimes, is a matter of the
// clock: ui's TestStatusExpiresWhenIdle drives it with the model's.)

import (
	"strings"
	"testing"

	"github.com/ahptui/ahptui/internal/badhost"
)

// TestIssue22Item3NewWhileDisconnected: n while the host is down said
// "the host offers no agents to create a session with", and ahptui printed
// it as the last error on exit. It says the app is not connected, and a
// refused key is no exit error.
func TestIssue22Item3NewWhileDisconnected(t *testing.T) {
	t.Parallel()
	skipShort(t)
	versionFixed(t)
	eachSize(t, func(t *testing.T, w, h int) {
		u := startApp(t, w, h, "--host", "ws://"+badhost.ClosedAddr(t)+"/")
		u.see("the refused connection named", func(s string) bool {
			return strings.Contains(statusLine(s), "connection refused")
		})
		u.hit(km.Sessions.New)
		screen := u.see("n says the app is not connected", func(s string) bool {
			return strings.Contains(statusLine(s), "not connected")
		})
		if strings.Contains(screen, "offers no agents") {
			t.Fatalf("n blames the host:\n%s", screen)
		}
		u.hit(km.Global.Quit)
		if _, err := u.s.WaitExit(stepTimeout); err != nil {
			t.Fatalf("q did not quit: %v", err)
		}
		if after := u.s.Capture(); strings.Contains(after, "offers no agents") || strings.Contains(after, "not connected: wait") {
			t.Fatalf("the refused key is printed on exit:\n%s", after)
		}
	})
}

// TestIssue22Item7WriteFromSessionList: i did nothing in the sessions
// panel while the empty chat said "press i to write the first one". It
// opens the composer of the session under the cursor.
func TestIssue22Item7WriteFromSessionList(t *testing.T) {
	t.Parallel()
	skipShort(t)
	eachSize(t, func(t *testing.T, w, h int) {
		u := startDemoSession(t, w, h)
		u.focus("sessions", km.Global.FocusNext, hint(km.Sessions.New))
		u.hit(km.Chat.FocusComposer)
		u.see("i opens the composer", func(s string) bool { return strings.Contains(helpLine(s), hint(km.Composer.Send)) })
		u.s.SendText("typed from the list")
		u.see("what is typed lands in the composer", chatHas("typed from the list"))
	})
}

// TestIssue22Item12QuitAsksPastApproval: q quit at once with an approval
// pending. It asks; n keeps the app and the card.
func TestIssue22Item12QuitAsksPastApproval(t *testing.T) {
	t.Parallel()
	skipShort(t)
	eachSize(t, func(t *testing.T, w, h int) {
		u := startDemoSession(t, w, h)
		u.sendMessage("please write the changelog")
		u.see("the approval card", chatMatches(`(?i)approv`))
		u.see("its keys are offered", func(s string) bool { return strings.Contains(helpLine(s), km.Chat.Approve.Help().Key) })
		u.hit(km.Global.Quit)
		u.see("q asks first", func(s string) bool { return strings.Contains(Flatten(strings.Split(s, "\n")), "waits for you") })
		if exited, _ := u.s.Exited(); exited {
			t.Fatal("q quit with an approval waiting")
		}
		u.hit(km.Confirm.No)
		u.see("n keeps the app and its card", func(s string) bool {
			return !strings.Contains(Flatten(strings.Split(s, "\n")), "waits for you") && strings.Contains(helpLine(s), km.Chat.Approve.Help().Key)
		})
		u.hit(km.Global.Quit)
		u.see("q asks again", func(s string) bool { return strings.Contains(Flatten(strings.Split(s, "\n")), "waits for you") })
		u.hit(km.Confirm.Yes)
		if _, err := u.s.WaitExit(stepTimeout); err != nil {
			t.Fatalf("y did not quit: %v", err)
		}
	})
}
