package interop

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ahptui/ahptui/internal/capimock"
	"github.com/ahptui/ahptui/internal/e2e"
)

// TestVSCodeAskUserOnce is issue 36 item 10 against VS Code's real host:
// the agent's ask-the-user tool is shown once, as the question (the
// host's tool card for it is not drawn again beside it as raw JSON), and
// enter answers it: the first choice, then enter submits.
func TestVSCodeAskUserOnce(t *testing.T) {
	s := newSuite(t)
	u := s.start(t, 140, 45)
	step := s.flatSteps(t)

	u.defaultSessionSignedIn(s, step)
	step("the question shows once and enter answers it", func() {
		u.sendMessage(capimock.PromptAsk)
		sc := u.seeText("the input request's question", "Which colour")
		chat := e2e.Flatten(strings.Split(sc, "\n"))
		if strings.Contains(chat, "Ask User") || strings.Contains(chat, `"choices"`) {
			u.rec.Dump()
			t.Fatalf("the ask-the-user tool's card shows beside the question:\n%s", sc)
		}
		u.hit(km.Chat.NextBlocker)
		formOpen := func(sc string) bool { return strings.Contains(helpLine(sc), hint(km.Input.Submit)) }
		if _, err := u.s.WaitForFunc(formOpen, stepTimeout/3); err != nil {
			u.hit(km.Chat.Approve)
		}
		u.see("the input form opened", formOpen)
		u.s.SendKeys("Enter") // the highlighted first choice, and submit: one question
		a, ok := u.waitAction("chat/inputCompleted")
		if !ok {
			u.rec.Dump()
			t.Fatal("enter did not submit the form")
		}
		if b, _ := json.Marshal(a); !strings.Contains(string(b), `"value":"red"`) {
			u.rec.Dump()
			t.Fatalf("the answer is not the highlighted first choice (red): %s", b)
		}
		u.waitFrames("the agent got the answer and its turn completed", "←host", "User selected: red", `"type":"chat/turnComplete"`)
	})
}

// defaultSessionSignedIn is how most of these tests begin, as steps:
// connected, a session with the host's defaults, the agent's sign-in
// answered with a pasted token.
func (u *user) defaultSessionSignedIn(s *suite, step func(name string, f func())) {
	step("connect", func() { u.see("connected over AHP "+hostVersion, connected) })
	step("create a session with the host's defaults", u.createDefaultSession)
	step("sign in to the agent's required resource", func() { u.signInByPaste(s) })
}

// createDefaultSession creates a session with the first agent and the
// settings the host resolves, and waits for its chat.
func (u *user) createDefaultSession() {
	u.t.Helper()
	u.focus("sessions", hint(km.Sessions.New))
	u.hit(km.Sessions.New)
	u.seeText("the new-session picker", "New session")
	u.hit(km.NewSession.Create)
	u.settingsStep(nil)
	u.waitFrame("the new chat's snapshot", "←host", `"snapshot":{"resource":"ahp-chat://`)
}

// TestVSCodeCancelledTurnClosesQuestion is issue 36 item 7 against VS
// Code's real host: a turn cancelled with ctrl+x while its ask-the-user
// question waits leaves the question's card closed ("not answered: the
// turn was cancelled", no "waiting for an answer"), and a does not open
// its form again nor send an answer.
func TestVSCodeCancelledTurnClosesQuestion(t *testing.T) {
	s := newSuite(t)
	u := s.start(t, 140, 45)
	step := s.flatSteps(t)

	u.defaultSessionSignedIn(s, step)
	step("ctrl+x cancels the turn while its question waits", func() {
		u.sendMessage(capimock.PromptAsk)
		u.seeText("the input request's question", "Which colour")
		u.waitFrame("the host asks the user", "←host", `"type":"chat/inputRequested"`)
		u.leaveComposer()
		u.hit(km.Chat.CancelTurn)
		if _, ok := u.waitAction("chat/turnCancelled"); !ok {
			u.rec.Dump()
			t.Fatalf("ctrl+x sent no chat/turnCancelled:\n%s", u.s.Capture())
		}
		u.waitFrame("the host ends the turn", "←host", `"type":"chat/turnCancelled"`)
		sc := u.see("the question's card is closed", func(sc string) bool {
			return strings.Contains(e2e.Flatten(strings.Split(sc, "\n")), "not answered: the turn was cancelled")
		})
		if strings.Contains(sc, "waiting for an answer") {
			u.rec.Dump()
			t.Fatalf("the cancelled turn's question still waits for an answer:\n%s", sc)
		}
	})
	step("a does not reopen the closed question", func() {
		u.hit(km.Chat.NextToolCall) // select the question's card
		time.Sleep(500 * time.Millisecond)
		u.hit(km.Chat.Approve)
		u.see("a says the question is closed", func(sc string) bool {
			return strings.Contains(statusLine(sc), "not answered")
		})
		if strings.Contains(helpLine(u.s.Capture()), hint(km.Input.Submit)) {
			t.Fatalf("a opened the closed question's form:\n%s", u.s.Capture())
		}
		u.s.SendKeys("C-s")
		time.Sleep(time.Second)
		if _, ok := u.sentAction("chat/inputCompleted"); ok {
			u.rec.Dump()
			t.Fatal("an answer was sent for the cancelled turn's question")
		}
		if strings.Contains(statusLine(u.s.Capture()), "answers submitted") {
			t.Fatalf("ctrl+s says answers were submitted:\n%s", u.s.Capture())
		}
	})
}
