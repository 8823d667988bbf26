package ui

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
)

// TestNewWhileDisconnectedSaysSo: n before any connect succeeded blamed
// the host ("offers no agents") and that line was printed on exit as the
// session's last error (issue 22, item 3). It says the app is not
// connected, and a refused key is not what the session ended on.
func TestNewWhileDisconnectedSaysSo(t *testing.T) {
	m := New(Config{Host: "ws://127.0.0.1:9/",
		Connect: func(context.Context) (Client, error) { return nil, errors.New("dial tcp: connection refused") },
		Clock:   func() time.Time { return fixedNow }, NewID: func() string { return "id" }, NoColor: true, Tick: -1,
	})
	m.resize(80, 24)
	m.onConnected(connectedMsg{err: errors.New("dial tcp 127.0.0.1:9: connect: connection refused")})
	m.focus = focusSessions
	_, cmd := m.Update(press("n"))
	if cmd == nil {
		t.Fatal("n while disconnected said nothing")
	}
	m.Update(cmd())
	if strings.Contains(m.status.text, "offers no agents") || !strings.Contains(m.status.text, "not connected") {
		t.Fatalf("n while disconnected says %q, want that the app is not connected", m.status.text)
	}
	if e := m.LastError(); strings.Contains(e, "not connected: wait") || strings.Contains(e, "offers no agents") {
		t.Fatalf("LastError = %q: a refused key is printed on exit", e)
	}
	if s := ansi.Strip(m.Render()); strings.Contains(s, "offers no agents") {
		t.Fatalf("the screen blames the host:\n%s", s)
	}
}

// TestWriteFromSessionList: i in the session list did nothing while the
// empty chat said "press i to write the first one" (issue 22, item 7). It
// opens the composer of the session under the cursor: the open one at
// once, another one as soon as its chat arrives, and from the MCP panel
// the open session's.
func TestWriteFromSessionList(t *testing.T) {
	d := newDriver(t, nil)
	d.openDemo()
	// A second session, so the cursor can rest on one that is not open.
	d.m.focus = focusSessions
	newSessionSettings(d)
	d.keys("enter")
	d.until("the new session open", func() bool {
		return d.m.openSession != demohost.DemoSessionURI && d.m.hasChat && d.m.sessions.listed(d.m.openSession)
	})
	created := d.m.openSession
	d.m.focus = focusSessions
	for i, s := range d.m.sessions.list {
		if s.Resource == demohost.DemoSessionURI {
			d.m.sessions.sel = i
		}
	}
	d.keys("i")
	d.until("the demo session's composer", func() bool {
		return d.m.openSession == demohost.DemoSessionURI && d.m.hasChat && d.m.focus == focusComposer
	})
	d.typeText("hello")
	if got := d.m.chatPanel.composer.Value(); got != "hello" {
		t.Fatalf("the composer holds %q, want what was typed", got)
	}
	d.keys("esc")
	d.m.chatPanel.composer.Reset()

	// The open session under the cursor: the composer opens at once.
	d.m.focus = focusSessions
	d.keys("i")
	if d.m.focus != focusComposer || d.m.openSession != demohost.DemoSessionURI {
		t.Fatalf("i on the open session: focus %v, session %s", d.m.focus, d.m.openSession)
	}
	d.keys("esc")

	// From the MCP panel: the open session's composer.
	d.m.focus = focusMCP
	d.keys("i")
	if d.m.focus != focusComposer {
		t.Fatalf("i in the MCP panel: focus %v, want the composer", d.m.focus)
	}
	_ = created
}

// TestQuitWithApprovalWaitingAsks: q quit at once while a tool call
// waited for approval (issue 22, item 12); it asks, n stays and y quits.
func TestQuitWithApprovalWaitingAsks(t *testing.T) {
	for _, answer := range []string{"n", "y"} {
		t.Run(answer, func(t *testing.T) {
			m := fxModel(fxChatState())
			m.resize(80, 24)
			_, cmd := m.Update(press("q"))
			if runsToQuit(cmd) {
				t.Fatal("q with an approval waiting quit without asking")
			}
			if s := squash(m.Render()); !strings.Contains(s, squash("1 approval or question waits for you")) {
				t.Fatalf("no question on screen:\n%s", ansi.Strip(m.Render()))
			}
			_, cmd = m.Update(press(answer))
			if runsToQuit(cmd) != (answer == "y") {
				t.Fatalf("%s: quit %v", answer, answer != "y")
			}
		})
	}
	// Nothing waiting, no draft: q quits at once.
	m := fxModel(protocol.ChatState{})
	m.resize(80, 24)
	if _, cmd := m.Update(press("q")); !runsToQuit(cmd) {
		t.Fatal("q with nothing waiting did not quit")
	}
}

// TestForgetAsksFirst: x in the sign-ins sheet forgot and revoked the
// grant at once, while d asks before disposing (issue 22, item 12). It
// asks; n keeps the grant (still active at the authorization server), y
// forgets it.
func TestForgetAsksFirst(t *testing.T) {
	rig := newSignInRig(t)
	auth := rig.auth()
	d := newDriverOn(t, rig.host(), auth)
	res, g := startGitHubSignIn(d)
	approveInBrowser(t, g.url)
	d.until("GitHub ready", githubReady(d))
	d.keys("S", "x")
	if !screenHas(d.m, "Forget the sign-in to "+res) {
		t.Fatalf("x did not ask:\n%s", ansi.Strip(d.m.Render()))
	}
	if d.m.signin.list.busy || len(auth.Grants()) != 1 {
		t.Fatal("x forgot the grant before the answer")
	}
	d.keys("n")
	if d.m.signin.list.busy || len(auth.Grants()) != 1 || !d.m.signin.list.open {
		t.Fatal("n forgot the grant or closed the sheet")
	}
	if screenHas(d.m, "Forget the sign-in to "+res+"?") {
		t.Fatalf("the question stayed after n:\n%s", ansi.Strip(d.m.Render()))
	}
	d.keys("x", "y")
	d.until("forgotten", func() bool { return strings.HasPrefix(d.m.signin.list.note, "forgot") })
	if len(auth.Grants()) != 0 {
		t.Fatal("y did not forget the grant")
	}
}

// TestStatusExpiresWhenIdle: an informational message was dropped only on
// the next tick or event, so an idle app kept it 12-30 s (issue 22,
// item 8). It leaves after its time with nothing else happening; a newer
// message is not cut short by the older one's timer; an error stays.
func TestStatusExpiresWhenIdle(t *testing.T) {
	m := fxModel(fxChatState())
	m.resize(80, 24)
	m.status.ttl = 20 * time.Millisecond
	_, first := m.Update(statusMsg{text: "access granted for https://x.example/"})
	if first == nil {
		t.Fatal("an informational message set no timer: it stays until something else happens")
	}
	expired := first()
	_, second := m.Update(statusMsg{text: "newer"})
	m.Update(expired)
	if m.status.text != "newer" {
		t.Fatalf("the older message's timer dropped the newer one: %q", m.status.text)
	}
	m.Update(second())
	if m.status.text != "" {
		t.Fatalf("the message is still shown after its time: %q", m.status.text)
	}
	_, cmd := m.Update(statusMsg{err: errors.New("boom")})
	if cmd != nil {
		m.Update(cmd())
	}
	if !m.status.isErr || m.status.text == "" {
		t.Fatal("an error expired")
	}
}

// TestStatusDroppedWhenFalse: "message queued: it starts when the running
// turn ends" outlived its turn, and "reconnecting on request" stayed after
// the connection was back (issue 22, item 8). Each leaves when a later
// state makes it false.
func TestStatusDroppedWhenFalse(t *testing.T) {
	t.Run("queued", func(t *testing.T) {
		d := newDriver(t, nil)
		d.openDemo()
		d.sendMessage("write")
		d.until("the approval", func() bool { return d.m.chat.ActiveTurn != nil && d.m.chatPanel.waitingHere() > 0 })
		turn := d.m.chat.ActiveTurn.ID
		d.sendMessage("stream")
		d.until("queued", func() bool { return strings.HasPrefix(d.m.status.text, "message queued") })
		// Approved elsewhere (another window): nothing here says anything
		// new, and the turn ends.
		it := d.waitItem("the pending call", func(it chatItem) bool {
			return it.Kind == itemToolCall && it.Tool.Status() == protocol.ToolCallStatusPendingConfirmation
		})
		if _, err := d.rec.Client.Dispatch(d.m.openChat, protocol.NewStateAction(protocol.ChatToolCallApprovedAction{TurnID: it.TurnID, ToolCallID: it.ID,
			Approved: true, Confirmed: protocol.ToolCallConfirmationReasonUserAction})); err != nil {
			t.Fatal(err)
		}
		d.until("the turn ended", func() bool { return d.m.chat.ActiveTurn == nil || d.m.chat.ActiveTurn.ID != turn })
		if strings.HasPrefix(d.m.status.text, "message queued") {
			t.Fatalf("the status line still says %q after its turn ended", d.m.status.text)
		}
	})
	t.Run("reconnecting", func(t *testing.T) {
		d := newDriver(t, nil)
		d.openDemo()
		d.keys("ctrl+r")
		d.until("reconnecting said", func() bool { return d.m.status.text == "reconnecting on request" })
		d.untilEvent("ready again", func(ev client.Event) bool {
			c, ok := ev.(client.ConnectionEvent)
			return ok && c.Status == client.StatusReady
		})
		if d.m.status.text == "reconnecting on request" {
			t.Fatalf("the status line still says %q after the connection is back", d.m.status.text)
		}
	})
}

// TestWordingSaysWhatUserDid: a rejected action named the protocol method
// ("host rejected session/mcpServerStartRequested: ...") and a created
// session read "create session: done" (issue 22, item 14). They say what
// the user did, in words.
func TestWordingSaysWhatUserDid(t *testing.T) {
	m := fxModel(fxChatState())
	m.resize(120, 40)
	rows := m.signin.servers()
	if len(rows) == 0 {
		t.Fatal("the fixture has no MCP server")
	}
	srv := rows[0]
	for _, tc := range []struct {
		action protocol.StateActionVariant
		want   string
	}{
		{protocol.SessionMcpServerStartRequestedAction{ID: srv.ID}, "could not start " + srv.Name + ": the host said: disabled"},
		{protocol.SessionMcpServerStopRequestedAction{ID: srv.ID}, "could not stop " + srv.Name},
		{protocol.ChatToolCallApprovedAction{ToolCallID: "tc4", Approved: true}, "could not approve"},
		{protocol.ChatTurnStartedAction{TurnID: "t9"}, "could not send the message"},
	} {
		runAll(m, m.onEvent(client.ActionRejectedEvent{Action: protocol.NewStateAction(tc.action), Reason: "disabled"}))
		if !strings.Contains(m.status.text, tc.want) || strings.Contains(m.status.text, "session/") || strings.Contains(m.status.text, "chat/") {
			t.Errorf("rejected %T says %q, want %q and no method name", tc.action, m.status.text, tc.want)
		}
	}
	runAll(m, m.onOpDone(opDoneMsg{what: "create session"}))
	if strings.Contains(m.status.text, ": done") || !strings.Contains(m.status.text, "session created") {
		t.Errorf("a created session says %q, want \"session created\"", m.status.text)
	}
}

// TestEscCancelsSignInOnce: one esc on a waiting sign-in logged "sign-in
// cancelled" twice: once for the key, once when the flow's end came back
// (issue 22, item 16).
func TestEscCancelsSignInOnce(t *testing.T) {
	rig := newSignInRig(t)
	d := newDriverOn(t, rig.host(), rig.auth())
	startGitHubSignIn(d)
	// The key's own word is said now: run by the driver, it could come
	// back after the flow's end and be missed.
	_, cmd := d.m.Update(press("esc"))
	for _, st := range statusesOf(cmd) {
		d.m.Update(st)
	}
	deadline := time.After(10 * time.Second)
	for done := false; !done; {
		select {
		case msg := <-d.msgs:
			if _, done = msg.(grantDoneMsg); !done {
				d.send(msg)
				continue
			}
			// What the flow's end says, said now rather than later. The
			// update's command may be a batch (a guard's redraw tick
			// beside the word): every status in it counts.
			_, cmd := d.m.Update(msg)
			for _, st := range statusesOf(cmd) {
				d.m.Update(st)
			}
		case <-deadline:
			t.Fatal("the cancelled flow never ended")
		}
	}
	n := 0
	for _, e := range d.m.status.history {
		if e.Text == "sign-in cancelled" {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("one esc logged \"sign-in cancelled\" %d times, want once", n)
	}
}

// statusesOf is the status words cmd brings (msgsOf).
func statusesOf(cmd tea.Cmd) []statusMsg {
	var out []statusMsg
	for _, msg := range msgsOf(cmd) {
		if st, ok := msg.(statusMsg); ok {
			out = append(out, st)
		}
	}
	return out
}

// TestHelpOverlayNoFrameSlivers: at 80x24 the ? overlay was two columns
// narrower than the screen, so a column of the panels' frames showed at
// each edge ("╭┏━ Keys", issue 22, item 16). The overlay's frame is the
// screen's edge, or a margin wide enough to read as one.
func TestHelpOverlayNoFrameSlivers(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		m := fxModel(fxChatState())
		m.resize(size[0], size[1])
		m.Update(press("?"))
		for i, l := range strings.Split(ansi.Strip(m.Render()), "\n") {
			r := []rune(l)
			if len(r) < 2 {
				continue
			}
			if strings.ContainsRune("┏┃┗", r[1]) && r[0] != ' ' || strings.ContainsRune("┓┃┛", r[len(r)-2]) && r[len(r)-1] != ' ' {
				t.Fatalf("%dx%d row %d shows a sliver of the panels beside the overlay: %q", size[0], size[1], i, l)
			}
		}
	}
}

// TestOpeningMarksRead: the unread dot never cleared (issue 22, item 6).
// Opening a session tells the host it is read (session/isReadChanged),
// and the list's dot goes.
func TestOpeningMarksRead(t *testing.T) {
	d := newDriver(t, nil)
	d.openDemo()
	d.until("the demo session read", func() bool {
		for _, s := range d.m.sessions.list {
			if s.Resource == demohost.DemoSessionURI {
				return s.Status.Has(protocol.SessionStatusIsRead)
			}
		}
		return false
	})
}
