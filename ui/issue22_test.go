package ui

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
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
