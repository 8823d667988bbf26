package e2e

import (
	"strings"
	"testing"

	"github.com/ahptui/ahptui/demohost"
)

// The AHP 1.0 features of issue 9 item 4, end to end against the demo
// host serving 1.0: what the UI offers is judged by what the host does
// with it, not by the action the key sends.

// TestResumeAfterError: the demo's "resume" path stops the turn at a
// resumable error part; the chat shows the error inline and that the host
// can resume it, and the resume key finishes the turn where it stopped.
func TestResumeAfterError(t *testing.T) {
	t.Parallel()
	skipShort(t)
	onlyOver10(t)
	eachSize(t, func(t *testing.T, w, h int) {
		u := startDemoSession(t, w, h)
		u.sendMessage("resume")
		u.see("the turn stops at a resumable error", chatHas("✗ error:", demohost.ResumableErrorType, "the host can resume this turn"))
		// r is a letter in the composer: leave it first.
		u.hit(km.Composer.Cancel)
		u.see("the resume key is offered", func(s string) bool { return strings.Contains(helpLine(s), hint(km.Chat.ResumeTurn)) })
		u.hit(km.Chat.ResumeTurn)
		u.see("the turn goes on where it stopped", chatHas("Resumed where I stopped"))
		screen := u.see("and nothing is left to resume", func(s string) bool {
			return chatHas("· idle")(s) && !strings.Contains(helpLine(s), hint(km.Chat.ResumeTurn))
		})
		// Issue 36 item 13: "resuming the turn" stayed on the status line
		// after the host had resumed it (until its ten seconds were up).
		if st := statusLine(screen); strings.Contains(st, "resuming the turn") {
			t.Errorf("the status line still says the turn is resuming after it ran: %q", st)
		}
	})
}

// TestBlockingStartToBackground: a session the user creates has the demo's
// Indexer, which starts when the user starts it, with blocking set; the
// MCP panel counts how long new messages have waited and offers the
// background key; a message sent meanwhile waits, and moving the start to
// the background lets the agent answer while the Indexer goes on starting
// and ends ready.
func TestBlockingStartToBackground(t *testing.T) {
	t.Parallel()
	skipShort(t)
	onlyOver10(t)
	u := startDemoSession(t, 120, 40)
	indexer := demohost.IndexerServerName
	u.startIndexerInNewSession()
	u.see("a blocking start, timed, with the background key", func(s string) bool {
		return mcpHas(s, "starting…", "new messages wait") && strings.Contains(helpLine(s), hint(km.MCP.Background))
	})

	u.focus("chat", km.Global.FocusPrev, hint(km.Chat.FocusComposer))
	u.hit(km.Chat.FocusComposer)
	u.see("composer focused", func(s string) bool { return strings.Contains(helpLine(s), hint(km.Composer.Send)) })
	u.s.SendText("stream please")
	u.hit(km.Composer.Send)
	u.see("the turn waits for the start", func(s string) bool { return strings.Contains(s, "Waiting for "+indexer) })
	if panelHas(newSession, "Streaming demo")(u.s.Capture()) {
		t.Fatal("the agent answered while a blocking start held the turn")
	}

	u.hit(km.Composer.Cancel)
	u.focus("MCP", km.Global.FocusNext, hint(km.MCP.Stop))
	u.selectServer(indexer)
	u.hit(km.MCP.Background)
	u.see("the agent answers once the start is in the background", panelHas(newSession, "Streaming demo"))
	if screen := u.s.Capture(); mcpHas(screen, "new messages wait") {
		t.Errorf("the backgrounded start still says it holds messages:\n%s", PanelText(screen, "MCP servers ("))
	}
	u.see(indexer+" ends ready", mcpBadgeIs(indexer, "● ready"))
}

// newSession is the title of a session the demo host creates for the user.
const newSession = "New session"

// mcpHas reports whether the MCP panel's text, its wrapped lines joined,
// holds every one of want.
func mcpHas(screen string, want ...string) bool { return panelHas("MCP servers (", want...)(screen) }
