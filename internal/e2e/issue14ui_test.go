package e2e

// Issue 14's steps whose fix is in ui/ and views/ (the keys and layout
// items, at 80x24 and a wider size). They sat behind a build tag until
// each fix landed; now CI runs them all.

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/key"

	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/internal/badhost"
)

// changed waits (bounded) for the chat panel to differ from before and
// reports whether it did.
func (u *user) chatChanged(before string, within time.Duration) bool {
	u.t.Helper()
	_, err := u.s.WaitForFunc(func(s string) bool { return PanelText(s, chatTitle) != before }, within)
	return err == nil
}

// TestIssue14Item1ScrollFromTop: after home (or pgup past the top), j, ↓
// and pgdn did nothing; only end recovered (the offset was set to 1<<30
// and scrollBy never clamped it). Each key must move the view at once.
func TestIssue14Item1ScrollFromTop(t *testing.T) {
	t.Parallel()
	skipShort(t)
	eachSize(t, func(t *testing.T, w, h int) {
		u := startDemoSession(t, w, h)
		// Three streamed answers overflow the chat at both sizes; the
		// first message marks the top of the transcript.
		for _, msg := range []string{"stream one", "stream two", "stream three"} {
			u.sendMessage(msg)
			u.see("answer streamed", chatHas("That is the end of the stream."))
			u.see("turn over", chatHas("· idle"))
		}
		u.hit(km.Composer.Cancel)
		u.see("chat has the keys", func(s string) bool { return strings.Contains(helpLine(s), hint(km.Chat.FocusComposer)) })
		atTop := func(s string) bool { return strings.Contains(chatText(s), "stream one") }
		for _, tc := range []struct {
			name    string
			toTop   []string
			forward string
		}{
			{"home then j", []string{"Home"}, "j"},
			{"home then down", []string{"Home"}, "Down"},
			{"home then pgdn", []string{"Home"}, "NPage"},
			{"pgup past the top then j", []string{"PPage", "PPage", "PPage", "PPage", "PPage", "PPage"}, "j"},
		} {
			u.press("End")
			screen := u.see(tc.name+": at the bottom", func(s string) bool { return !strings.Contains(chatText(s), "scrolled") })
			if atTop(screen) {
				t.Fatalf("the transcript does not overflow the chat at %dx%d; the step needs it to:\n%s", w, h, PanelText(screen, chatTitle))
			}
			u.press(tc.toTop...)
			// Every key to the top has landed once the first message shows:
			// after that the extra pgups change nothing on screen.
			screen = u.see(tc.name+": at the top", atTop)
			top := PanelText(screen, chatTitle)
			u.press(tc.forward)
			if !u.chatChanged(top, 5*time.Second) {
				t.Errorf("%s: the view did not move:\n%s", tc.name, top)
			}
		}
	})
}

// TestIssue14Item7NewSessionTakesCursor: after n the cursor stayed on the
// old session, so d offered to dispose the wrong one.
func TestIssue14Item7NewSessionTakesCursor(t *testing.T) {
	t.Parallel()
	skipShort(t)
	eachSize(t, func(t *testing.T, w, h int) {
		u := startDemoSession(t, w, h)
		u.createSessionWithDefaults()
		u.see("the cursor is on it", func(s string) bool {
			for _, l := range strings.Split(PanelText(s, "Sessions ("), "\n") {
				if t := strings.TrimSpace(l); strings.HasPrefix(t, "›") || strings.HasPrefix(t, "▸") {
					return strings.Contains(l, "New session")
				}
			}
			return false
		})
		// The new session's chat takes the keys (issue 19, finding 4):
		// back to the list, where d acts on the session under the cursor.
		u.see("the new session's chat has the keys", func(s string) bool {
			return strings.Contains(helpLine(s), hint(km.Chat.FocusComposer))
		})
		u.focus("sessions", km.Global.FocusPrev, hint(km.Sessions.New))
		u.hit(km.Sessions.Dispose)
		screen := u.see("dispose dialog", func(s string) bool { _, ok := Panel(s, "Dispose"); return ok })
		if d := PanelText(screen, "Dispose"); !strings.Contains(d, "New session") {
			t.Errorf("d offers to dispose another session:\n%s", d)
		}
		u.hit(km.Confirm.No)
	})
}

// helpRange is the help overlay's footer when it scrolls: the rows shown
// and how many there are.
var helpRange = regexp.MustCompile(`(\d+)–(\d+) of (\d+)`)

// readHelp opens the ? overlay and moves through it with next until its
// footer ("1–18 of 40") shows the last row, waiting for each move (a
// loaded machine is slow); every screen goes to page. It returns the
// overlay's text, all pages flattened.
func (u *user) readHelp(next key.Binding, page func(screen string)) string {
	u.t.Helper()
	// A screen read mid-redraw can hold the overlay's top over the old
	// picture: only a frame drawn down to its footer counts.
	drawn := func(s string) bool {
		lines, ok := WholePanel(s, "Keys")
		return ok && len(lines) > 0 && strings.Contains(lines[len(lines)-1], km.HelpScreen.Close.Help().Desc)
	}
	u.hit(km.Global.Help)
	screen := u.see("help overlay", drawn)
	page(screen)
	seen := Flatten(strings.Split(PanelText(screen, "Keys"), "\n"))
	// One press moves a row at least, so the list's length bounds them.
	for range 400 {
		m := helpRange.FindStringSubmatch(screen)
		if m == nil || m[2] == m[3] {
			break // it all fits, or the last row shows
		}
		before := m[0]
		u.hit(next)
		var err error
		screen, err = u.s.WaitForFunc(func(s string) bool {
			if _, open := Panel(s, "Keys"); !open {
				return true
			}
			r := helpRange.FindStringSubmatch(s)
			return drawn(s) && (r == nil || r[0] != before)
		}, 10*time.Second)
		if _, open := Panel(screen, "Keys"); !open {
			u.t.Fatalf("%s closed the help overlay instead of scrolling it:\n%s", hint(next), screen)
		}
		if err != nil {
			u.t.Fatalf("%s did not scroll the help overlay past %q", hint(next), before)
		}
		page(screen)
		seen += " " + Flatten(strings.Split(PanelText(screen, "Keys"), "\n"))
	}
	return seen
}

// TestIssue14Item3HelpScrolls: the ? overlay was cut at 80×24 (its third
// column ended in "…", the sign-in and input-form keys missing) and any
// key closed it. It must scroll with j/↓ and show every key.
func TestIssue14Item3HelpScrolls(t *testing.T) {
	t.Parallel()
	skipShort(t)
	eachSize(t, func(t *testing.T, w, h int) {
		u := startDemoSession(t, w, h)
		seen := u.readHelp(km.HelpScreen.Down, func(screen string) {
			for _, l := range strings.Split(PanelText(screen, "Keys"), "\n") {
				if strings.HasSuffix(strings.TrimRight(l, " │┃"), "…") {
					t.Errorf("a help line is cut: %q", l)
				}
			}
		})
		for _, b := range []key.Binding{km.Grant.Accept, km.Grant.Cancel, km.Grant.CopyURL, km.Input.Submit,
			km.Input.PickNumber, km.Input.Toggle, km.NewSession.Create, km.MCP.SignIn} {
			if !strings.Contains(seen, b.Help().Desc) {
				t.Errorf("the help overlay never shows %q", hint(b))
			}
		}
		u.press("Escape")
		u.see("esc closes it", func(s string) bool { _, ok := Panel(s, "Keys"); return !ok })
	})
}

// serverSelected is the MCP server the cursor (›) is on, in the column
// layout (MCPSelected) or the one-row layout of a short terminal
// ("GitHub ⚠ sign in  ›Filesystem ● ready  …").
func serverSelected(screen string) string {
	for _, l := range strings.Split(PanelText(screen, "MCP servers ("), "\n") {
		if _, rest, ok := strings.Cut(l, "›"); ok {
			if f := strings.Fields(rest); len(f) > 0 {
				return f[0]
			}
		}
	}
	return ""
}

// selectServer moves the MCP cursor (the panel focused) onto server,
// whichever layout the panel has.
func (u *user) selectServer(server string) {
	u.t.Helper()
	for range 6 {
		screen := u.s.Capture()
		if serverSelected(screen) == server {
			return
		}
		u.hit(km.MCP.Down)
		_, _ = u.s.WaitForFunc(func(s string) bool { return serverSelected(s) != serverSelected(screen) }, 5*time.Second)
	}
	u.t.Fatalf("the MCP cursor never reached %s:\n%s", server, u.s.Capture())
}

// TestIssue14Item9MCPPanelKeys: the MCP badges sit in a row but ←/→/h/l
// did nothing, and n there did nothing and said nothing.
func TestIssue14Item9MCPPanelKeys(t *testing.T) {
	t.Parallel()
	skipShort(t)
	eachSize(t, func(t *testing.T, w, h int) {
		u := startDemoSession(t, w, h)
		u.focus("MCP", km.Global.FocusNext, hint(km.MCP.Stop))
		for range 5 {
			u.hit(km.MCP.Up)
		}
		first := u.see("a server selected", func(s string) bool { return serverSelected(s) != "" })
		for _, pair := range [][2]string{{"Right", "Left"}, {"l", "h"}} {
			from := serverSelected(first)
			u.press(pair[0])
			if _, err := u.s.WaitForFunc(func(s string) bool { return serverSelected(s) != from }, 5*time.Second); err != nil {
				t.Errorf("%s did not move the MCP cursor off %s", pair[0], from)
				continue
			}
			u.press(pair[1])
			if _, err := u.s.WaitForFunc(func(s string) bool { return serverSelected(s) == from }, 5*time.Second); err != nil {
				t.Errorf("%s did not move the MCP cursor back to %s", pair[1], from)
			}
		}
		before := statusLine(u.s.Capture())
		u.press("n")
		if _, err := u.s.WaitForFunc(func(s string) bool {
			_, dialog := Panel(s, "New session")
			return dialog || statusLine(s) != before
		}, 5*time.Second); err != nil {
			t.Errorf("n in the MCP panel does nothing and says nothing")
		}
	})
}

// TestIssue14Item10DraftSurvivesCtrlC: ctrl+c in a composer holding a
// draft quit and lost it; it must ask first.
func TestIssue14Item10DraftSurvivesCtrlC(t *testing.T) {
	t.Parallel()
	skipShort(t)
	eachSize(t, func(t *testing.T, w, h int) {
		u := startDemoSession(t, w, h)
		u.hit(km.Chat.FocusComposer)
		u.see("composer focused", func(s string) bool { return strings.Contains(helpLine(s), hint(km.Composer.Send)) })
		u.s.SendText("half a thought")
		u.see("draft typed", chatHas("half a thought"))
		u.press("C-c")
		screen, err := u.s.WaitForFunc(func(s string) bool {
			exited, _ := u.s.Exited()
			return exited || regexp.MustCompile(`(?i)(draft|discard|quit\?)`).MatchString(s)
		}, stepTimeout)
		if exited, _ := u.s.Exited(); exited || err != nil {
			t.Fatalf("ctrl+c with a draft quit without asking (%v):\n%s", err, screen)
		}
		u.press("Escape")
		u.see("the draft is kept", chatHas("half a thought"))
		if exited, _ := u.s.Exited(); exited {
			t.Fatal("answering no still quit")
		}
	})
}

// serverBadgeIs is mcpBadgeIs that also reads the one-row layout, where a
// badge follows its server's name up to a run of spaces.
func serverBadgeIs(server, want string) func(string) bool {
	return func(s string) bool {
		if mcpBadgeIs(server, want)(s) {
			return true
		}
		for _, l := range strings.Split(PanelText(s, "MCP servers ("), "\n") {
			i := strings.Index(l, server+" ")
			if i < 0 {
				continue
			}
			badge, _, _ := strings.Cut(strings.TrimLeft(l[i+len(server):], " "), "  ")
			return strings.HasPrefix(badge, want)
		}
		return false
	}
}

// TestIssue14Item10DisableKeepsBadgeRow: disabling a server reflowed the
// MCP badges from one row into a grid.
func TestIssue14Item10DisableKeepsBadgeRow(t *testing.T) {
	t.Parallel()
	skipShort(t)
	eachSize(t, func(t *testing.T, w, h int) {
		u := startDemoSession(t, w, h)
		u.see("MCP servers settle", func(s string) bool {
			return serverBadgeIs("Filesystem", "● ready")(s) && serverBadgeIs("Flaky", "✗ error")(s)
		})
		// layout is how the badges sit: how many lines name a server, and
		// the most servers one line names (4 in a row, 1 in a column).
		layout := func(s string) [2]int {
			var l [2]int
			for _, line := range strings.Split(PanelText(s, "MCP servers ("), "\n") {
				n := 0
				for _, name := range []string{"GitHub", "Filesystem", "Deploy", "Flaky"} {
					if strings.Contains(line, name) {
						n++
					}
				}
				if n > 0 {
					l[0]++
				}
				l[1] = max(l[1], n)
			}
			return l
		}
		before := layout(u.s.Capture())
		u.focus("MCP", km.Global.FocusNext, hint(km.MCP.Stop))
		u.selectServer("Filesystem")
		u.hit(km.MCP.Toggle)
		screen := u.see("Filesystem disabled", serverDisabled("Filesystem"))
		if after := layout(screen); after != before {
			t.Errorf("disabling a server reflowed the MCP badges from %d lines (at most %d a line) to %d (at most %d):\n%s",
				before[0], before[1], after[0], after[1], PanelText(screen, "MCP servers ("))
		}
	})
}

// TestIssue14Item10StatusUsesTitle: status messages named the tool by its
// internal name ("denied write_file") instead of the card's title.
func TestIssue14Item10StatusUsesTitle(t *testing.T) {
	t.Parallel()
	skipShort(t)
	u := startDemoSession(t, 120, 40)
	u.answerCard("please write the changelog", `needs approval\s+Write file`, km.Chat.Deny)
	screen := u.see("denied", func(s string) bool { return strings.Contains(statusLine(s), "denied") })
	if l := statusLine(screen); strings.Contains(l, demohost.ToolWriteFile) || !strings.Contains(l, "Write file") {
		t.Errorf("the status line names the tool %q, want its title \"Write file\"", l)
	}
}

// TestIssue14Item10EscKeepsInputRequest: esc in an input form declined the
// request for good; it must ask, or close the form and leave the request
// open (a separate key declines).
func TestIssue14Item10EscKeepsInputRequest(t *testing.T) {
	t.Parallel()
	skipShort(t)
	eachSize(t, func(t *testing.T, w, h int) {
		u := startDemoSession(t, w, h)
		u.sendMessage("ask me")
		screen := u.see("the form", func(s string) bool { return strings.Contains(s, "Target environment") })
		// The card took the keys from the composer: they work (and the
		// help line offers them) once its first second is over.
		screen = u.see("its keys are offered", func(s string) bool { return strings.Contains(helpLine(s), hint(km.Chat.NextBlocker)) })
		u.press("Escape")
		screen, _ = u.s.WaitForFunc(func(s string) bool { return s != screen }, stepTimeout)
		if regexp.MustCompile(`(?i)decline.*\?`).MatchString(screen) {
			u.hit(km.Confirm.No) // keep the request
		}
		u.hit(km.Chat.NextBlocker)
		// The form is open again (its keys have the footer): the request
		// still waits, rather than showing as a declined card.
		u.see("the request is still open", func(s string) bool {
			return strings.Contains(s, "Target environment") && strings.Contains(helpLine(s), hint(km.Input.Submit))
		})
		if strings.Contains(chatText(u.s.Capture()), "will not ship") {
			t.Error("esc declined the request")
		}
	})
}

// TestIssue14Item4EmptyChatHint: the empty chat tells what to type: the
// demo agent's description (demohost.DemoHint) names every path's word.
func TestIssue14Item4EmptyChatHint(t *testing.T) {
	t.Parallel()
	skipShort(t)
	eachSize(t, func(t *testing.T, w, h int) {
		u := startDemoSession(t, w, h)
		u.see("the empty chat names every demo path", func(s string) bool {
			c := chatText(s)
			for _, p := range append([]demohost.DemoPath{demohost.DemoTour}, demohost.DemoPaths...) {
				if !regexp.MustCompile(`\b` + p.Word + `\b`).MatchString(c) {
					return false
				}
			}
			return true
		})
	})
}

// TestIssue14Item2SmallTerminalCards: at 80×24 the chat is about 8 lines;
// an approval card arrived with its action line below the fold and the
// view stopped following; after answering, the agent's last line stayed
// hidden with "scrolled" showing. A new card must come fully into view,
// following resumes after it is answered, and the empty composer takes
// one line.
func TestIssue14Item2SmallTerminalCards(t *testing.T) {
	t.Parallel()
	skipShort(t)
	eachSize(t, func(t *testing.T, w, h int) {
		u := startDemoSession(t, w, h)
		screen := u.s.Capture()
		lines, _ := Panel(screen, chatTitle)
		for i, l := range lines {
			if strings.Contains(l, "Write a message") {
				if rest := strings.TrimSpace(strings.Trim(strings.Join(lines[i+1:], ""), " │┃")); len(lines[i+1:]) > 0 {
					t.Errorf("the empty composer takes %d lines, want 1 (below it: %q)", len(lines)-i, rest)
				}
				break
			}
		}
		u.sendMessage("please write the changelog")
		u.see("approval card", chatMatches(`needs approval\s+Write file`))
		u.see("its action line is in view", func(s string) bool {
			c := chatText(s)
			return strings.Contains(c, hint(km.Chat.Approve)) && strings.Contains(c, hint(km.Chat.Deny))
		})
		// The card took the keys from the composer: they work (and the
		// help line offers them) once its first second is over.
		u.see("its keys are offered", func(s string) bool { return strings.Contains(helpLine(s), hint(km.Chat.Approve)) })
		u.hit(km.Chat.Approve)
		screen = u.see("the agent's last line is in view", chatHas("That is all."))
		if strings.Contains(screen, "scrolled") {
			t.Errorf("following did not resume after the card was answered:\n%s", screen)
		}
	})
}

// TestIssue14Item5RetryByItself: an unreachable host is retried with
// backoff without a key press, the screen says when the next try is, and
// the app connects once the host comes up.
func TestIssue14Item5RetryByItself(t *testing.T) {
	t.Parallel()
	skipShort(t)
	addr := badhost.ClosedAddr(t)
	u := startApp(t, 120, 40, "--host", "ws://"+addr+"/")
	u.see("next try announced", func(s string) bool {
		return regexp.MustCompile(`(?i)(retry|retrying|next try|trying again)\D{0,20}\d+\s*s`).MatchString(s)
	})
	h, err := demohost.Start(context.Background(), demohost.Config{Addr: addr, Version: suiteVersion})
	if err != nil {
		t.Fatalf("start the host late on %s: %v", addr, err)
	}
	t.Cleanup(func() { h.Close() })
	if _, err := u.s.WaitForFunc(func(s string) bool { return strings.Contains(statusLine(s), "● connected") }, startTimeout); err != nil {
		t.Fatalf("never connected by itself once the host was up: %v", err)
	}
}

// historyKey finds the binding that opens the message history by its help
// text; the follow-up adds it to keymap/.
func historyKey(t *testing.T) key.Binding {
	t.Helper()
	for _, col := range km.FullHelp() {
		for _, b := range col {
			d := strings.ToLower(b.Help().Desc)
			if strings.Contains(d, "messages") || strings.Contains(d, "history") {
				return b
			}
		}
	}
	t.Fatal("no key opens a message history (keymap has no binding whose help says messages or history)")
	return key.Binding{}
}

// hostRejection makes the demo host reject an action with a reason longer
// than the status line: start a disabled MCP server. It returns the
// reason's tail, which the cut status line does not show.
func (u *user) hostRejection() string {
	u.t.Helper()
	u.focus("MCP", km.Global.FocusNext, hint(km.MCP.Stop))
	u.selectServer("Filesystem")
	u.hit(km.MCP.Toggle)
	u.see("Filesystem disabled", serverDisabled("Filesystem"))
	u.hit(km.MCP.Start)
	u.see("the host's rejection", func(s string) bool { return strings.Contains(statusLine(s), "could not start") })
	return "enable it before starting it"
}

// TestIssue14Item6ErrorHistory: errors were cut to the status line ("this
// MCP server i…") and could not be read; a message history opens and
// shows them whole.
func TestIssue14Item6ErrorHistory(t *testing.T) {
	t.Parallel()
	skipShort(t)
	eachSize(t, func(t *testing.T, w, h int) {
		u := startDemoSession(t, w, h)
		tail := u.hostRejection()
		b := historyKey(t)
		u.press(b.Keys()[0])
		u.see("the whole error in the history", func(s string) bool { return strings.Contains(Flatten(strings.Split(s, "\n")), tail) })
	})
}

// TestIssue14Item6LastErrorOnExit: ahptui ending on an error prints it
// whole after leaving the full screen.
func TestIssue14Item6LastErrorOnExit(t *testing.T) {
	t.Parallel()
	skipShort(t)
	u := startDemoSession(t, 80, 24)
	tail := u.hostRejection()
	u.hit(km.Global.Quit)
	if _, err := u.s.WaitExit(stepTimeout); err != nil {
		t.Fatal(err)
	}
	if s := u.s.Capture(); !strings.Contains(Flatten(strings.Split(s, "\n")), tail) {
		t.Errorf("the last error is not printed on exit:\n%s", s)
	}
}
