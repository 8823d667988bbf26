package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
	"github.com/ahptui/ahptui/views"
)

func TestRejectionShowsAndClearsPending(t *testing.T) {
	m := fxModel(fxChatState())
	m.resize(120, 40)
	m.mcp.pending[7] = pendingOp{server: "fs", verb: "stopping", channel: fxSession}
	_, cmd := m.Update(eventMsg{client.ActionRejectedEvent{Channel: fxSession, ClientSeq: 7, Reason: "server is locked\x1b[2J",
		Action: protocol.NewStateAction(protocol.SessionMcpServerStopRequestedAction{ID: "fs"})}})
	pump(t, m, cmd, "the rejection reported", func() bool { return m.status.isErr })
	if _, ok := m.mcp.pending[7]; ok {
		t.Fatal("rejected action still marked pending")
	}
	if !m.status.isErr || !strings.Contains(m.status.text, "could not stop Filesystem") || !strings.Contains(m.status.text, "server is locked") || strings.Contains(m.status.text, "\x1b") {
		t.Fatalf("status %q", m.status.text)
	}
	if !strings.Contains(m.Render(), "server is locked") {
		t.Fatal("rejection not on the status line")
	}
}

// TestPendingMarkerFollowsHostAnswers: an MCP marker belongs to one
// clientSeq and only the host's answer for that clientSeq (or the channel
// going away, or the 30 s safety net) removes it.
func TestPendingMarkerFollowsHostAnswers(t *testing.T) {
	stop := protocol.NewStateAction(protocol.SessionMcpServerStopRequestedAction{ID: "fs"})
	for _, tc := range []struct {
		name    string
		msgs    []tea.Msg
		cleared bool
		status  string
	}{
		{"state events alone keep it", []tea.Msg{
			eventMsg{client.ChannelStateEvent{Channel: fxSession}},
			eventMsg{client.ChannelStateEvent{Channel: fxSession}},
			eventMsg{client.ChannelStateEvent{Channel: fxSession}},
		}, false, ""},
		{"another dispatch's echo keeps it", []tea.Msg{
			eventMsg{client.ActionConfirmedEvent{Channel: fxSession, ClientSeq: 8, Action: stop}},
		}, false, ""},
		{"another dispatch's timeout keeps it", []tea.Msg{settleMsg{seq: 8}}, false, ""},
		{"the host's echo settles it", []tea.Msg{
			eventMsg{client.ChannelStateEvent{Channel: fxSession}},
			eventMsg{client.ActionConfirmedEvent{Channel: fxSession, ClientSeq: 7, Action: stop}},
		}, true, ""},
		{"a rejection settles it", []tea.Msg{
			eventMsg{client.ActionRejectedEvent{Channel: fxSession, ClientSeq: 7, Action: stop, Reason: "no"}},
		}, true, "could not stop"},
		{"a dropped session ends it", []tea.Msg{
			eventMsg{client.ChannelDroppedEvent{Channel: fxSession, Reason: "gone"}},
		}, true, "stopped watching"},
		{"a drop of another channel keeps it", []tea.Msg{
			eventMsg{client.ChannelDroppedEvent{Channel: "ahp-session:/other", Reason: "gone"}},
		}, false, ""},
		{"the safety net says the host never answered", []tea.Msg{settleMsg{seq: 7}}, true, "no answer from host to stopping fs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := fxModel(fxChatState())
			m.resize(120, 40)
			m.focus = focusMCP
			m.mcp.pending[7] = pendingOp{server: "fs", verb: "stopping", channel: fxSession}
			if !strings.Contains(m.Render(), "⋯ pending") {
				t.Fatalf("no marker drawn:\n%s", m.Render())
			}
			for _, msg := range tc.msgs {
				_, cmd := m.Update(msg)
				if tc.status != "" {
					pump(t, m, cmd, "status "+tc.status, statusHas(m, tc.status))
				}
			}
			_, pending := m.mcp.pending[7]
			if pending == tc.cleared {
				t.Fatalf("pending = %v, want %v", pending, !tc.cleared)
			}
			if got := strings.Contains(m.Render(), "⋯ pending"); got != !tc.cleared {
				t.Fatalf("marker drawn = %v, want %v:\n%s", got, !tc.cleared, m.Render())
			}
			if tc.status != "" && !strings.Contains(m.status.text, tc.status) {
				t.Fatalf("status %q, want %q", m.status.text, tc.status)
			}
		})
	}
}

// TestSwitchChat: c opens the chat switcher on the open chat's row; down
// and enter open the next chat.
func TestSwitchChat(t *testing.T) {
	m := fxModel(fxChatState())
	m.sess.Chats = append(m.sess.Chats, protocol.ChatSummary{Resource: "ahp-chat:/fx-2", Title: "Worker"})
	m.Update(press("c"))
	if !m.chats.open || m.sess.Chats[m.chats.sel].Resource != m.openChat {
		t.Fatalf("c did not open the switcher on the open chat (open %v, row %d)", m.chats.open, m.chats.sel)
	}
	m.Update(press("j"))
	_, cmd := m.Update(press("enter"))
	if m.openChat != "ahp-chat:/fx-2" || cmd == nil || m.chats.open {
		t.Fatalf("enter opened %q (switcher open %v)", m.openChat, m.chats.open)
	}
	if msg := cmd().(subscribedMsg); msg.channel != "ahp-chat:/fx-2" || msg.err != nil {
		t.Fatalf("subscribe %+v", msg)
	}
}

func TestNextBlockerOpensOtherSession(t *testing.T) {
	m := fxModel(calmChat())
	// Nothing waits in the open session; fx2 says it needs input.
	_, cmd := m.Update(press("!"))
	if m.openSession != "ahp-session:/fx2" || cmd == nil {
		t.Fatalf("! opened %q", m.openSession)
	}
}

func TestFailedConnectThenRetry(t *testing.T) {
	calls := 0
	stub := fxModel(fxChatState()).client
	m := New(Config{Host: "ws://127.0.0.1:1/", NoColor: true, Tick: -1,
		Connect: func(context.Context) (Client, error) {
			calls++
			if calls == 1 {
				return nil, errors.New("dial tcp 127.0.0.1:1: connection refused")
			}
			return stub, nil
		}})
	m.resize(100, 30)
	m.Update(m.connectCmd()())
	// Short of room the bar cuts the reason, never the remedy or the
	// next try.
	if m.status.conn.state != views.ConnFailed || !strings.Contains(m.Render(), "dial tcp 127.0.0.1:1: connection") ||
		!strings.Contains(m.Render(), "ctrl+r") || !strings.Contains(m.Render(), "next try in") {
		t.Fatalf("failed connect not explained:\n%s", m.Render())
	}
	_, cmd := m.Update(press("ctrl+r"))
	if m.status.conn.state != views.ConnConnecting {
		t.Fatal("ctrl+r did not start connecting")
	}
	pump(t, m, cmd, "the retry to connect", func() bool { return m.status.conn.state == views.ConnReady && m.client != nil })
	m.Shutdown()
}

func TestReconnectKey(t *testing.T) {
	d := newDriver(t, nil)
	d.openDemo()
	d.keys("ctrl+r")
	d.untilEvent("reconnecting", func(ev client.Event) bool {
		c, ok := ev.(client.ConnectionEvent)
		return ok && c.Status == client.StatusReconnecting
	})
	d.until("ready again", func() bool { return d.m.status.conn.state == views.ConnReady })
}

func TestResizeReflows(t *testing.T) {
	m := fxModel(fxChatState())
	for _, w := range []int{60, 80, 100, 140, 250} {
		m.Update(tea.WindowSizeMsg{Width: w, Height: 30})
		lines := strings.Split(m.Render(), "\n")
		if len(lines) != 30 {
			t.Fatalf("%d cols: %d lines", w, len(lines))
		}
		for i, l := range lines {
			if got := lipglossWidth(l); got != w {
				t.Fatalf("%d cols: line %d is %d wide", w, i, got)
			}
		}
	}
}

func lipglossWidth(s string) int { return ansi.StringWidth(s) }

// A tool call running against a server that flips to authRequired gets a
// grant prompt; declining cancels the call.
func TestServerFlipGrantPrompt(t *testing.T) {
	chat := fxChatState(tcPart(protocol.ToolCallRunningState{ToolCallID: "tc-gh", ToolName: "list_issues", DisplayName: "List issues",
		Contributor: mcpBy("gh"), InvocationMessage: protocol.PlainString("Listing issues"), Confirmed: protocol.ToolCallConfirmationReasonNotNeeded}))
	m := fxModel(chat)
	m.resize(120, 50)
	rec := &dispatchRecorder{Client: m.client}
	m.client = rec
	m.chatPanel.sel.item = "tc-gh"
	if m.context().String() != "chat+grant" {
		t.Fatalf("context %s", m.context())
	}
	screen := m.Render()
	// The prompt is on the call's card: between the card's header and its
	// bottom border.
	lines := strings.Split(ansi.Strip(screen), "\n")
	head, bottom := -1, -1
	for i, l := range lines {
		if head < 0 && strings.Contains(l, "List issues") {
			head = i
		}
		if head >= 0 && i > head && bottom < 0 && strings.Contains(l, "┗") {
			bottom = i
		}
	}
	if head < 0 || bottom < 0 {
		t.Fatalf("no card for the running call:\n%s", screen)
	}
	card := strings.Join(lines[head:bottom], "\n")
	for _, want := range []string{"its MCP server needs sign-in", "Grant additional access", "GitHub MCP server", "mcp:read", "declining cancels the call"} {
		if !strings.Contains(card, want) {
			t.Fatalf("card lacks %q:\n%s", want, card)
		}
	}
	m.Update(press("n"))
	if len(rec.sent) != 1 {
		t.Fatalf("sent %d actions", len(rec.sent))
	}
	a := rec.sent[0].Variant.(protocol.ChatToolCallCompleteAction)
	if a.ToolCallID != "tc-gh" || a.TurnID != "t2" || a.Result.Success || deref(a.Result.Error.Code) != protocol.ToolCallErrorCodeCancelled {
		t.Fatalf("toolCallComplete = %+v", a)
	}
}

type dispatchRecorder struct {
	Client
	sent []protocol.StateAction
}

func (r *dispatchRecorder) Dispatch(ch string, a protocol.StateAction) (int64, error) {
	r.sent = append(r.sent, a)
	return int64(len(r.sent)), nil
}

// TestAutoOpenNewestSession: on start the newest session opens by itself
// (a newcomer sees a chat at once) while the session list keeps focus, and
// only once: closing it does not pull the user back on the next listing.
func TestAutoOpenNewestSession(t *testing.T) {
	d := newDriver(t, nil)
	d.until("session list", func() bool { return len(d.m.sessions.list) > 0 })
	newest := d.m.sessions.list[0]
	for _, s := range d.m.sessions.list {
		if s.ModifiedAt > newest.ModifiedAt {
			t.Fatalf("sessions not newest first: %+v", d.m.sessions.list)
		}
	}
	d.until("newest session open", func() bool { return d.m.openSession == newest.Resource && d.m.hasSess && d.m.hasChat })
	if d.m.focus != focusSessions || d.m.context().String() != "sessions" {
		t.Fatalf("auto-open moved focus to %v (%s)", d.m.focus, d.m.context())
	}
	if scr := d.m.Render(); strings.Contains(scr, "Select a session and press enter") {
		t.Fatalf("chat panel still empty after auto-open:\n%s", scr)
	}
	// Closed (e.g. disposed elsewhere), a later listing opens nothing.
	d.send(eventMsg{client.SessionRemovedEvent{Session: newest.Resource}})
	d.send(eventMsg{client.SessionsListedEvent{Sessions: d.m.sessions.list}})
	if d.m.openSession != "" {
		t.Fatalf("a second listing re-opened %s", d.m.openSession)
	}
}

// TestTruncatedSessionListSaysSo: a host that lists more sessions than the
// client keeps (issue 21, finding 4) gets the first that fit, and the
// sessions panel's title and the status line say the list is truncated.
func TestTruncatedSessionListSaysSo(t *testing.T) {
	d := newDriver(t, nil)
	d.until("session list", func() bool { return len(d.m.sessions.list) > 0 })
	if scr := d.m.Render(); strings.Contains(scr, "truncated") {
		t.Fatalf("a whole list is called truncated:\n%s", scr)
	}
	d.send(eventMsg{client.SessionsListedEvent{Sessions: d.m.sessions.list, Truncated: true}})
	if scr, want := d.m.Render(), fmt.Sprintf("Sessions (%d+)", len(d.m.sessions.list)); !strings.Contains(scr, want) {
		t.Errorf("the sessions panel title is not %q:\n%s", want, scr)
	}
	d.until("the status line to say the list is truncated", func() bool {
		return strings.Contains(d.m.Render(), "more sessions than ahptui keeps")
	})
}
