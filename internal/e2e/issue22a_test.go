package e2e

// Issue 22 (the first hour, second pass), the items about sign-in: a
// fresh prompt for a fresh challenge (1), the pasted-address field (2),
// esc on a prompt (9c) and the sign-in URL as a hyperlink and alone (11),
// at 80x24 and 120x40.

import (
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/views"
)

// sheetText is the sign-in sheet's text, flattened.
func sheetText(screen string) string {
	lines, _ := Panel(screen, views.GrantOverlayTitle)
	return Flatten(lines)
}

// TestIssue22Item1FreshPrompt: after esc on a running sign-in and n on
// its card, the next deploy's card read "sign-in cancelled · enter/g try
// again" instead of a fresh prompt. Before that, esc on the prompt (no
// sign-in running) said "no sign-in is waiting" (item 9c): it closes the
// prompt and ! comes back to it.
func TestIssue22Item1FreshPrompt(t *testing.T) {
	t.Parallel()
	skipShort(t)
	eachSize(t, func(t *testing.T, w, h int) {
		u := startDemoSession(t, w, h)
		u.sendMessage("deploy")
		u.awaitGrantPrompt("first deploy")
		u.hit(km.Grant.Cancel)
		u.see("esc closes the prompt and says so", func(s string) bool {
			return strings.Contains(statusLine(s), "closed") && !strings.Contains(helpLine(s), hint(km.Grant.Accept))
		})
		if s := u.s.Capture(); strings.Contains(s, "no sign-in is waiting") {
			t.Fatalf("esc on the prompt says no sign-in is waiting:\n%s", s)
		}
		u.hit(km.Chat.NextBlocker)
		u.see("! comes back to the prompt", func(s string) bool { return strings.Contains(helpLine(s), hint(km.Grant.Accept)) })
		u.hit(km.Grant.Accept)
		u.see("the sign-in sheet", signInURLShown)
		u.hit(km.Grant.Cancel)
		u.see("the sign-in cancelled", func(s string) bool {
			_, open := Panel(s, views.GrantOverlayTitle)
			return !open && strings.Contains(statusLine(s), "sign-in cancelled")
		})
		u.hit(km.Grant.Decline)
		u.see("the deploy declined", chatHas("nothing was deployed"))
		u.see("turn over", chatHas("· idle"))
		u.sendMessage("deploy")
		u.awaitGrantPrompt("second deploy")
		if c := chatText(u.s.Capture()); strings.Contains(c, "sign-in cancelled") || strings.Contains(c, "try again") {
			t.Fatalf("the new prompt shows the old one's outcome:\n%s", c)
		}
	})
}

// TestIssue22Item2PasteField: the pasted-address field could not be
// cleared (ctrl+u did nothing) and a second paste after a refused one was
// appended to it. ctrl+u clears it, and a refused address is cleared, so
// pasting the right one completes the sign-in.
func TestIssue22Item2PasteField(t *testing.T) {
	t.Parallel()
	skipShort(t)
	eachSize(t, func(t *testing.T, w, h int) {
		u := startDemoSession(t, w, h)
		u.sendMessage("deploy")
		u.awaitGrantPrompt("deploy")
		u.hit(km.Grant.Accept)
		screen := u.see("the sign-in sheet", signInURLShown)
		sheet, _ := Panel(screen, views.GrantOverlayTitle)
		authURL, _ := AuthURL(sheet)
		landed := approveWithoutRedirect(t, authURL)
		u.hit(km.Grant.Paste)
		u.see("paste field open", func(s string) bool { return strings.Contains(sheetText(s), "Paste the address") })
		empty := func(s string) bool { return regexp.MustCompile(`> █`).MatchString(sheetText(s)) }
		u.s.Paste("http://wrong.example/typo")
		u.see("the paste in the field", func(s string) bool { return strings.Contains(sheetText(s), "wrong.example") })
		u.press("C-u")
		u.see("ctrl+u clears the field", empty)
		forged := *landed
		q := forged.Query()
		q.Set("state", "not-this-sign-in")
		forged.RawQuery = q.Encode()
		u.s.Paste(forged.String())
		u.hit(km.Paste.Submit)
		u.see("the forged address refused and the field cleared", func(s string) bool {
			return strings.Contains(sheetText(s), "state") && empty(s) && strings.Contains(statusLine(s), "pasted address")
		})
		u.s.Paste(landed.String())
		u.hit(km.Paste.Submit)
		u.see("access granted after the second paste", func(s string) bool { return strings.Contains(s, "access granted") })
	})
}

// TestIssue22Item11URLLinkAndAlone: copying the hard-wrapped sign-in URL
// with the mouse broke it. The program writes every row of it as an
// OSC 8 hyperlink to the whole URL, and v shows the URL alone on the
// normal screen as one line (on one row where it fits, unbroken where
// the terminal wraps it); enter comes back to the sheet.
func TestIssue22Item11URLLinkAndAlone(t *testing.T) {
	t.Parallel()
	skipShort(t)
	eachSize(t, func(t *testing.T, w, h int) {
		u := startDemoSession(t, w, h)
		output := u.s.RecordOutput()
		u.sendMessage("deploy")
		u.awaitGrantPrompt("deploy")
		u.hit(km.Grant.Accept)
		screen := u.see("the sign-in sheet", signInURLShown)
		sheet, _ := Panel(screen, views.GrantOverlayTitle)
		authURL, _ := AuthURL(sheet)
		link := regexp.MustCompile(`\x1b\]8;id=ahptui-[0-9a-z]+;` + regexp.QuoteMeta(authURL.String()) + "(\x07|\x1b\\\\)")
		if !link.MatchString(output()) {
			t.Fatalf("the program never wrote the URL as an OSC 8 hyperlink; it wrote:\n%q", tail(output(), 2000))
		}
		if !strings.Contains(helpLine(screen), hint(km.Grant.ShowURL)) && !strings.Contains(sheetText(screen), hint(km.Grant.ShowURL)) {
			t.Errorf("the sheet does not offer %q:\n%s", hint(km.Grant.ShowURL), screen)
		}
		u.hit(km.Grant.ShowURL)
		u.see("the URL alone", func(s string) bool { return strings.Contains(s, "Press enter to go back") })
		joined := u.s.CaptureJoined()
		one := false
		for _, l := range strings.Split(joined, "\n") {
			if strings.TrimSpace(l) == authURL.String() {
				one = true
			}
		}
		if !one {
			t.Fatalf("the URL is not alone on one (joined) line:\n%s", joined)
		}
		if len(authURL.String()) <= w {
			if !strings.Contains(u.s.Capture(), authURL.String()) {
				t.Fatalf("the URL fits in %d columns but is not on one row:\n%s", w, u.s.Capture())
			}
		}
		if u2, err := url.Parse(authURL.String()); err != nil || u2.Query().Get("state") == "" {
			t.Fatalf("the URL read back is not a sign-in URL: %v", err)
		}
		u.press("Enter")
		u.see("back on the sheet", signInURLShown)
	})
}

// tail is the last n bytes of s.
func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// TestIssue22Item15DemoOtherHost: two clients on one demo host never see
// the "use your sign-in here?" question (issue 22, item 15).
// --demo-other-host reaches the demo by a second name holding a sign-in
// made on its first: the question shows, and y signs GitHub in.
func TestIssue22Item15DemoOtherHost(t *testing.T) {
	t.Parallel()
	skipShort(t)
	eachSize(t, func(t *testing.T, w, h int) {
		u := startApp(t, w, h, append(demoArgs(suiteVersion), "--demo-other-host")...)
		screen := u.see("the question about the sign-in", func(s string) bool {
			return strings.Contains(Flatten(strings.Split(s, "\n")), "Use your sign-in to")
		})
		flat := Flatten(strings.Split(screen, "\n"))
		for _, want := range []string{demohost.GitHubResourcePath, "ws://localhost:"} {
			if !strings.Contains(flat, want) {
				t.Errorf("the question does not name %q:\n%s", want, screen)
			}
		}
		t.Logf("%dx%d:\n%s", w, h, screen)
		// y, pressed again if it landed in the question's first second.
		gone := func(s string) bool { return !strings.Contains(s, "Use a saved sign-in?") }
		for i := 0; ; i++ {
			u.hit(km.Confirm.Yes)
			if _, err := u.s.WaitForFunc(gone, 5*time.Second); err == nil {
				break
			}
			if i == 5 {
				t.Fatalf("y never answered the question:\n%s", u.s.Capture())
			}
		}
		u.see("GitHub signed in on the second name", mcpBadgeIs("GitHub", "● ready"))
	})
}

// TestIssue22Item15TourAndMemory: in the tour, List issues on GitHub
// succeeded while GitHub's badge said "⚠ sign in", and nothing said the
// demo keeps sign-ins in memory only (issue 22, item 15). The call fails
// saying GitHub is not signed in, and the sign-ins sheet says where demo
// sign-ins live.
func TestIssue22Item15TourAndMemory(t *testing.T) {
	t.Parallel()
	skipShort(t)
	eachSize(t, func(t *testing.T, w, h int) {
		u := startDemoSession(t, w, h)
		u.sendMessage("hello")
		u.see("the tour waits for an approval", chatMatches(`needs approval\s+Write file`))
		u.press("C-x")
		u.see("turn over", chatHas("· idle"))
		// The approval card took the keys from the composer; keys typed in
		// its first second are dropped, so each is pressed until it lands.
		failed := chatMatches(`✗ failed\s+List issues`)
		for i := 0; !failed(u.s.Capture()); i++ {
			if i == 8 {
				t.Fatalf("List issues is not shown failed:\n%s", u.s.Capture())
			}
			u.hit(km.Chat.PrevToolCall)
			_, _ = u.s.WaitForFunc(failed, time.Second)
		}
		u.see("the GitHub badge agrees", mcpBadgeIs("GitHub", "⚠ sign in"))
		inMemory := func(s string) bool {
			return strings.Contains(Flatten(strings.Split(PanelText(s, views.SignInsTitle), "\n")), "kept in memory only")
		}
		for i := 0; !inMemory(u.s.Capture()); i++ {
			if i == 5 {
				t.Fatalf("the sheet does not say demo sign-ins are in memory:\n%s", u.s.Capture())
			}
			u.hit(km.Global.SignIns)
			_, _ = u.s.WaitForFunc(inMemory, 5*time.Second)
		}
	})
}

// TestIssue22Item10ExpandFromCard: once a card was selected (the tour's
// approval takes the selection), e toggled the card alone and said
// nothing: the turn's reasoning could not be opened (issue 22, item 10).
// e on the card opens its turn's reasoning too and says so.
func TestIssue22Item10ExpandFromCard(t *testing.T) {
	t.Parallel()
	skipShort(t)
	eachSize(t, func(t *testing.T, w, h int) {
		u := startDemoSession(t, w, h)
		u.sendMessage("hello")
		u.see("the approval selected", func(s string) bool {
			return chatMatches(`needs approval\s+Write file`)(s) && strings.Contains(helpLine(s), hint(km.Chat.Approve))
		})
		said := func(s string) bool {
			return strings.Contains(statusLine(s), "expanded Write file and its turn's reasoning")
		}
		// Keys typed in the card's first second are dropped: press until
		// one lands.
		for i := 0; !said(u.s.Capture()); i++ {
			if i == 5 {
				t.Fatalf("e on the selected card did not open its turn's reasoning:\n%s", u.s.Capture())
			}
			u.hit(km.Chat.ToggleExpand)
			_, _ = u.s.WaitForFunc(said, 5*time.Second)
		}
	})
}
