package interop

import (
	"strings"
	"testing"

	"github.com/ahptui/ahptui/internal/capimock"
)

// TestVSCodeAgentHost is issue 19's interop suite: one VS Code agent host
// (the real one; only the Copilot API behind it is the mock), one ahptui in
// tmux, and the steps a new user takes in their first minutes, in order.
// A step that fails prints the frames ahptui and the host exchanged during
// it. Later steps need the earlier ones, so the first failure stops the
// run.
func TestVSCodeAgentHost(t *testing.T) {
	s := newSuite(t)
	u := s.start(t, 140, 45)
	step := func(name string, f func(t *testing.T)) {
		t.Helper()
		if t.Failed() {
			return
		}
		s.rec.Step(name)
		u.t = t
		f(t)
	}

	step("connect and negotiate", func(t *testing.T) {
		u.see("connected over AHP "+hostVersion, connected)
		var offered, chosen bool
		for _, f := range s.rec.Frames("→host") {
			if strings.Contains(f, `"method":"initialize"`) && strings.Contains(f, `"`+hostVersion+`"`) {
				offered = true
			}
		}
		for _, f := range s.rec.Frames("←host") {
			if strings.Contains(f, `"protocolVersion":"`+hostVersion+`"`) {
				chosen = true
			}
		}
		if !offered || !chosen {
			s.rec.Dump()
			t.Fatalf("initialize: offered %s=%v, host chose it=%v", hostVersion, offered, chosen)
		}
	})

	step("create a session, listed at once, chat focused", func(t *testing.T) {
		u.createSession(s)
	})

	step("sign in to the agent's required resource", func(t *testing.T) {
		u.signInByPaste(s)
	})

	step("the CLI before the first message: status, mcp start requested", func(t *testing.T) {
		s.cliBeforeFirstMessage(t)
	})

	step("start an MCP server in the brand-new session", func(t *testing.T) {
		u.mcpStartBeforeFirstMessage()
	})

	step("stream a turn", func(t *testing.T) {
		u.sendMessage(firstMessage)
		u.see("the mock's answer streamed into the chat", func(sc string) bool {
			return strings.Contains(chatText(sc), capimock.Reply)
		})
		u.see("the echo server started with the first message", badgeIs("echo", "● ready"))
	})

	step("approve a shell command with a chosen option", func(t *testing.T) {
		u.approveWithOption(s)
	})

	step("deny a shell command", func(t *testing.T) {
		u.deny(s)
	})

	step("answer an input request", func(t *testing.T) {
		u.answerInput(s)
	})

	step("the CLI: mcp stop/start, send, watch --until input", func(t *testing.T) {
		s.cliAfterTurns(t)
		u.answerWaitingInput()
	})

	step("MCP server from .mcp.json: start, stop, disable, enable", func(t *testing.T) {
		u.mcpCycle(s)
	})

	step("two clients on one session", func(t *testing.T) {
		u.secondClient(s, t)
	})

	step("kill and restart the host while a chat is open", func(t *testing.T) {
		u.hostRestart(s)
	})
}
