package chaos

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/protocol/client"
	"github.com/ahptui/ahptui/ui"
)

// uiClient is the real victim client with its event stream replaced by one
// the test feeds, so the model sees exactly the events the test observed,
// and with Close left to the test.
type uiClient struct {
	*client.Client
	events chan client.Event
}

func (u *uiClient) Events() <-chan client.Event { return u.events }
func (u *uiClient) Close() error                { return nil }

// uiProbe is a real ui.Model driven by a minimal Bubble Tea loop: commands
// run in goroutines and their messages come back to Update on the test
// goroutine.
type uiProbe struct {
	t    testing.TB
	m    *ui.Model
	cli  *uiClient
	msgs chan tea.Msg
	done chan struct{}
}

func newUIProbe(t testing.TB, c *client.Client) *uiProbe {
	t.Helper()
	p := &uiProbe{t: t, cli: &uiClient{Client: c, events: make(chan client.Event, 16)},
		msgs: make(chan tea.Msg, 64), done: make(chan struct{})}
	p.m = ui.New(ui.Config{
		Host:    "chaos",
		Connect: func(context.Context) (ui.Client, error) { return p.cli, nil },
		Tick:    -1,
		NoColor: true,
	})
	t.Cleanup(func() {
		p.m.Shutdown()
		close(p.done)
	})
	p.send(tea.WindowSizeMsg{Width: 140, Height: 40})
	p.run(p.m.Init())
	p.until("the model to connect", func() bool { return strings.Contains(p.statusLine(), "connected") })
	return p
}

func (p *uiProbe) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		msg := cmd()
		if msg == nil {
			return
		}
		select {
		case p.msgs <- msg:
		case <-p.done:
		}
	}()
}

func (p *uiProbe) send(msg tea.Msg) {
	if b, ok := msg.(tea.BatchMsg); ok {
		for _, c := range b {
			p.run(c)
		}
		return
	}
	_, cmd := p.m.Update(msg)
	p.run(cmd)
}

// statusLine is the bottom line of the screen, where the connection state
// is shown.
func (p *uiProbe) statusLine() string {
	lines := strings.Split(strings.TrimRight(p.m.Render(), "\n"), "\n")
	return lines[len(lines)-1]
}

func (p *uiProbe) until(what string, cond func() bool) {
	p.t.Helper()
	deadline := time.NewTimer(waitTimeout)
	defer deadline.Stop()
	for !cond() {
		select {
		case msg := <-p.msgs:
			p.send(msg)
		case <-deadline.C:
			p.t.Fatalf("ui: timed out waiting for %s; status bar: %q", what, p.statusLine())
		}
	}
}

// show feeds ev to the model and waits until the status bar contains want
// (and, when not empty, no longer contains unwanted).
func (p *uiProbe) show(ev client.Event, want, unwanted string) {
	p.t.Helper()
	select {
	case p.cli.events <- ev:
	default:
		p.t.Fatal("ui: event buffer full")
	}
	p.until("status bar to say "+want, func() bool {
		s := p.statusLine()
		return strings.Contains(s, want) && (unwanted == "" || !strings.Contains(s, unwanted))
	})
}
