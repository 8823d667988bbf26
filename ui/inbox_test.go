package ui

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/keymap"
	"github.com/ahptui/ahptui/protocol"
)

// TestInboxListsOldestFirst: the inbox lists every kind of wait the open
// host has, each with host, session and how long this client has seen it
// wait, oldest first.
func TestInboxListsOldestFirst(t *testing.T) {
	m := fxModel(calmChat())
	clock := withStepClock(m)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	clock.skip(5 * time.Minute)
	approval := tcPart(protocol.ToolCallPendingConfirmationState{ToolCallID: "tc9", ToolName: "write_file", DisplayName: "Write file",
		InvocationMessage: protocol.PlainString("Write x")})
	arrive(m, withBlocker(calmChat(), approval))
	clock.skip(30 * time.Second)
	m.Update(press("I"))
	if m.context() != keymap.ContextInbox {
		t.Fatalf("I: context %v, want the inbox", m.context())
	}
	var kinds []string
	for _, w := range m.waits.items {
		kinds = append(kinds, w.kind.String()+":"+w.title)
	}
	want := []string{
		"MCP server failed:Release 1.4: fix reconnect", // Flaky
		"needs input:Triage flaky tests",
		"sign-in:Release 1.4: fix reconnect",  // the GitHub server; ties go by kind
		"approval:Release 1.4: fix reconnect", // seen five minutes later
	}
	if strings.Join(kinds, "|") != strings.Join(want, "|") {
		t.Fatalf("inbox items\n%s\nwant\n%s", strings.Join(kinds, "\n"), strings.Join(want, "\n"))
	}
	screen := ansi.Strip(m.Render())
	for _, s := range []string{"Inbox", "MCP server failed: Flaky · waiting 5m", "Triage flaky tests · on ws://127.0.0.1:4000/",
		"approval: Write file · waiting 30s", "enter open in place"} {
		if !strings.Contains(screen, s) {
			t.Errorf("inbox lacks %q:\n%s", s, screen)
		}
	}
	// A turn stopped on an error waits too.
	stopped := calmChat()
	stopped.ActiveTurn = nil
	stopped.Turns = append(append([]protocol.Turn(nil), stopped.Turns...), protocol.Turn{ID: "t3", Message: userMsg("go"), State: protocol.TurnStateError})
	arrive(m, stopped)
	if screen := ansi.Strip(m.Render()); !strings.Contains(screen, "turn stopped on an error") || strings.Contains(screen, "approval: Write file") {
		t.Errorf("after the turn failed:\n%s", screen)
	}
	m.Update(press("esc"))
	if m.inbox.open || m.context() == keymap.ContextInbox {
		t.Fatal("esc did not close the inbox")
	}
}

// TestInboxEnterOpensInPlace: enter on an approval selects its card with
// the chat focused, so the approve key acts on it at once; on another
// session it opens that session; on a failed server it selects the server.
func TestInboxEnterOpensInPlace(t *testing.T) {
	m := fxModel(calmChat())
	m.client.(*stubClient).accept = true
	clock := withStepClock(m)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	clock.skip(time.Minute)
	arrive(m, withBlocker(calmChat(), tcPart(protocol.ToolCallPendingConfirmationState{ToolCallID: "tc9", ToolName: "write_file",
		InvocationMessage: protocol.PlainString("Write x")})))
	m.focus = focusSessions
	m.Update(press("I"))
	for range 3 { // the approval came last
		m.Update(press("j"))
	}
	if w := m.waits.items[m.inbox.sel]; w.kind != waitApproval {
		t.Fatalf("selected %v, want the approval", w.kind)
	}
	m.Update(press("enter"))
	if m.inbox.open || m.focus != focusChat || m.chatPanel.sel.item != "tc9" {
		t.Fatalf("enter: inbox open %v, focus %v, selected %q; want the chat on tc9", m.inbox.open, m.focus, m.chatPanel.sel.item)
	}
	withStepClock(m).skip(time.Hour) // past the card's key guard
	m.Update(press("a"))
	sent := m.client.(*stubClient).sent
	if len(sent) == 0 || fmt.Sprintf("%T", sent[len(sent)-1].Variant) != "protocol.ChatToolCallApprovedAction" {
		t.Fatalf("a after the inbox sent %v, want the approval confirmed", sent)
	}

	// The failed server: the MCP panel, on its row.
	m.Update(press("I"))
	m.inbox.sel = slices.IndexFunc(m.waits.items, func(w waitItem) bool { return w.kind == waitMCPFailed })
	m.Update(press("enter"))
	if m.focus != focusMCP || m.signin.servers()[m.mcp.sel].Name != "Flaky" {
		t.Errorf("enter on the failed server: focus %v, server %d", m.focus, m.mcp.sel)
	}

	// Another session: opened.
	var opened []string
	m.requestSession = func(uri string) tea.Cmd { opened = append(opened, uri); return nil }
	m.Update(press("I"))
	m.inbox.sel = slices.IndexFunc(m.waits.items, func(w waitItem) bool { return w.kind == waitSession })
	m.Update(press("enter"))
	if len(opened) != 1 || opened[0] != "ahp-session:/fx2" {
		t.Errorf("enter on the other session opened %v", opened)
	}
}

// TestInboxEmptyAndHelp: an empty inbox says so; its keys are in the
// help line.
func TestInboxEmptyAndHelp(t *testing.T) {
	m := fxModel(calmChat())
	m.sessions.list = m.sessions.list[:1]
	sess := m.sess
	sess.Customizations = nil
	m.sess = sess
	m.signin.sess = sess
	m.Update(press("I"))
	screen := ansi.Strip(m.Render())
	if !strings.Contains(screen, "Nothing is waiting for you.") {
		t.Errorf("empty inbox:\n%s", screen)
	}
	if line := m.helpLine(); !strings.Contains(ansi.Strip(line), "open in place") {
		t.Errorf("help line %q lacks the inbox's keys", ansi.Strip(line))
	}
}

// TestInboxAgentSignIn: the host's own sign-in request (the chat's prompt)
// is in the inbox, and enter selects the prompt, its grant keys live.
func TestInboxAgentSignIn(t *testing.T) {
	m := fxModel(calmChat())
	m.signin.prompts = []agentPrompt{{resource: "https://api.github.com\x1b[2J", channel: fxSession}}
	m.focus = focusSessions
	m.Update(press("I"))
	i := slices.IndexFunc(m.waits.items, func(w waitItem) bool { return strings.HasPrefix(w.server, agentPromptServer) })
	if i < 0 || m.waits.items[i].kind != waitSignIn {
		t.Fatalf("the agent's sign-in is not in the inbox: %+v", m.waits.items)
	}
	if screen := ansi.Strip(m.Render()); !strings.Contains(screen, "sign-in: https://api.github.com") || strings.Contains(m.Render(), "\x1b[2J") {
		t.Errorf("inbox:\n%s", screen)
	}
	m.inbox.sel = i
	m.Update(press("enter"))
	if m.focus != focusChat || !m.chatPanel.sel.prompt || m.context() != keymap.ContextChatGrant {
		t.Fatalf("enter: focus %v, prompt selected %v, context %v", m.focus, m.chatPanel.sel.prompt, m.context())
	}
}
