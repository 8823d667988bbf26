package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ahptui/ahptui/internal/tmuxtest"
)

// trustHost is a running trustaskd (the hostile host's trust-question
// scenario): lines it prints arrive on out.
type trustHost struct {
	url string
	in  io.WriteCloser
	out chan string
}

func startTrustHost(t *testing.T, bin string) *trustHost {
	t.Helper()
	stdin, stdout := startStdinHost(t, bin)
	h := &trustHost{in: stdin, out: make(chan string, 64)}
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

// next waits for the host's next line.
func (h *trustHost) next(t *testing.T, what string) string {
	t.Helper()
	select {
	case l, ok := <-h.out:
		if !ok {
			t.Fatalf("%s: trustaskd ended", what)
		}
		return l
	case <-time.After(stepTimeout):
		t.Fatalf("%s: trustaskd said nothing within %v", what, stepTimeout)
	}
	return ""
}

// pushed lists the authenticate lines the host printed so far.
func (h *trustHost) pushed() []string {
	var out []string
	for {
		select {
		case l, ok := <-h.out:
			if !ok {
				return out
			}
			if strings.HasPrefix(l, "authenticate ") {
				out = append(out, l)
			}
		default:
			return out
		}
	}
}

// savedGrantElsewhere writes a token store holding one grant for resource,
// issued by issuer, obtained on another host, as an earlier run would have.
func savedGrantElsewhere(t *testing.T, dir, resource, issuer string) {
	t.Helper()
	store := map[string]any{"version": 2, "tokens": []map[string]any{{
		"host": "ws://127.0.0.1:1", "issuer": issuer, "resource": resource, "client_id": "e2e-client",
		"access_token": "e2e-token-from-elsewhere", "token_type": "Bearer", "updated_at": time.Now().UTC(),
	}}}
	b, err := json.Marshal(store)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "oauth-tokens.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// storedAnswers is what the token store remembers of the user's answers.
func storedAnswers(t *testing.T, dir string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "oauth-tokens.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Answers []map[string]any `json:"answers"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f.Answers
}

// TestTypingNeverAnswersTrustQuestion is issue 21's finding 1 with the
// real binary in a real terminal: a host advertises a saved grant's
// resource and issuer while the user types "please check the build
// today" in the composer. The y must not answer "use your saved sign-in
// here?": the sentence lands whole in the composer, the status line says
// a question waits, no token reaches the host and no "allow" is stored.
// Leaving the composer shows the question, and enter answers no.
func TestTypingNeverAnswersTrustQuestion(t *testing.T) {
	t.Parallel()
	skipShort(t)
	versionFixed(t)
	bin := tmuxtest.Build(t, "github.com/ahptui/ahptui")
	hostd := tmuxtest.Build(t, "github.com/ahptui/ahptui/protocol/internal/hostilehost/cmd/trustaskd")
	const resource, issuer = "https://mcp.example.com/api", "https://issuer.example.com"
	h := startTrustHost(t, hostd)
	dir := t.TempDir()
	savedGrantElsewhere(t, dir, resource, issuer)
	s := tmuxtest.Start(t, tmuxtest.Options{Width: 120, Height: 40,
		Cmd: []string{bin, "--host", h.url, "--no-browser", "--config-dir", dir}})
	u := &user{t: t, s: s}
	u.see("connected with the chat open", func(s string) bool {
		return strings.Contains(statusLine(s), "connected") && !strings.Contains(statusLine(s), "disconnected") &&
			strings.Contains(s, "Hello")
	})
	u.focus("chat", km.Global.FocusNext, hint(km.Chat.FocusComposer))
	u.hit(km.Chat.FocusComposer)
	u.see("composer focused", func(s string) bool { return strings.Contains(helpLine(s), hint(km.Composer.Cancel)) })
	u.s.SendText("please check the build to")
	u.seeText("the first words typed", "please check the build to")

	// The host raises the question now, mid-sentence.
	if _, err := fmt.Fprintf(h.in, "advertise %s %s\n", resource, issuer); err != nil {
		t.Fatal(err)
	}
	if l := h.next(t, "advertise"); l != "advertised" {
		t.Fatalf("trustaskd answered %q to advertise", l)
	}
	u.see("the question raised", func(s string) bool {
		return strings.Contains(statusLine(s), "a question waits") || strings.Contains(s, "Use a saved sign-in?")
	})
	u.s.SendText("day")
	// Either the composer got the whole sentence, or (a build where
	// typing answers) the question is gone without one waiting.
	screen := u.see("the rest of the sentence handled", func(s string) bool {
		return strings.Contains(s, "please check the build today") ||
			(!strings.Contains(s, "Use a saved sign-in?") && !strings.Contains(statusLine(s), "a question waits"))
	})
	for _, a := range storedAnswers(t, dir) {
		if a["allow"] == true {
			t.Fatalf("typing answered yes: stored %v", a)
		}
	}
	if p := h.pushed(); len(p) != 0 {
		t.Fatalf("typing pushed a token: %v", p)
	}
	if !strings.Contains(screen, "please check the build today") {
		t.Errorf("the composer did not get the whole sentence:\n%s", screen)
	}
	if strings.Contains(screen, "Use a saved sign-in?") {
		t.Errorf("the question is drawn over the composer the user types in:\n%s", screen)
	}
	if !strings.Contains(statusLine(screen), "a question waits") {
		t.Errorf("the status line does not say a question waits: %q", statusLine(screen))
	}

	// Leaving the composer shows the question; enter says no (pressed
	// again if it landed in the question's first second).
	u.hit(km.Composer.Cancel)
	u.seeText("the question, once the composer is left", "Use a saved sign-in?")
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
