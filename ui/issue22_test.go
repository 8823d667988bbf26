package ui

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/demohost"
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
	d.keys("n", "enter")
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
