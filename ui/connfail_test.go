package ui

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/protocol/client"
)

// TestVersionRefusalNotRetried: a host that refuses every version ahptui
// offers (-32005) is not tried again on its own (issue 20); the bar says
// so in one line with both sides' versions, and ctrl+r still retries.
func TestVersionRefusalNotRetried(t *testing.T) {
	tries := 0
	refusal := &client.UnsupportedProtocolVersionError{Offered: []string{"1.0.0", "0.6.0"}, Supported: []string{"2.0.0"}}
	m := New(Config{Host: "ws://127.0.0.1:9/",
		Connect: func(context.Context) (Client, error) { tries++; return nil, refusal },
		Clock:   func() time.Time { return fixedNow }, NewID: func() string { return "id" }, NoColor: true, Tick: -1,
	})
	m.resize(120, 40)
	if cmd := m.onConnected(connectedMsg{err: refusal}); cmd != nil {
		t.Fatal("a version refusal scheduled a retry")
	}
	bar := ansi.Strip(m.Render())
	if !strings.Contains(bar, "version refused: host accepts AHP 2.0.0; ahptui offers 1.0.0, 0.6.0") || strings.Contains(bar, "next try") {
		t.Fatalf("the bar does not give the one-line verdict without a next try:\n%s", bar)
	}
	if h := m.status.history; len(h) != 1 || !strings.Contains(h[0].Text, "upgrade the host") {
		t.Fatalf("the history does not hold the refusal and its advice: %+v", h)
	}
	_, cmd := m.Update(press("ctrl+r"))
	if cmd == nil {
		t.Fatal("ctrl+r did not connect again")
	}
	if msg, ok := connectResult(cmd).(connectedMsg); !ok || !errors.As(msg.err, &refusal) || tries != 1 {
		t.Fatalf("ctrl+r: %#v after %d tries", msg, tries)
	}
}

// TestConnectProgress: while connecting the bar says which attempt and
// for how long (issue 20: a silent host showed "connecting" for half a
// minute with nothing else).
func TestConnectProgress(t *testing.T) {
	now := fixedNow
	m := New(Config{Host: "ws://127.0.0.1:9/",
		Connect: func(ctx context.Context) (Client, error) { <-ctx.Done(); return nil, ctx.Err() },
		Clock:   func() time.Time { return now }, NewID: func() string { return "id" }, NoColor: true, Tick: -1,
	})
	m.resize(80, 24)
	now = now.Add(3 * time.Second)
	m.Update(connTickMsg{})
	if bar := ansi.Strip(m.Render()); !strings.Contains(bar, "attempt 1 · 3s") {
		t.Fatalf("the bar does not show the progress:\n%s", bar)
	}
	m.onConnected(connectedMsg{err: errors.New("connect to ws://127.0.0.1:9/: connection refused: dial")})
	now = now.Add(time.Minute)
	m.Update(retryConnect{try: m.connTries})
	now = now.Add(2 * time.Second)
	if bar := ansi.Strip(m.Render()); !strings.Contains(bar, "attempt 2 · 2s") {
		t.Fatalf("the retry's progress is not shown:\n%s", bar)
	}
}

// TestReconnectCauseKindFirst: while reconnecting, the bar names the
// failed attempt's kind, not "connect to ws://…" cut at its width, and
// the history keeps the whole text once.
func TestReconnectCauseKindFirst(t *testing.T) {
	m := fxModel(fxChatState())
	m.resize(80, 24)
	cause := &fakeDialError{short: "connection refused", text: "connect to ws://127.0.0.1:9/: connection refused: dial tcp 127.0.0.1:9: connect: connection refused"}
	for attempt := 1; attempt <= 3; attempt++ {
		m.Update(eventsMsg{[]client.Event{client.ConnectionEvent{Status: client.StatusReconnecting, Attempt: attempt, Cause: cause}}})
	}
	bar := ansi.Strip(m.Render())
	if !strings.Contains(bar, "attempt 3 · connection refused") {
		t.Fatalf("the bar does not lead with the kind:\n%s", bar)
	}
	n := 0
	for _, h := range m.status.history {
		if h.Text == cause.text {
			n++
		}
	}
	if n != 1 {
		t.Errorf("the history holds the cause %d times, want once: %+v", n, m.status.history)
	}
}

// fakeDialError stands for host/dial.DialError (ui does not import it).
type fakeDialError struct{ short, text string }

func (e *fakeDialError) Error() string { return e.text }
func (e *fakeDialError) Short() string { return e.short }
