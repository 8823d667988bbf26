package e2e

import (
	"strings"
	"testing"
)

// writeDraft types text in the open chat's composer and leaves it there,
// unsent, giving the keys back to the transcript.
func (u *user) writeDraft(text string) {
	u.t.Helper()
	u.hit(km.Chat.FocusComposer)
	u.see("composer focused", func(s string) bool { return strings.Contains(helpLine(s), hint(km.Composer.Send)) })
	u.s.SendText(text)
	u.see("the draft typed", func(s string) bool { return strings.Contains(s, text) })
	u.hit(km.Composer.Cancel)
	u.see("the transcript has the keys", func(s string) bool { return strings.Contains(helpLine(s), hint(km.Chat.FocusComposer)) })
}

// TestDraftStaysWithItsSessionInTerminal: text written in one session's
// composer showed in the next session opened, and enter sent it there.
// In a real terminal at 80x24 and 120x40, a draft written in the demo
// session is not in the earlier session's composer, which keeps its own;
// back in the demo session its draft is there again and enter sends it
// to the demo's chat; the earlier session's draft is still its own.
func TestDraftStaysWithItsSessionInTerminal(t *testing.T) {
	t.Parallel()
	skipShort(t)
	const demoDraft, historyDraft = "kept for the demo", "kept for the history"
	eachSize(t, func(t *testing.T, w, h int) {
		u := startDemoSession(t, w, h)
		u.writeDraft(demoDraft)
		u.focus("sessions", km.Global.FocusPrev, hint(km.Sessions.New))
		u.openHistorySession()
		u.see("the earlier session's empty composer", func(s string) bool {
			return !strings.Contains(s, demoDraft) && strings.Contains(s, "Write a message")
		})
		u.writeDraft(historyDraft)

		u.focus("sessions", km.Global.FocusPrev, hint(km.Sessions.New))
		u.openDemoSession(u.s.Capture())
		u.see("the demo's draft back, alone", func(s string) bool {
			return strings.Contains(s, demoDraft) && !strings.Contains(s, historyDraft)
		})
		u.hit(km.Chat.FocusComposer)
		u.see("composer focused", func(s string) bool { return strings.Contains(helpLine(s), hint(km.Composer.Send)) })
		u.hit(km.Composer.Send)
		u.see("the draft sent in the demo's chat", func(s string) bool {
			return chatHas(demoDraft)(s) && strings.Contains(s, "Write a message")
		})
		u.hit(km.Composer.Cancel)
		u.see("the transcript has the keys", func(s string) bool { return strings.Contains(helpLine(s), hint(km.Chat.FocusComposer)) })

		u.focus("sessions", km.Global.FocusPrev, hint(km.Sessions.New))
		u.openHistorySession()
		u.see("the earlier session's draft back", func(s string) bool {
			return strings.Contains(s, historyDraft)
		})
	})
}
