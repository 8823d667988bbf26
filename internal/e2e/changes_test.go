package e2e

import (
	"strings"
	"testing"

	"github.com/ahptui/ahptui/demohost"
)

// openHistorySession moves the session cursor onto the demo's earlier
// session (the one with changesets) and opens it.
func (u *user) openHistorySession() {
	u.t.Helper()
	u.sessionCursorTo("Earlier:", "earlier")
	u.hit(km.Sessions.Open)
	u.see("the earlier session's chat", func(s string) bool {
		return strings.Contains(chatTextAny(s), "TestReconnect") && !strings.Contains(helpLine(s), hint(km.Sessions.Open))
	})
}

// startOnHistorySession starts the app on the demo host in a w×h terminal
// and opens the earlier session.
func startOnHistorySession(t *testing.T, w, h int) *user {
	t.Helper()
	u := startApp(t, w, h, demoArgs(suiteVersion)...)
	u.see("start-up", func(s string) bool {
		return connectedTo(suiteVersion)(s) && strings.Contains(PanelText(s, "Sessions ("), "Earlier:")
	})
	u.openHistorySession()
	return u
}

// chatTextAny is every panel's text flattened, for a chat whose title
// is not the demo's.
func chatTextAny(screen string) string { return Flatten(strings.Split(screen, "\n")) }

// TestChangesViewInTerminal is issue 23's changesets in a real terminal at
// 80x24 and 120x40: C opens the earlier session's changes view, enter
// opens Session Changes (each change kind shown as such) and a file's
// diff, v marks it reviewed, 1 runs Stage all with its message and
// follow-up, 2 (Discard all) asks first and y clears the changeset. Over
// 0.6 the demo advertises none, and the view says so.
func TestChangesViewInTerminal(t *testing.T) {
	t.Parallel()
	skipShort(t)
	eachSize(t, func(t *testing.T, w, h int) {
		u := startOnHistorySession(t, w, h)
		u.hit(km.Global.Changes)
		if suiteVersion != demohost.Version10 {
			// The demo advertises changesets on 1.0 only: the view says so.
			u.see("no changesets over "+suiteVersion, func(s string) bool {
				return strings.Contains(PanelText(s, "Changes"), "This session advertises no changesets.")
			})
			return
		}
		u.see("the changes view", func(s string) bool {
			p := PanelText(s, "Changes")
			// Issue 36 item 11: the turn is named by its message's first
			// words, not its number alone.
			return strings.Contains(p, "Session Changes") && strings.Contains(p, "This Turn") && strings.Contains(Flatten(strings.Split(p, "\n")), "turn 1 “")
		})
		u.hit(km.Changes.Open)
		screen := u.see("the changeset's files", func(s string) bool {
			return strings.Contains(PanelText(s, "Changes · Session Changes"), "4 files")
		})
		files := PanelText(screen, "Changes · Session Changes")
		if !strings.Contains(files, "(the host's count)") {
			t.Errorf("the files' counts do not say they are the host's:\n%s", files)
		}
		for _, want := range []string{"M protocol/conn_test.go", "A protocol/wait.go", "R docs/flaky.md → docs/testing.md", "D scripts/retry.sh", "1 Stage all", "2 Discard all"} {
			if !strings.Contains(files, want) {
				t.Errorf("the files lack %q:\n%s", want, files)
			}
		}
		u.hit(km.Changes.Open)
		u.see("the diff", func(s string) bool {
			d := PanelText(s, "Diff")
			return strings.Contains(d, "waitStatus") && strings.Contains(d, "@@ -")
		})
		u.hit(km.Diff.Reviewed)
		u.see("marked reviewed", func(s string) bool {
			return strings.Contains(PanelText(s, "Diff"), "reviewed  ") || strings.Contains(PanelText(s, "Diff"), "+3 −4  reviewed")
		})
		u.hit(km.Diff.Back)
		u.see("the reviewed mark in the list", func(s string) bool {
			return strings.Contains(PanelText(s, "Changes · Session Changes"), "[✓] M protocol/conn_test.go")
		})
		u.press("1")
		u.see("Stage all's outcome", func(s string) bool {
			p := Flatten(strings.Split(PanelText(s, "Changes · Session Changes"), "\n"))
			return strings.Contains(p, "Staged 4 files") && strings.Contains(p, "follow-up")
		})
		u.press("2")
		u.seeText("Discard all asks first", "cannot be undone")
		u.hit(km.Confirm.Yes)
		u.see("the changeset cleared", func(s string) bool {
			return strings.Contains(PanelText(s, "Changes · Session Changes"), "No files changed.")
		})
		u.hit(km.Changes.Back)
		// One esc at a time: two sent at once read as alt+esc.
		u.see("back to the changesets", func(s string) bool {
			_, files := Panel(s, "Changes · Session Changes")
			return !files && strings.Contains(PanelText(s, "Changes"), "This Turn")
		})
		u.hit(km.Changes.Back)
		u.see("the view closed", func(s string) bool { _, open := Panel(s, "Changes"); return !open })
	})
}
