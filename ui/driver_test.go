package ui

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/authpkce"
	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/internal/schemacheck"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
)

// sentAction is one Dispatch the model made through the real client.
type sentAction struct {
	Channel   string
	ClientSeq int64
	Action    protocol.StateAction
}

// recordingClient is the real protocol client with Dispatch recorded, so a
// test sees exactly what each key sent while the host still answers it.
type recordingClient struct {
	*client.Client
	mu   sync.Mutex
	sent []sentAction
	// auths counts authenticate requests (a spy on which host got a token).
	auths int
	// authed lists the resources of those requests, in order.
	authed []string
	// forgot lists the resources the model told the client to forget.
	forgot []string
	// queries lists the sessionConfigCompletions queries asked.
	queries []string
	// reads lists the content URIs read.
	reads []string
}

func (r *recordingClient) ReadContent(ctx context.Context, ref protocol.ContentRef, maxBytes int) (string, error) {
	r.mu.Lock()
	r.reads = append(r.reads, string(ref.URI))
	r.mu.Unlock()
	return r.Client.ReadContent(ctx, ref, maxBytes)
}

func (r *recordingClient) SessionConfigCompletions(ctx context.Context, p protocol.SessionConfigCompletionsParams) (protocol.SessionConfigCompletionsResult, error) {
	r.mu.Lock()
	if p.Query != nil {
		r.queries = append(r.queries, *p.Query)
	}
	r.mu.Unlock()
	return r.Client.SessionConfigCompletions(ctx, p)
}

func (r *recordingClient) ForgetToken(resource string) {
	r.mu.Lock()
	r.forgot = append(r.forgot, resource)
	r.mu.Unlock()
	r.Client.ForgetToken(resource)
}

func (r *recordingClient) Authenticate(ctx context.Context, resource, token string, scopes []string, expiry time.Time) error {
	r.mu.Lock()
	r.auths++
	r.authed = append(r.authed, resource)
	r.mu.Unlock()
	return r.Client.Authenticate(ctx, resource, token, scopes, expiry)
}

func (r *recordingClient) Dispatch(ch string, a protocol.StateAction) (int64, error) {
	seq, err := r.Client.Dispatch(ch, a)
	if err == nil {
		r.mu.Lock()
		r.sent = append(r.sent, sentAction{ch, seq, a})
		r.mu.Unlock()
	}
	return seq, err
}

func (r *recordingClient) take() []sentAction {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.sent
	r.sent = nil
	return out
}

// driver is a minimal Bubble Tea runtime for model tests: commands run in
// goroutines and their messages come back to Update on the test goroutine,
// in order, so the model sees exactly what the real program would.
type driver struct {
	t    *testing.T
	m    *Model
	rec  *recordingClient
	host *demohost.Host
	// others are the clients of the more hosts in the model
	// (newDriverAmong), recorded.
	others []*recordingClient
	msgs   chan tea.Msg
	done   chan struct{}
	schema *schemacheck.Validator

	stopOnce sync.Once
	// skew moves the model's clock ahead of the wall clock (answer).
	skew atomic.Int64
}

// stop shuts the model down (closing its client) and stops delivering
// messages; safe to call more than once.
func (d *driver) stop() {
	d.stopOnce.Do(func() {
		d.m.Shutdown()
		close(d.done)
	})
}

func (d *driver) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		msg := cmd()
		if msg == nil {
			return
		}
		select {
		case d.msgs <- msg:
		case <-d.done:
		}
	}()
}

func (d *driver) send(msg tea.Msg) {
	switch msg := msg.(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			d.run(c)
		}
		return
	}
	_, cmd := d.m.Update(msg)
	d.run(cmd)
}

// until feeds messages to the model until cond holds.
func (d *driver) until(what string, cond func() bool) {
	d.t.Helper()
	deadline := time.After(10 * time.Second)
	for !cond() {
		select {
		case msg := <-d.msgs:
			d.send(msg)
		case <-deadline:
			d.t.Fatalf("timed out waiting for %s\nscreen:\n%s", what, d.m.Render())
		}
	}
}

// untilConfirmed feeds messages until the host's ActionConfirmedEvent for
// seq has been handled, checking before every message (that one included)
// that still holds — e.g. "the marker is still shown".
func (d *driver) untilConfirmed(seq int64, still func() bool) {
	d.t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case msg := <-d.msgs:
			if !still() {
				d.t.Fatalf("settled before the host confirmed clientSeq %d (next message %T)\nscreen:\n%s", seq, msg, d.m.Render())
			}
			d.send(msg)
			for _, ev := range eventsOf(msg) {
				if c, ok := ev.(client.ActionConfirmedEvent); ok && c.ClientSeq == seq {
					return
				}
			}
		case <-deadline:
			d.t.Fatalf("timed out waiting for the host to confirm clientSeq %d\nscreen:\n%s", seq, d.m.Render())
		}
	}
}

// untilEvent feeds messages until one carrying an event that match
// accepts has been handled. A burst of events is one message, so a state
// that one event of a batch sets and a later one clears is never seen by
// until; this sees the event itself.
func (d *driver) untilEvent(what string, match func(client.Event) bool) {
	d.t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case msg := <-d.msgs:
			d.send(msg)
			if slices.ContainsFunc(eventsOf(msg), match) {
				return
			}
		case <-deadline:
			d.t.Fatalf("timed out waiting for %s\nscreen:\n%s", what, d.m.Render())
		}
	}
}

// eventsOf is the protocol events msg carries: one, a burst, or none.
func eventsOf(msg tea.Msg) []client.Event {
	switch em := msg.(type) {
	case eventMsg:
		return []client.Event{em.ev}
	case eventsMsg:
		return em.evs
	}
	return nil
}

func press(k string) tea.KeyPressMsg {
	switch k {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "left":
		return tea.KeyPressMsg{Code: tea.KeyLeft}
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}
	case "home":
		return tea.KeyPressMsg{Code: tea.KeyHome}
	case "end":
		return tea.KeyPressMsg{Code: tea.KeyEnd}
	}
	if rest, ok := strings.CutPrefix(k, "ctrl+"); ok {
		return tea.KeyPressMsg{Code: []rune(rest)[0], Mod: tea.ModCtrl}
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}

func (d *driver) keys(ks ...string) {
	for _, k := range ks {
		if got := press(k).String(); got != k {
			d.t.Fatalf("test key %q builds %q", k, got)
		}
		d.send(press(k))
	}
}

// answer presses k at a question on screen once its keys work: the
// model's clock moves past the second in which a question drops keys.
func (d *driver) answer(k string) {
	d.skew.Add(int64(2 * answerDelay))
	d.keys(k)
}

func (d *driver) typeText(s string) {
	for _, r := range s {
		d.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// newDriver starts a demo host on 127.0.0.1, dials it with the real client
// wrapped in a recorder, and connects a model to it.
func newDriver(t *testing.T, auth Authenticator) *driver {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	// Every frame the UI's client sends and the host answers is
	// schema-checked; an invalid one fails the test at cleanup.
	v := schemacheck.MustLoad10(t)
	host, err := demohost.Start(ctx, demohost.Config{StepDelay: -1, Validate: v.ValidateMessage})
	if err != nil {
		t.Fatalf("demohost: %v", err)
	}
	t.Cleanup(func() {
		_ = host.Close()
		for _, fe := range host.ValidationErrors() {
			t.Errorf("invalid frame: %v", fe)
		}
	})
	return newDriverOn(t, host, auth)
}

// newDriverOn connects a fresh client and model to a running host; the
// caller owns the host.
func newDriverOn(t *testing.T, host *demohost.Host, auth Authenticator) *driver {
	t.Helper()
	return newDriverAs(t, host, host.URL(), auth)
}

// newDriverAs is newDriverOn with the model told the host is named name
// (Config.Host), e.g. ws://localhost:PORT/ for a host dialled on
// 127.0.0.1: to sign-in bindings those are two hosts advertising the very
// same resources.
func newDriverAs(t *testing.T, host *demohost.Host, name string, auth Authenticator) *driver {
	t.Helper()
	return newDriverWith(t, host, name, auth, true)
}

// newDriverWith is newDriverAs with Config.RegistryHost said: the tests
// of other rules treat the demo's ws:// host as one found in VS Code's
// registry, which gets saved tokens without the plain ws:// question.
func newDriverWith(t *testing.T, host *demohost.Host, name string, auth Authenticator, registry bool) *driver {
	t.Helper()
	return newDriverAmong(t, host, name, auth, registry, 0)
}

// dialRecorded dials url with the real client, recorded.
func dialRecorded(t *testing.T, ctx context.Context, url string) *recordingClient {
	t.Helper()
	c, err := client.Dial(ctx, client.Options{URL: url, ClientID: "ui-test",
		ClientInfo: protocol.Implementation{Name: "ahptui-test"}})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	return &recordingClient{Client: c}
}

// newDriverAmong is newDriverWith with extra more demo hosts connected in
// the same model (several hosts, issue 25), each with the same
// authorization server as host, so each advertises the very same
// resources with the same issuer; host is the first and active one. The
// extras' recorded clients are d.others.
func newDriverAmong(t *testing.T, host *demohost.Host, name string, auth Authenticator, registry bool, extra int) *driver {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	rec := dialRecorded(t, ctx, host.URL())
	d := &driver{t: t, rec: rec, host: host, msgs: make(chan tea.Msg, 64), done: make(chan struct{}),
		schema: schemacheck.MustLoad10(t)}
	var hosts []HostConfig
	if extra > 0 {
		hosts = append(hosts, HostConfig{Host: name, RegistryHost: registry, Connect: func(context.Context) (Client, error) { return rec, nil }})
	}
	for range extra {
		h, err := demohost.Start(ctx, demohost.Config{StepDelay: -1, Auth: host.Auth()})
		if err != nil {
			t.Fatalf("demohost: %v", err)
		}
		t.Cleanup(func() { _ = h.Close() })
		r := dialRecorded(t, ctx, h.URL())
		d.others = append(d.others, r)
		hosts = append(hosts, HostConfig{Host: h.URL(), RegistryHost: registry, Connect: func(context.Context) (Client, error) { return r, nil }})
	}
	n := 0
	d.m = New(Config{
		Hosts:        hosts,
		Host:         name,
		RegistryHost: registry,
		Connect:      func(context.Context) (Client, error) { return rec, nil },
		Auth:         auth,
		Tick:         -1,
		NoColor:      true,
		Clock:        func() time.Time { return time.Now().Add(time.Duration(d.skew.Load())) },
		NewID: func() string {
			n++
			return "id-" + string(rune('a'+n%26)) + time.Now().Format("150405.000000")
		},
	})
	t.Cleanup(d.stop)
	d.send(tea.WindowSizeMsg{Width: 160, Height: 50})
	d.run(d.m.Init())
	d.until("connected", func() bool { return d.m.client != nil })
	if d.m.hosts != nil {
		d.until("every host connected and listed", func() bool {
			return !slices.ContainsFunc(d.m.hosts.list, func(hc *hostConn) bool { return hc.client == nil || !hc.listedOnce })
		})
	}
	return d
}

// openDemo opens the seeded demo session and waits for its chat.
func (d *driver) openDemo() {
	d.t.Helper()
	d.until("session list", func() bool { return len(d.m.sessions.list) > 0 })
	for i, s := range d.m.sessions.list {
		if s.Resource == demohost.DemoSessionURI {
			d.m.sessions.sel = i
			if d.m.hosts != nil {
				d.m.setCur(d.m.hosts.active, i)
			}
		}
	}
	d.keys("enter")
	d.until("demo chat", func() bool { return d.m.hasChat && d.m.hasSess && d.m.openChat == demohost.DemoChatURI })
	// Opening marks the session read (TestOpeningMarksRead); tests count
	// the actions their keys send after that. The mark goes when the
	// session's subscription returns, which may come after the chat's, so
	// wait for the host's echo before dropping it.
	d.until("session read", func() bool { return d.m.sess.Status.Has(protocol.SessionStatusIsRead) })
	d.rec.mu.Lock()
	d.rec.sent = slices.DeleteFunc(d.rec.sent, func(a sentAction) bool { return a.Action.Kind() == "session/isReadChanged" })
	d.rec.mu.Unlock()
}

// othersAuthenticated is how many authenticate requests the model's
// other hosts (newDriverAmong) received, each.
func (d *driver) othersAuthenticated() []int {
	var out []int
	for _, r := range d.others {
		r.mu.Lock()
		out = append(out, r.auths)
		r.mu.Unlock()
	}
	return out
}

// grantsStayHome fails the test when any other host of the model got an
// authenticate request: a grant goes to its own host only.
func (d *driver) grantsStayHome() {
	d.t.Helper()
	for i, n := range d.othersAuthenticated() {
		if n != 0 {
			d.t.Fatalf("another host of the model (%d) received %d authenticate requests", i+2, n)
		}
	}
}

// sendMessage writes text in the composer and sends it.
func (d *driver) sendMessage(text string) {
	d.t.Helper()
	d.keys("i")
	d.typeText(text)
	d.keys("enter", "esc")
}

// expectSent checks the recorded dispatches are exactly the given action
// types, each schema-valid as DispatchActionParams.
func (d *driver) expectSent(types ...string) []sentAction {
	d.t.Helper()
	sent := d.rec.take()
	var got []string
	for _, s := range sent {
		got = append(got, s.Action.Kind())
		params := protocol.DispatchActionParams{Channel: s.Channel, ClientSeq: s.ClientSeq, Action: s.Action}
		if err := d.schema.Validate("DispatchActionParams", params); err != nil {
			b, _ := json.Marshal(params)
			d.t.Errorf("%s is not schema-valid: %v\n%s", s.Action.Kind(), err, b)
		}
	}
	if strings.Join(got, ",") != strings.Join(types, ",") {
		d.t.Fatalf("sent %v, want %v (status: %q)", got, types, d.m.status.text)
	}
	return sent
}

// toolCallIn finds a tool call of the open chat in the given status.
func (d *driver) itemWhere(pred func(chatItem) bool) (chatItem, bool) {
	for _, it := range chatItems(d.m.chat) {
		if pred(it) {
			return it, true
		}
	}
	return chatItem{}, false
}

func (d *driver) waitItem(what string, pred func(chatItem) bool) chatItem {
	d.t.Helper()
	var it chatItem
	d.until(what, func() bool {
		var ok bool
		it, ok = d.itemWhere(pred)
		return ok
	})
	return it
}

var _ = authpkce.ErrCanceled
