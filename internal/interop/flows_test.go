package interop

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/key"

	"github.com/ahptui/ahptui/internal/capimock"
	"github.com/ahptui/ahptui/internal/e2e"
)

// focus presses Tab until the help line offers want, at most six times,
// waiting for each press to land (the help line changes) and for the line
// to settle: the help line also changes when a turn ends, and a Tab pressed
// on such a change would land after the first and move focus on past want.
func (u *user) focus(panel string, want string) {
	u.t.Helper()
	for range 6 {
		before := u.settledHelpLine()
		if strings.Contains(before, want) {
			return
		}
		u.hit(km.Global.FocusNext)
		_, _ = u.s.WaitForFunc(func(s string) bool { return helpLine(s) != before }, stepTimeout)
	}
	u.rec.Dump()
	u.t.Fatalf("could not focus the %s panel: the help line never offered %q\n%s", panel, want, u.s.Capture())
}

// settledHelpLine is the help line once it has not changed for half a
// second (or after stepTimeout, whatever it is then).
func (u *user) settledHelpLine() string {
	last, since := helpLine(u.s.Capture()), time.Now()
	for deadline := time.Now().Add(stepTimeout); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if l := helpLine(u.s.Capture()); l != last {
			last, since = l, time.Now()
		} else if time.Since(since) >= 500*time.Millisecond {
			break
		}
	}
	return last
}

// sendMessage focuses the composer, types text and sends it.
func (u *user) sendMessage(text string) {
	u.t.Helper()
	u.focus("chat", hint(km.Chat.FocusComposer))
	u.hit(km.Chat.FocusComposer)
	u.see("composer focused", func(s string) bool { return strings.Contains(helpLine(s), hint(km.Composer.Send)) })
	u.s.SendText(text)
	u.hit(km.Composer.Send)
	u.see("message "+text+" sent", func(s string) bool { return strings.Contains(chatText(s), text) || strings.Contains(s, "│ "+text) })
}

// createSession opens the new-session picker, creates a session with the
// first choice and the host's default settings, and checks what issue 19 finding 4 asks: the session is
// listed at once and the chat has the keys without a key pressed.
func (u *user) createSession(s *suite) {
	u.t.Helper()
	u.focus("sessions", hint(km.Sessions.New))
	u.hit(km.Sessions.New)
	u.seeText("the new-session picker", "New session")
	u.hit(km.NewSession.Create)
	// The settings step (issue 26): the host's defaults, taken as they
	// are, go in createSession's config.
	if cfg := u.settingsStep(nil); cfg[approvalsProp] != "default" {
		u.rec.Dump()
		u.t.Fatalf("createSession's config: want the host's default approvals (%s: default), got %v", approvalsProp, cfg)
	}
	// The chat's snapshot arriving re-opens the chat; keys pressed before
	// it land in a composer that closes. Wait for that frame.
	u.waitFrame("the new chat's snapshot", "←host", `"snapshot":{"resource":"ahp-chat://`)
	u.see("the new session listed at once", func(sc string) bool {
		return strings.Contains(sc, "Sessions (1)")
	})
	// The chat's help line: i to write, or (the agent's sign-in prompt
	// selected) its keys; ! is the chat's either way.
	u.see("the chat has the keys", func(sc string) bool {
		return strings.Contains(helpLine(sc), hint(km.Chat.NextBlocker))
	})
}

// approveWithOption asks the mock for a shell command; the host asks for
// approval with options; the user picks the second option by its number
// (finding 2), and the confirmed action must carry its selectedOptionId.
func (u *user) approveWithOption(s *suite) {
	u.t.Helper()
	u.sendMessage(capimock.PromptShell)
	u.see("the shell call waits for approval", func(sc string) bool {
		return strings.Contains(helpLine(sc), hint(km.Chat.Approve))
	})
	// The host offers allow-session, allow-once and skip; the second is
	// picked by its number ("allow in this session" would let the deny
	// step's call through unasked).
	u.s.SendText("2")
	u.see("the shell call ran and the turn finished", func(sc string) bool {
		return strings.Contains(chatText(sc), "tool finished")
	})
	a, ok := u.sentAction("chat/toolCallConfirmed")
	if !ok {
		u.rec.Dump()
		u.t.Fatalf("no chat/toolCallConfirmed sent")
	}
	if _, err := os.Stat(filepath.Join(s.cwd, capimock.ShellFile)); err != nil {
		u.rec.Dump()
		u.t.Fatalf("the approved command did not run: %v", err)
	}
	if a["approved"] != true {
		u.rec.Dump()
		u.t.Fatalf("chat/toolCallConfirmed not approved: %v", a)
	}
	if a["selectedOptionId"] != "allow-once" {
		u.rec.Dump()
		u.t.Fatalf("chat/toolCallConfirmed: want selectedOptionId allow-once (option 2), got %v", a)
	}
}

// deny asks for a shell command again and denies it with x.
func (u *user) deny(s *suite) {
	u.t.Helper()
	_ = os.Remove(filepath.Join(s.cwd, capimock.ShellFile))
	u.sendMessage(capimock.PromptShell + " again")
	u.see("the shell call waits for approval", func(sc string) bool {
		return strings.Contains(helpLine(sc), hint(km.Chat.Deny))
	})
	u.hit(km.Chat.Deny)
	a, ok := u.waitAction("chat/toolCallConfirmed")
	if !ok || a["approved"] != false {
		u.rec.Dump()
		u.t.Fatalf("deny: want chat/toolCallConfirmed approved=false, got %v (found %v)", a, ok)
	}
	if a["selectedOptionId"] != "skip" {
		u.rec.Dump()
		u.t.Fatalf("deny with options offered: want selectedOptionId skip (the first deny-kind option), got %v", a)
	}
	u.see("the turn ends after the denial", func(sc string) bool {
		return !strings.Contains(helpLine(sc), hint(km.Chat.Deny)) && strings.Contains(chatText(sc), "· idle")
	})
	if _, err := os.Stat(filepath.Join(s.cwd, capimock.ShellFile)); err == nil {
		u.rec.Dump()
		u.t.Fatalf("the denied command ran: %s exists", capimock.ShellFile)
	}
}

// waitFrame waits until the recorder has seen, in this step, a frame in
// direction dir containing sub.
func (u *user) waitFrame(what, dir, sub string) { u.waitFrames(what, dir, sub) }

// waitFrames waits until frames in dir of this step hold each of subs, in
// that order: the first after a frame with subs[0] that has subs[1], and
// so on. A later event is told from an earlier one of its kind this way
// (a turnComplete after the answer, not the previous turn's).
func (u *user) waitFrames(what, dir string, subs ...string) {
	u.t.Helper()
	_, err := u.s.WaitForFunc(func(string) bool {
		i := 0
		for _, f := range u.rec.Frames(dir) {
			if i < len(subs) && strings.Contains(f, subs[i]) {
				i++
			}
		}
		return i == len(subs)
	}, stepTimeout)
	if err != nil {
		u.rec.Dump()
		u.t.Fatalf("%s: no frames %s with %q in order", what, dir, subs)
	}
}

// waitAction waits until ahptui has dispatched an action of type typ in
// this step.
func (u *user) waitAction(typ string) (map[string]any, bool) {
	u.t.Helper()
	var got map[string]any
	_, err := u.s.WaitForFunc(func(string) bool {
		a, ok := u.sentAction(typ)
		got = a
		return ok
	}, stepTimeout)
	return got, err == nil
}

// answerInput asks the mock for the ask-the-user tool; the host asks the
// user through an input request; the user opens the form, picks the first
// choice and submits.
func (u *user) answerInput(s *suite) {
	u.t.Helper()
	u.sendMessage(capimock.PromptAsk)
	u.answerWaitingInput()
}

// answerWaitingInput answers the mock's waiting input request in the
// form: the first choice, submitted.
func (u *user) answerWaitingInput() {
	u.t.Helper()
	u.seeText("the input request's question", "Which colour")
	u.hit(km.Chat.NextBlocker)
	formOpen := func(sc string) bool { return strings.Contains(helpLine(sc), hint(km.Input.Submit)) }
	// ! selects the request and, here, opens its form; a opens it when not.
	if _, err := u.s.WaitForFunc(formOpen, stepTimeout/3); err != nil {
		u.hit(km.Chat.Approve)
	}
	u.see("the input form opened", formOpen)
	u.s.SendText("1")
	u.hit(km.Input.Submit)
	a, ok := u.waitAction("chat/inputCompleted")
	if !ok {
		u.rec.Dump()
		u.t.Fatalf("no chat/inputCompleted sent")
	}
	if b, _ := json.Marshal(a); !strings.Contains(string(b), `"value":"red"`) {
		u.rec.Dump()
		u.t.Fatalf("the answer is not the first choice (red): %s", b)
	}
	// The step may hold an earlier turn's end (the CLI's send, seen by
	// this client too), so the end waited for is the one after the answer.
	u.waitFrames("the agent got the answer and its turn completed", "←host", "User selected: red", `"type":"chat/turnComplete"`)
}

// mcpCycle opens the MCP panel, finds the echo server from .mcp.json, and
// starts, stops, disables and enables it, each seen on its badge.
func (u *user) mcpCycle(s *suite) {
	u.t.Helper()
	sc := u.s.Capture()
	if _, ok := e2e.Panel(sc, "MCP servers ("); !ok {
		u.hit(km.Global.ToggleMCP)
	}
	u.see("the echo server from .mcp.json listed", func(sc string) bool {
		_, ok := e2e.MCPBadge(sc, "echo")
		return ok
	})
	u.focus("MCP", hint(km.MCP.Stop))
	u.press(km.MCP.Start)
	u.see("echo ready", badgeIs("echo", "● ready"))
	u.press(km.MCP.Stop)
	u.see("echo stopped", badgeIs("echo", "○ stopped"))
	u.press(km.MCP.Toggle)
	u.see("echo disabled", func(sc string) bool { return strings.Contains(e2e.PanelText(sc, "MCP servers ("), "disabled") })
	u.press(km.MCP.Toggle)
	u.see("echo enabled", func(sc string) bool { return !strings.Contains(e2e.PanelText(sc, "MCP servers ("), "disabled") })
}

// mcpStartBeforeFirstMessage is finding 7: until a session's first
// message VS Code's host only echoes a start request. The panel must say
// the start waits for the session to run rather than "starting" for good.
func (u *user) mcpStartBeforeFirstMessage() {
	u.t.Helper()
	if _, ok := e2e.Panel(u.s.Capture(), "MCP servers ("); !ok {
		u.hit(km.Global.ToggleMCP)
	}
	u.see("the echo server from .mcp.json listed", func(sc string) bool {
		_, ok := e2e.MCPBadge(sc, "echo")
		return ok
	})
	u.focus("MCP", hint(km.MCP.Stop))
	u.press(km.MCP.Start)
	u.waitFrame("the host echoes the start", "←host", `"type":"session/mcpServerStartRequested"`)
	u.see("the panel says the start waits for the first message", func(sc string) bool {
		return strings.Contains(e2e.PanelText(sc, "MCP servers ("), "requested")
	})
}

func (u *user) press(b key.Binding) { u.t.Helper(); u.hit(b) }

func badgeIs(server, want string) func(string) bool {
	return func(sc string) bool {
		b, ok := e2e.MCPBadge(sc, server)
		return ok && strings.HasPrefix(b, want)
	}
}

// secondClient starts a second ahptui, opens the same session, sends a
// message there, and sees it in both.
func (u *user) secondClient(s *suite, t *testing.T) {
	u.t.Helper()
	v := s.start(t, 140, 45)
	v.see("second client connected", connected)
	v.focus("sessions", hint(km.Sessions.Open))
	v.hit(km.Sessions.Open)
	v.waitFrame("the second client's chat snapshot", "←host", `"snapshot":{"resource":"ahp-chat://`)
	v.see("second client opened the session", func(sc string) bool { return strings.Contains(chatText(sc), firstMessage) })
	// The host's sign-in is its own (one token serves every client), but
	// on AHP 0.9 nothing says it holds one: the second client asks for
	// the agent's sign-in too, as VS Code's own client would hold its
	// token.
	v.signInByPaste(s)
	v.sendMessage("from the second client")
	u.see("the first client sees the second's message and answer", func(sc string) bool {
		return strings.Contains(chatText(sc), "from the second client") && strings.Count(chatText(sc), capimock.Reply) >= 2
	})
}

// hostRestart kills the host (its whole process group) and starts it
// again on the same port and data; ahptui reconnects and the chat stays
// open (finding 6).
func (u *user) hostRestart(s *suite) {
	u.t.Helper()
	s.host.restart()
	u.waitFrame("ahptui reconnects", "→host", `"method":"reconnect"`)
	// The new host does not know the old connection (-32008); ahptui
	// initializes afresh and the host accepts 0.9.0 again.
	u.waitFrame("a fresh initialize accepted", "←host", `"protocolVersion":"`+hostVersion+`"`)
	// (The status line may carry a message over the version now.)
	u.see("connected", func(sc string) bool { return strings.Contains(statusLine(sc), "● connected") })
	u.see("the chat is still open", func(sc string) bool { return strings.Contains(chatText(sc), firstMessage) })
	u.sendMessage("after the restart")
	u.see("a turn after the restart", func(sc string) bool { return strings.Contains(chatText(sc), "after the restart") })
}

// signInByPaste is finding 1's fixed flow (the agentauth branch): once the
// session is open, before any message, the chat says the agent needs a
// sign-in and offers to paste a token; the user presses t, pastes the
// token into the masked field and submits; ahptui pushes it with
// authenticate for the agent's resource, and the token never shows.
func (u *user) signInByPaste(s *suite) {
	u.t.Helper()
	u.see("sign-in needed before the first message", func(sc string) bool {
		return strings.Contains(sc, "sign-in needed") && strings.Contains(sc, "paste a token")
	})
	u.s.SendText("t")
	u.seeText("the token field", "Token:")
	u.s.Paste(capimock.Token)
	u.seeText("the pasted token, masked", "Token: ••••")
	if strings.Contains(u.s.Capture(), capimock.Token) {
		u.t.Fatal("the pasted token is on the screen")
	}
	u.s.SendKeys("Enter")
	u.see("signed in", func(sc string) bool { return strings.Contains(statusLine(sc), "signed in") })
	// Issue 36 item 5: asked once whether to keep the token; no, the
	// default, keeps it for this run only (pressed again while the
	// question's first second drops keys).
	u.seeText("the keep question", "Keep this token?")
	answered := func(sc string) bool { return !strings.Contains(sc, "Keep this token?") }
	for i := 0; !answered(u.s.Capture()); i++ {
		if i == 6 {
			u.t.Fatalf("n never answered the keep question:\n%s", u.s.Capture())
		}
		u.hit(km.Confirm.No)
		_, _ = u.s.WaitForFunc(answered, time.Second)
	}
	var pushed bool
	for _, m := range u.sent() {
		p, _ := m["params"].(map[string]any)
		if m["method"] == "authenticate" && p["resource"] == "https://api.github.com" && p["token"] == capimock.Token {
			pushed = true
		}
	}
	if !pushed {
		u.rec.Dump()
		u.t.Fatal("no authenticate for https://api.github.com with the pasted token")
	}
}
