package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/authpkce"
	"github.com/ahptui/ahptui/protocol/client"
)

// answerRecorder is fakeSaved that also remembers the user's answers, as
// *authpkce.Authenticator does (savedAnswers).
type answerRecorder struct {
	fakeSaved
	answers []string // host|resource|issuer|allow
}

func (a *answerRecorder) Answer(host, resource, issuer string, allow bool) error {
	v := "deny"
	if allow {
		v = "allow"
	}
	a.answers = append(a.answers, host+"|"+resource+"|"+issuer+"|"+v)
	return nil
}

// stepClock is a clock the test moves by hand.
type stepClock struct{ now time.Time }

func (c *stepClock) read() time.Time      { return c.now }
func (c *stepClock) skip(d time.Duration) { c.now = c.now.Add(d) }
func withStepClock(m *Model) *stepClock   { c := &stepClock{now: fixedNow}; m.clock = c.read; return c }
func statusBar(m *Model) string           { return lastLine(ansi.Strip(m.Render())) }
func lastLine(s string) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return l[len(l)-1]
}
func askOnScreen(m *Model, title string) bool { return strings.Contains(ansi.Strip(m.Render()), title) }

// TestTypingNeverAnswersATrustQuestion is issue 21's finding 1: a host
// that raises "use your saved sign-in here?" while the user types "please
// check the build today" in the composer must get nothing from the y in
// "today". The question waits behind the composer and the status line
// says so; once drawn, keys of its first second are dropped; then only y
// says yes, and enter and esc say no.
func TestTypingNeverAnswersATrustQuestion(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer string
		pushed string
		stored string
	}{
		{"yes", "y", fxGitHub + "|gh-elsewhere", "allow"},
		{"enter is no", "enter", "", "deny"},
		{"esc is no", "esc", "", "deny"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := fxModel(fxChatState())
			m.resize(120, 40)
			clock := withStepClock(m)
			fake := &answerRecorder{fakeSaved: fakeSaved{matches: map[string]authpkce.Match{fxGitHub: {Decision: authpkce.DecisionAsk,
				Token: authpkce.CachedToken{Host: "wss://elsewhere:443", AccessToken: "gh-elsewhere", Scopes: []string{"mcp:read"}}}}}}
			m.cfg.Auth = fake
			rec := &authRecorder{stubClient: m.client.(*stubClient)}
			m.client = rec

			pressUntil(t, m, "i", "i focuses the composer", func() bool { return m.focus == focusComposer })
			typeInto(m, "please check the build to")
			// The host names the saved grant's resource and issuer now.
			runAll(m, m.signin.pushSavedTokens())
			if _, ok := m.signin.pendingAsk(); !ok {
				t.Fatal("the host's advertisement raised no question")
			}
			typeInto(m, "day")
			if got := m.chatPanel.composer.Value(); got != "please check the build today" {
				t.Fatalf("composer holds %q: the question took typed keys", got)
			}
			if len(rec.pushed) != 0 || len(fake.answers) != 0 {
				t.Fatalf("typing answered the question: pushed %v, answers stored %v", rec.pushed, fake.answers)
			}
			if askOnScreen(m, "Use a saved sign-in?") {
				t.Fatalf("the question is drawn over the composer that has the keys:\n%s", ansi.Strip(m.Render()))
			}
			if sb := statusBar(m); !strings.Contains(sb, "a question waits") {
				t.Fatalf("the status line does not say a question waits: %q", sb)
			}

			// Leaving the composer draws the question; a y in its first
			// second (the user was still typing) is dropped, and every
			// dropped key holds it another second.
			m.Update(press("esc"))
			if !askOnScreen(m, "Use a saved sign-in?") {
				t.Fatalf("the question is not drawn once the composer is left:\n%s", ansi.Strip(m.Render()))
			}
			clock.skip(500 * time.Millisecond)
			m.Update(press("y"))
			clock.skip(900 * time.Millisecond)
			m.Update(press("y"))
			if len(rec.pushed) != 0 || len(fake.answers) != 0 {
				t.Fatalf("a key in the question's first second answered it: pushed %v, answers %v", rec.pushed, fake.answers)
			}
			clock.skip(time.Second)
			// Other keys do nothing at all.
			m.Update(press("a"))
			if _, ok := m.signin.pendingAsk(); !ok {
				t.Fatal("a key other than y, n, enter or esc answered the question")
			}
			clock.skip(time.Second)
			_, cmd := m.Update(press(tc.answer))
			runAll(m, cmd)
			if _, ok := m.signin.pendingAsk(); ok {
				t.Fatalf("%s did not answer the question", tc.answer)
			}
			if got := strings.Join(rec.pushed, ","); got != tc.pushed {
				t.Fatalf("pushed %q, want %q", got, tc.pushed)
			}
			if len(fake.answers) != 1 || !strings.HasSuffix(fake.answers[0], "|"+tc.stored) {
				t.Fatalf("answers stored %v, want one %s", fake.answers, tc.stored)
			}
		})
	}
}

// The private authorization server question follows the same rule: raised
// while the input form has the keys, it waits, and typed keys never
// answer it.
func TestTypingNeverAnswersPrivateServerQuestion(t *testing.T) {
	m := fxModel(fxChatState(fxAuthPart()))
	m.resize(120, 40)
	clock := withStepClock(m)
	fake := &privateAS{}
	m.cfg.Auth = fake
	pressUntil(t, m, "i", "i focuses the composer", func() bool { return m.focus == focusComposer })
	typeInto(m, "why")
	runAll(m, m.signin.startGrant(fxDeployAuth()))
	typeInto(m, " yes")
	if got := m.chatPanel.composer.Value(); got != "why yes" {
		t.Fatalf("composer holds %q", got)
	}
	if len(fake.confirmed) != 1 {
		t.Fatalf("typing answered the private server question: Start asked %q", fake.confirmed)
	}
	m.Update(press("esc"))
	m.Update(press("y"))
	if len(fake.confirmed) != 1 {
		t.Fatalf("y in the question's first second answered it: %q", fake.confirmed)
	}
	clock.skip(2 * time.Second)
	_, cmd := m.Update(press("y"))
	runAll(m, cmd)
	if strings.Join(fake.confirmed, ",") != ",auth.lan:8443" {
		t.Fatalf("Start asked %q after a deliberate y", fake.confirmed)
	}
}

// An approval card that takes the keys from the empty composer while the
// user goes on typing ("yes, and …") is not approved by the y: keys typed
// in its first second are dropped, each dropped key holds it another
// second, and the help line offers its keys only once they work.
func TestTypingNeverApprovesANewCard(t *testing.T) {
	m := fxModel(calmChat())
	m.resize(120, 40)
	clock := withStepClock(m)
	stub := m.client.(*stubClient)
	rec := &dispatchRecorder{Client: stub}
	m.client = rec
	m.refreshChannel(fxChat)
	pressUntil(t, m, "i", "i focuses the composer", func() bool { return m.focus == focusComposer })
	stub.chats[fxChat] = fxChatState() // tc4 waits for approval
	m.Update(eventMsg{client.ChannelStateEvent{Channel: fxChat}})
	if m.focus != focusChat || m.chatPanel.sel.item != "tc4" {
		t.Fatalf("focus %v selection %q: the card did not take the keys", m.focus, m.chatPanel.sel.item)
	}
	for _, r := range "yes and also a" {
		clock.skip(300 * time.Millisecond)
		m.Update(press(string(r)))
	}
	if len(rec.sent) != 0 {
		t.Fatalf("typing answered the card: dispatched %v", rec.sent)
	}
	if strings.Contains(helpLineOf(m), "approve") {
		t.Fatalf("the help line offers approve while typed keys are dropped: %q", helpLineOf(m))
	}
	clock.skip(time.Second)
	if !strings.Contains(helpLineOf(m), "approve") {
		t.Fatalf("the help line does not offer approve once the guard ended: %q", helpLineOf(m))
	}
	m.Update(press("y"))
	if len(rec.sent) != 1 || fmt.Sprintf("%T", rec.sent[0].Variant) != "protocol.ChatToolCallApprovedAction" {
		t.Fatalf("a deliberate y dispatched %v, want one approval", rec.sent)
	}
}

func helpLineOf(m *Model) string { return ansi.Strip(m.helpLine()) }

// TestPlainHostAsksOncePerRun is issue 21's finding 5: ws:// proves
// nothing about who listens (a loopback port squatter got saved tokens
// unasked). A saved token goes silently only to a host found in VS
// Code's registry or over wss://; to any other plain ws:// host ahptui
// asks once per run, a yes lasts for the run (reconnects included) and
// nothing is stored; a no sends nothing this run.
func TestPlainHostAsksOncePerRun(t *testing.T) {
	silent := map[string]authpkce.Match{fxGitHub: {Decision: authpkce.DecisionSilent,
		Token: authpkce.CachedToken{AccessToken: "gh", Scopes: []string{"mcp:read"}}}}
	for _, tc := range []struct {
		name     string
		host     string
		registry bool
		answer   string // "" : no question expected
		pushed   string
	}{
		{"loopback ws, yes", "ws://127.0.0.1:4000/", false, "y", fxGitHub + "|gh"},
		{"loopback ws, no", "ws://127.0.0.1:4000/", false, "n", ""},
		{"unix socket by hand, yes", "ws+unix:///tmp/ahp.sock", false, "y", fxGitHub + "|gh"},
		{"found in the registry", "ws://127.0.0.1:4000/", true, "", fxGitHub + "|gh"},
		{"wss", "wss://agents.example/ahp", false, "", fxGitHub + "|gh"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := fxModel(fxChatState())
			m.resize(120, 40)
			clock := withStepClock(m)
			m.cfg.Host, m.cfg.RegistryHost = tc.host, tc.registry
			fake := &answerRecorder{fakeSaved: fakeSaved{matches: silent}}
			m.cfg.Auth = fake
			rec := &authRecorder{stubClient: m.client.(*stubClient)}
			m.client = rec
			runAll(m, m.signin.pushSavedTokens())
			_, asked := m.signin.pendingAsk()
			if asked != (tc.answer != "") {
				t.Fatalf("asked = %v, want %v (pushed %v)", asked, tc.answer != "", rec.pushed)
			}
			if asked {
				if len(rec.pushed) != 0 {
					t.Fatalf("pushed %v before the user answered", rec.pushed)
				}
				if !askOnScreen(m, "Send saved sign-ins over ws://?") {
					t.Fatalf("the question is not on screen:\n%s", ansi.Strip(m.Render()))
				}
				clock.skip(2 * time.Second)
				_, cmd := m.Update(press(tc.answer))
				runAll(m, cmd)
			}
			if got := strings.Join(rec.pushed, ","); got != tc.pushed {
				t.Fatalf("pushed %q, want %q", got, tc.pushed)
			}
			// A new connection in the same run: the answer holds, and
			// nothing was stored for the next run.
			m.signin.newConnection()
			rec.pushed = nil
			runAll(m, m.signin.pushSavedTokens())
			if _, again := m.signin.pendingAsk(); again {
				t.Fatal("asked again in the same run")
			}
			if got := strings.Join(rec.pushed, ","); got != tc.pushed {
				t.Fatalf("after a reconnect pushed %q, want %q", got, tc.pushed)
			}
			if len(fake.answers) != 0 {
				t.Fatalf("the run's answer was stored: %v", fake.answers)
			}
		})
	}
}

// Config.Notices (a token store repaired or fallen back to the file)
// stay on the status line over later messages until the first key, and
// the message history keeps them.
func TestNoticesStayUntilAKey(t *testing.T) {
	m := fxModel(fxChatState())
	m.resize(160, 40)
	m.Init()
	m.cfg.Notices = []string{"/cfg was writable by other users (-rwxrwxrwx); it is now 0700"}
	m.status.notices(m.cfg.Notices, m.clock())
	m.Update(statusMsg{text: "connecting…"})
	if sb := statusBar(m); !strings.Contains(sb, "writable by other users") {
		t.Fatalf("a later message hid the notice: %q", sb)
	}
	m.Update(press("j"))
	if sb := statusBar(m); strings.Contains(sb, "writable by other users") {
		t.Fatalf("the notice outlived the first key: %q", sb)
	}
	if h := m.status.history; len(h) == 0 || !strings.Contains(h[0].Text, "writable by other users") {
		t.Fatalf("the history does not keep the notice: %+v", h)
	}
}
