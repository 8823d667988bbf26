package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/charmbracelet/x/ansi"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/internal/schemacheck"
	"github.com/ahptui/ahptui/protocol"
)

// agentHost is a demo host whose agent needs its own sign-in, as VS
// Code's copilotcli does (required protectedResources, no auth/required,
// turns fail without the token), with the inbound methods it saw.
type agentHost struct {
	*demohost.Host
	mu      sync.Mutex
	methods []string
}

func (h *agentHost) count(method string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, m := range h.methods {
		if m == method {
			n++
		}
	}
	return n
}

func startAgentHost(t *testing.T, token, resource string) *agentHost {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	v := schemacheck.MustLoad10(t)
	ah := &agentHost{}
	h, err := demohost.Start(ctx, demohost.Config{StepDelay: -1, Validate: v.ValidateMessage,
		AgentToken: token, AgentResource: resource,
		Tap: func(_ int64, dir demohost.Direction, frame []byte) {
			var f struct {
				Method string `json:"method"`
			}
			if dir == demohost.Inbound && json.Unmarshal(frame, &f) == nil && f.Method != "" {
				ah.mu.Lock()
				ah.methods = append(ah.methods, f.Method)
				ah.mu.Unlock()
			}
		}})
	if err != nil {
		t.Fatalf("demohost: %v", err)
	}
	t.Cleanup(func() {
		_ = h.Close()
		for _, fe := range h.ValidationErrors() {
			t.Errorf("invalid frame: %v", fe)
		}
	})
	ah.Host = h
	return ah
}

// agentResource is the open session's agent's required resource.
func agentResource(d *driver) string {
	for _, a := range d.m.root.Agents {
		for _, p := range a.ProtectedResources {
			return p.Resource
		}
	}
	d.t.Fatal("the demo agent lists no protected resource")
	return ""
}

// logTo sends the model's debug log to a buffer, to check what it holds.
func logTo(d *driver) *bytes.Buffer {
	var buf bytes.Buffer
	d.m.app.log = slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	return &buf
}

// focusChat moves the keys to the transcript as a user does (tab).
func (d *driver) focusChat() {
	d.t.Helper()
	for i := 0; i < 3 && d.m.focus != focusChat; i++ {
		d.keys("tab")
	}
	if d.m.focus != focusChat {
		d.t.Fatalf("tab never reached the chat\n%s", d.m.Render())
	}
}

// pushed waits until the host answered the token given by hand: the
// status line says it signed in, or why not (ok false).
func (d *driver) pushed() (ok bool) {
	d.t.Helper()
	d.until("the token's answer", func() bool {
		return strings.Contains(d.m.status.text, "signed in") || d.m.status.isErr
	})
	return !d.m.status.isErr
}

// The agent's required resource is named before any message, in the
// session header and as a prompt in the chat; a message sent anyway
// stops at the host's resumable error; a pasted token goes out with
// authenticate (the host accepts only that exact token) and is never
// drawn or logged; then r resumes the turn, which now completes.
func TestAgentSignInPasteBeforeFirstMessage(t *testing.T) {
	const secret = "agent-secret-3f9c1b7e"
	h := startAgentHost(t, secret, "")
	d := newDriverOn(t, h.Host, nil)
	log := logTo(d)
	d.openDemo()
	_ = agentResource(d)

	d.until("sign-in needed in the header", func() bool { return screenHas(d.m, "sign-in needed") })
	screen := d.m.Render()
	if !strings.Contains(squash(screen), squash("Demo agent")) || !strings.Contains(screen, "paste a token") {
		t.Fatalf("the chat does not offer the agent's sign-in before the first message:\n%s", screen)
	}
	if len(d.m.chat.Turns) != 0 || d.m.chat.ActiveTurn != nil {
		t.Fatalf("the demo chat already has turns; the test must see the prompt before any")
	}
	if n := h.count("authenticate"); n != 0 {
		t.Fatalf("%d authenticate requests before the user gave a token", n)
	}

	// Sent anyway: the host stops the turn at a resumable error.
	d.focusChat()
	d.sendMessage("stream")
	d.until("the turn stopped for want of the token", func() bool { return stoppedTurn(d) != "" })
	if !screenHas(d.m, "sign-in needed") {
		t.Fatalf("the header no longer says sign-in is needed:\n%s", d.m.Render())
	}

	d.focusChat()
	d.m.chatPanel.sel = chatSel{prompt: true}
	d.keys("t")
	if !screenHas(d.m, "Token:") {
		t.Fatalf("t did not open the token field\n%s", d.m.Render())
	}
	d.send(tea.PasteMsg{Content: secret + "\n"})
	if strings.Contains(d.m.Render(), secret) || !strings.Contains(d.m.Render(), "••••") {
		t.Fatalf("the token field does not mask the token:\n%s", d.m.Render())
	}
	d.keys("enter")
	if !d.pushed() {
		t.Fatalf("the host refused the pasted token: %s", d.m.status.text)
	}
	if n := h.count("authenticate"); n != 1 {
		t.Fatalf("%d authenticate requests, want 1", n)
	}
	if !strings.Contains(d.m.status.text, "resume") {
		t.Fatalf("the status does not offer to resume the stopped turn: %q", d.m.status.text)
	}
	if screenHas(d.m, "sign-in needed") {
		t.Fatalf("still says sign-in needed after the token was accepted:\n%s", d.m.Render())
	}

	d.keys("r")
	d.until("the resumed turn completes", func() bool {
		n := len(d.m.chat.Turns)
		return d.m.chat.ActiveTurn == nil && n > 0 && d.m.chat.Turns[n-1].State == protocol.TurnStateComplete
	})
	for where, s := range map[string]string{"screen": d.m.Render(), "log": log.String(), "status": historyText(d)} {
		if strings.Contains(s, secret) {
			t.Errorf("the token shows in the %s", where)
		}
	}
}

func historyText(d *driver) string {
	var b strings.Builder
	for _, e := range d.m.status.history {
		b.WriteString(e.Text + "\n")
	}
	return b.String()
}

// stoppedTurn is the id of the open chat's latest turn when it stopped
// at an error, "" otherwise.
func stoppedTurn(d *driver) string {
	if !d.m.hasChat {
		return ""
	}
	n := len(d.m.chat.Turns)
	if d.m.chat.ActiveTurn != nil || n == 0 || d.m.chat.Turns[n-1].State != protocol.TurnStateError {
		return ""
	}
	return d.m.chat.Turns[n-1].ID
}

// A command the host answers with -32007 opens the same sign-in and is
// sent again, once, after the token is accepted: here createSession.
func TestAuthRequiredCommandRetriedAfterSignIn(t *testing.T) {
	const secret = "agent-secret-0c4d"
	h := startAgentHost(t, secret, "")
	d := newDriverOn(t, h.Host, nil)
	d.openDemo()
	_ = agentResource(d)
	// Dismiss the prompt the open session showed: the -32007 must bring
	// the sign-in back by itself.
	d.focusChat()
	d.m.chatPanel.sel = chatSel{prompt: true}
	d.keys("n")
	if len(d.m.signin.prompts) != 0 {
		t.Fatalf("n did not dismiss the prompt")
	}
	if !screenHas(d.m, "sign-in needed") {
		t.Fatalf("the header forgot the need when the prompt was dismissed:\n%s", d.m.Render())
	}

	d.keys("shift+tab")
	if d.m.focus != focusSessions {
		d.m.focus = focusSessions
	}
	d.keys("n")
	d.until("new session dialog", func() bool { return d.m.modal == modalNewSession })
	d.keys("enter")
	d.until("the session's settings", func() bool { return d.m.sessions.cfgStep != nil && !d.m.sessions.cfgStep.loading })
	d.keys("enter")
	d.until("the sign-in prompt after -32007", func() bool {
		return len(d.m.signin.prompts) > 0 && d.m.focus == focusChat && d.m.chatPanel.sel.prompt
	})
	if n := h.count("createSession"); n != 1 {
		t.Fatalf("createSession sent %d times before the sign-in, want 1", n)
	}
	created := d.m.sessions.created

	d.keys("t")
	d.send(tea.PasteMsg{Content: secret})
	d.keys("enter")
	if !d.pushed() {
		t.Fatalf("the host refused the token: %s", d.m.status.text)
	}
	d.until("the retried session opens", func() bool { return d.m.openSession == created && d.m.hasSess })
	if n := h.count("createSession"); n != 2 {
		t.Fatalf("createSession sent %d times, want 2 (the failed one and one retry)", n)
	}
}

// For a GitHub resource, `gh auth token` is offered where gh is installed
// and run only when the user picks it; its token is pushed and never
// drawn.
func TestGhTokenOfferedAndUsedOnlyWhenPicked(t *testing.T) {
	const secret = "gho_fakeTokenFromGh42"
	dir := t.TempDir()
	marker := filepath.Join(dir, "gh-ran")
	script := "#!/bin/sh\n[ \"$1 $2\" = \"auth token\" ] || exit 2\ntouch '" + marker + "'\necho " + secret + "\n"
	if err := os.WriteFile(filepath.Join(dir, "gh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))

	h := startAgentHost(t, secret, "https://api.github.com")
	d := newDriverOn(t, h.Host, nil)
	log := logTo(d)
	d.openDemo()
	d.until("the prompt offers gh", func() bool { return screenHas(d.m, "use gh auth token") })
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("gh ran before the user picked it")
	}
	if n := h.count("authenticate"); n != 0 {
		t.Fatalf("%d authenticate requests before the user picked a way", n)
	}
	d.focusChat()
	d.m.chatPanel.sel = chatSel{prompt: true}
	d.keys("h")
	if !d.pushed() {
		t.Fatalf("the gh token did not serve: %s", d.m.status.text)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("h did not run gh")
	}
	if strings.Contains(d.m.Render(), secret) || strings.Contains(log.String(), secret) {
		t.Fatal("gh's token shows on the screen or in the log")
	}
}

func TestIsGitHubAndCheckToken(t *testing.T) {
	for _, tc := range []struct {
		p    protocol.ProtectedResourceMetadata
		want bool
	}{
		{protocol.ProtectedResourceMetadata{Resource: "https://api.github.com"}, true},
		{protocol.ProtectedResourceMetadata{Resource: "https://API.GitHub.com/"}, true},
		{protocol.ProtectedResourceMetadata{Resource: "https://example.com/mcp", AuthorizationServers: []string{"https://github.com/login/oauth"}}, true},
		{protocol.ProtectedResourceMetadata{Resource: "http://api.github.com"}, false},
		{protocol.ProtectedResourceMetadata{Resource: "https://api.github.com.evil.example"}, false},
		{protocol.ProtectedResourceMetadata{Resource: "https://example.com", AuthorizationServers: []string{"https://github.com.evil.example"}}, false},
	} {
		if got := isGitHub(tc.p); got != tc.want {
			t.Errorf("isGitHub(%q, %v) = %v, want %v", tc.p.Resource, tc.p.AuthorizationServers, got, tc.want)
		}
	}
	for tok, ok := range map[string]bool{"gho_abc123": true, "a b": false, "a\nb": false, "a\x1b[2Jb": false, strings.Repeat("x", maxTokenLen+1): false} {
		if err := checkToken(tok); (err == nil) != ok {
			t.Errorf("checkToken(%q) = %v, want ok=%v", tok[:min(len(tok), 12)], err, ok)
		} else if err != nil && strings.Contains(err.Error(), tok) {
			t.Errorf("checkToken's error quotes the token")
		}
	}
}

// A dismissed agent sign-in comes back for t, as the header says, while
// the agent still needs it.
func TestDismissedAgentSignInComesBack(t *testing.T) {
	h := startAgentHost(t, "agent-secret-77", "")
	d := newDriverOn(t, h.Host, nil)
	d.openDemo()
	d.until("the prompt", func() bool { return len(d.m.signin.prompts) > 0 })
	d.focusChat()
	d.m.chatPanel.sel = chatSel{prompt: true}
	d.keys("n")
	d.m.chatPanel.sel = chatSel{}
	d.keys("t")
	if !screenHas(d.m, "Token:") {
		t.Fatalf("t did not bring the sign-in back with its token field:\n%s", d.m.Render())
	}
}

// Where the agent's resource names an authorization server, g runs the
// same OAuth flow as every other sign-in (here the demo's real one):
// the token it gets is pushed for the agent's resource and the next
// message completes.
func TestAgentSignInByOAuth(t *testing.T) {
	rig := newSignInRig(t)
	h, err := demohost.Start(rig.ctx, demohost.Config{StepDelay: -1, Auth: rig.as, AgentToken: "static-token-not-used"})
	if err != nil {
		t.Fatalf("demohost: %v", err)
	}
	t.Cleanup(func() { _ = h.Close() })
	d := newDriverOn(t, h, rig.auth())
	d.openDemo()
	res := agentResource(d)
	d.until("the prompt offers the browser sign-in", func() bool { return screenHas(d.m, "sign in (browser)") })
	d.focusChat()
	d.m.chatPanel.sel = chatSel{prompt: true}
	d.keys("g")
	d.until("the sign-in URL", func() bool { g := d.m.signin.grants[res]; return g != nil && g.url != "" })
	approveInBrowser(t, d.m.signin.grants[res].url)
	d.until("access granted", func() bool { return strings.Contains(d.m.status.text, "access granted") })
	if screenHas(d.m, "sign-in needed") {
		t.Fatalf("still says sign-in needed after the OAuth sign-in:\n%s", d.m.Render())
	}
	d.sendMessage("stream")
	d.until("the turn completes", func() bool {
		n := len(d.m.chat.Turns)
		return d.m.chat.ActiveTurn == nil && n > 0 && d.m.chat.Turns[n-1].State == protocol.TurnStateComplete
	})
}

// TestGitHubSignInOffersWhatWorks (issue 36 item 5): GitHub registers no
// OAuth clients, so without --oauth-client a browser sign-in cannot
// work: the prompt does not offer it, enter opens the token field (the
// way that works), g says why the browser cannot and what to do, and
// the prompt keeps offering the paste after that.
func TestGitHubSignInOffersWhatWorks(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no gh
	rig := newSignInRig(t)
	h := startAgentHost(t, "github-token-1", "https://api.github.com")
	d := newDriverOn(t, h.Host, rig.auth())
	d.openDemo()
	d.until("the prompt", func() bool { return screenHas(d.m, "paste a token") })
	if screenHas(d.m, "sign in (browser)") {
		t.Fatalf("a browser sign-in to GitHub is offered without a client id:\n%s", d.m.Render())
	}
	if !screenHas(d.m, "enter/t paste a token") {
		t.Fatalf("the prompt does not say enter pastes a token:\n%s", d.m.Render())
	}
	d.focusChat()
	d.m.chatPanel.sel = chatSel{prompt: true}
	if hl := ansi.Strip(d.m.helpLine()); !strings.Contains(hl, "enter paste a token") || !strings.Contains(hl, "n dismiss") {
		t.Errorf("the footer does not say what enter and n do here: %q", hl)
	}
	d.keys("g")
	d.until("g says why", func() bool {
		return strings.Contains(d.m.status.text, "GitHub registers no OAuth clients") && strings.Contains(d.m.status.text, "--oauth-client https://github.com/login/oauth=CLIENT_ID")
	})
	if len(d.m.signin.grants) != 0 {
		t.Fatal("g started a browser sign-in that cannot work")
	}
	if !screenHas(d.m, "paste a token") {
		t.Fatalf("the paste is no longer offered after g:\n%s", d.m.Render())
	}
	d.keys("enter")
	if !screenHas(d.m, "Token:") {
		t.Fatalf("enter did not open the token field:\n%s", d.m.Render())
	}
}
