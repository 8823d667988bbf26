package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

const (
	mSession = "ahp-session:/m1"
	mChat    = "ahp-chat:/m1"
	me       = "me"
)

func mTitle(s string) protocol.StateAction {
	return protocol.NewStateAction(protocol.SessionTitleChangedAction{Title: s})
}

func mSessionState(title string) protocol.SessionState {
	return protocol.SessionState{Provider: "p", Title: title, Lifecycle: protocol.SessionLifecycleReady,
		ActiveClients: []protocol.SessionActiveClient{}, Chats: []protocol.ChatSummary{}}
}

func fixedClock() time.Time { return time.UnixMilli(9999) }

// step is one input to the mirror: a local dispatch (local != nil) or an
// envelope from the host.
type step struct {
	local  *pendingAction
	env    *protocol.ActionEnvelope
	wantOK bool // applyLocal result
	// expectations after the step
	optimistic string
	confirmed  string
	pending    int
	rejected   int64 // clientSeq expected in outcome.rejected, 0 for none
	changed    bool
}

func local(seq int64, title string) *pendingAction {
	return &pendingAction{channel: mSession, clientSeq: seq, action: mTitle(title)}
}

func env(seq int64, title string, origin *protocol.ActionOrigin, reject string) *protocol.ActionEnvelope {
	e := &protocol.ActionEnvelope{Channel: mSession, Action: mTitle(title), ServerSeq: seq, Origin: origin}
	if reject != "" {
		e.RejectionReason = &reject
	}
	return e
}

func mine(seq int64) *protocol.ActionOrigin {
	return &protocol.ActionOrigin{ClientID: me, ClientSeq: seq}
}
func theirs(seq int64) *protocol.ActionOrigin {
	return &protocol.ActionOrigin{ClientID: "other", ClientSeq: seq}
}

func TestMirrorReconciliation(t *testing.T) {
	tests := []struct {
		name  string
		steps []step
	}{
		{"own echo confirms", []step{
			{local: local(1, "a"), wantOK: true, optimistic: "a", confirmed: "start", pending: 1},
			{env: env(11, "a", mine(1), ""), optimistic: "a", confirmed: "a", pending: 0, changed: true},
		}},
		{"rejection rolls back", []step{
			{local: local(1, "a"), wantOK: true, optimistic: "a", confirmed: "start", pending: 1},
			{env: env(11, "a", mine(1), "no"), optimistic: "start", confirmed: "start", pending: 0, rejected: 1, changed: true},
		}},
		{"foreign action rebases pending", []step{
			{local: local(1, "a"), wantOK: true, optimistic: "a", confirmed: "start", pending: 1},
			{env: env(11, "b", theirs(7), ""), optimistic: "a", confirmed: "b", pending: 1, changed: true},
			{env: env(12, "a", mine(1), ""), optimistic: "a", confirmed: "a", pending: 0, changed: true},
		}},
		{"host-originated action", []step{
			{env: env(11, "h", nil, ""), optimistic: "h", confirmed: "h", changed: true},
		}},
		{"echoes out of order", []step{
			{local: local(1, "a"), wantOK: true, optimistic: "a", confirmed: "start", pending: 1},
			{local: local(2, "b"), wantOK: true, optimistic: "b", confirmed: "start", pending: 2},
			{env: env(11, "b", mine(2), ""), optimistic: "a", confirmed: "b", pending: 1, changed: true},
			{env: env(12, "a", mine(1), ""), optimistic: "a", confirmed: "a", pending: 0, changed: true},
		}},
		{"middle rejection keeps later pending", []step{
			{local: local(1, "a"), wantOK: true, optimistic: "a", confirmed: "start", pending: 1},
			{local: local(2, "b"), wantOK: true, optimistic: "b", confirmed: "start", pending: 2},
			{env: env(11, "a", mine(1), "no"), optimistic: "b", confirmed: "start", pending: 1, rejected: 1, changed: true},
		}},
		{"stale own echo (already in snapshot) only drops pending", []step{
			{local: local(1, "a"), wantOK: true, optimistic: "a", confirmed: "start", pending: 1},
			{env: env(5, "a", mine(1), ""), optimistic: "start", confirmed: "start", pending: 0, changed: true},
		}},
		{"stale foreign envelope is ignored", []step{
			{env: env(10, "old", theirs(1), ""), optimistic: "start", confirmed: "start"},
		}},
		{"own echo of something not pending applies like a foreign one", []step{
			{env: env(11, "x", mine(99), ""), optimistic: "x", confirmed: "x", changed: true},
		}},
		{"foreign rejection changes nothing", []step{
			{env: env(11, "x", theirs(3), "no"), optimistic: "start", confirmed: "start"},
			{env: env(12, "y", nil, ""), optimistic: "y", confirmed: "y", changed: true},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMirror(fixedClock)
			m.setSnapshot(mSession, mSessionState("start"), 10)
			for i, s := range tt.steps {
				if s.local != nil {
					if ok := m.applyLocal(*s.local); ok != s.wantOK {
						t.Fatalf("step %d: applyLocal = %v", i, ok)
					}
				} else {
					out := m.applyEnvelope(*s.env, me)
					if !out.known || out.changed != s.changed {
						t.Errorf("step %d: outcome %+v, want changed=%v", i, out, s.changed)
					}
					var rej int64
					if out.rejected != nil {
						rej = out.rejected.clientSeq
					}
					if rej != s.rejected {
						t.Errorf("step %d: rejected seq %d, want %d", i, rej, s.rejected)
					}
				}
				ch := m.channels[mSession]
				if got := ch.optimistic.(protocol.SessionState).Title; got != s.optimistic {
					t.Errorf("step %d: optimistic %q, want %q", i, got, s.optimistic)
				}
				if got := ch.confirmed.(protocol.SessionState).Title; got != s.confirmed {
					t.Errorf("step %d: confirmed %q, want %q", i, got, s.confirmed)
				}
				if len(ch.pending) != s.pending {
					t.Errorf("step %d: pending %d, want %d", i, len(ch.pending), s.pending)
				}
			}
		})
	}
}

func TestMirrorUnknownChannelAndActionType(t *testing.T) {
	m := newMirror(fixedClock)
	m.setSnapshot(mSession, mSessionState("start"), 10)
	if out := m.applyEnvelope(protocol.ActionEnvelope{Channel: "ahp-session:/other", Action: mTitle("x"), ServerSeq: 11}, me); out.known {
		t.Error("envelope for an unmirrored channel was applied")
	}
	if m.applyLocal(pendingAction{channel: "ahp-session:/other", clientSeq: 1, action: mTitle("x")}) {
		t.Error("local dispatch to an unmirrored channel accepted")
	}
	unknown := protocol.NewStateAction(protocol.UnknownStateAction{Discriminator: "future/x", Raw: json.RawMessage(`{"type":"future/x"}`)})
	out := m.applyEnvelope(protocol.ActionEnvelope{Channel: mSession, Action: unknown, ServerSeq: 12}, me)
	if !out.known || out.changed {
		t.Fatalf("unknown action type: known %v, changed %v; want known and unchanged (no state event)", out.known, out.changed)
	}
	if got := m.channels[mSession].optimistic.(protocol.SessionState).Title; got != "start" {
		t.Errorf("unknown action changed state: %q", got)
	}
	if m.channels[mSession].seq != 12 {
		t.Errorf("channel seq %d, want 12 (unknown actions still count)", m.channels[mSession].seq)
	}
	// A stateless channel has no state to dispatch to.
	m.addStateless("ahp-otlp:logs")
	if _, ok := m.state("ahp-otlp:logs"); ok || !m.subscribed("ahp-otlp:logs") {
		t.Error("stateless channel wrongly reported")
	}
	if m.applyLocal(pendingAction{channel: "ahp-otlp:logs", clientSeq: 2, action: mTitle("x")}) {
		t.Error("dispatch to a stateless channel accepted")
	}
}

// A state handed out stays as it was while newer states are computed.
func TestMirrorSnapshotsAreImmutable(t *testing.T) {
	m := newMirror(fixedClock)
	m.setSnapshot(mChat, protocol.ChatState{Resource: mChat, Status: protocol.SessionStatusIdle, ModifiedAt: "1970-01-01T00:00:00Z", Turns: []protocol.Turn{}}, 1)
	before, _ := m.state(mChat)
	m.applyLocal(pendingAction{channel: mChat, clientSeq: 1, action: protocol.NewStateAction(protocol.ChatTurnStartedAction{
		TurnID: "t1", StartedAt: "2026-01-01T00:00:00Z", Message: protocol.Message{Text: "hi", Origin: protocol.MessageOrigin{Kind: protocol.MessageKindUser}}})})
	after, _ := m.state(mChat)
	if before.(protocol.ChatState).ActiveTurn != nil {
		t.Error("earlier snapshot changed by a later dispatch")
	}
	if after.(protocol.ChatState).ActiveTurn == nil {
		t.Fatal("chat/turnStarted did not start a turn in the newer snapshot")
	}
}

func TestMirrorPendingOrderAcrossChannels(t *testing.T) {
	m := newMirror(fixedClock)
	m.setSnapshot(mSession, mSessionState("s"), 1)
	m.setSnapshot("ahp-session:/m2", mSessionState("s"), 1)
	for _, p := range []pendingAction{
		{channel: mSession, clientSeq: 3, action: mTitle("c")},
		{channel: "ahp-session:/m2", clientSeq: 4, action: mTitle("d")},
		{channel: mSession, clientSeq: 5, action: mTitle("e")},
		{channel: "ahp-session:/m2", clientSeq: 6, action: mTitle("f")},
	} {
		m.applyLocal(p)
	}
	var seqs []int64
	for _, p := range m.allPending() {
		seqs = append(seqs, p.clientSeq)
	}
	if fmt.Sprint(seqs) != "[3 4 5 6]" {
		t.Errorf("allPending order = %v", seqs)
	}
	if dropped := m.drop(mSession); len(dropped) != 2 || m.subscribed(mSession) {
		t.Errorf("drop returned %d pending", len(dropped))
	}
}

// TestEventQueueOrderedAndBounded: pushes never block; the events come out
// in order; a ChannelStateEvent right after one for the same channel is
// dropped, and while more than stateFoldAt events wait one folds into a
// waiting one for its channel (the UI reads the state when it takes the
// event), but never across a ChannelDroppedEvent for it; host events are
// refused past the byte cap and accepted again once the reader catches up.
func TestEventQueueOrderedAndBounded(t *testing.T) {
	// The pump starts once the short queue below is pushed: a running pump
	// may move an event on to the out channel between two pushes, and an
	// event already handed on is no longer coalesced (ReceiveEvents
	// coalesces what waits there).
	q := newIdleEventQueue()
	defer q.abandon()
	timeout := time.After(10 * time.Second)
	next := func() Event {
		t.Helper()
		select {
		case e := <-q.out:
			return e
		case <-timeout:
			t.Fatal("timed out")
		}
		return nil
	}
	expect := func(want ...Event) {
		t.Helper()
		for i, w := range want {
			if e := next(); e != w {
				t.Fatalf("event %d = %#v, want %#v", i, e, w)
			}
		}
	}

	// A short queue: every state event is delivered, consecutive ones
	// for one channel once.
	q.push(ChannelStateEvent{Channel: "a"})
	q.push(ChannelStateEvent{Channel: "a"})
	q.push(SessionRemovedEvent{Session: "x"})
	q.push(ChannelStateEvent{Channel: "a"})
	go q.pump()
	expect(ChannelStateEvent{Channel: "a"}, SessionRemovedEvent{Session: "x"}, ChannelStateEvent{Channel: "a"})

	// A flood while nobody reads (push must never block): past
	// stateFoldAt waiting events, "a" and "b" fold into their waiting
	// events, so they stop growing the queue.
	const n = 10000
	for i := range n {
		q.push(SessionRemovedEvent{Session: fmt.Sprint(i)})
		q.push(ChannelStateEvent{Channel: "a"})
		q.push(ChannelStateEvent{Channel: "b"})
	}
	q.push(ChannelDroppedEvent{Channel: "a"})
	q.push(ChannelStateEvent{Channel: "a"}) // after a drop: queued again
	removed, states := 0, 0
	for removed < n {
		switch e := next().(type) {
		case SessionRemovedEvent:
			if e.Session != fmt.Sprint(removed) {
				t.Fatalf("SessionRemovedEvent %q, want %d", e.Session, removed)
			}
			removed++
		case ChannelStateEvent:
			states++
		default:
			t.Fatalf("unexpected %#v in the flood", e)
		}
	}
	if states > stateFoldAt {
		t.Errorf("%d state events for 2 channels over %d pushes: folding did not bound them", states, n)
	}
	expect(ChannelDroppedEvent{Channel: "a"}, ChannelStateEvent{Channel: "a"})
	// Taken: the next change needs (and gets) a new event.
	q.push(ChannelStateEvent{Channel: "a"})
	expect(ChannelStateEvent{Channel: "a"})

	// The byte cap: 1 MiB payloads are refused once it is passed.
	const payload = 1 << 20
	accepted := 0
	for q.pushHost(SessionRemovedEvent{Session: "big"}, payload) {
		accepted++
		if accepted > 2*maxQueuedEventBytes/payload {
			t.Fatalf("pushHost accepted %d MiB, cap is %d MiB", accepted, maxQueuedEventBytes>>20)
		}
	}
	if accepted < maxQueuedEventBytes/payload {
		t.Fatalf("pushHost refused after %d MiB, cap is %d MiB", accepted, maxQueuedEventBytes>>20)
	}
	q.push(ConnectionEvent{Status: StatusReconnecting}) // the client's own events still go in
	for range accepted {
		next()
	}
	if e := next(); e != (ConnectionEvent{Status: StatusReconnecting}) {
		t.Fatalf("event after the host's = %#v", e)
	}
	if !q.pushHost(SessionRemovedEvent{Session: "after"}, payload) {
		t.Fatal("pushHost still refuses after the reader caught up")
	}
	next()

	q.close()
	q.push(HostErrorEvent{}) // after close: discarded
	select {
	case _, ok := <-q.out:
		if ok {
			t.Fatal("event delivered after close")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("out not closed")
	}
}

// TestReceiveEventsBatches checks the batch a UI applies in one update:
// everything already queued, in order, at most max, with consecutive state
// events for one channel coalesced, and the end of the stream reported.
func TestReceiveEventsBatches(t *testing.T) {
	ch := make(chan Event, 10)
	for _, e := range []Event{
		ChannelStateEvent{Channel: "a"}, ChannelStateEvent{Channel: "a"}, HostErrorEvent{},
		ChannelStateEvent{Channel: "a"}, ChannelStateEvent{Channel: "b"}, SessionRemovedEvent{Session: "s"},
	} {
		ch <- e
	}
	close(ch)
	for _, tc := range []struct {
		want string
		ok   bool
	}{
		{"[{a} {<nil>} {a} {b}]", true},
		{"[{s}]", true},
		{"[]", false},
	} {
		batch, ok := ReceiveEvents(ch, 4)
		if got := fmt.Sprint(batch); got != tc.want || ok != tc.ok {
			t.Errorf("batch %s (ok %v), want %s (ok %v)", got, ok, tc.want, tc.ok)
		}
	}
}

func TestEventQueueAbandonWithUnreadEvents(t *testing.T) {
	q := newEventQueue()
	q.push(HostErrorEvent{})
	q.push(HostErrorEvent{})
	q.abandon()
	q.abandon() // idempotent
	timeout := time.After(10 * time.Second)
	for {
		select {
		case _, ok := <-q.out:
			if !ok {
				return
			}
		case <-timeout:
			t.Fatal("out not closed after abandon")
		}
	}
}

func TestLoadOrCreateClientID(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cfg", "ahptui")
	id, err := LoadOrCreateClientID(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(id) != 36 || strings.Count(id, "-") != 4 {
		t.Errorf("id %q is not a UUID", id)
	}
	st, err := os.Stat(filepath.Join(dir, clientIDFile))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", st.Mode().Perm())
	}
	again, err := LoadOrCreateClientID(dir)
	if err != nil || again != id {
		t.Errorf("second load = %q, %v; want the same %q", again, err, id)
	}
	// A corrupt file is replaced rather than sent to the host.
	if err := os.WriteFile(filepath.Join(dir, clientIDFile), []byte("bad id\x1b\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fresh, err := LoadOrCreateClientID(dir)
	if err != nil || fresh == id || !validClientID(fresh) {
		t.Errorf("after corruption = %q, %v", fresh, err)
	}
	// An unreadable location is an error that says what to do.
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadOrCreateClientID(filepath.Join(blocker, "sub")); err == nil {
		t.Error("no error for a config dir under a file")
	}
}

func TestHostErrorTypes(t *testing.T) {
	tests := []struct {
		err      *jsonrpc.Error
		check    func(error) bool
		sentinel error
	}{
		{jsonrpc.NewErrorData(jsonrpc.AuthRequired, "auth", protocol.AuthRequiredErrorData{Resources: []protocol.ProtectedResourceMetadata{{Resource: "https://r"}}}),
			func(e error) bool {
				var a *AuthRequiredError
				return errors.As(e, &a) && len(a.Resources) == 1 && a.Resources[0].Resource == "https://r"
			}, ErrAuthRequired},
		{jsonrpc.NewError(jsonrpc.AuthRequired, "no data"),
			func(e error) bool { var a *AuthRequiredError; return errors.As(e, &a) && a.Resources == nil }, ErrAuthRequired},
		{jsonrpc.NewErrorData(jsonrpc.UnsupportedProtocolVersion, "v", protocol.UnsupportedProtocolVersionErrorData{SupportedVersions: []string{"^0.7.0"}}),
			func(e error) bool {
				var u *UnsupportedProtocolVersionError
				return errors.As(e, &u) && u.Supported[0] == "^0.7.0" && strings.Contains(e.Error(), "^0.7.0")
			}, ErrUnsupportedProtocolVersion},
		{jsonrpc.NewErrorData(jsonrpc.PermissionDenied, "denied", protocol.PermissionDeniedErrorData{Request: &protocol.ResourceRequestParams{URI: "file:///x"}}),
			func(e error) bool { var p *PermissionDeniedError; return errors.As(e, &p) && p.Request != nil }, ErrPermissionDenied},
		{jsonrpc.NewError(jsonrpc.SessionNotFound, "x"), isHostErr(jsonrpc.SessionNotFound), ErrSessionNotFound},
		{jsonrpc.NewError(jsonrpc.ProviderNotFound, "x"), isHostErr(jsonrpc.ProviderNotFound), ErrProviderNotFound},
		{jsonrpc.NewError(jsonrpc.SessionAlreadyExists, "x"), isHostErr(jsonrpc.SessionAlreadyExists), ErrSessionAlreadyExists},
		{jsonrpc.NewError(jsonrpc.TurnInProgress, "x"), isHostErr(jsonrpc.TurnInProgress), ErrTurnInProgress},
		{jsonrpc.NewError(jsonrpc.ContentNotFound, "x"), isHostErr(jsonrpc.ContentNotFound), ErrContentNotFound},
		{jsonrpc.NewError(jsonrpc.NotFound, "x"), isHostErr(jsonrpc.NotFound), ErrNotFound},
		{jsonrpc.NewError(jsonrpc.AlreadyExists, "x"), isHostErr(jsonrpc.AlreadyExists), ErrAlreadyExists},
		{jsonrpc.NewError(jsonrpc.InvalidParams, "x"), isHostErr(jsonrpc.InvalidParams), jsonrpc.ErrInvalidParams},
		{jsonrpc.NewError(-1, "\x1b]0;pwned\x07evil"), func(e error) bool {
			return !strings.ContainsAny(e.Error(), "\x1b\x07") && strings.Contains(e.Error(), "evil")
		}, nil},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.err.Code), func(t *testing.T) {
			err := fmt.Errorf("call: %w", asHostError(tt.err, []string{"0.6.0"}))
			if !tt.check(err) {
				t.Errorf("%v (%T) failed its check", err, errors.Unwrap(err))
			}
			if tt.sentinel != nil && !errors.Is(err, tt.sentinel) {
				t.Errorf("errors.Is(%v, %v) = false", err, tt.sentinel)
			}
			var je *jsonrpc.Error
			if !errors.As(err, &je) || je.Code != tt.err.Code {
				t.Error("typed error does not wrap the *jsonrpc.Error")
			}
		})
	}
	plain := errors.New("transport down")
	if asHostError(plain, nil) != plain {
		t.Error("non-JSON-RPC error was changed")
	}
}

func isHostErr(code int64) func(error) bool {
	return func(e error) bool { var h *HostError; return errors.As(e, &h) && h.Code == code }
}

func TestBackoffBounds(t *testing.T) {
	c := &Client{opts: Options{ReconnectInitial: 100 * time.Millisecond, ReconnectMax: time.Second}}
	for attempt := 1; attempt <= 20; attempt++ {
		want := min(100*time.Millisecond<<min(attempt-1, 10), time.Second)
		for range 50 {
			d := c.backoff(attempt)
			if d < want/2 || d > want {
				t.Fatalf("attempt %d: backoff %v outside [%v, %v]", attempt, d, want/2, want)
			}
		}
	}
}

// Two processes of one user, one config directory: the first keeps the
// installation's id, the second gets one of its own (VS Code's host
// serves one connection per clientId, the newest). Two claims in this
// process stand for the two: flock locks are per open file.
func TestClaimClientIDOnePerProcess(t *testing.T) {
	dir := t.TempDir()
	stable, err := LoadOrCreateClientID(dir)
	if err != nil {
		t.Fatal(err)
	}
	first, release, err := ClaimClientID(dir)
	if err != nil {
		t.Fatal(err)
	}
	if first != stable {
		t.Fatalf("first claim = %q, want the installation's id %q", first, stable)
	}
	second, release2, err := ClaimClientID(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer release2()
	if second == stable || !validClientID(second) {
		t.Fatalf("second claim while the first holds it = %q, want a fresh valid id", second)
	}
	if again, _ := LoadOrCreateClientID(dir); again != stable {
		t.Fatalf("the second claim replaced the saved id: %q", again)
	}
	release()
	third, release3, err := ClaimClientID(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer release3()
	if third != stable {
		t.Fatalf("claim after release = %q, want the installation's id back", third)
	}
}
