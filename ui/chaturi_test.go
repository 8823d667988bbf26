package ui

import (
	"bytes"
	"context"
	"encoding/base64"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
)

// chatMaker is the stub client with createChat, recording what it is
// asked to create (the stub client has no host; TestChatSwitcher and
// the e2e and interop tests create chats on real ones).
type chatMaker struct {
	*stubClient
	mu   sync.Mutex
	made []protocol.CreateChatParams
	err  error // what createChat answers
}

func (c *chatMaker) CreateChat(_ context.Context, p protocol.CreateChatParams) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.made = append(c.made, p)
	return c.err
}

func (c *chatMaker) last() (protocol.CreateChatParams, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.made) == 0 {
		return protocol.CreateChatParams{}, false
	}
	return c.made[len(c.made)-1], true
}

// TestNewChatURIFollowsTheHostsShape: n, f and s in the chat switcher
// minted ahp-chat:/<id> whatever the host, and VS Code's agent host
// refuses every chat URI not spelled like its own chats,
// ahp-chat://<chat id>/<base64url(session URI)> ("Malformed AHP chat
// URI"). The new chat's URI now takes the shape of the session's default
// chat, and the schema's shape when the default chat's tells nothing.
func TestNewChatURIFollowsTheHostsShape(t *testing.T) {
	enc := base64.RawURLEncoding.EncodeToString([]byte(fxSession))
	other := base64.RawURLEncoding.EncodeToString([]byte("ahp-session:/someone-else"))
	for _, tc := range []struct {
		name, defaultChat, want string
	}{
		{"the host's shape", "ahp-chat://default/" + enc, "ahp-chat://fixed-id/" + enc},
		{"the schema's shape", fxChat, "ahp-chat:/fixed-id"},
		{"another session's chat", "ahp-chat://default/" + other, "ahp-chat:/fixed-id"},
		{"not base64url", "ahp-chat://default/not*base64", "ahp-chat:/fixed-id"},
		{"a subagent's", "ahp-chat://subagent/" + enc + "/sub-1", "ahp-chat:/fixed-id"},
		{"another scheme", "copilot-chat://default/" + enc, "ahp-chat:/fixed-id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := fxModel(calmChat())
			yes := true
			m.root.Agents[0].Capabilities = &protocol.AgentCapabilities{MultipleChats: &protocol.MultipleChatsCapability{Fork: &yes}}
			m.sess.DefaultChat = ptr(tc.defaultChat)
			m.sess.Chats[0].Resource = tc.defaultChat
			cm := &chatMaker{stubClient: m.client.(*stubClient)}
			m.client = cm
			m.resize(120, 40)
			m.Update(press("c"))
			pressUntil(t, m, "n", "createChat", func() bool { _, ok := cm.last(); return ok })
			p, _ := cm.last()
			if p.Chat != tc.want || p.Channel != fxSession {
				t.Fatalf("createChat %q in %q, want %q in %q", p.Chat, p.Channel, tc.want, fxSession)
			}
		})
	}
}

// TestHostStackTraceStaysInTheLog: VS Code's agent host answered a
// createChat it refused with its JavaScript error whole, and the status
// line and the message history (L) showed the stack trace. They now show
// the message, its lines before the first "    at …" frame, and the log
// keeps the whole text.
func TestHostStackTraceStaysInTheLog(t *testing.T) {
	const stack = "\n    at parseChatUri (/srv/out/agentHost.js:12:34)\n    at AgentHost.createChat (/srv/out/agentHost.js:56:78)"
	m := fxModel(calmChat())
	yes := true
	m.root.Agents[0].Capabilities = &protocol.AgentCapabilities{MultipleChats: &protocol.MultipleChatsCapability{Fork: &yes}}
	var log bytes.Buffer
	m.log = slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	cm := &chatMaker{stubClient: m.client.(*stubClient),
		err: &client.HostError{Code: -32603, Message: "Error: Malformed AHP chat URI: ahp-chat:/4b0c" + stack}}
	m.client = cm
	m.resize(120, 40)
	m.Update(press("c"))
	pressUntil(t, m, "n", "the refusal", statusHas(m, "could not create a new chat"))
	if want := `could not create a new chat: host InternalError (-32603): "Error: Malformed AHP chat URI: ahp-chat:/4b0c"`; !strings.Contains(m.status.text, want) {
		t.Errorf("status %q, want it to hold %q", m.status.text, want)
	}
	for _, e := range m.status.history {
		if strings.Contains(e.Text, "agentHost.js") {
			t.Errorf("the history keeps the stack: %q", e.Text)
		}
	}
	m.Update(press("L"))
	screen := ansi.Strip(m.Render())
	if !strings.Contains(screen, "Malformed AHP chat") || strings.Contains(screen, "agentHost.js") {
		t.Errorf("the message history does not show the message alone:\n%s", screen)
	}
	if !strings.Contains(log.String(), "at AgentHost.createChat") || !strings.Contains(log.String(), "Malformed AHP chat URI") {
		t.Errorf("the log lacks the host's whole text:\n%s", log.String())
	}
}
