package e2e

import (
	"bufio"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ahptui/ahptui/internal/tmuxtest"
)

// startClaimedTerminalHost runs trustaskd -claimed-terminal: the trust
// scenario's host that also lists a terminal held by the client that
// connects, and prints "input DATA" for what is typed into it.
func startClaimedTerminalHost(t *testing.T, bin string) *trustHost {
	t.Helper()
	stdin, stdout := startStdinHost(t, bin, "-claimed-terminal")
	h := &trustHost{in: stdin, out: make(chan string, 256)}
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() || !strings.HasPrefix(lines.Text(), "ws://127.0.0.1:") {
		t.Fatalf("trustaskd printed %q, not its URL: %v", lines.Text(), lines.Err())
	}
	h.url = lines.Text()
	go func() {
		defer close(h.out)
		for lines.Scan() {
			h.out <- lines.Text()
		}
	}()
	return h
}

// TestTypingInTerminalNeverAnswersTrustQuestion: the host lists a
// terminal this client holds; the user opens it (T, enter), starts typing
// (i) and, while they type, the host advertises a saved grant's resource
// and issuer. After a pause — longer than any guard — the user types
// "yarn install": every key reaches the terminal, none answers "use your
// saved sign-in here?", no token reaches the host and no answer is
// stored. The pane says a question waits and how to reach it; leaving the
// terminal's input shows it, and enter answers no.
func TestTypingInTerminalNeverAnswersTrustQuestion(t *testing.T) {
	t.Parallel()
	skipShort(t)
	versionFixed(t)
	bin := tmuxtest.Build(t, "github.com/ahptui/ahptui")
	hostd := tmuxtest.Build(t, "github.com/ahptui/ahptui/protocol/internal/hostilehost/cmd/trustaskd")
	const resource, issuer = "https://mcp.example.com/api", "https://issuer.example.com"
	h := startClaimedTerminalHost(t, hostd)
	dir := t.TempDir()
	savedGrantElsewhere(t, dir, resource, issuer)
	s := tmuxtest.Start(t, tmuxtest.Options{Width: 120, Height: 40,
		Cmd: []string{bin, "--host", h.url, "--no-browser", "--config-dir", dir}})
	u := &user{t: t, s: s}
	u.see("connected", func(s string) bool {
		return strings.Contains(statusLine(s), "connected") && !strings.Contains(statusLine(s), "disconnected")
	})
	u.hit(km.Global.Terminals)
	u.see("the terminals list", func(s string) bool { return strings.Contains(s, "agenthost-terminal://hostile/shell") })
	u.hit(km.Terminals.Open)
	u.see("the terminal pane, ours to type into", func(s string) bool {
		return strings.Contains(s, "Terminal · shell") && !strings.Contains(s, "held by another client")
	})
	u.hit(km.Terminal.Input)
	u.seeText("typing into the terminal", km.Terminal.Leave.Help().Desc)
	u.press("l", "s")
	typed := h.next(t, "the first key typed") + h.next(t, "the second key typed")
	if typed != `input "l"input "s"` {
		t.Fatalf("the terminal got %q, want l and s", typed)
	}

	// The host raises the question now, while the user types.
	if _, err := fmt.Fprintf(h.in, "advertise %s %s\n", resource, issuer); err != nil {
		t.Fatal(err)
	}
	if l := h.next(t, "advertise"); l != "advertised" {
		t.Fatalf("trustaskd answered %q to advertise", l)
	}
	u.see("the question raised", func(s string) bool {
		return strings.Contains(s, "a question waits") || strings.Contains(s, "Use a saved sign-in?")
	})
	// The user pauses (longer than a question's first second), clears
	// the line and types on.
	time.Sleep(1500 * time.Millisecond)
	u.s.SendKeys("C-u")
	u.s.SendText("yarn install")
	u.press("Enter")

	var got []string
	deadline := time.After(stepTimeout)
collect:
	for {
		select {
		case l, ok := <-h.out:
			if !ok {
				t.Fatal("trustaskd ended")
			}
			got = append(got, l)
			if l == `input "\r"` {
				break collect
			}
		case <-deadline:
			break collect
		}
	}
	for _, a := range storedAnswers(t, dir) {
		t.Errorf("typing into the terminal answered the question: stored %v", a)
	}
	var input string
	for _, l := range got {
		if strings.HasPrefix(l, "authenticate ") {
			t.Errorf("typing into the terminal pushed a token: %q", l)
		}
		if q, ok := strings.CutPrefix(l, "input "); ok {
			input += q
		}
	}
	if want := `"\x15""y""a""r""n"" ""i""n""s""t""a""l""l""\r"`; input != want {
		t.Fatalf("the terminal got %s, want %s (host said %q):\n%s", input, want, got, s.Capture())
	}
	screen := s.Capture()
	if strings.Contains(screen, "Use a saved sign-in?") {
		t.Errorf("the question is drawn over the terminal the user types in:\n%s", screen)
	}
	if !strings.Contains(screen, "a question waits: "+km.Terminal.Leave.Help().Key+" to see it") {
		t.Errorf("the pane does not say how to reach the question:\n%s", screen)
	}

	// Leaving the terminal's input shows the question; enter says no
	// (pressed again if it landed in the question's first second).
	u.hit(km.Terminal.Leave)
	u.seeText("the question, once typing stopped", "Use a saved sign-in?")
	gone := func(s string) bool { return !strings.Contains(s, "Use a saved sign-in?") }
	for i := 0; ; i++ {
		u.press("Enter")
		if _, err := s.WaitForFunc(gone, 5*time.Second); err == nil {
			break
		}
		if i == 5 {
			t.Fatalf("enter never answered the question:\n%s", s.Capture())
		}
	}
	answers := storedAnswers(t, dir)
	if len(answers) != 1 || answers[0]["allow"] != false {
		t.Fatalf("stored answers %v, want one no", answers)
	}
	if p := h.pushed(); len(p) != 0 {
		t.Fatalf("a token went to the host: %v", p)
	}
}
