package e2e

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ahptui/ahptui/demohost"
)

// createdChats is every chat the --trace file at path shows the app
// asking the host to create, in order.
func createdChats(t *testing.T, path string) []string {
	t.Helper()
	_, lines := readTrace(t, path)
	var out []string
	for _, l := range lines {
		var m struct {
			Method string `json:"method"`
			Params struct {
				Chat string `json:"chat"`
			} `json:"params"`
		}
		if l.Direction == "out" && json.Unmarshal(l.Message, &m) == nil && m.Method == "createChat" {
			out = append(out, m.Params.Chat)
		}
	}
	return out
}

// turnEnded reports whether the trace at path holds a finished turn of
// chat, as the host told it.
func turnEnded(path, chat string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, `"direction":"in"`) && strings.Contains(l, `"channel":"`+chat+`"`) && strings.Contains(l, `chat/turnComplete`) {
			return true
		}
	}
	return false
}

// sendInOpenChat sends text in the chat on screen, whatever its title,
// waits for the host to finish the turn it starts in chat (from the
// trace), and gives the keys back to the transcript.
func (u *user) sendInOpenChat(trace, chat, text string) {
	u.t.Helper()
	u.hit(km.Chat.FocusComposer)
	u.see("composer focused", func(s string) bool { return strings.Contains(helpLine(s), hint(km.Composer.Send)) })
	u.s.SendText(text)
	u.hit(km.Composer.Send)
	u.see("message "+text+" sent", func(s string) bool { return strings.Contains(chatTextAny(s), text) })
	deadline := time.Now().Add(stepTimeout)
	for !turnEnded(trace, chat) {
		if time.Now().After(deadline) {
			u.t.Fatalf("the host never finished a turn in %s:\n%s", chat, u.s.Capture())
		}
		time.Sleep(100 * time.Millisecond)
	}
	u.hit(km.Composer.Cancel)
	u.see("the transcript has the keys", func(s string) bool { return strings.Contains(helpLine(s), hint(km.Chat.FocusComposer)) })
}

// TestNewForkAndSideChatInTerminal: n, f and s in the chat switcher
// minted ahp-chat:/<hex>, which VS Code's agent host refuses, and the
// demo took anything. The demo now takes only its own chats' shape
// (ahp-chat://<id>/<base64url(session)>), as that host does. In a real
// terminal at 80x24 and 120x40, on the demo's earlier session, n makes a
// new chat, f forks it at its answered turn and s opens a side chat on
// the fork's; each opens, takes a message the host answers, and was
// asked for in the host's shape (the --trace file shows each createChat).
func TestNewForkAndSideChatInTerminal(t *testing.T) {
	t.Parallel()
	skipShort(t)
	onlyOver10(t)
	enc := base64.RawURLEncoding.EncodeToString([]byte(demohost.HistorySessionURI))
	eachSize(t, func(t *testing.T, w, h int) {
		trace := filepath.Join(t.TempDir(), "trace.jsonl")
		u := startApp(t, w, h, append(demoArgs(suiteVersion), "--trace", trace)...)
		u.see("start-up", func(s string) bool {
			return connectedTo(suiteVersion)(s) && strings.Contains(PanelText(s, "Sessions ("), "Earlier:")
		})
		u.openHistorySession()
		n := historyChats()
		for i, step := range []struct {
			what  string
			press func()
			title string
		}{
			{"new chat", func() { u.hit(km.Chats.New) }, "Chat "},
			{"fork", func() { u.hit(km.Chats.Fork) }, "Fork of"},
			{"side chat", func() { u.hit(km.Chats.Side) }, "Side"},
		} {
			u.hit(km.Chat.SwitchChat)
			u.see("the switcher", func(s string) bool { _, open := Panel(s, "Chats"); return open })
			step.press()
			n++
			u.see("the "+step.what+" open", func(s string) bool {
				_, open := Panel(s, "Chats")
				return !open && strings.Contains(s, fmt.Sprintf("chat %d/%d %s", n, n, step.title))
			})
			made := createdChats(t, trace)
			if len(made) != i+1 {
				t.Fatalf("the trace shows %d createChat requests, want %d", len(made), i+1)
			}
			chat := made[i]
			id, ok := strings.CutPrefix(chat, "ahp-chat://")
			if !ok || !strings.HasSuffix(id, "/"+enc) || strings.TrimSuffix(id, "/"+enc) == "" {
				t.Fatalf("the %s was asked for as %q, not ahp-chat://<id>/%s", step.what, chat, enc)
			}
			u.sendInOpenChat(trace, chat, fmt.Sprintf("stream in the %s", step.what))
		}
		u.hit(km.Chat.SwitchChat)
		u.see("every chat listed", func(s string) bool {
			p := Flatten(strings.Split(PanelText(s, "Chats"), "\n"))
			return strings.Contains(p, "fork · ") && strings.Contains(p, "side chat · ") && strings.Contains(p, "on screen")
		})
	})
}
