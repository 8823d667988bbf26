package interop

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/ahptui/ahptui/internal/capimock"
	"github.com/ahptui/ahptui/internal/e2e"
)

// createdSession is the session URI of the createSession ahptui sent in
// this step.
func (u *user) createdSession() string {
	for _, m := range u.sent() {
		if m["method"] == "createSession" {
			p, _ := m["params"].(map[string]any)
			s, _ := p["channel"].(string)
			return s
		}
	}
	return ""
}

// createdChat waits for the createChat ahptui sends in this step and
// returns its chat URI.
func (u *user) createdChat() string {
	u.t.Helper()
	var chat string
	_, err := u.s.WaitForFunc(func(string) bool {
		for _, m := range u.sent() {
			if m["method"] == "createChat" {
				p, _ := m["params"].(map[string]any)
				chat, _ = p["chat"].(string)
				return true
			}
		}
		return false
	}, stepTimeout)
	if err != nil {
		u.rec.Dump()
		u.t.Fatalf("no createChat sent:\n%s", u.s.Capture())
	}
	return chat
}

// turnCompleteIn waits for the host to finish a turn in chat, in this
// step.
func (u *user) turnCompleteIn(chat string) {
	u.t.Helper()
	_, err := u.s.WaitForFunc(func(string) bool {
		for _, f := range u.rec.Frames("←host") {
			if strings.Contains(f, `"channel":"`+chat+`"`) && strings.Contains(f, `"chat/turnComplete"`) {
				return true
			}
		}
		return false
	}, 2*stepTimeout)
	if err != nil {
		u.rec.Dump()
		u.t.Fatalf("the host never finished a turn in %s:\n%s", chat, u.s.Capture())
	}
}

// writeDraft types text in the open chat's composer and leaves it there.
func (u *user) writeDraft(text string) {
	u.t.Helper()
	u.hit(km.Chat.FocusComposer)
	u.see("composer focused", func(s string) bool { return strings.Contains(helpLine(s), hint(km.Composer.Send)) })
	u.s.SendText(text)
	u.seeText("the draft typed", text)
	u.leaveComposer()
}

// switchChatTo opens the switcher's first row (first) or its last.
func (u *user) switchChatTo(first bool) {
	u.t.Helper()
	u.hit(km.Chat.SwitchChat)
	u.see("the switcher", func(sc string) bool { _, open := e2e.Panel(sc, "Chats"); return open })
	move, want := km.Chats.Down, "▸ "
	if first {
		move = km.Chats.Up
	}
	for range 6 {
		before := e2e.PanelText(u.s.Capture(), "Chats")
		u.hit(move)
		_, _ = u.s.WaitForFunc(func(sc string) bool { return e2e.PanelText(sc, "Chats") != before }, stepTimeout/9)
	}
	u.see("the row selected", func(sc string) bool { return strings.Contains(e2e.PanelText(sc, "Chats"), want) })
	u.hit(km.Chats.Open)
	u.see("the switcher closed", func(sc string) bool { _, open := e2e.Panel(sc, "Chats"); return !open })
}

// TestVSCodeNewChatsAndDrafts is the chat switcher against VS Code's real
// agent host, which parses a chat URI as ahp-chat://<chat id>/<base64url
// of the session URI> and refused the ahp-chat:/<hex> ahptui minted
// ("Malformed AHP chat URI"): c then n, f and s each create a chat,
// spelled in the host's shape, that the switcher lists and that takes a
// message the host answers. A draft stays in its chat and its session.
func TestVSCodeNewChatsAndDrafts(t *testing.T) {
	s := newSuite(t)
	u := s.start(t, 140, 45)
	step := s.flatSteps(t)
	var session, enc string

	step("connect", func() { u.see("connected over AHP "+hostVersion, connected) })
	step("create a session", func() {
		u.createSession(s)
		session = u.createdSession()
		enc = base64.RawURLEncoding.EncodeToString([]byte(session))
	})
	step("sign in to the agent's required resource", func() { u.signInByPaste(s) })
	step("a first turn in the default chat", func() {
		u.sendMessage(firstMessage)
		u.see("the mock's answer", func(sc string) bool { return strings.Contains(chatText(sc), capimock.Reply) })
		u.leaveComposer()
	})

	chats := 1
	for _, c := range []struct {
		what, listed string
		press        func()
	}{
		{"new chat", "", func() { u.hit(km.Chats.New) }},
		{"fork", "fork · ", func() { u.hit(km.Chats.Fork) }},
		{"side chat", "side chat · ", func() { u.hit(km.Chats.Side) }},
	} {
		step(c.what+": created in the host's shape, listed, answers", func() {
			u.hit(km.Chat.SwitchChat)
			u.see("the switcher", func(sc string) bool { _, open := e2e.Panel(sc, "Chats"); return open })
			c.press()
			chat := u.createdChat()
			id, ok := strings.CutPrefix(chat, "ahp-chat://")
			if !ok || !strings.HasSuffix(id, "/"+enc) || strings.TrimSuffix(id, "/"+enc) == "" {
				u.rec.Dump()
				t.Fatalf("the %s was asked for as %q, not ahp-chat://<id>/%s", c.what, chat, enc)
			}
			chats++
			u.see("the "+c.what+" open", func(sc string) bool {
				return strings.Contains(sc, fmt.Sprintf("chat %d/%d", chats, chats)) && !strings.Contains(statusLine(sc), "could not create")
			})
			u.hit(km.Chat.SwitchChat)
			u.see("the switcher lists it, on screen", func(sc string) bool {
				p := e2e.Flatten(strings.Split(e2e.PanelText(sc, "Chats"), "\n"))
				return strings.Contains(p, "· on screen") && strings.Contains(p, c.listed)
			})
			u.hit(km.Chats.Close)
			u.see("the switcher closed", func(sc string) bool { _, open := e2e.Panel(sc, "Chats"); return !open })
			u.sendMessage(fmt.Sprintf("%s in the %s", firstMessage, c.what))
			u.turnCompleteIn(chat)
			u.leaveComposer()
		})
	}

	const chatDraft, sessionDraft = "a draft for the side chat", "a draft for the first session"
	step("a draft stays in its chat", func() {
		u.writeDraft(chatDraft)
		u.switchChatTo(true)
		u.see("the first chat without the draft", func(sc string) bool {
			return !strings.Contains(sc, chatDraft) && strings.Contains(sc, "Write a message")
		})
		u.writeDraft(sessionDraft)
		u.switchChatTo(false)
		u.see("the side chat's draft back", func(sc string) bool {
			return strings.Contains(sc, chatDraft) && !strings.Contains(sc, sessionDraft)
		})
		u.switchChatTo(true)
		u.seeText("the first chat's draft back", sessionDraft)
	})

	step("a draft stays in its session", func() {
		u.focus("sessions", hint(km.Sessions.New))
		u.hit(km.Sessions.New)
		u.seeText("the new-session picker", "New session")
		u.hit(km.NewSession.Create)
		u.settingsStep(nil)
		u.waitFrame("the new chat's snapshot", "←host", `"snapshot":{"resource":"ahp-chat://`)
		u.see("the new session open, its composer empty", func(sc string) bool {
			return strings.Contains(sc, "Sessions (2)") && !strings.Contains(sc, sessionDraft) && strings.Contains(sc, "Write a message")
		})
		// The new session is the newest, listed first; the first is next.
		u.focus("sessions", hint(km.Sessions.New))
		u.hit(km.Sessions.Down)
		u.see("the first session under the cursor", func(sc string) bool {
			p := e2e.PanelText(sc, "Sessions (")
			return strings.Contains(p, "› "+firstMessage) || strings.Contains(p, "▸ "+firstMessage)
		})
		u.hit(km.Sessions.Open)
		u.seeText("the first session's draft back", sessionDraft)
	})
}
