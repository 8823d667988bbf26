package ui

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/internal/schemacheck"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

// early10Host is a host on a real WebSocket that negotiates "1.0.0" and
// spells a failed turn as VS Code 1.135 (code-server 4.135.0) does: `error`
// on the turn and on chat/error, where 1.0 has an error part.
type early10Host struct {
	srv   *httptest.Server
	mu    sync.Mutex
	conns []*jsonrpc.Conn
}

const (
	e10Session = "ahp-session:/early"
	e10Chat    = "ahp-chat:/early"
	// The reasons the two turns failed with, as a 4.135.0 host words them.
	e10Reason     = "Session was not created with authentication info"
	e10LiveReason = "The model quota is used up for today"
)

func newEarly10Host(t *testing.T) *early10Host {
	h := &early10Host{}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tr, err := jsonrpc.Accept(w, r, jsonrpc.AcceptOptions{})
		if err != nil {
			return
		}
		conn := jsonrpc.NewConn(tr, jsonrpc.HandlerFunc(h.handle), jsonrpc.ConnOptions{})
		h.mu.Lock()
		h.conns = append(h.conns, conn)
		h.mu.Unlock()
		conn.Start(context.Background())
		<-conn.Done()
	}))
	t.Cleanup(func() {
		h.mu.Lock()
		for _, c := range h.conns {
			c.Close()
		}
		h.mu.Unlock()
		h.srv.Close()
	})
	return h
}

func (h *early10Host) url() string { return "ws" + strings.TrimPrefix(h.srv.URL, "http") }

func (h *early10Host) handle(_ context.Context, req *jsonrpc.Request) (any, error) {
	var p struct {
		Channel string `json:"channel"`
	}
	_ = json.Unmarshal(req.Params, &p)
	summary := `{"provider":"copilot","title":"Early","status":2,"resource":"` + e10Session + `","createdAt":"2026-01-01T00:00:00Z","modifiedAt":"2026-01-01T00:00:00Z"}`
	switch req.Method {
	case "initialize":
		return json.RawMessage(`{"protocolVersion":"1.0.0","serverSeq":0,"snapshots":[{"resource":"ahp-root://","fromSeq":0,"state":{"agents":[]}}]}`), nil
	case "listSessions":
		return json.RawMessage(`{"items":[` + summary + `]}`), nil
	case "subscribe":
		switch p.Channel {
		case e10Session:
			return json.RawMessage(`{"snapshot":{"resource":"` + e10Session + `","fromSeq":0,"state":{"provider":"copilot","title":"Early","status":2,"lifecycle":"ready","activeClients":[],` +
				`"chats":[{"resource":"` + e10Chat + `","title":"Early","status":2,"modifiedAt":"2026-01-01T00:00:00Z"}],"defaultChat":"` + e10Chat + `"}}}`), nil
		case e10Chat:
			return json.RawMessage(`{"snapshot":{"resource":"` + e10Chat + `","fromSeq":0,"state":{"resource":"` + e10Chat + `","title":"Early","status":8,"modifiedAt":"2026-01-01T00:00:00Z",` +
				`"turns":[{"id":"t1","message":{"text":"first question","origin":{"kind":"user"}},"responseParts":[],"state":"error",` +
				`"error":{"errorType":"authRequired","message":"` + e10Reason + `"}}],` +
				`"activeTurn":{"id":"t2","startedAt":"2026-01-01T00:01:00Z","message":{"text":"second question","origin":{"kind":"user"}},"responseParts":[]}}}}`), nil
		}
	}
	return json.RawMessage(`{}`), nil
}

// failLive ends the running turn with chat/error in the 0.8 spelling.
func (h *early10Host) failLive(t *testing.T) {
	t.Helper()
	h.mu.Lock()
	conns := append([]*jsonrpc.Conn(nil), h.conns...)
	h.mu.Unlock()
	env := json.RawMessage(`{"channel":"` + e10Chat + `","serverSeq":1,"action":{"type":"chat/error","turnId":"t2","duration":1200,` +
		`"error":{"errorType":"quotaExceeded","message":"` + e10LiveReason + `"}}}`)
	for _, c := range conns {
		if err := c.Notify(context.Background(), "action", env); err != nil {
			t.Fatalf("notify: %v", err)
		}
	}
}

// TestEarly10TurnErrorReasonOnScreen: against a host that claims 1.0 but
// reports failed turns the 0.8 way, the screen shows why each turn failed
// (the host's message and error type), not only that it failed: for a
// turn in the chat's snapshot and for one that fails while watched.
func TestEarly10TurnErrorReasonOnScreen(t *testing.T) {
	h := newEarly10Host(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	c, err := client.Dial(ctx, client.Options{URL: h.url(), ClientID: "ui-early10", ClientInfo: protocol.Implementation{Name: "ahptui-test"}})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	rec := &recordingClient{Client: c}
	d := &driver{t: t, rec: rec, msgs: make(chan tea.Msg, 64), done: make(chan struct{}), schema: schemacheck.MustLoad10(t)}
	d.m = New(Config{Host: h.url(), Connect: func(context.Context) (Client, error) { return rec, nil }, Tick: -1, NoColor: true,
		NewID: func() string { return "id" }})
	t.Cleanup(d.stop)
	d.send(tea.WindowSizeMsg{Width: 160, Height: 50})
	d.run(d.m.Init())
	d.until("session list", func() bool { return len(d.m.sessions.list) > 0 })
	d.keys("enter")
	d.until("the chat", func() bool { return d.m.hasChat && d.m.openChat == e10Chat })

	screenHas := func(s string) bool { return strings.Contains(flatScreen(d.m.Render()), s) }
	d.until("the snapshot turn's reason", func() bool { return screenHas("✗ error: " + e10Reason + " (authRequired)") })

	// The chat's snapshot is on screen, so its subscription is live.
	h.failLive(t)
	d.until("the live turn's reason", func() bool { return screenHas("✗ error: " + e10LiveReason + " (quotaExceeded)") })
	if screenHas("the turn failed") {
		t.Errorf("a turn with a reason is shown as failed without one:\n%s", d.m.Render())
	}
	if screenHas("resume") {
		t.Errorf("an 0.8-style error is offered for resuming:\n%s", d.m.Render())
	}
}

// flatScreen is the screen's text without styling, panel borders or line
// breaks, so a wrapped message reads as one line.
func flatScreen(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(ansi.Strip(s), "\n") {
		l = strings.Trim(l, " │|")
		b.WriteString(l)
		b.WriteByte(' ')
	}
	return strings.Join(strings.Fields(b.String()), " ")
}
