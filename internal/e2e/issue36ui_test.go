package e2e

// Issue 36, items 12–14: the screen and keyboard, seen at 80x24 and
// 120x40 against the demo.

import (
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
)

// TestIssue36FooterNamesSheets is item 14: the footers never named the
// sheets that open from where the user is (c C T O Q A L), nor a card's
// e, w and o. Where the line has room they are offered, after the
// context's own keys; ? still leads to the rest.
func TestIssue36FooterNamesSheets(t *testing.T) {
	t.Parallel()
	skipShort(t)
	eachSize(t, func(t *testing.T, w, h int) {
		u := startDemoSession(t, w, h)
		want := []key.Binding{km.Chat.SwitchChat}
		if w >= 120 {
			want = append(want, km.Chat.Queue, km.Chat.Resources, km.Global.Changes)
		}
		screen := u.see("the chat's footer names its sheets", func(s string) bool {
			for _, b := range want {
				if !strings.Contains(helpLine(s), hint(b)) {
					return false
				}
			}
			return true
		})
		if f := helpLine(screen); !strings.Contains(f, hint(km.Global.Help)) || !strings.Contains(f, hint(km.Chat.FocusComposer)) {
			t.Errorf("the sheets pushed out the chat's own keys or ?: %q", f)
		}
		if w < 120 {
			return // a card's approve and deny fill 80 columns first
		}
		u.sendMessage("hello")
		u.hit(km.Composer.Cancel)
		u.hit(km.Chat.PrevToolCall)
		u.see("a selected tool call offers e", func(s string) bool { return strings.Contains(helpLine(s), hint(km.Chat.ToggleExpand)) })
	})
}

// TestIssue36HistoryLeavesFooter is item 12's check that the message
// history (L) holds at 120x40 too: it drew over the footer and the
// status line it is the history of. Both stay in view, and the footer
// is the history's own.
func TestIssue36HistoryLeavesFooter(t *testing.T) {
	t.Parallel()
	skipShort(t)
	eachSize(t, func(t *testing.T, w, h int) {
		u := startDemoSession(t, w, h)
		u.hit(km.Global.Messages)
		screen := u.see("the message history", func(s string) bool { _, ok := Panel(s, "Messages"); return ok })
		rows := strings.Split(strings.TrimRight(screen, "\n"), "\n")
		if len(rows) != h {
			t.Fatalf("the screen has %d rows, want %d", len(rows), h)
		}
		if f := helpLine(screen); !strings.Contains(f, hint(km.MessagesClose())) {
			t.Errorf("the footer is not the history's: %q", f)
		}
		if st := statusLine(screen); !strings.Contains(st, "connected") {
			t.Errorf("the status line is covered: %q", st)
		}
		for i, r := range rows[h-2:] {
			if strings.ContainsAny(r, "╭╮╰╯┏┓┗┛") {
				t.Errorf("row %d (footer or status) carries a frame: %q", h-2+i, r)
			}
		}
	})
}

// TestIssue36DiffSideways is item 12's long diff lines: cut with "…",
// their end could not be reached. → scrolls the diff's text sideways
// (the line numbers stay), ← back, and the footer names the keys.
func TestIssue36DiffSideways(t *testing.T) {
	t.Parallel()
	skipShort(t)
	onlyOver10(t)
	eachSize(t, func(t *testing.T, w, h int) {
		u := startOnHistorySession(t, w, h)
		u.hit(km.Global.Changes)
		u.see("the changes view", func(s string) bool { return strings.Contains(PanelText(s, "Changes"), "Session Changes") })
		u.hit(km.Changes.Open)
		u.see("the changeset's files", func(s string) bool { return strings.Contains(PanelText(s, "Changes · Session Changes"), "4 files") })
		u.hit(km.Changes.Open)
		before := u.see("the diff, its footer naming ←/→", func(s string) bool {
			return strings.Contains(PanelText(s, "Diff"), "@@ -") && strings.Contains(helpLine(s), hint(km.Diff.Sideways()))
		})
		u.hit(km.Diff.Right)
		after := u.see("the text moved sideways", func(s string) bool { return PanelText(s, "Diff") != PanelText(before, "Diff") })
		if !strings.Contains(PanelText(after, "Diff"), "@@ -") {
			t.Errorf("the hunk header went with the text:\n%s", PanelText(after, "Diff"))
		}
		u.hit(km.Diff.Left)
		u.see("back where it was", func(s string) bool { return PanelText(s, "Diff") == PanelText(before, "Diff") })
	})
}
