package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
	"github.com/ahptui/ahptui/protocol/internal/testhost"
	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

// waitTimeout bounds every wait on the event stream; generous so -race on a
// loaded machine does not flake, but a lost event still fails the test.
const waitTimeout = 10 * time.Second

const (
	sessionURI = "ahp-session:/s1"
	chatURI    = "ahp-chat:/c1"
	clientID   = "client-test-1"
)

func ptr[T any](v T) *T { return &v }

// newHost starts a test host that validates every frame the client sends
// against the AHP schemas, including its responses to host requests (the
// test fails on any invalid frame).
func newHost(t *testing.T, opts testhost.Options) *testhost.Host {
	t.Helper()
	opts.Schemas = testhost.SchemaChecks(t)
	h := testhost.New(t, opts)
	h.SetState(sessionURI, testhost.NewSession("test", "first"))
	h.SetState(chatURI, testhost.NewChat(chatURI))
	h.AddSession(protocol.SessionSummary{Provider: "test", Title: "first", Status: protocol.SessionStatusIdle,
		Resource: sessionURI, CreatedAt: "2026-01-01T00:00:00Z", ModifiedAt: "2026-01-01T00:00:00Z"})
	return h
}

func options(h *testhost.Host) client.Options {
	return client.Options{
		URL:              h.URL,
		ClientID:         clientID,
		ClientInfo:       protocol.Implementation{Name: "ahptui", Version: ptr("test")},
		ReconnectInitial: 5 * time.Millisecond,
		ReconnectMax:     50 * time.Millisecond,
		GiveUpAfter:      20 * time.Second,
	}
}

// dial connects and waits for StatusReady.
func dial(t *testing.T, h *testhost.Host, mod func(*client.Options)) *client.Client {
	t.Helper()
	opts := options(h)
	if mod != nil {
		mod(&opts)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	c, err := client.Dial(ctx, opts)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	waitEvent(t, c, func(e client.ConnectionEvent) bool { return e.Status == client.StatusReady })
	return c
}

// waitEvent consumes events until one of type T satisfies pred.
func waitEvent[T client.Event](t *testing.T, c *client.Client, pred func(T) bool) T {
	t.Helper()
	timer := time.NewTimer(waitTimeout)
	defer timer.Stop()
	for {
		select {
		case e, ok := <-c.Events():
			if !ok {
				t.Fatalf("event stream closed while waiting for %T", *new(T))
			}
			if v, ok := e.(T); ok && (pred == nil || pred(v)) {
				return v
			}
		case <-timer.C:
			var zero T
			t.Fatalf("timed out waiting for %T", zero)
		}
	}
}

// waitUntil consumes events until cond holds (checked first and after each
// event). Some conditions come true with no event of their own (an ignored
// action's serverSeq is counted silently), and an event queued just before
// may already have been taken: cond is also checked every few
// milliseconds, so the wait ends when it holds, not at the next event.
func waitUntil(t *testing.T, c *client.Client, what string, cond func() bool) {
	t.Helper()
	timer := time.NewTimer(waitTimeout)
	defer timer.Stop()
	recheck := time.NewTicker(5 * time.Millisecond)
	defer recheck.Stop()
	for !cond() {
		select {
		case _, ok := <-c.Events():
			if !ok {
				t.Fatalf("event stream closed while waiting for %s", what)
			}
		case <-recheck.C:
		case <-timer.C:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	t.Cleanup(cancel)
	return ctx
}

func subscribe(t *testing.T, c *client.Client, ch string) {
	t.Helper()
	if err := c.Subscribe(ctxT(t), ch); err != nil {
		t.Fatalf("Subscribe %s: %v", ch, err)
	}
}

func title(s string) protocol.StateAction {
	return protocol.NewStateAction(protocol.SessionTitleChangedAction{Title: s})
}

func userMsg(text string) protocol.Message {
	return protocol.Message{Text: text, Origin: protocol.MessageOrigin{Kind: protocol.MessageKindUser}}
}

func turnStarted(id string) protocol.StateAction {
	return protocol.NewStateAction(protocol.ChatTurnStartedAction{TurnID: id, StartedAt: "2026-01-01T00:00:00Z", Message: userMsg("hi")})
}

func sessionTitle(t *testing.T, c *client.Client) string {
	t.Helper()
	s, ok := c.Session(sessionURI)
	if !ok {
		t.Fatalf("session %s not in mirror", sessionURI)
	}
	return s.Title
}

func hostTitle(t *testing.T, h *testhost.Host) string {
	t.Helper()
	st, _ := h.State(sessionURI)
	return st.(protocol.SessionState).Title
}

// dispatchFrames returns the clientSeq of every dispatchAction on conn.
func dispatchSeqs(t *testing.T, h *testhost.Host, conn int) []int64 {
	t.Helper()
	var out []int64
	for _, f := range h.Frames() {
		if f.Conn != conn || f.Method != "dispatchAction" {
			continue
		}
		var m struct {
			Params protocol.DispatchActionParams `json:"params"`
		}
		if err := json.Unmarshal(f.Raw, &m); err != nil {
			t.Fatalf("decode dispatch frame: %v", err)
		}
		out = append(out, m.Params.ClientSeq)
	}
	return out
}

func TestDialInitializeSubscribe(t *testing.T) {
	h := newHost(t, testhost.Options{})
	c, err := client.Dial(ctxT(t), options(h))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })

	// The UI sees, in order: connecting, the root snapshot, the session list, ready.
	want := []string{"connecting", "state ahp-root://", "sessions 1", "ready"}
	var got []string
	for len(got) < len(want) {
		select {
		case e := <-c.Events():
			switch e := e.(type) {
			case client.ConnectionEvent:
				got = append(got, e.Status.String())
			case client.ChannelStateEvent:
				got = append(got, "state "+e.Channel)
			case client.SessionsListedEvent:
				got = append(got, fmt.Sprintf("sessions %d", len(e.Sessions)))
			default:
				got = append(got, fmt.Sprintf("%T", e))
			}
		case <-time.After(waitTimeout):
			t.Fatalf("timed out; events so far %v", got)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("events = %v, want %v", got, want)
	}
	if v, w := c.ProtocolVersion(), c.Wire(); v != "1.0.0" || w != protocol.Wire10 {
		t.Errorf("ProtocolVersion = %q on wire %v, want 1.0.0 on 1.0", v, w)
	}
	if si := c.ServerInfo(); si == nil || si.Name != "testhost" {
		t.Errorf("ServerInfo = %+v", si)
	}
	if _, ok := c.Root(); !ok {
		t.Error("root state missing after Dial")
	}

	subscribe(t, c, sessionURI)
	waitEvent(t, c, func(e client.ChannelStateEvent) bool { return e.Channel == sessionURI })
	if got := sessionTitle(t, c); got != "first" {
		t.Errorf("session title = %q", got)
	}
	subscribe(t, c, chatURI)
	if _, ok := c.Chat(chatURI); !ok {
		t.Error("chat state missing after Subscribe")
	}
	if err := c.Subscribe(ctxT(t), "ahp-session:/nope"); err == nil || !errors.Is(err, client.ErrNotFound) {
		t.Errorf("Subscribe(unknown) = %v, want a NotFound host error", err)
	}

	// The first frames on the wire are initialize (with our identity and
	// versions) and listSessions.
	m := h.Methods(1)
	if len(m) < 2 || m[0] != "initialize" || m[1] != "listSessions" {
		t.Fatalf("methods = %v", m)
	}
	var init struct {
		Params protocol.InitializeParams `json:"params"`
	}
	_ = json.Unmarshal(h.Frames()[0].Raw, &init)
	p := init.Params
	if p.ClientID != clientID || !slices.Equal(p.ProtocolVersions, []string{"1.0.0", "0.10.0", "0.9.0", "0.8.0", "0.7.0", "0.6.0"}) ||
		p.ClientInfo == nil || p.ClientInfo.Name != "ahptui" || p.Capabilities != nil ||
		!slices.Equal(p.InitialSubscriptions, []string{protocol.RootChannel}) {
		t.Errorf("initialize params = %+v", p)
	}
}

func TestOptimisticDispatchThenEcho(t *testing.T) {
	h := newHost(t, testhost.Options{})
	c := dial(t, h, nil)
	subscribe(t, c, sessionURI)

	h.HoldDispatches()
	seq, err := c.Dispatch(sessionURI, title("mine"))
	if err != nil {
		t.Fatal(err)
	}
	// Optimistic at once, before the host has done anything.
	if got := sessionTitle(t, c); got != "mine" {
		t.Fatalf("optimistic title = %q, want mine", got)
	}
	if n := c.PendingCount(sessionURI); n != 1 {
		t.Fatalf("pending = %d, want 1", n)
	}
	h.ReleaseDispatches()
	waitUntil(t, c, "echo", func() bool { return c.PendingCount(sessionURI) == 0 })
	if got := sessionTitle(t, c); got != "mine" {
		t.Errorf("confirmed title = %q", got)
	}
	if got := hostTitle(t, h); got != "mine" {
		t.Errorf("host title = %q", got)
	}
	if seqs := dispatchSeqs(t, h, 1); !slices.Equal(seqs, []int64{seq}) {
		t.Errorf("dispatched clientSeqs = %v, want [%d]", seqs, seq)
	}
	if c.LastSeenServerSeq() != h.Seq() {
		t.Errorf("lastSeen = %d, host seq = %d", c.LastSeenServerSeq(), h.Seq())
	}

	if _, err := c.Dispatch("ahp-session:/not-subscribed", title("x")); err == nil {
		t.Error("Dispatch to an unsubscribed channel succeeded")
	}
}

func TestRejectionRollsBack(t *testing.T) {
	h := newHost(t, testhost.Options{})
	c := dial(t, h, nil)
	subscribe(t, c, sessionURI)

	h.RejectNext("session/titleChanged", "titles are locked\x1b[31m")
	seq, err := c.Dispatch(sessionURI, title("mine"))
	if err != nil {
		t.Fatal(err)
	}
	rej := waitEvent(t, c, func(e client.ActionRejectedEvent) bool { return true })
	if rej.ClientSeq != seq || rej.Channel != sessionURI || rej.Action.Kind() != "session/titleChanged" {
		t.Errorf("rejection = %+v", rej)
	}
	// Host text is kept as data, like every other host string in the
	// events; what shows it passes it through views.SanitizeLine.
	if rej.Reason != "titles are locked\x1b[31m" {
		t.Errorf("reason %q: want the host's text as sent", rej.Reason)
	}
	if got := sessionTitle(t, c); got != "first" {
		t.Errorf("title after rejection = %q, want rollback to first", got)
	}
	if n := c.PendingCount(sessionURI); n != 0 {
		t.Errorf("pending = %d", n)
	}
}

func TestForeignActionRebasesPending(t *testing.T) {
	h := newHost(t, testhost.Options{})
	c := dial(t, h, nil)
	subscribe(t, c, chatURI)
	subscribe(t, c, sessionURI)

	h.HoldDispatches()
	if _, err := c.Dispatch(chatURI, turnStarted("t1")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Dispatch(sessionURI, title("mine")); err != nil {
		t.Fatal(err)
	}
	// Another client queues a message on the chat and renames the session
	// while ours are still pending.
	h.InjectFrom("other-client", 1, chatURI, protocol.NewStateAction(protocol.ChatPendingMessageSetAction{
		Kind: protocol.PendingMessageKindQueued, ID: "q1", Message: userMsg("later")}))
	h.InjectFrom("other-client", 2, sessionURI, title("theirs"))
	waitUntil(t, c, "foreign actions", func() bool { return c.LastSeenServerSeq() == h.Seq() })

	chat, _ := c.Chat(chatURI)
	if chat.ActiveTurn == nil || chat.ActiveTurn.ID != "t1" {
		t.Errorf("pending turnStarted lost on rebase: activeTurn = %+v", chat.ActiveTurn)
	}
	if len(chat.QueuedMessages) != 1 || chat.QueuedMessages[0].ID != "q1" {
		t.Errorf("foreign queued message missing: %+v", chat.QueuedMessages)
	}
	// Our pending rename is replayed on top of theirs.
	if got := sessionTitle(t, c); got != "mine" {
		t.Errorf("optimistic title = %q, want mine (pending rebased on theirs)", got)
	}

	h.ReleaseDispatches()
	waitUntil(t, c, "echoes", func() bool { return c.PendingCount(chatURI)+c.PendingCount(sessionURI) == 0 })
	chat, _ = c.Chat(chatURI)
	if chat.ActiveTurn == nil || len(chat.QueuedMessages) != 1 || sessionTitle(t, c) != "mine" {
		t.Errorf("confirmed state wrong: turn %+v queued %d title %q", chat.ActiveTurn, len(chat.QueuedMessages), sessionTitle(t, c))
	}
}

func TestReconnectByReplay(t *testing.T) {
	h := newHost(t, testhost.Options{})
	c := dial(t, h, nil)
	subscribe(t, c, sessionURI)
	subscribe(t, c, chatURI)

	// One action the host applies but whose echo is lost, one the host never
	// sees: after the replay the first is confirmed, the second re-sent.
	h.MuteEchoes(true)
	seqA, _ := c.Dispatch(sessionURI, title("applied"))
	if err := h.WaitDispatched(ctxT(t), 1); err != nil {
		t.Fatal(err)
	}
	h.MuteEchoes(false)
	h.DropDispatches(true)
	seqB, _ := c.Dispatch(chatURI, turnStarted("t1"))
	if err := h.WaitDispatched(ctxT(t), 2); err != nil {
		t.Fatal(err)
	}
	h.DropDispatches(false)

	h.DropConnections()
	h.Inject(sessionURI, protocol.NewStateAction(protocol.SessionCustomizationToggledAction{ID: "x", Enablement: protocol.SessionEnablement(true)}))
	waitEvent(t, c, func(e client.ConnectionEvent) bool { return e.Status == client.StatusReconnecting })
	waitEvent(t, c, func(e client.ConnectionEvent) bool { return e.Status == client.StatusReady })
	waitUntil(t, c, "pending settled", func() bool {
		return c.PendingCount(sessionURI) == 0 && c.PendingCount(chatURI) == 0
	})

	m := h.Methods(2)
	if len(m) == 0 || m[0] != "reconnect" || slices.Contains(m, "initialize") {
		t.Fatalf("methods on the new connection = %v, want reconnect first and no initialize", m)
	}
	if got := dispatchSeqs(t, h, 2); !slices.Equal(got, []int64{seqB}) {
		t.Errorf("re-dispatched clientSeqs = %v, want only the unseen one [%d] (not %d, confirmed by the replay)", got, seqB, seqA)
	}
	if got := sessionTitle(t, c); got != "applied" {
		t.Errorf("title = %q", got)
	}
	chat, _ := c.Chat(chatURI)
	if chat.ActiveTurn == nil || chat.ActiveTurn.ID != "t1" {
		t.Errorf("re-dispatched turn missing: %+v", chat.ActiveTurn)
	}
	// The host may have sequenced an envelope (the injected toggle, if it
	// landed after the reconnect) that is still on its way: wait for the
	// client to see it rather than compare at once.
	waitUntil(t, c, "lastSeen to reach the host's seq", func() bool { return c.LastSeenServerSeq() == h.Seq() })
}

func TestReconnectBySnapshot(t *testing.T) {
	h := newHost(t, testhost.Options{})
	c := dial(t, h, nil)
	subscribe(t, c, sessionURI)

	// The host applies our action but the echo is lost; the reconnect gets a
	// snapshot, so the client cannot tell and re-sends the same clientSeq;
	// the host dedupes and the pending action is settled without a second
	// application.
	h.MuteEchoes(true)
	seq, _ := c.Dispatch(sessionURI, title("applied"))
	if err := h.WaitDispatched(ctxT(t), 1); err != nil {
		t.Fatal(err)
	}
	h.MuteEchoes(false)
	h.ForceSnapshot(true)
	h.DropConnections()
	h.Inject(sessionURI, protocol.NewStateAction(protocol.SessionCustomizationToggledAction{ID: "x", Enablement: protocol.SessionEnablement(true)}))

	waitEvent(t, c, func(e client.ConnectionEvent) bool { return e.Status == client.StatusReconnecting })
	waitEvent(t, c, func(e client.ConnectionEvent) bool { return e.Status == client.StatusReady })
	waitUntil(t, c, "pending settled", func() bool { return c.PendingCount(sessionURI) == 0 })

	if got := dispatchSeqs(t, h, 2); !slices.Equal(got, []int64{seq}) {
		t.Errorf("re-dispatched clientSeqs = %v, want the original [%d]", got, seq)
	}
	if got := sessionTitle(t, c); got != "applied" {
		t.Errorf("title = %q", got)
	}
	// The host may have sequenced an envelope (the injected toggle, if it
	// landed after the reconnect) that is still on its way: wait for the
	// client to see it rather than compare at once.
	waitUntil(t, c, "lastSeen to reach the host's seq", func() bool { return c.LastSeenServerSeq() == h.Seq() })
	// Still live after the snapshot.
	h.Inject(sessionURI, title("later"))
	waitUntil(t, c, "live action", func() bool { return sessionTitle(t, c) == "later" })
}

func TestReplayBufferOverflowFallsBackToSnapshot(t *testing.T) {
	h := newHost(t, testhost.Options{ReplayLimit: 2})
	c := dial(t, h, nil)
	subscribe(t, c, sessionURI)
	h.DropConnections()
	for i := range 5 {
		h.Inject(sessionURI, title(fmt.Sprintf("t%d", i)))
	}
	waitEvent(t, c, func(e client.ConnectionEvent) bool { return e.Status == client.StatusReady })
	waitUntil(t, c, "snapshot", func() bool { return sessionTitle(t, c) == "t4" })
}

func TestMissingChannelDropped(t *testing.T) {
	h := newHost(t, testhost.Options{})
	c := dial(t, h, nil)
	subscribe(t, c, sessionURI)
	subscribe(t, c, chatURI)
	h.SetMissing(sessionURI)
	h.DropConnections()
	d := waitEvent(t, c, func(e client.ChannelDroppedEvent) bool { return true })
	if d.Channel != sessionURI || d.Reason == "" {
		t.Errorf("dropped = %+v", d)
	}
	waitEvent(t, c, func(e client.ConnectionEvent) bool { return e.Status == client.StatusReady })
	if _, ok := c.Session(sessionURI); ok {
		t.Error("missing session still mirrored")
	}
	if _, ok := c.Chat(chatURI); !ok {
		t.Error("chat dropped although not missing")
	}
	if slices.Contains(c.Channels(), sessionURI) {
		t.Error("missing session still subscribed")
	}
}

// A dispatch still pending on a channel the host reports missing on
// reconnect can never be echoed: it must be settled as rejected, not
// dropped silently.
func TestReconnectMissingRejectsPending(t *testing.T) {
	h := newHost(t, testhost.Options{})
	c := dial(t, h, nil)
	subscribe(t, c, sessionURI)
	h.DropDispatches(true)
	seq, err := c.Dispatch(sessionURI, title("never echoed"))
	if err != nil {
		t.Fatal(err)
	}
	if err := h.WaitDispatched(ctxT(t), 1); err != nil {
		t.Fatal(err)
	}
	h.SetMissing(sessionURI)
	h.DropConnections()
	r := waitEvent(t, c, func(e client.ActionRejectedEvent) bool { return true })
	if r.Channel != sessionURI || r.ClientSeq != seq || !strings.Contains(r.Reason, "no longer has this channel") {
		t.Errorf("rejected = %+v, want the pending dispatch %d on %s", r, seq, sessionURI)
	}
	if _, ok := r.Action.Variant.(protocol.SessionTitleChangedAction); !ok {
		t.Errorf("rejected action = %T, want the dispatched title change", r.Action.Variant)
	}
	waitEvent(t, c, func(e client.ChannelDroppedEvent) bool { return e.Channel == sessionURI })
}

// A host that stops completing handshakes (here: the dial never returns)
// must not hold the reconnect loop past GiveUpAfter for a whole handshake
// timeout (30s): the attempt in flight is cut at the give-up budget.
func TestReconnectGiveUpBoundsHandshake(t *testing.T) {
	h := newHost(t, testhost.Options{})
	var stall atomic.Bool
	c := dial(t, h, func(o *client.Options) {
		real := o.Dial
		if real == nil {
			real = func(ctx context.Context, url string) (jsonrpc.Transport, error) {
				return jsonrpc.Dial(ctx, url, jsonrpc.DialOptions{})
			}
		}
		o.Dial = func(ctx context.Context, url string) (jsonrpc.Transport, error) {
			if stall.Load() {
				<-ctx.Done()
				return nil, ctx.Err()
			}
			return real(ctx, url)
		}
		o.GiveUpAfter = 300 * time.Millisecond
	})
	stall.Store(true)
	start := time.Now()
	h.DropConnections()
	waitEvent(t, c, func(e client.ConnectionEvent) bool { return e.Status == client.StatusFailed })
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("gave up after %s, want about GiveUpAfter (300ms)", took)
	}
}

func TestTokensRepushedBeforeRedispatch(t *testing.T) {
	h := newHost(t, testhost.Options{})
	c := dial(t, h, nil)
	subscribe(t, c, sessionURI)
	if err := c.Authenticate(ctxT(t), "https://api.example.com", "tok-1", []string{"repo"}, time.Time{}); err != nil {
		t.Fatal(err)
	}
	h.DropDispatches(true)
	seq, _ := c.Dispatch(sessionURI, title("needs auth"))
	if err := h.WaitDispatched(ctxT(t), 1); err != nil {
		t.Fatal(err)
	}
	h.DropDispatches(false)
	h.DropConnections()
	waitEvent(t, c, func(e client.ConnectionEvent) bool { return e.Status == client.StatusReady })
	waitUntil(t, c, "re-dispatch echoed", func() bool { return c.PendingCount(sessionURI) == 0 })

	m := h.Methods(2)
	ia, id := slices.Index(m, "authenticate"), slices.Index(m, "dispatchAction")
	if ia < 0 || id < 0 || ia > id {
		t.Fatalf("methods on the new connection = %v: want authenticate before dispatchAction", m)
	}
	calls := h.AuthCalls()
	if len(calls) != 2 || calls[1].Conn != 2 || calls[1].Token != "tok-1" || calls[1].Resource != "https://api.example.com" ||
		!slices.Equal(calls[1].Scopes, []string{"repo"}) {
		t.Errorf("auth calls = %+v", calls)
	}
	if got := dispatchSeqs(t, h, 2); !slices.Equal(got, []int64{seq}) {
		t.Errorf("re-dispatched = %v, want [%d]", got, seq)
	}
}

// TestForgottenTokenNotRepushed: a token the user forgot is dropped from
// what the client re-pushes after a reconnect, while the others still go.
// Signing out sends 1.0's empty-token revocation; 0.6 has none, so there
// nothing is sent, the caller is told, and the token is forgotten all the
// same.
func TestForgottenTokenNotRepushed(t *testing.T) {
	for _, tt := range []struct {
		version string
		revokes bool
	}{{"1.0.0", true}, {"0.6.0", false}} {
		t.Run(tt.version, func(t *testing.T) {
			h := newHost(t, testhost.Options{Versions: []string{tt.version}})
			c := dial(t, h, nil)
			for _, res := range []string{"https://a.example", "https://b.example", "https://c.example"} {
				if err := c.Authenticate(ctxT(t), res, "tok-"+res, nil, time.Time{}); err != nil {
					t.Fatal(err)
				}
			}
			c.ForgetToken("https://a.example")
			err := c.Authenticate(ctxT(t), "https://b.example", "", nil, time.Time{})
			calls := h.AuthCalls()
			if tt.revokes {
				if err != nil || len(calls) != 4 || calls[3].Resource != "https://b.example" || calls[3].Token != "" {
					t.Fatalf("revocation: err %v, calls %+v; want a 4th call with an empty token for b", err, calls)
				}
			} else if err == nil || len(calls) != 3 {
				t.Fatalf("0.6 revocation: err %v, %d calls; want an error and the 3 pushes only", err, len(calls))
			}
			h.DropConnections()
			waitEvent(t, c, func(e client.ConnectionEvent) bool { return e.Status == client.StatusReady })
			var again []string
			for _, call := range h.AuthCalls()[len(calls):] {
				again = append(again, call.Resource)
			}
			if !slices.Equal(again, []string{"https://c.example"}) {
				t.Errorf("re-pushed after the reconnect: %v, want only https://c.example", again)
			}
		})
	}
}

func TestAuthRequiredErrorCarriesMetadata(t *testing.T) {
	h := newHost(t, testhost.Options{})
	c := dial(t, h, nil)
	h.FailNext("createSession", jsonrpc.NewErrorData(jsonrpc.AuthRequired, "sign in", protocol.AuthRequiredErrorData{
		Resources: []protocol.ProtectedResourceMetadata{{
			Resource:             "https://api.example.com",
			AuthorizationServers: []string{"https://auth.example.com"},
			ScopesSupported:      []string{"repo"},
		}},
	}))
	err := c.CreateSession(ctxT(t), protocol.CreateSessionParams{Channel: "ahp-session:/new", Provider: ptr("test")})
	var ar *client.AuthRequiredError
	if !errors.As(err, &ar) {
		t.Fatalf("err = %v (%T), want *AuthRequiredError", err, err)
	}
	if len(ar.Resources) != 1 || ar.Resources[0].Resource != "https://api.example.com" ||
		!slices.Equal(ar.Resources[0].AuthorizationServers, []string{"https://auth.example.com"}) {
		t.Errorf("resources = %+v", ar.Resources)
	}
	if !errors.Is(err, client.ErrAuthRequired) {
		t.Error("errors.Is(err, ErrAuthRequired) = false")
	}
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.AuthRequired {
		t.Errorf("does not wrap the *jsonrpc.Error: %v", err)
	}

	h.FailNext("disposeSession", jsonrpc.NewError(jsonrpc.SessionNotFound, "gone"))
	err = c.DisposeSession(ctxT(t), sessionURI)
	var he *client.HostError
	if !errors.As(err, &he) || he.Code != jsonrpc.SessionNotFound || !errors.Is(err, client.ErrSessionNotFound) {
		t.Errorf("dispose err = %v, want HostError SessionNotFound", err)
	}
}

func TestOversizedFrameReconnects(t *testing.T) {
	h := newHost(t, testhost.Options{})
	c := dial(t, h, func(o *client.Options) {
		o.MaxFrameBytes = 64 << 10
	})
	subscribe(t, c, sessionURI)
	big := fmt.Sprintf(`{"jsonrpc":"2.0","method":"root/sessionAdded","params":{"channel":"ahp-root://","pad":%q}}`, strings.Repeat("x", 128<<10))
	h.SendRaw([]byte(big))
	he := waitEvent(t, c, func(e client.HostErrorEvent) bool { return errors.Is(e.Err, jsonrpc.ErrFrameTooBig) })
	if !strings.Contains(he.Err.Error(), "limit") {
		t.Errorf("error %q does not explain the limit", he.Err)
	}
	re := waitEvent(t, c, func(e client.ConnectionEvent) bool { return e.Status == client.StatusReconnecting })
	if !errors.Is(re.Cause, jsonrpc.ErrFrameTooBig) {
		t.Errorf("reconnect cause = %v", re.Cause)
	}
	waitEvent(t, c, func(e client.ConnectionEvent) bool { return e.Status == client.StatusReady })
	if got := sessionTitle(t, c); got != "first" {
		t.Errorf("state after reconnect: title %q", got)
	}
}

func TestUnsupportedVersionIsTyped(t *testing.T) {
	const offers = "ahptui offers 1.0.0, 0.10.0, 0.9.0, 0.8.0, 0.7.0, 0.6.0"
	tests := []struct {
		name      string
		supported []string
		summary   string
	}{
		{"exact", []string{"9.0.0"}, "host accepts AHP 9.0.0; " + offers},
		{"ranges", []string{"^2.0.0", ">=0.1.0 <0.3.0"},
			"host accepts AHP ^2.0.0 (>=2.0.0 <3.0.0), >=0.1.0 <0.3.0; " + offers},
		{"tilde and caret on 0.x", []string{"~0.5.0", "^0.2.0"},
			"host accepts AHP ~0.5.0 (>=0.5.0 <0.6.0), ^0.2.0 (>=0.2.0 <0.3.0); " + offers},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHost(t, testhost.Options{Versions: tt.supported})
			_, err := client.Dial(ctxT(t), options(h))
			var uv *client.UnsupportedProtocolVersionError
			if !errors.As(err, &uv) {
				t.Fatalf("err = %v (%T), want *UnsupportedProtocolVersionError", err, err)
			}
			if !slices.Equal(uv.Supported, tt.supported) || !slices.Equal(uv.Offered, client.SupportedProtocolVersions) {
				t.Errorf("error = %+v", uv)
			}
			if uv.Summary() != tt.summary {
				t.Errorf("summary\n got %s\nwant %s", uv.Summary(), tt.summary)
			}
			if !strings.Contains(err.Error(), tt.summary) {
				t.Errorf("message %q does not carry the summary", err)
			}
		})
	}
}

// A host that answers a version the client did not offer is refused
// before any of its state is decoded with a guessed wire's types.
func TestHostPickingUnofferedVersionIsRefused(t *testing.T) {
	for _, answer := range []string{"2.0.0", "1.1.0", "0.8.1", "0.5.2", "0.6.1"} {
		t.Run(answer, func(t *testing.T) {
			h := newHost(t, testhost.Options{AnswerVersion: answer})
			c, err := client.Dial(ctxT(t), options(h))
			if err == nil {
				c.Close()
				t.Fatalf("Dial accepted a host that answered %s", answer)
			}
			if !strings.Contains(err.Error(), "did not offer") || !strings.Contains(err.Error(), answer) {
				t.Errorf("err = %v", err)
			}
		})
	}
}

// A host picks the highest version it accepts among those offered, so the
// client must take any offered entry, not only the first, and the version
// decides the wire.
func TestNegotiatedVersionAndWire(t *testing.T) {
	for _, tt := range []struct {
		accepts []string
		version string
		wire    protocol.Wire
	}{
		{[]string{"^1.0.0", "~0.9.0"}, "1.0.0", protocol.Wire10},
		{[]string{"^0.10.0"}, "0.10.0", protocol.Wire10},
		{[]string{"~0.9.0"}, "0.9.0", protocol.Wire10},
		{[]string{"^0.6.0"}, "0.6.0", protocol.Wire06},
		{[]string{"0.6.0", "~0.9.0"}, "0.9.0", protocol.Wire10},
	} {
		t.Run(strings.Join(tt.accepts, "|"), func(t *testing.T) {
			h := newHost(t, testhost.Options{Versions: tt.accepts})
			c := dial(t, h, nil)
			if c.ProtocolVersion() != tt.version || c.Wire() != tt.wire {
				t.Errorf("negotiated %q on wire %v, want %s on %v", c.ProtocolVersion(), c.Wire(), tt.version, tt.wire)
			}
		})
	}
}

func TestBadInputIsIgnored(t *testing.T) {
	// later is an action type the negotiated version does not define but
	// a later one does.
	for _, tt := range []struct{ version, later string }{
		{"1.0.0", `{"type":"session/repositoriesChanged","repositories":[]}`},
		{"0.6.0", `{"type":"session/mcpServerBackgroundRequested","id":"m"}`},
	} {
		t.Run(tt.version, func(t *testing.T) { testBadInputIsIgnored(t, tt.version, tt.later) })
	}
}

func testBadInputIsIgnored(t *testing.T, version, later string) {
	h := newHost(t, testhost.Options{Versions: []string{version}})
	c := dial(t, h, nil)
	subscribe(t, c, sessionURI)

	before := c.LastSeenServerSeq()
	h.SendRaw([]byte(`{"jsonrpc":"2.0","method":"action","params":{"channel":"ahp-session:/s1","action":{"type":"future/thing","x":1},"serverSeq":` +
		fmt.Sprint(before+1) + `}}`))
	h.SendRaw([]byte(`{not json`))
	h.SendRaw([]byte(`{"jsonrpc":"2.0","id":987654,"result":{}}`))
	h.SendRaw([]byte(`{"jsonrpc":"2.0","method":"action","params":{"channel":"ahp-session:/s1","action":{"type":"session/titleChanged","title":"extra","surprise":true},"serverSeq":` +
		fmt.Sprint(before+2) + `,"newField":{}}}`))
	h.SendRaw([]byte(`{"jsonrpc":"2.0","method":"action","params":{"channel":"ahp-session:/other","action":{"type":"session/titleChanged","title":"nope"},"serverSeq":` +
		fmt.Sprint(before+3) + `}}`))
	h.SendRaw([]byte(`{"jsonrpc":"2.0","method":"action","params":{"channel":"ahp-session:/s1","action":{"type":"session/titleChanged","title":7},"serverSeq":` +
		fmt.Sprint(before+4) + `}}`))
	h.SendRaw([]byte(`{"jsonrpc":"2.0","method":"no/such/notification","params":{"channel":"ahp-root://"}}`))
	// Extension (x-) notifications and actions, and an action a later
	// version defines, are ignored like any other unknown type.
	h.SendRaw([]byte(`{"jsonrpc":"2.0","method":"x-acme/heartbeat","params":{"channel":"ahp-root://","n":1}}`))
	h.SendRaw([]byte(`{"jsonrpc":"2.0","method":"action","params":{"channel":"ahp-session:/s1","action":{"type":"x-acme/pinned","pinned":true},"serverSeq":` +
		fmt.Sprint(before+5) + `}}`))
	h.SendRaw([]byte(`{"jsonrpc":"2.0","method":"action","params":{"channel":"ahp-session:/s1","action":` + later + `,"serverSeq":` +
		fmt.Sprint(before+6) + `}}`))

	he := waitEvent(t, c, func(e client.HostErrorEvent) bool { return true })
	if !strings.Contains(he.Err.Error(), "cannot decode") {
		t.Errorf("host error = %v", he.Err)
	}
	waitUntil(t, c, "the last unknown action counted", func() bool { return c.LastSeenServerSeq() == before+6 })
	if got := sessionTitle(t, c); got != "extra" {
		t.Errorf("title = %q, want extra (unknown fields ignored)", got)
	}
	if c.Status() != client.StatusReady || h.ConnCount() != 1 {
		t.Errorf("connection disturbed: status %v, conns %d", c.Status(), h.ConnCount())
	}
	// Still fully working.
	if _, err := c.ListSessions(ctxT(t)); err != nil {
		t.Errorf("ListSessions after bad input: %v", err)
	}
}

func TestHostRequestsAreRefused(t *testing.T) {
	h := newHost(t, testhost.Options{})
	dial(t, h, nil)
	for _, m := range []string{"resourceRead", "resourceWrite", "resourceList", "resourceCopy", "resourceDelete",
		"resourceMove", "resourceResolve", "resourceMkdir", "resourceRequest", "createResourceWatch"} {
		// Every member any of these requests requires, so each request is
		// valid and the refusal is the client's choice, not a bad frame.
		err := h.CallClient(ctxT(t), m, map[string]any{"channel": "ahp-root://", "uri": "file:///etc/passwd",
			"data": "", "encoding": "utf-8", "source": "file:///a", "destination": "file:///b"})
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != jsonrpc.PermissionDenied {
			t.Errorf("%s answered %v, want PermissionDenied", m, err)
		}
	}
	// No schema knows a made-up method: this host does not check frames.
	unchecked := testhost.New(t, testhost.Options{})
	dial(t, unchecked, nil)
	err := unchecked.CallClient(ctxT(t), "somethingElse", nil)
	if !errors.Is(err, jsonrpc.ErrMethodNotFound) {
		t.Errorf("unknown request answered %v, want MethodNotFound", err)
	}
}

func TestHostRestartRecovers(t *testing.T) {
	h := newHost(t, testhost.Options{})
	c := dial(t, h, nil)
	subscribe(t, c, sessionURI)
	h.Inject(sessionURI, title("before restart"))
	waitUntil(t, c, "title", func() bool { return sessionTitle(t, c) == "before restart" })

	h.Restart()
	waitEvent(t, c, func(e client.ConnectionEvent) bool { return e.Status == client.StatusReady })
	m := h.Methods(2)
	if len(m) < 2 || m[0] != "reconnect" || m[1] != "initialize" {
		t.Fatalf("methods after restart = %v, want reconnect then initialize", m)
	}
	var init struct {
		Params protocol.InitializeParams `json:"params"`
	}
	for _, f := range h.Frames() {
		if f.Conn == 2 && f.Method == "initialize" {
			_ = json.Unmarshal(f.Raw, &init)
		}
	}
	if !slices.Contains(init.Params.InitialSubscriptions, sessionURI) || !slices.Contains(init.Params.InitialSubscriptions, protocol.RootChannel) {
		t.Errorf("initialSubscriptions = %v", init.Params.InitialSubscriptions)
	}
	if c.LastSeenServerSeq() != 0 {
		t.Errorf("lastSeen = %d, want the restarted host's 0", c.LastSeenServerSeq())
	}
	// The restarted host counts from 1 again; the client must follow.
	if _, err := c.Dispatch(sessionURI, title("after restart")); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, c, "echo", func() bool { return c.PendingCount(sessionURI) == 0 })
	h.Inject(sessionURI, title("host side"))
	waitUntil(t, c, "live", func() bool { return sessionTitle(t, c) == "host side" })
}

func TestPingFailureReconnects(t *testing.T) {
	h := newHost(t, testhost.Options{})
	c := dial(t, h, func(o *client.Options) {
		o.PingInterval = 20 * time.Millisecond
		o.PingTimeout = 100 * time.Millisecond
	})
	h.StallPings(true)
	re := waitEvent(t, c, func(e client.ConnectionEvent) bool { return e.Status == client.StatusReconnecting })
	if re.Cause == nil || !strings.Contains(re.Cause.Error(), "ping") {
		t.Errorf("cause = %v, want a ping failure", re.Cause)
	}
	h.StallPings(false)
	waitEvent(t, c, func(e client.ConnectionEvent) bool { return e.Status == client.StatusReady })
}

func TestGiveUpAfterBoundedTime(t *testing.T) {
	h := newHost(t, testhost.Options{})
	c := dial(t, h, func(o *client.Options) { o.GiveUpAfter = 300 * time.Millisecond })
	h.Close()
	f := waitEvent(t, c, func(e client.ConnectionEvent) bool { return e.Status == client.StatusFailed })
	// What the user can do (ctrl+r) is the UI's to say; the client's
	// error says what happened.
	if f.Cause == nil || !strings.Contains(f.Cause.Error(), "gave up") || strings.Contains(f.Cause.Error(), "ctrl+r") {
		t.Errorf("cause = %v, want a give-up message without UI advice", f.Cause)
	}
	if c.Status() != client.StatusFailed {
		t.Errorf("status = %v", c.Status())
	}
	if _, err := c.ListSessions(ctxT(t)); !errors.Is(err, client.ErrNotConnected) {
		t.Errorf("command while failed = %v, want ErrNotConnected", err)
	}
	// Reconnect() tries again (and fails again against a dead host).
	c.Reconnect()
	waitEvent(t, c, func(e client.ConnectionEvent) bool { return e.Status == client.StatusReconnecting })
	waitEvent(t, c, func(e client.ConnectionEvent) bool { return e.Status == client.StatusFailed })
}

func TestUserReconnect(t *testing.T) {
	h := newHost(t, testhost.Options{})
	c := dial(t, h, nil)
	c.Reconnect()
	waitEvent(t, c, func(e client.ConnectionEvent) bool { return e.Status == client.StatusReconnecting })
	waitEvent(t, c, func(e client.ConnectionEvent) bool { return e.Status == client.StatusReady })
	if h.ConnCount() != 2 {
		t.Errorf("connections = %d, want 2", h.ConnCount())
	}
}

func TestNotificationsBecomeEvents(t *testing.T) {
	h := newHost(t, testhost.Options{})
	c := dial(t, h, nil)

	if err := c.CreateSession(ctxT(t), protocol.CreateSessionParams{Channel: "ahp-session:/s2", Provider: ptr("test")}); err != nil {
		t.Fatal(err)
	}
	if a := waitEvent(t, c, func(e client.SessionAddedEvent) bool { return true }); a.Summary.Resource != "ahp-session:/s2" {
		t.Errorf("added = %+v", a)
	}
	h.NotifyRoot("root/sessionSummaryChanged", protocol.SessionSummaryChangedParams{
		Channel: protocol.RootChannel, Session: "ahp-session:/s2", Changes: protocol.PartialSessionSummary{Title: ptr("renamed")}})
	if s := waitEvent(t, c, func(e client.SessionSummaryChangedEvent) bool { return true }); s.Session != "ahp-session:/s2" || s.Changes.Title == nil || *s.Changes.Title != "renamed" {
		t.Errorf("summary changed = %+v", s)
	}
	reason := protocol.AuthRequiredReasonExpired
	h.NotifyRoot("auth/required", protocol.AuthRequiredParams{Channel: protocol.RootChannel, Resource: protocol.AuthRequiredResource{ProtectedResourceMetadata: protocol.ProtectedResourceMetadata{Resource: "https://api.example.com"}}, Reason: &reason})
	if a := waitEvent(t, c, func(e client.AuthRequiredEvent) bool { return true }); a.Params.Resource.Resource != "https://api.example.com" {
		t.Errorf("auth required = %+v", a)
	}
	if err := c.DisposeSession(ctxT(t), "ahp-session:/s2"); err != nil {
		t.Fatal(err)
	}
	if r := waitEvent(t, c, func(e client.SessionRemovedEvent) bool { return true }); r.Session != "ahp-session:/s2" {
		t.Errorf("removed = %+v", r)
	}
	sessions, err := c.ListSessions(ctxT(t))
	if err != nil || len(sessions) != 1 {
		t.Errorf("ListSessions = %d sessions, %v", len(sessions), err)
	}
}

// TestEveryClientMessageIsSchemaValid sends every command and every action
// the UI can dispatch through a host that checks each frame, as it is on
// the socket, against the schema of the negotiated version (invalid frames
// fail the test at cleanup).
func TestEveryClientMessageIsSchemaValid(t *testing.T) {
	for _, version := range []string{"1.0.0", "0.10.0", "0.9.0", "0.8.0", "0.7.0", "0.6.0"} {
		t.Run(version, func(t *testing.T) { testEveryClientMessage(t, version) })
	}
}

func testEveryClientMessage(t *testing.T, version string) {
	h := newHost(t, testhost.Options{Versions: []string{version}})
	c := dial(t, h, func(o *client.Options) { o.PingInterval = 10 * time.Millisecond })
	subscribe(t, c, sessionURI)
	subscribe(t, c, chatURI)
	ctx := ctxT(t)

	text := func(s string) protocol.ChatInputAnswerValue {
		return protocol.NewChatInputAnswerValue(protocol.ChatInputTextAnswerValue{Value: s})
	}
	answer := protocol.NewChatInputAnswer(protocol.ChatInputAnswered{Value: text("yes")})
	actions := []struct {
		channel string
		action  protocol.StateActionVariant
	}{
		{chatURI, protocol.ChatTurnStartedAction{TurnID: "t1", StartedAt: "2026-01-01T00:00:00Z", Message: userMsg("hi")}},
		{chatURI, protocol.ChatToolCallApprovedAction{TurnID: "t1", ToolCallID: "tc1", Confirmed: protocol.ToolCallConfirmationReasonUserAction}},
		{chatURI, protocol.ChatToolCallDeniedAction{TurnID: "t1", ToolCallID: "tc2", Reason: "denied"}},
		{chatURI, protocol.ChatToolCallResultConfirmedAction{TurnID: "t1", ToolCallID: "tc1", Approved: true}},
		{chatURI, protocol.ChatToolCallCompleteAction{TurnID: "t1", ToolCallID: "tc3", Result: protocol.ToolCallResult{
			Success: false, PastTenseMessage: protocol.PlainString("Cancelled"),
			Error: &protocol.ToolCallResultError{Message: "cancelled by user", Code: ptr("cancelled")}}}},
		{chatURI, protocol.ChatPendingMessageSetAction{Kind: protocol.PendingMessageKindQueued, ID: "q1", Message: userMsg("next")}},
		{chatURI, protocol.ChatInputAnswerChangedAction{RequestID: "r1", QuestionID: "q1", Answer: &answer}},
		{chatURI, protocol.ChatInputCompletedAction{RequestID: "r1", Response: protocol.ChatInputResponseKindAccept,
			Answers: map[string]protocol.ChatInputAnswer{"q1": answer}}},
		{chatURI, protocol.ChatTurnCancelledAction{TurnID: "t1"}},
		{sessionURI, protocol.SessionMcpServerStartRequestedAction{ID: "mcp1"}},
		{sessionURI, protocol.SessionMcpServerStopRequestedAction{ID: "mcp1"}},
		{sessionURI, protocol.SessionCustomizationToggledAction{ID: "cust1", Enablement: protocol.SessionEnablement(false)}},
		{sessionURI, protocol.SessionTitleChangedAction{Title: "renamed"}},
	}
	var seqs []int64
	for _, a := range actions {
		sa := protocol.NewStateAction(a.action)
		seq, err := c.Dispatch(a.channel, sa)
		if err != nil {
			t.Fatalf("Dispatch %s: %v", sa.Kind(), err)
		}
		seqs = append(seqs, seq)
	}

	if err := c.Authenticate(ctx, "https://api.example.com", "tok", []string{"a", "b"}, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if err := c.Authenticate(ctx, "https://api2.example.com", "tok", nil, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateSession(ctx, protocol.CreateSessionParams{Channel: "ahp-session:/s3", Provider: ptr("test"),
		WorkingDirectories: []protocol.URI{"file:///tmp"}}); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateChat(ctx, protocol.CreateChatParams{Channel: "ahp-session:/s3", Chat: "ahp-chat:/c3", InitialMessage: ptr(userMsg("hello"))}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.FetchTurns(ctx, protocol.FetchTurnsParams{Channel: chatURI, Cursor: ptr("cur")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListSessions(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Unsubscribe(ctx, chatURI); err != nil {
		t.Fatal(err)
	}
	if err := c.DisposeSession(ctx, "ahp-session:/s3"); err != nil {
		t.Fatal(err)
	}
	// All dispatches reach the first connection before we force a
	// reconnect (which exercises reconnect and the token re-push).
	if err := h.WaitDispatched(ctx, len(actions)); err != nil {
		t.Fatal(err)
	}
	c.Reconnect()
	waitEvent(t, c, func(e client.ConnectionEvent) bool { return e.Status == client.StatusReady })

	// The test must have seen every message kind, or it proves nothing.
	if err := h.WaitFrames(ctx, func(fs []testhost.Frame) bool {
		seen := map[string]bool{}
		for _, f := range fs {
			seen[f.Method] = true
		}
		for _, m := range []string{"initialize", "reconnect", "ping", "subscribe", "unsubscribe", "dispatchAction", "authenticate",
			"createSession", "createChat", "fetchTurns", "listSessions", "disposeSession"} {
			if !seen[m] {
				return false
			}
		}
		return true
	}); err != nil {
		t.Fatal(err)
	}
	if got := dispatchSeqs(t, h, 1); !slices.Equal(got, seqs) {
		t.Errorf("dispatched clientSeqs = %v, want %v in order", got, seqs)
	}
}

func TestEventsNeverBlockTheReader(t *testing.T) {
	h := newHost(t, testhost.Options{})
	c := dial(t, h, nil)
	subscribe(t, c, sessionURI)
	// Nobody reads events while the host floods; the client must keep
	// reading (its pings would otherwise fail) and deliver everything after.
	const n = 500
	for i := range n {
		h.Inject(sessionURI, title(fmt.Sprint(i)))
		h.NotifyRoot("root/sessionRemoved", protocol.SessionRemovedParams{Channel: protocol.RootChannel, Session: fmt.Sprint("ahp-session:/x", i)})
	}
	if _, err := c.ListSessions(ctxT(t)); err != nil {
		t.Fatalf("client stalled while its events were unread: %v", err)
	}
	for i := range n {
		r := waitEvent(t, c, func(e client.SessionRemovedEvent) bool { return true })
		if want := fmt.Sprint("ahp-session:/x", i); r.Session != want {
			t.Fatalf("event %d = %s, want %s (order lost)", i, r.Session, want)
		}
	}
	if got := sessionTitle(t, c); got != fmt.Sprint(n-1) {
		t.Errorf("title = %q", got)
	}
}

func TestCloseEndsEvents(t *testing.T) {
	h := newHost(t, testhost.Options{})
	c := dial(t, h, nil)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	timer := time.NewTimer(waitTimeout)
	defer timer.Stop()
	for {
		select {
		case _, ok := <-c.Events():
			if !ok {
				if _, err := c.Dispatch(protocol.RootChannel, title("x")); !errors.Is(err, client.ErrClientClosed) {
					t.Errorf("Dispatch after Close = %v", err)
				}
				return
			}
		case <-timer.C:
			t.Fatal("Events not closed after Close")
		}
	}
}

// An envelope that overtakes the result it follows (the host broadcasts it
// before the subscribe/initialize/reconnect response is written) must be
// applied after that result, not lost.
//
// Before the initialize result the client does not know the wire either:
// the raced root action there changed shape in 0.9 (a terminal's exit
// code), so on a 0.6 host it must wait for the result and be converted.
func TestEnvelopeBeforeResultIsKept(t *testing.T) {
	for _, version := range []string{"1.0.0", "0.6.0"} {
		for _, method := range []string{"initialize", "subscribe", "reconnect"} {
			t.Run(version+"/"+method, func(t *testing.T) { testEnvelopeBeforeResult(t, version, method) })
		}
	}
}

func testEnvelopeBeforeResult(t *testing.T, version, method string) {
	h := newHost(t, testhost.Options{Versions: []string{version}})
	ch := sessionURI
	if method == "initialize" {
		ch = protocol.RootChannel
	}
	act := title("raced")
	if method == "initialize" {
		act = protocol.NewStateAction(protocol.RootTerminalsChangedAction{Terminals: []protocol.TerminalInfo{{
			Resource: "ahp-terminal:/t1", Title: "build",
			Claim:     protocol.NewTerminalClaim(protocol.TerminalClientClaim{ClientID: "other"}),
			Lifecycle: protocol.NewTerminalLifecycleState(protocol.TerminalExitedLifecycleState{ExitCode: ptr(int64(3))}),
		}}})
	}
	h.InjectDuring(method, ch, act)
	c := dial(t, h, nil)
	subscribe(t, c, sessionURI)
	if method == "reconnect" {
		// A missed action goes into the replay; the raced one comes
		// after it and must not make the replay look stale.
		h.DropConnections()
		h.Inject(sessionURI, protocol.NewStateAction(protocol.SessionActivityChangedAction{Activity: ptr("missed")}))
		waitEvent(t, c, func(e client.ConnectionEvent) bool { return e.Status == client.StatusReady })
		waitUntil(t, c, "replayed action applied", func() bool {
			s, _ := c.Session(sessionURI)
			return s.Activity != nil && *s.Activity == "missed"
		})
	}
	waitUntil(t, c, "raced action applied", func() bool {
		if method == "initialize" {
			r, _ := c.Root()
			if len(r.Terminals) != 1 {
				return false
			}
			ex, ok := r.Terminals[0].Lifecycle.Variant.(protocol.TerminalExitedLifecycleState)
			return ok && ex.ExitCode != nil && *ex.ExitCode == 3
		}
		return sessionTitle(t, c) == "raced"
	})
	if c.LastSeenServerSeq() != h.Seq() {
		t.Errorf("lastSeen %d, host %d", c.LastSeenServerSeq(), h.Seq())
	}
}

// A command issued while the client is reconnecting waits for the new
// connection instead of failing.
func TestCommandDuringReconnectWaitsForReady(t *testing.T) {
	h := newHost(t, testhost.Options{})
	c := dial(t, h, nil)
	h.RefuseConnections(true)
	h.DropConnections()
	waitEvent(t, c, func(e client.ConnectionEvent) bool {
		return e.Status == client.StatusReconnecting && e.Attempt >= 2
	})

	type result struct {
		n   int
		err error
	}
	done := make(chan result, 1)
	go func() {
		s, err := c.ListSessions(ctxT(t))
		done <- result{len(s), err}
	}()
	subDone := make(chan error, 1)
	go func() { subDone <- c.Subscribe(ctxT(t), sessionURI) }()

	h.RefuseConnections(false)
	waitEvent(t, c, func(e client.ConnectionEvent) bool { return e.Status == client.StatusReady })
	select {
	case r := <-done:
		if r.err != nil || r.n != 1 {
			t.Errorf("ListSessions during reconnect = %d, %v", r.n, r.err)
		}
	case <-time.After(waitTimeout):
		t.Fatal("ListSessions still waiting after Ready")
	}
	select {
	case err := <-subDone:
		if err != nil {
			t.Errorf("Subscribe during reconnect: %v", err)
		}
	case <-time.After(waitTimeout):
		t.Fatal("Subscribe still waiting after Ready")
	}
	if _, ok := c.Session(sessionURI); !ok {
		t.Error("session not mirrored")
	}
	// A ctx that ends while reconnecting fails with ErrNotConnected.
	h.RefuseConnections(true)
	h.DropConnections()
	waitEvent(t, c, func(e client.ConnectionEvent) bool { return e.Status == client.StatusReconnecting })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.ListSessions(ctx); !errors.Is(err, client.ErrNotConnected) {
		t.Errorf("ListSessions with a dead ctx while reconnecting = %v", err)
	}
}

// TestEchoEmitsActionConfirmed: the host's echo of our own dispatch settles
// it with an ActionConfirmedEvent (the UI clears its pending marker on it),
// and a rejection does not also claim to be confirmed.
func TestEchoEmitsActionConfirmed(t *testing.T) {
	h := newHost(t, testhost.Options{})
	c := dial(t, h, nil)
	subscribe(t, c, sessionURI)

	seq, err := c.Dispatch(sessionURI, title("mine"))
	if err != nil {
		t.Fatal(err)
	}
	ok := waitEvent(t, c, func(e client.ActionConfirmedEvent) bool { return true })
	if ok.ClientSeq != seq || ok.Channel != sessionURI || ok.Action.Kind() != "session/titleChanged" {
		t.Errorf("confirmation = %+v, want clientSeq %d on %s", ok, seq, sessionURI)
	}

	h.RejectNext("session/titleChanged", "no")
	seq2, err := c.Dispatch(sessionURI, title("again"))
	if err != nil {
		t.Fatal(err)
	}
	var sawConfirm bool
	waitEvent(t, c, func(e client.Event) bool {
		switch e := e.(type) {
		case client.ActionConfirmedEvent:
			sawConfirm = sawConfirm || e.ClientSeq == seq2
		case client.ActionRejectedEvent:
			return e.ClientSeq == seq2
		}
		return false
	})
	if sawConfirm {
		t.Error("a rejected dispatch was also reported as confirmed")
	}
}

func TestDescribeVersionMismatch(t *testing.T) {
	tests := []struct {
		supported []string
		want      string
	}{
		{[]string{"^1.0.0", "~0.9.0"}, "host accepts AHP ^1.0.0 (>=1.0.0 <2.0.0), ~0.9.0 (>=0.9.0 <0.10.0); ahptui offers 0.6.0"},
		{[]string{">=0.1.0 <0.3.0"}, "host accepts AHP >=0.1.0 <0.3.0; ahptui offers 0.6.0"},
		{[]string{"0.5.2", "0.5.1"}, "host accepts AHP 0.5.2, 0.5.1; ahptui offers 0.6.0"},
		{nil, "host accepts AHP nothing it named; ahptui offers 0.6.0"},
		{[]string{"\x1b[31mevil\x1b[0m"}, `host accepts AHP "\x1b[31mevil\x1b[0m" (unreadable); ahptui offers 0.6.0`},
	}
	for _, tt := range tests {
		got := client.DescribeVersionMismatch(tt.supported, []string{"0.6.0"})
		if got != tt.want {
			t.Errorf("protocol.DescribeVersionMismatch(%q)\n got %s\nwant %s", tt.supported, got, tt.want)
		}
		if strings.ContainsAny(got, "\x1b\n") {
			t.Errorf("control characters reached the message: %q", got)
		}
	}
}

func TestOfferedVersionsHaveAWire(t *testing.T) {
	for _, v := range client.SupportedProtocolVersions {
		if protocol.WireOf(v) == protocol.WireUnknown {
			t.Errorf("offered %s maps to no wire", v)
		}
	}
}

// TestRestartedHostThatLoadsLazily: VS Code's agent host, restarted,
// refuses reconnect and answers the fresh initialize with the root's
// snapshot only, since it has not loaded the session again (issue 19,
// finding 6). The client subscribes to the session and chat explicitly
// and keeps them: nothing is dropped, and both stay live.
func TestRestartedHostThatLoadsLazily(t *testing.T) {
	h := newHost(t, testhost.Options{})
	c := dial(t, h, nil)
	subscribe(t, c, sessionURI)
	subscribe(t, c, chatURI)
	h.LoadLazily(true)
	h.Restart()
	var dropped []string
	waitEvent(t, c, func(e client.Event) bool {
		if d, ok := e.(client.ChannelDroppedEvent); ok {
			dropped = append(dropped, d.Channel)
		}
		ce, ok := e.(client.ConnectionEvent)
		return ok && ce.Status == client.StatusReady
	})
	if len(dropped) > 0 {
		t.Fatalf("channels dropped after the restart: %v", dropped)
	}
	var subscribed []string
	for _, f := range h.Frames() {
		if f.Conn == 2 && f.Method == "subscribe" {
			var p struct {
				Params protocol.SubscribeParams `json:"params"`
			}
			_ = json.Unmarshal(f.Raw, &p)
			subscribed = append(subscribed, p.Params.Channel)
		}
	}
	slices.Sort(subscribed)
	if want := []string{chatURI, sessionURI}; !slices.Equal(subscribed, want) {
		t.Errorf("subscribed after the restart to %v, want %v", subscribed, want)
	}
	h.Inject(sessionURI, title("after restart"))
	h.Inject(chatURI, turnStarted("t9"))
	waitUntil(t, c, "both channels live", func() bool {
		ch, ok := c.Chat(chatURI)
		return sessionTitle(t, c) == "after restart" && ok && ch.ActiveTurn != nil && ch.ActiveTurn.ID == "t9"
	})
}
