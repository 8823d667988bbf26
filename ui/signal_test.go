package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
	"github.com/ahptui/ahptui/views"
)

// msgsOf runs cmd the way the program would and returns the messages it
// brings: a batch is walked, and a command still blocked after a moment
// (waiting for host events, a tick) is abandoned, since the messages a
// test looks for (tea.Raw's, a status word) come at once.
func msgsOf(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	ch := make(chan tea.Msg, 1)
	go func() { ch <- cmd() }()
	select {
	case msg := <-ch:
		if b, ok := msg.(tea.BatchMsg); ok {
			var out []tea.Msg
			for _, c := range b {
				out = append(out, msgsOf(c)...)
			}
			return out
		}
		return []tea.Msg{msg}
	case <-time.After(200 * time.Millisecond):
	}
	return nil
}

// raws is what cmd writes raw (tea.Raw).
func raws(cmd tea.Cmd) []string {
	var out []string
	for _, msg := range msgsOf(cmd) {
		if r, ok := msg.(tea.RawMsg); ok {
			out = append(out, fmt.Sprint(r.Msg))
		}
	}
	return out
}

// update hands msg to m and returns what it wrote raw.
func update(m *Model, msg tea.Msg) []string {
	_, cmd := m.Update(msg)
	return raws(cmd)
}

// arriveRaw is arrive, returning what the update wrote raw.
func arriveRaw(m *Model, next protocol.ChatState) []string {
	m.client.(*stubClient).chats[fxChat] = next
	return update(m, eventMsg{client.ChannelStateEvent{Channel: fxChat}})
}

// signalModel is the fixture with signals on, in a plain terminal, after
// the first update has seen what already waits (the fixture has a
// pending approval, MCP servers failed and waiting for sign-in, and a
// session needing input): that is the baseline, and rings nothing.
func signalModel(t *testing.T, chat protocol.ChatState) *Model {
	t.Helper()
	m := fxModel(chat)
	m.cfg.Notify = true
	m.cfg.NotifyTerm = views.NotifyTerm{Term: "xterm-256color"}
	m.sessions.listedOnce = true // the fixture stands for a host that listed its sessions
	if got := update(m, tea.WindowSizeMsg{Width: 120, Height: 40}); len(got) != 0 {
		t.Fatalf("the first update wrote %q: what waited when ahptui started rang", got)
	}
	return m
}

// TestSignalNotForWhatWaitedAtStart: what already waits when ahptui
// starts (the listing, and the session it opens by itself) is on the
// screen the user just opened: it does not ring, even before the first
// listing arrives; what starts waiting after does.
func TestSignalNotForWhatWaitedAtStart(t *testing.T) {
	m := fxModel(withBlocker(calmChat(), fxAuthPart()))
	m.cfg.Notify = true
	m.cfg.NotifyTerm = views.NotifyTerm{Term: "xterm-256color"}
	if got := update(m, tea.WindowSizeMsg{Width: 120, Height: 40}); len(got) != 0 {
		t.Fatalf("before the first listing, what waits rang: %q", got)
	}
	m.sessions.listedOnce = true
	if got := update(m, tea.WindowSizeMsg{Width: 100, Height: 30}); len(got) != 0 {
		t.Fatalf("the first listing rang for what already waited: %q", got)
	}
	approval := tcPart(protocol.ToolCallPendingConfirmationState{ToolCallID: "tc9", ToolName: "write_file", DisplayName: "Write file",
		InvocationMessage: protocol.PlainString("Write x")})
	if got := arriveRaw(m, withBlocker(withBlocker(calmChat(), fxAuthPart()), approval)); len(got) != 1 || !strings.Contains(got[0], "approval (Write file) waits") {
		t.Fatalf("a new approval after the start wrote %q, want one signal", got)
	}
}

func isSignal(s string) bool {
	return strings.HasPrefix(s, "\a\x1b]9;") && strings.HasSuffix(s, "\a")
}

// TestSignalOnePerNewWaitingItem: the bell and notification go out on the
// edge of something new waiting, once, and not again on later updates.
func TestSignalOnePerNewWaitingItem(t *testing.T) {
	m := signalModel(t, calmChat())
	if got := update(m, tea.WindowSizeMsg{Width: 100, Height: 30}); len(got) != 0 {
		t.Fatalf("an update with nothing new wrote %q", got)
	}
	got := arriveRaw(m, withBlocker(calmChat(), fxAuthPart()))
	if len(got) != 1 || !isSignal(got[0]) || !strings.Contains(got[0], "sign-in (Deploy) waits") {
		t.Fatalf("a new sign-in wrote %q, want one signal naming it", got)
	}
	if !strings.Contains(got[0], "ws://127.0.0.1:4000/ · Release 1.4: fix reconnect") {
		t.Errorf("the signal does not name host and session: %q", got[0])
	}
	// The same item on the next renders and events: no second signal.
	for range 3 {
		if got := arriveRaw(m, withBlocker(calmChat(), fxAuthPart())); len(got) != 0 {
			t.Fatalf("the same waiting item signalled again: %q", got)
		}
		if got := update(m, press("j")); len(got) != 0 {
			t.Fatalf("a key signalled: %q", got)
		}
	}
	// A second, different item is a new edge.
	approval := tcPart(protocol.ToolCallPendingConfirmationState{ToolCallID: "tc9", ToolName: "write_file", DisplayName: "Write file",
		InvocationMessage: protocol.PlainString("Write x")})
	both := withBlocker(withBlocker(calmChat(), fxAuthPart()), approval)
	if got := arriveRaw(m, both); len(got) != 1 || !strings.Contains(got[0], "approval (Write file) waits") {
		t.Fatalf("a new approval wrote %q, want one signal naming it", got)
	}
	// Answered and gone, then back: a new wait, a new signal.
	if got := arriveRaw(m, calmChat()); len(got) != 0 {
		t.Fatalf("items going away signalled: %q", got)
	}
	if got := arriveRaw(m, both); len(got) != 1 || !strings.Contains(got[0], ", and 1 more") {
		t.Fatalf("two items back at once wrote %q, want one signal for both", got)
	}
}

// TestSignalFollowsFocus: while the terminal says ahptui is in front,
// nothing rings; once it says we lost focus, new items signal again.
func TestSignalFollowsFocus(t *testing.T) {
	m := signalModel(t, calmChat())
	update(m, tea.FocusMsg{})
	if got := arriveRaw(m, withBlocker(calmChat(), fxAuthPart())); len(got) != 0 {
		t.Fatalf("focused, a new item wrote %q", got)
	}
	if got := update(m, tea.BlurMsg{}); len(got) != 0 {
		t.Fatalf("losing focus signalled what was already seen: %q", got)
	}
	approval := tcPart(protocol.ToolCallPendingConfirmationState{ToolCallID: "tc9", ToolName: "write_file", InvocationMessage: protocol.PlainString("Write x")})
	if got := arriveRaw(m, withBlocker(withBlocker(calmChat(), fxAuthPart()), approval)); len(got) != 1 || !isSignal(got[0]) {
		t.Fatalf("blurred, a new item wrote %q, want one signal", got)
	}
	if v := m.View(); !v.ReportFocus {
		t.Error("the view does not ask the terminal for focus reports")
	}
}

// TestSignalOff: with signals off (--no-notify, config.json), nothing is
// written, while the inbox still tracks what waits.
func TestSignalOff(t *testing.T) {
	m := fxModel(calmChat())
	if got := update(m, tea.WindowSizeMsg{Width: 120, Height: 40}); len(got) != 0 {
		t.Fatalf("signals off: the first update wrote %q", got)
	}
	if got := arriveRaw(m, withBlocker(calmChat(), fxAuthPart())); len(got) != 0 {
		t.Fatalf("signals off: a new item wrote %q", got)
	}
	if len(m.waits.items) == 0 {
		t.Fatal("nothing tracked")
	}
}

// TestSignalTextIsInert: a hostile session title and a host address
// carrying a connection token reach the notification cleaned, the token
// hidden, in the terminal's form (tmux passthrough here).
func TestSignalTextIsInert(t *testing.T) {
	m := fxModel(calmChat())
	m.cfg.Notify = true
	m.cfg.Host = "ws://user:pw@127.0.0.1:4000/?tkn=SECRET-TOKEN"
	m.cfg.NotifyTerm = views.NotifyTerm{Term: "tmux-256color", Tmux: true}
	m.sessions.listedOnce = true
	update(m, tea.WindowSizeMsg{Width: 120, Height: 40}) // the baseline
	for i := range m.sessions.list {
		m.sessions.list[i].Title = "evil\x1b]52;c;AAAA\x07\x1b[2J title\r\nnext " + strings.Repeat("long ", 100)
	}
	got := arriveRaw(m, withBlocker(calmChat(), fxAuthPart()))
	if len(got) != 1 {
		t.Fatalf("wrote %q, want one signal", got)
	}
	s := got[0]
	if !strings.HasPrefix(s, "\a\x1bPtmux;\x1b\x1b]9;") || !strings.HasSuffix(s, "\a\x1b\\") {
		t.Fatalf("not a tmux-wrapped OSC 9: %q", s)
	}
	for _, bad := range []string{"SECRET-TOKEN", "tkn", "pw@", "52;c", "[2J", "\r", "\n"} {
		if strings.Contains(s, bad) {
			t.Errorf("the signal carries %q: %q", bad, s)
		}
	}
	if !strings.Contains(s, "evil title next long") {
		t.Errorf("the title is not named: %q", s)
	}
	if len(s) > 2*views.NotifyMaxRunes+64 {
		t.Errorf("signal of %d bytes: not bounded", len(s))
	}
}

// TestSignalSessionSwitchIsNotNew: opening the session whose "needs
// input" row was seen turns it into its items; that is the same wait,
// seen closer: no signal, and the items keep its first-seen time.
func TestSignalSessionSwitchIsNotNew(t *testing.T) {
	var wt waitTracker
	t0 := fixedNow
	other := waitItem{host: "h", session: "s2", kind: waitSession, at: blocker{session: "s2"}}
	if fresh := wt.observe([]waitItem{other}, "s1", t0); len(fresh) != 1 {
		t.Fatalf("first sight: %d fresh", len(fresh))
	}
	opened := waitItem{host: "h", session: "s2", kind: waitApproval, at: blocker{session: "s2", chat: "c", item: "tc"}}
	if fresh := wt.observe([]waitItem{opened}, "s2", t0.Add(time.Minute)); len(fresh) != 0 {
		t.Fatalf("opening s2: %d fresh", len(fresh))
	}
	if !wt.items[0].since.Equal(t0) {
		t.Errorf("the item's wait starts %v, want the session's %v", wt.items[0].since, t0)
	}
	// A new item in the session now open is new.
	second := opened
	second.at.item = "tc2"
	if fresh := wt.observe([]waitItem{opened, second}, "s2", t0.Add(2*time.Minute)); len(fresh) != 1 || fresh[0].at.item != "tc2" {
		t.Fatalf("a second item: fresh %+v", fresh)
	}
}

// TestSignalAnsweredCardNotNew: an approval the user answered shows as
// running in the chat while the session's inputNeeded still lists it (the
// host drops it a moment later). It waits on no one: no new signal (it
// once read as a new "sign-in"), and the inbox drops it at once.
func TestSignalAnsweredCardNotNew(t *testing.T) {
	pending := protocol.ToolCallPendingConfirmationState{ToolCallID: "tc9", ToolName: "write_file", DisplayName: "Write file",
		InvocationMessage: protocol.PlainString("Write x")}
	m := signalModel(t, calmChat())
	stub := m.client.(*stubClient)
	sess := stub.sessions[fxSession]
	sess.InputNeeded = []protocol.SessionInputRequest{protocol.NewSessionInputRequest(protocol.SessionToolConfirmationRequest{
		ID: "in9", Chat: fxChat, TurnID: "t2", ToolCall: protocol.NewToolCallConfirmationState(pending)})}
	stub.sessions[fxSession] = sess
	stub.chats[fxChat] = withBlocker(calmChat(), tcPart(pending))
	got := update(m, eventsMsg{[]client.Event{client.ChannelStateEvent{Channel: fxSession}, client.ChannelStateEvent{Channel: fxChat}}})
	if len(got) != 1 || !strings.Contains(got[0], "approval (Write file)") {
		t.Fatalf("the approval wrote %q", got)
	}
	running := tcPart(protocol.ToolCallRunningState{ToolCallID: "tc9", ToolName: "write_file", DisplayName: "Write file",
		InvocationMessage: protocol.PlainString("Write x")})
	if got := arriveRaw(m, withBlocker(calmChat(), running)); len(got) != 0 {
		t.Fatalf("the answered approval, still listed by the session, wrote %q", got)
	}
	for _, w := range m.waits.items {
		if w.at.item == "tc9" {
			t.Errorf("the answered call is still in the inbox as %v", w.kind)
		}
	}
}
