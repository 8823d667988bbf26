package ui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
	"github.com/ahptui/ahptui/views"
)

// TestScrollFromTopMovesAtOnce: after home (or pgup past the top) the
// keys down move the view on their first press (issue 14, item 1); the
// offset used to be set to 1<<30 and never clamped.
func TestScrollFromTopMovesAtOnce(t *testing.T) {
	for _, tc := range []struct {
		name    string
		toTop   []string
		forward string
	}{
		{"home then j", []string{"home"}, "j"},
		{"home then down", []string{"home"}, "down"},
		{"home then pgdn", []string{"home"}, "pgdown"},
		{"pgup past the top then j", slices.Repeat([]string{"pgup"}, 200), "j"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := fxModel(benchChat())
			m.resize(80, 24)
			m.Update(press("end"))
			bottom := m.Render()
			for _, k := range tc.toTop {
				m.Update(press(k))
			}
			top := m.Render()
			if top == bottom {
				t.Fatal("the transcript does not overflow the chat; the test needs it to")
			}
			m.Update(press(tc.forward))
			if m.Render() == top {
				t.Fatalf("%s: the view did not move", tc.forward)
			}
		})
	}
}

// TestNewSessionTakesCursor: once the host lists the session n created,
// the cursor is on it, so d offers to dispose that one (issue 14, item 7).
func TestNewSessionTakesCursor(t *testing.T) {
	m := fxModel(fxChatState())
	m.resize(120, 40)
	m.focus = focusSessions
	m.Update(press("n"))
	if m.modal != modalNewSession {
		t.Fatal("n did not open the new-session dialog")
	}
	// The host's answer to resolveSessionConfig (the stub has no
	// settings) creates the session.
	_, cmd := m.Update(press("enter"))
	m.Update(cmd())
	created := "ahp-session:/fixed-id"
	m.Update(eventMsg{client.SessionAddedEvent{Summary: protocol.SessionSummary{Provider: "demo", Title: "New session",
		Resource: created, CreatedAt: "2026-01-02T15:03:00.000Z", ModifiedAt: "2026-01-02T15:03:00.000Z"}}})
	if got := m.sessions.list[m.sessions.sel].Resource; got != created {
		t.Fatalf("the cursor is on %s, want the new session %s", got, created)
	}
	m.Update(press("d"))
	if m.sessions.confirm != created {
		t.Fatalf("d offers to dispose %q, want %q", m.sessions.confirm, created)
	}
}

// TestHelpOverlayScrolls: at 80x24 the ? overlay was cut and any key
// closed it (issue 14, item 3). j scrolls it to its end, every binding
// shows on the way with no line cut, a stray key leaves it open and esc
// closes it.
func TestHelpOverlayScrolls(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			m := fxModel(fxChatState())
			m.resize(size[0], size[1])
			m.Update(press("?"))
			screen := ansi.Strip(m.Render())
			seen := screen
			for range 400 { // one row a press: the whole list, with room to grow
				for _, l := range strings.Split(screen, "\n") {
					if strings.HasSuffix(strings.TrimRight(l, " │┃"), "…") {
						t.Errorf("a help line is cut: %q", l)
					}
				}
				m.Update(press("j"))
				if !m.showAll {
					t.Fatal("j closed the help overlay")
				}
				next := ansi.Strip(m.Render())
				if next == screen {
					break
				}
				screen = next
				seen += screen
			}
			flat := strings.Join(strings.Fields(seen), " ")
			for _, col := range m.keys.FullHelp() {
				for _, b := range col {
					if m.keys.HostKey(b) && !m.keys.MultiHost() {
						continue // one host: no host keys (TestHostKeysInHelpOnlyWithSeveral)
					}
					if d := b.Help().Desc; len(b.Keys()) > 0 && !strings.Contains(flat, d) {
						t.Errorf("the help overlay never shows %q", d)
					}
				}
			}
			m.Update(press("x"))
			if !m.showAll {
				t.Fatal("a key that is not close closed the help overlay")
			}
			m.Update(press("esc"))
			if m.showAll {
				t.Fatal("esc did not close the help overlay")
			}
		})
	}
}

// TestMCPPanelSidewaysKeys: the MCP badges may sit in a row, but ←/→/h/l
// did nothing, and n there did nothing and said nothing (issue 14,
// item 9).
func TestMCPPanelSidewaysKeys(t *testing.T) {
	m := fxModel(fxChatState())
	m.resize(80, 24)
	m.focus = focusMCP
	if len(m.signin.servers()) < 2 {
		t.Fatal("the fixture needs two MCP servers")
	}
	for _, pair := range [][2]string{{"right", "left"}, {"l", "h"}} {
		m.mcp.sel = 0
		m.Update(press(pair[0]))
		if m.mcp.sel != 1 {
			t.Errorf("%s left the MCP cursor on %d, want 1", pair[0], m.mcp.sel)
		}
		m.Update(press(pair[1]))
		if m.mcp.sel != 0 {
			t.Errorf("%s left the MCP cursor on %d, want 0", pair[1], m.mcp.sel)
		}
	}
	_, cmd := m.Update(press("n"))
	if cmd == nil {
		t.Fatal("n in the MCP panel says nothing")
	}
	if st, ok := cmd().(statusMsg); !ok || !strings.Contains(st.text, "session list") {
		t.Errorf("n in the MCP panel says %#v, want where new sessions are made", st)
	}
}

// TestCtrlCWithDraftAsks: ctrl+c in a composer holding a draft quit and
// lost it (issue 14, item 10); it asks, n keeps the draft, and y (or a
// second ctrl+c) quits.
func TestCtrlCWithDraftAsks(t *testing.T) {
	for _, answer := range []string{"n", "esc", "y", "ctrl+c"} {
		t.Run(answer, func(t *testing.T) {
			m := fxModel(fxChatState())
			m.resize(80, 24)
			m.Update(press("i"))
			for _, r := range "half a thought" {
				m.Update(press(string(r)))
			}
			_, cmd := m.Update(press("ctrl+c"))
			if runsToQuit(cmd) {
				t.Fatal("ctrl+c with a draft quit without asking")
			}
			if s := ansi.Strip(m.Render()); !strings.Contains(s, "lose the draft") {
				t.Fatalf("no question on screen:\n%s", s)
			}
			_, cmd = m.Update(press(answer))
			quit := answer == "y" || answer == "ctrl+c"
			if runsToQuit(cmd) != quit {
				t.Fatalf("%s: quit %v, want %v", answer, !quit, quit)
			}
			if !quit && m.chatPanel.composer.Value() != "half a thought" {
				t.Fatalf("the draft is %q after %s", m.chatPanel.composer.Value(), answer)
			}
		})
	}
}

// TestEmptyChatSaysWhatToType: a chat with no turns shows the agent's
// description, which for the demo names every path's word (issue 14,
// item 4), and the empty composer takes one line so it fits at 80x24
// (item 2).
func TestEmptyChatSaysWhatToType(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			m := fxModel(protocol.ChatState{})
			m.root.Agents[0].Description = demohost.DemoHint()
			m.sess.Provider = m.root.Agents[0].Provider
			m.resize(size[0], size[1])
			m.settle()
			flat := strings.Join(strings.Fields(ansi.Strip(m.Render())), " ")
			for _, p := range append([]demohost.DemoPath{demohost.DemoTour}, demohost.DemoPaths...) {
				if !strings.Contains(flat, `"`+p.Word+`"`) {
					t.Errorf("the empty chat does not name %q:\n%s", p.Word, ansi.Strip(m.Render()))
				}
			}
			if h := m.chatPanel.composerLines(); h != 1 {
				t.Errorf("the empty composer takes %d lines, want 1", h)
			}
			m.Update(press("i"))
			m.Update(press("x"))
			if h := m.chatPanel.composer.Height(); h != composerHeight {
				t.Errorf("a composer with a draft is %d lines, want %d", h, composerHeight)
			}
		})
	}
}

// TestUnreachableHostRetried: a first connect that fails is tried again on
// its own, backing off, and the status bar says when (issue 14, item 5).
func TestUnreachableHostRetried(t *testing.T) {
	tries := 0
	m := New(Config{Host: "ws://127.0.0.1:9/",
		Connect: func(context.Context) (Client, error) { tries++; return nil, errors.New("dial tcp: connection refused") },
		Clock:   func() time.Time { return fixedNow }, NewID: func() string { return "id" }, NoColor: true, Tick: -1,
	})
	m.resize(120, 40)
	for i, want := range []string{"next try in 1s", "next try in 2s", "next try in 4s"} {
		cmd := m.onConnected(connectedMsg{err: errors.New("dial tcp: connection refused")})
		if cmd == nil {
			t.Fatalf("failure %d scheduled no retry", i+1)
		}
		if bar := ansi.Strip(m.Render()); !strings.Contains(bar, want) {
			t.Fatalf("failure %d: the screen does not say %q:\n%s", i+1, want, bar)
		}
		if m.Update(retryConnect{try: m.connTries - 1}); m.status.conn.state != views.ConnFailed {
			t.Fatal("a retry overtaken by a newer one still ran")
		}
		_, cmd = m.Update(retryConnect{try: m.connTries})
		if m.status.conn.state != views.ConnConnecting || cmd == nil {
			t.Fatalf("retry %d did not connect again", i+1)
		}
		if msg, ok := connectResult(cmd).(connectedMsg); !ok || msg.err == nil {
			t.Fatalf("retry %d: %#v, want the connect result", i+1, msg)
		}
	}
	if tries != 3 {
		t.Fatalf("connected %d times, want 3", tries)
	}
}

// The next try stays on a bar too narrow for the whole connect error.
func TestNextTryOutlivesLongError(t *testing.T) {
	m := fxModel(fxChatState())
	m.client = nil
	m.resize(120, 40)
	long := errors.New("connect to ws://127.0.0.1:39863/: jsonrpc: dial ws://127.0.0.1:39863/: dial tcp 127.0.0.1:39863: connect: connection refused")
	m.onConnected(connectedMsg{err: long})
	if bar := ansi.Strip(m.Render()); !strings.Contains(bar, "next try in 1s") {
		t.Fatalf("the bar lost the next try:\n%s", bar)
	}
}

// TestMessageHistoryWhole: a message cut to the status bar's width is
// read whole in the message history, and the error the session ends on is
// what LastError gives main to print (issue 14, item 6).
func TestMessageHistoryWhole(t *testing.T) {
	m := fxModel(fxChatState())
	m.resize(80, 24)
	tail := "enable it before starting it"
	m.Update(statusMsg{err: errors.New("host rejected session/mcpServerStartRequested: this MCP server is disabled for the session; " + tail)})
	if bar := ansi.Strip(m.Render()); strings.Contains(strings.Join(strings.Fields(bar), " "), tail) {
		t.Fatal("the bar shows the whole error; the test needs one it cuts")
	}
	m.Update(press("L"))
	if flat := strings.Join(strings.Fields(ansi.Strip(m.Render())), " "); !strings.Contains(strings.ReplaceAll(flat, "│ ", ""), "before starting") {
		t.Fatalf("the history does not show the error whole:\n%s", ansi.Strip(m.Render()))
	}
	m.Update(press("esc"))
	if m.showMsgs {
		t.Fatal("esc did not close the history")
	}
	if e := m.LastError(); !strings.Contains(e, tail) {
		t.Fatalf("LastError = %q, want the whole error", e)
	}
	m.Update(statusMsg{text: "all good"})
	if e := m.LastError(); e != "" {
		t.Fatalf("LastError = %q after an informational message, want none", e)
	}
}

// TestFollowResumesAfterCard: when the view scrolled up to show a card
// that waits on the user, answering it (the card stops waiting) brings the
// view back to the chat's end, so the agent's next lines are seen (issue
// 14, item 2); a scroll the user made stays.
func TestFollowResumesAfterCard(t *testing.T) {
	for _, userScrolled := range []bool{false, true} {
		m := fxModel(fxChatState())
		m.resize(80, 24)
		cp := m.chatPanel
		it, ok := cp.newestBlocker()
		if !ok {
			t.Fatal("the fixture chat has no card waiting on the user")
		}
		cp.blockersChanged()
		cp.sel, cp.scroll, cp.cardScroll = chatSel{item: it.ID}, 5, true
		if userScrolled {
			cp.scrollBy(1)
		}
		// The host's answer: nothing waits any more.
		m.chat = calmChat()
		cp.blockersChanged()
		if got := cp.scroll == 0; got == userScrolled {
			t.Errorf("user scrolled %v: scroll %d after the card was answered", userScrolled, cp.scroll)
		}
	}
}

// connectResult runs cmd, or the commands of the batch it returns (a
// retry also starts the progress tick), and returns the connect's result.
func connectResult(cmd tea.Cmd) tea.Msg {
	msg := cmd()
	batch, ok := msg.(tea.BatchMsg)
	if !ok {
		return msg
	}
	for _, c := range batch {
		if c == nil {
			continue
		}
		if m, ok := c().(connectedMsg); ok {
			return m
		}
	}
	return nil
}
