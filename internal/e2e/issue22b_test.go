package e2e

// Issue 22, "the first hour, second pass": the items about hints, the MCP
// panel, 0.6's missing features, the screen left after quitting and the
// unread dot, each seen on screen at 80x24 and 120x40.

import (
	"strings"
	"testing"

	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/keymap"
	"github.com/ahptui/ahptui/views"
)

// TestIssue22HintsMatchKeys is item 9: a review card said "a/y accept
// result · x reject result" while the footer said approve and deny, and
// with the message history (L) open the footer offered the chat's keys
// ("i write • ! next needing you"), which do nothing there.
func TestIssue22HintsMatchKeys(t *testing.T) {
	t.Parallel()
	skipShort(t)
	eachSize(t, func(t *testing.T, w, h int) {
		u := startDemoSession(t, w, h)
		approve, deny := km.Chat.Answers(keymap.AnswerResult)
		u.sendMessage("review the checklist")
		// The footer is empty for the second a card that took the keys
		// drops typed keys; its keys are offered after it.
		// (At 80x24 the card is taller than the chat and its own hint
		// row may be below the fold.)
		screen := u.see("the review card, selected, its keys live", func(s string) bool {
			return chatMatches(`review result`)(s) && strings.Contains(helpLine(s), approve.Help().Key+" ")
		})
		footer := helpLine(screen)
		for _, b := range []string{hint(approve), hint(deny)} {
			if !strings.Contains(footer, b) {
				t.Errorf("the card offers %q, the footer does not: %q", b, footer)
			}
		}
		for _, lie := range []string{hint(km.Chat.Approve), hint(km.Chat.Deny)} {
			if strings.Contains(footer, lie) {
				t.Errorf("the footer says %q under a review card: %q", lie, footer)
			}
		}

		u.hit(km.Global.Messages)
		screen = u.see("the message history", func(s string) bool { _, ok := Panel(s, "Messages"); return ok })
		footer = helpLine(screen)
		if close := km.MessagesClose(); !strings.Contains(footer, hint(close)) {
			t.Errorf("the footer under the history does not offer %q: %q", hint(close), footer)
		}
		for _, b := range km.Active(keymap.ContextChat) {
			if b.Help().Key == km.Global.Quit.Help().Key || b.Help().Key == km.Global.Help.Help().Key {
				continue
			}
			if strings.Contains(footer, hint(b)) {
				t.Errorf("the footer under the history offers the chat's %q: %q", hint(b), footer)
			}
		}
		u.hit(km.MessagesClose())
		u.see("the history closed, the card's keys back", func(s string) bool {
			_, open := Panel(s, "Messages")
			return !open && strings.Contains(helpLine(s), hint(approve))
		})
	})
}

// serverDisabled matches a screen where server is stopped and says it is
// disabled: "○ stopped · ⊘ disabled" (or "· off") where there is room,
// "⊘ off" in the badge where there is not.
func serverDisabled(server string) func(string) bool {
	return func(s string) bool {
		if serverBadgeIs(server, "⊘ off")(s) {
			return true
		}
		if !serverBadgeIs(server, "○ stopped")(s) {
			return false
		}
		lines, _ := Panel(s, "MCP servers (")
		for i, l := range lines {
			if !strings.Contains(l, server+" ") && strings.TrimSpace(strings.TrimLeft(l, " ›")) != server {
				continue
			}
			row := l
			if i+1 < len(lines) {
				row += " " + lines[i+1] // the badge under the name
			}
			_, after, _ := strings.Cut(row, server)
			badge, _, _ := strings.Cut(strings.TrimSpace(after), "  ")
			if strings.Contains(badge, "⊘ disabled") || strings.Contains(badge, "· off") {
				return true
			}
			return strings.Contains(row, "⊘ disabled")
		}
		return false
	}
}

// mcpTop is the screen row of the MCP panel's title, -1 when none.
func mcpTop(screen string) int {
	for i, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, "MCP servers (") {
			return i
		}
	}
	return -1
}

// TestIssue22MCPPanelState is items 5 and 16: at 80x24 a disabled server
// showed only "○ stopped"; a focused panel kept empty rows under a server
// with nothing more to say; at start-up the panel shrank from two lines
// to one as the servers settled, and the chat above jumped.
func TestIssue22MCPPanelState(t *testing.T) {
	t.Parallel()
	skipShort(t)
	eachSize(t, func(t *testing.T, w, h int) {
		u := startApp(t, w, h, demoArgs(suiteVersion)...)
		// Start-up: the panel's title stays on one row from the first
		// frame that shows it until the servers have settled.
		top := -1
		var first string
		for !serverBadgeIs("Flaky", "✗ error")(first) {
			screen, err := u.s.WaitForFunc(func(s string) bool { return mcpTop(s) >= 0 && s != first }, startTimeout)
			if err != nil {
				t.Fatalf("start-up: %v", err)
			}
			if top < 0 {
				top = mcpTop(screen)
			}
			if got := mcpTop(screen); got != top {
				t.Fatalf("the MCP panel moved from row %d to %d as servers settled:\n%s", top, got, screen)
			}
			first = screen
		}
		u.openDemoSession(u.s.Capture())
		u.see("the chat has the keys", func(s string) bool { return strings.Contains(helpLine(s), hint(km.Chat.FocusComposer)) })

		u.focus("MCP", km.Global.FocusNext, hint(km.MCP.Stop))
		u.selectServer("Filesystem")
		u.hit(km.MCP.Toggle)
		u.see("Filesystem says it is disabled, focused", serverDisabled("Filesystem"))
		u.selectServer("Deploy")
		screen := u.see("Deploy selected", func(s string) bool { return serverSelected(s) == "Deploy" })
		if w == 80 {
			// Under the chat, the focused panel is as tall as what it says.
			lines, _ := Panel(screen, "MCP servers (")
			for i, l := range lines {
				if strings.TrimSpace(l) == "" {
					t.Errorf("row %d of the focused MCP panel is empty:\n%s", i, strings.Join(lines, "\n"))
					break
				}
			}
		}
		u.focus("sessions", km.Global.FocusNext, hint(km.Sessions.New))
		u.see("Filesystem says it is disabled, unfocused", serverDisabled("Filesystem"))
	})
}

// TestIssue22BlockingStartUnfocused is item 5's blocking start: its timer
// and the background key showed only while the MCP panel had the keys,
// and the status line's word on it was cut ("b in the MCP p…").
func TestIssue22BlockingStartUnfocused(t *testing.T) {
	t.Parallel()
	skipShort(t)
	onlyOver10(t)
	eachSize(t, func(t *testing.T, w, h int) {
		u := startDemoSession(t, w, h)
		indexer := demohost.IndexerServerName
		u.startIndexerInNewSession()
		u.see("a blocking start", func(s string) bool { return mcpHas(s, "starting…", "new messages wait") })
		u.focus("sessions", km.Global.FocusNext, hint(km.Sessions.New))
		screen := u.see("the timer and the key, unfocused", func(s string) bool {
			return !strings.Contains(helpLine(s), hint(km.MCP.Stop)) && mcpHas(s, "starting…", "new messages wait", hint(km.MCP.Background))
		})
		// The word runs from the server's name to the gap before the
		// host's address (which may be cut: it is not the message).
		st := statusLine(screen)
		_, word, _ := strings.Cut(st, indexer)
		word, _, _ = strings.Cut(word, "  ")
		if !strings.Contains(st, indexer) || strings.Contains(word, "…") || !strings.Contains(word, km.MCP.Background.Help().Key+" ") {
			t.Errorf("the status line's word on the start is cut or lacks the key: %q", st)
		}
	})
}

// TestIssue22OlderVersionSaysSo is item 4: over AHP 0.6.0, b on the
// starting Indexer said it "is not holding new messages" and then a
// message waited for it anyway; r said "no turn to resume". Each key says
// what 0.6 cannot do, and a message is not held.
func TestIssue22OlderVersionSaysSo(t *testing.T) {
	t.Parallel()
	skipShort(t)
	versionFixed(t)
	eachSize(t, func(t *testing.T, w, h int) {
		u := startDemoSessionOver(t, demohost.Version06, w, h)
		indexer := demohost.IndexerServerName
		u.startIndexerInNewSession()
		u.see(indexer+" starting", serverBadgeIs(indexer, "◌ starting"))
		u.hit(km.MCP.Background)
		screen := u.see("b says what 0.6 cannot do", func(s string) bool {
			return strings.Contains(Flatten([]string{statusLine(s)}), "cannot move")
		})
		if st := statusLine(screen); strings.Contains(st, "not holding") {
			t.Errorf("b over 0.6 blames the server: %q", st)
		}

		u.focus("chat", km.Global.FocusPrev, hint(km.Chat.FocusComposer))
		u.hit(km.Chat.ResumeTurn)
		screen = u.see("r says what 0.6 cannot do", func(s string) bool { return strings.Contains(statusLine(s), "cannot resume") })
		if st := statusLine(screen); strings.Contains(st, "no turn to resume") {
			t.Errorf("r over 0.6 says there is no turn: %q", st)
		}

		// A message is not held for the start 0.6 cannot tell it about.
		u.hit(km.Chat.FocusComposer)
		u.see("composer focused", func(s string) bool { return strings.Contains(helpLine(s), hint(km.Composer.Send)) })
		u.s.SendText("stream please")
		u.hit(km.Composer.Send)
		u.see("the agent answers while "+indexer+" starts", func(s string) bool {
			return panelHas(newSession, "Streaming demo")(s) && serverBadgeIs(indexer, "◌ starting")(s)
		})
	})
}

// TestIssue22QuitAfterGrowLeavesNothing is item 13: started at 80x24,
// grown to 120x40 and quit, ahptui left 12 rows of panel borders on the
// normal screen.
func TestIssue22QuitAfterGrowLeavesNothing(t *testing.T) {
	t.Parallel()
	skipShort(t)
	eachSize(t, func(t *testing.T, w, h int) {
		u := startApp(t, w, h, demoArgs(suiteVersion)...)
		u.see("connected", connectedTo(suiteVersion))
		bw, bh := w+40, h+16
		u.s.Resize(bw, bh)
		u.see("redrawn at the new size", func(s string) bool {
			lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
			return len(lines) >= bh && strings.Contains(statusLine(s), "connected") && len([]rune(strings.TrimRight(lines[0], " "))) == bw
		})
		u.hit(km.Global.Quit)
		if _, err := u.s.WaitExit(stepTimeout); err != nil {
			t.Fatal(err)
		}
		screen := u.s.Capture()
		if strings.ContainsAny(screen, topLefts+topRights+bottomLefts+bottomRightsAll+verticals+horizontals) {
			t.Errorf("the normal screen after quitting holds panel borders:\n%s", screen)
		}
	})
}

// bottomRightsAll are the bottom-right corners of every border style.
const bottomRightsAll = "╯┛┘╝"

// TestIssue22UnreadDotExplained is item 6: the dot before a session in
// the list was explained nowhere. The help overlay's legend says what it
// means, scrolled to at 80x24 as at 120x40.
func TestIssue22UnreadDotExplained(t *testing.T) {
	t.Parallel()
	skipShort(t)
	eachSize(t, func(t *testing.T, w, h int) {
		u := startApp(t, w, h, demoArgs(suiteVersion)...)
		// The seeded earlier session is unread: the list shows the dot.
		u.see("the list marks an unread session", func(s string) bool {
			for _, l := range strings.Split(PanelText(s, "Sessions ("), "\n") {
				if strings.HasPrefix(strings.TrimSpace(l), views.UnreadMarker+" ") {
					return true
				}
			}
			return false
		})
		want := views.UnreadMarker + " " + views.UnreadMeaning
		if strings.Contains(u.readHelp(km.HelpScreen.PageDown, func(string) {}), want) {
			return
		}
		t.Errorf("the help overlay never says what %s means (%q)", views.UnreadMarker, want)
	})
}

// startIndexerInNewSession creates a session with the host's default
// settings (the seeded ones keep to four servers; a new one has the
// Indexer), opens it, and presses start on its stopped Indexer. Opening
// moves the keys to the chat once the session's state is in; it waits for
// that too, or the focus keys would race it.
func (u *user) startIndexerInNewSession() {
	u.t.Helper()
	indexer := demohost.IndexerServerName
	u.createSessionWithDefaults()
	u.hit(km.Sessions.Open)
	u.see("the new session is open, its Indexer stopped, the chat has the keys", func(s string) bool {
		_, open := Panel(s, newSession)
		return open && serverBadgeIs(indexer, "○ stopped")(s) && strings.Contains(helpLine(s), hint(km.Chat.FocusComposer))
	})
	u.focus("MCP", km.Global.FocusNext, hint(km.MCP.Stop))
	u.selectServer(indexer)
	u.hit(km.MCP.Start)
}
