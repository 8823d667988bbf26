package e2e

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ahptui/ahptui/internal/badhost"
	"github.com/ahptui/ahptui/internal/tmuxtest"
)

// hostHeader matches a host's header row in the grouped session list:
// the cursor (›) or not, the active mark (▸) or another host's (▪), its
// name.
var hostHeader = regexp.MustCompile(`^(›?)\s*([▸▪]) (ws://127\.0\.0\.1:\d+/)`)

// hostRows is the grouped session list as rows: each host's header
// names it, each of its lines is kept with the index of its host.
type hostRows struct {
	hosts  []string // in the list's order
	active int      // the host marked ▸
	// cursor is the host the cursor (›) is in and the text of its row.
	cursorHost int
	cursor     string
	text       string // the panel's lines
}

func readHosts(screen string) hostRows {
	lines, _ := Panel(screen, "Sessions (")
	r := hostRows{active: -1, cursorHost: -1, text: strings.Join(lines, "\n")}
	for _, l := range lines {
		t := strings.Trim(l, " ┃│")
		if m := hostHeader.FindStringSubmatch(t); m != nil {
			r.hosts = append(r.hosts, m[3])
			if m[2] == "▸" {
				r.active = len(r.hosts) - 1
			}
		}
		if strings.HasPrefix(t, "›") {
			r.cursorHost, r.cursor = len(r.hosts)-1, t
		}
	}
	return r
}

// openHostSession puts the keys on the session list, moves the cursor to
// host n's (from 0) demo session and opens it; host n is then active.
func (u *user) openHostSession(n int) {
	u.t.Helper()
	u.focus("sessions", km.Global.FocusNext, hint(km.Sessions.New))
	onIt := func(s string) bool {
		r := readHosts(s)
		return r.cursorHost == n && strings.Contains(r.cursor, "Demo: MCP")
	}
	for range 40 {
		screen := u.s.Capture()
		if onIt(screen) {
			break
		}
		r := readHosts(screen)
		if r.cursorHost > n || (r.cursorHost == n && strings.Contains(r.cursor, "Earlier")) {
			u.hit(km.Sessions.Up)
		} else {
			u.hit(km.Sessions.Down)
		}
		before := r.cursor + "|" + r.text
		_, _ = u.s.WaitForFunc(func(s string) bool { r := readHosts(s); return r.cursor+"|"+r.text != before }, stepTimeout)
	}
	if !onIt(u.s.Capture()) {
		u.t.Fatalf("the cursor never reached host %d's demo session:\n%s", n+1, readHosts(u.s.Capture()).text)
	}
	u.hit(km.Sessions.Open)
	u.see("host "+string(rune('1'+n))+" active, its chat open", func(s string) bool {
		_, chat := Panel(s, chatTitle)
		return readHosts(s).active == n && chat && strings.Contains(helpLine(s), hint(km.Chat.FocusComposer))
	})
}

// TestManyHostsInOneUI is issue 25's acceptance in tmux: three demo hosts
// in one process, one host that never answers and one that refuses our
// versions. The sessions are grouped by host and each failing host is
// named with its reason; an approval on host 3 (a turn another client
// started) shows in the inbox while host 1 is open, and is approved from
// there; a new wait on another host writes the bell and OSC 9 raw while
// the window is unfocused, and nothing while it is focused.
func TestManyHostsInOneUI(t *testing.T) {
	t.Parallel()
	skipShort(t)
	secret := newSecret(t)
	hung, refusing := badhost.Silent(t), badhost.RefusingVersion(t)
	// The demo hosts serve the suite's version: the multi-host UI runs
	// over 1.0 in one pass of the suite and over 0.6 in the other.
	u := startApp(t, 160, 50, "--demo-hosts", "3", "--demo-version", suiteVersion, "--host", hung, "--host", refusing+"?tkn="+secret)
	screen := u.see("five hosts, three connected, the refusal named", func(s string) bool {
		r := readHosts(s)
		return len(r.hosts) == 5 && strings.Count(r.text, "connected · AHP "+suiteVersion) == 3 &&
			strings.Contains(r.text, "version refused") && strings.Count(r.text, "Demo: MCP") == 3
	})
	rows := readHosts(screen)
	if rows.hosts[3] != hung || rows.hosts[4] != refusing {
		t.Fatalf("hosts %q: want the demo hosts, then %s and %s in the order given", rows.hosts, hung, refusing)
	}
	if strings.Contains(screen, secret) || strings.Contains(screen, "tkn") {
		t.Fatalf("a connection token is on screen:\n%s", screen)
	}
	// The hung host gives up its attempt after host/dial.AttemptTimeout
	// and says why; the others never waited on it.
	if _, err := u.s.WaitForFunc(func(s string) bool {
		return strings.Contains(readHosts(s).text, "failed: timed out")
	}, stepTimeout+10*time.Second); err != nil {
		t.Fatalf("the hung host is not named timed out:\n%s", readHosts(u.s.Capture()).text)
	}

	// Focused: nothing rings.
	u.s.SendKeys(focusIn...)
	output := u.s.RecordOutput()

	// Another client (the CLI) starts a turn on host 3 that waits for an
	// approval, while host 1 is open here: the inbox lists it.
	bin, env := tmuxtest.Build(t, "github.com/ahptui/ahptui"), cliEnv(t)
	sendOn := func(host string) {
		t.Helper()
		res := runCLI(t, bin, env, "", "send", "demo", "write the changelog", "--host", host, "--config-dir", privateDir(t))
		if res.code != 5 {
			t.Fatalf("send on %s: exit %d, want 5 (an approval waits)\n%s", host, res.code, res.stderr)
		}
	}
	host2, host3 := rows.hosts[1], rows.hosts[2]
	sendOn(host3)
	u.hit(km.Global.Inbox)
	u.see("the inbox lists host 3's session", func(s string) bool { return strings.Contains(PanelText(s, "Inbox"), "on "+host3) })
	selectedOn3 := func(s string) bool {
		lines := strings.Split(PanelText(s, "Inbox"), "\n")
		for i, l := range lines {
			if strings.Contains(l, "▸") && i+1 < len(lines) && strings.Contains(lines[i+1], "on "+host3) {
				return true
			}
		}
		return false
	}
	for i := 0; !selectedOn3(u.s.Capture()); i++ {
		if i == 10 {
			t.Fatalf("never selected host 3's item:\n%s", PanelText(u.s.Capture(), "Inbox"))
		}
		before := u.s.Capture()
		u.hit(km.Inbox.Down)
		_, _ = u.s.WaitForFunc(func(s string) bool { return s != before }, 5*time.Second)
	}
	u.hit(km.Inbox.Open)
	u.see("host 3 active with its session", func(s string) bool {
		_, inbox := Panel(s, "Inbox")
		_, chat := Panel(s, chatTitle)
		return !inbox && chat && readHosts(s).active == 2
	})
	u.see("the card is there", chatMatches(`needs approval\s+Write file`))
	u.hit(km.Chat.NextBlocker)
	u.approveWhenOffered(chatHas("That is all."))
	if found := notification.FindAllString(output(), -1); len(found) != 0 {
		t.Fatalf("focused, yet it rang: %q", found)
	}

	// Unfocused, host 1 open: a new wait on host 2 rings, naming it.
	u.openHostSession(0)
	u.s.SendKeys(focusOut...)
	sendOn(host2)
	var found [][]string
	deadline := time.Now().Add(stepTimeout)
	for len(found) == 0 && time.Now().Before(deadline) {
		found = notification.FindAllStringSubmatch(output(), -1)
		time.Sleep(50 * time.Millisecond) // the pipe's cat is not ours to wait on
	}
	if len(found) != 1 {
		t.Fatalf("want one notification (host 2's new wait), got %d: %q", len(found), found)
	}
	if text := found[0][1]; !strings.Contains(text, host2) || !strings.Contains(text, "needs input") || strings.Contains(text, "tkn") {
		t.Errorf("the notification %q does not name host 2 (%s) and its wait, or names a token", text, host2)
	}
}
