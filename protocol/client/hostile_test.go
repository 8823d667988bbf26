package client

// Hostile-host tests: protocol's Client, dialled over a real WebSocket on
// 127.0.0.1, against protocol/internal/hostilehost, which sends what a
// compromised or broken host could: control sequences in every text
// field, frames far over the limit, huge arrays, deep nesting, envelopes
// for channels never subscribed, duplicated and out-of-order serverSeq,
// responses to requests never made, and requests for local files.
//
// Memory bound (stated and measured): with the 16 MiB frame limit, the
// client's live heap after GC grows by less than 64 MiB over the whole
// barrage (hostileHeapBudget), and it never holds an oversize frame.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/convert"
	"github.com/ahptui/ahptui/protocol/internal/hostilehost"
	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

const (
	// hostileWait bounds every wait of these tests (the request flood
	// takes about a minute with the race detector on a loaded machine).
	hostileWait = 3 * time.Minute
	// hostileHeapBudget is the stated bound on live-heap growth.
	hostileHeapBudget = 64 << 20
	// hostilePeakBudget bounds the heap while the client decodes hostile
	// big structures (TestHostileBigStructures), not just what is left
	// afterwards. A frame is at most 16 MiB (jsonrpc.DefaultReadLimit) and
	// holds at most 262144 array elements (DefaultMaxArrayElements), so
	// the worst accepted frame decodes into a few tens of MiB of structs
	// next to its bytes and the state it replaces; measured ≈114 MiB with
	// the race detector. 256 MiB leaves room for GC timing yet fails if a
	// limit stops bounding the decode (a million `{}` decoded would need
	// ~730 MB of allocation, see jsonrpc/complexity.go).
	hostilePeakBudget = 256 << 20

	hostileSession = "ahp-session:/hostile"
	hostileChat    = "ahp-chat:/hostile"
)

var (
	hostileRoot         = hostilehost.SampleRoot
	hostileSessionState = hostilehost.SampleSession
	hostileChatState    = hostilehost.SampleChat
)

// eventLog drains a client's events so the client never blocks on them, and
// lets a test wait for one. pause makes it a consumer that has stopped
// reading (a UI busy elsewhere).
type eventLog struct {
	mu     sync.Mutex
	events []Event
	more   chan struct{} // closed and replaced on every append
	closed bool
	gate   chan struct{} // non-nil while paused; closed by resume
	// countOnly, when set, makes the log count the events it matches
	// instead of keeping them (a flood test must not measure its own log).
	countOnly func(Event) bool
	counted   int
}

func watchEvents(c *Client) *eventLog {
	l := &eventLog{more: make(chan struct{})}
	go func() {
		for {
			l.mu.Lock()
			gate := l.gate
			l.mu.Unlock()
			if gate != nil {
				<-gate
			}
			e, ok := <-c.Events()
			if !ok {
				break
			}
			l.mu.Lock()
			if l.countOnly != nil && l.countOnly(e) {
				l.counted++
			} else {
				l.events = append(l.events, e)
			}
			close(l.more)
			l.more = make(chan struct{})
			l.mu.Unlock()
		}
		l.mu.Lock()
		l.closed = true
		close(l.more)
		l.mu.Unlock()
	}()
	return l
}

// waitFor returns the first event at index >= from matching ok, and its index.
func (l *eventLog) waitFor(t *testing.T, ctx context.Context, from int, what string, ok func(Event) bool) (Event, int) {
	t.Helper()
	for {
		l.mu.Lock()
		for i := from; i < len(l.events); i++ {
			if ok(l.events[i]) {
				e := l.events[i]
				l.mu.Unlock()
				return e, i
			}
		}
		from = len(l.events)
		more, closed := l.more, l.closed
		l.mu.Unlock()
		if closed {
			t.Fatalf("event stream closed while waiting for %s", what)
		}
		select {
		case <-more:
		case <-ctx.Done():
			t.Fatalf("timed out waiting for %s; events so far: %s", what, l.summary())
		}
	}
}

// countOnlyWhere makes the log count, not keep, the events match accepts.
func (l *eventLog) countOnlyWhere(match func(Event) bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.countOnly = match
}

func (l *eventLog) countedEvents() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.counted
}

// pause stops reading events after the one being taken, if any.
func (l *eventLog) pause() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.gate == nil {
		l.gate = make(chan struct{})
	}
}

// resume reads events again.
func (l *eventLog) resume() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.gate != nil {
		close(l.gate)
		l.gate = nil
	}
}

func (l *eventLog) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.events)
}

func (l *eventLog) all() []Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Event(nil), l.events...)
}

func (l *eventLog) summary() string {
	var b strings.Builder
	for _, e := range l.all() {
		fmt.Fprintf(&b, "\n  %T %s", e, eventText(e))
	}
	return b.String()
}

func eventText(e Event) string {
	switch e := e.(type) {
	case ConnectionEvent:
		s := e.Status.String()
		if e.Cause != nil {
			s += ": " + e.Cause.Error()
		}
		return s
	case HostErrorEvent:
		return e.Err.Error()
	case ChannelStateEvent:
		return e.Channel
	case ChannelDroppedEvent:
		return e.Channel + ": " + e.Reason
	}
	return ""
}

func isStatus(s ConnStatus) func(Event) bool {
	return func(e Event) bool {
		ce, ok := e.(ConnectionEvent)
		return ok && ce.Status == s
	}
}

func isChannelState(ch string) func(Event) bool {
	return func(e Event) bool {
		ce, ok := e.(ChannelStateEvent)
		return ok && ce.Channel == ch
	}
}

type hostileRig struct {
	host   *hostilehost.Host
	client *Client
	events *eventLog
	conn   *hostilehost.Conn // the current connection
	ctx    context.Context
}

// startHostile starts a host with the given states (nil: the default
// root/session/chat), dials it and subscribes the session and chat.
func startHostile(t *testing.T, version string, states map[string]json.RawMessage, answer func(*hostilehost.Conn, *jsonrpc.Request) (any, *jsonrpc.Error, bool)) *hostileRig {
	t.Helper()
	return startHostileConfig(t, hostilehost.Config{States: states, Answer: answer, ProtocolVersion: version})
}

// onBothWires runs a hostile test against a host that answers 1.0.0 and
// one that answers 0.6.0: the bounds hold whichever wire the client
// decodes (on 0.6 every frame also passes the conversion).
func onBothWires(t *testing.T, test func(t *testing.T, version string)) {
	for _, v := range []string{"1.0.0", "0.6.0"} {
		t.Run(v, func(t *testing.T) { test(t, v) })
	}
}

// startHostileConfig is startHostile with the whole host configuration
// (States nil: the default root/session/chat; ServerSeq is always 10).
func startHostileConfig(t *testing.T, cfg hostilehost.Config) *hostileRig {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hostileWait)
	t.Cleanup(cancel)
	if cfg.States == nil {
		cfg.States = map[string]json.RawMessage{
			protocol.RootChannel: hostileRoot, hostileSession: hostileSessionState, hostileChat: hostileChatState,
		}
	}
	states := cfg.States
	cfg.ServerSeq = 10
	h, err := hostilehost.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	id, err := LoadOrCreateClientID(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c, err := Dial(ctx, Options{
		URL: h.URL(), ClientID: id, ClientInfo: protocol.Implementation{Name: "ahptui-hostile-test"},
		PingInterval: time.Hour, ReconnectInitial: 5 * time.Millisecond, ReconnectMax: 50 * time.Millisecond,
		GiveUpAfter: 20 * time.Second,
	})
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	r := &hostileRig{host: h, client: c, events: watchEvents(c), ctx: ctx}
	r.conn = r.nextConn(t)
	if _, ok := states[hostileSession]; ok {
		if err := c.Subscribe(ctx, hostileSession); err != nil {
			t.Fatalf("subscribe session: %v", err)
		}
	}
	if _, ok := states[hostileChat]; ok {
		if err := c.Subscribe(ctx, hostileChat); err != nil {
			t.Fatalf("subscribe chat: %v", err)
		}
	}
	return r
}

// nextConn waits for the host's next connection to finish its handshake.
func (r *hostileRig) nextConn(t *testing.T) *hostilehost.Conn {
	t.Helper()
	select {
	case c := <-r.host.Conns():
		select {
		case <-c.Handshaken():
			return c
		case <-c.Done():
			t.Fatalf("connection %d ended during the handshake: %v", c.ID, c.Err())
		case <-r.ctx.Done():
			t.Fatal("handshake never finished")
		}
	case <-r.ctx.Done():
		t.Fatal("the client never connected")
	}
	return nil
}

func (r *hostileRig) send(t *testing.T, frame []byte) {
	t.Helper()
	if err := r.conn.Send(r.ctx, frame); err != nil {
		t.Fatalf("send %d bytes: %v", len(frame), err)
	}
}

// barrier sends a harmless title change on the session channel with a
// fresh serverSeq and waits until the client shows it: every frame sent
// before it has then been processed (notifications apply in order).
func (r *hostileRig) barrier(t *testing.T, seq int64) {
	t.Helper()
	title := fmt.Sprintf("barrier-%d", seq)
	from := r.events.len()
	r.send(t, hostilehost.Envelope(hostileSession, seq, map[string]any{"type": "session/titleChanged", "title": title}))
	r.events.waitFor(t, r.ctx, from, title, func(e Event) bool {
		if !isChannelState(hostileSession)(e) {
			return false
		}
		s, ok := r.client.Session(hostileSession)
		return ok && s.Title == title
	})
}

// assertUp checks the client is still Ready on the same connection and
// answers a round trip.
func (r *hostileRig) assertUp(t *testing.T) {
	t.Helper()
	if st := r.client.Status(); st != StatusReady {
		t.Fatalf("client status %v, want Ready; events:%s", st, r.events.summary())
	}
	if _, err := r.client.ListSessions(r.ctx); err != nil {
		t.Fatalf("client cannot list sessions after the barrage: %v", err)
	}
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestHostileStrings: escape sequences and control characters in every text
// field of every snapshot and of actions, notifications and errors. The
// client keeps the host's text as data (sanitising is the views' job, see
// views.Sanitize) but never chokes on it, and the error texts it makes
// itself carry no control characters.
func TestHostileStrings(t *testing.T) { onBothWires(t, testHostileStrings) }

func testHostileStrings(t *testing.T, version string) {
	payload := hostilehost.AllEscapes()
	states := map[string]json.RawMessage{
		protocol.RootChannel: hostilehost.Taint(hostileRoot, payload),
		hostileSession:       hostilehost.Taint(hostileSessionState, payload),
		hostileChat:          hostilehost.Taint(hostileChatState, payload),
	}
	for ch, st := range states {
		if _, err := protocol.DecodeSnapshotState(ch, st); err != nil {
			t.Fatalf("tainted %s does not decode, so the test would not reach the client's state: %v", ch, err)
		}
	}
	r := startHostile(t, version, states, func(_ *hostilehost.Conn, req *jsonrpc.Request) (any, *jsonrpc.Error, bool) {
		if req.Method == "listSessions" {
			return json.RawMessage(hostilehost.Taint(json.RawMessage(`{"items":[{"resource":"ahp-session:/hostile","provider":"p",`+
				`"title":"Session title","status":1,"createdAt":"1970-01-01T00:00:01.000Z","modifiedAt":"1970-01-01T00:00:02.000Z"}]}`), payload)), nil, true
		}
		return nil, nil, false
	})

	seq := int64(10)
	next := func() int64 { seq++; return seq }
	for _, p := range hostilehost.Escapes {
		r.send(t, hostilehost.Envelope(hostileChat, next(), map[string]any{"type": "chat/delta", "turnId": "turn-1", "partId": "md-1", "content": p}))
		r.send(t, hostilehost.Envelope(hostileSession, next(), map[string]any{"type": "session/titleChanged", "title": p}))
		r.send(t, hostilehost.Envelope(hostileChat, next(), map[string]any{"type": "chat/titleChanged", "title": p}))
		for _, n := range []struct {
			method string
			params any
		}{
			{"root/sessionAdded", json.RawMessage(hostilehost.Taint(json.RawMessage(`{"summary":{"resource":"ahp-session:/x","provider":"p","title":"t","status":1,"createdAt":"1970-01-01T00:00:01.000Z","modifiedAt":"1970-01-01T00:00:02.000Z"}}`), p))},
			{"root/sessionSummaryChanged", map[string]any{"session": hostileSession, "changes": map[string]any{"title": p}}},
			{"auth/required", map[string]any{"resource": "https://r.example/" + p, "reason": "required"}},
			{p, map[string]any{"x": p}},
		} {
			if err := r.conn.Notify(r.ctx, n.method, n.params); err != nil {
				t.Fatal(err)
			}
		}
		// A rejection of a dispatch we never made, with a hostile reason.
		r.send(t, []byte(`{"jsonrpc":"2.0","method":"action","params":{"channel":"ahp-session:/hostile","serverSeq":`+
			fmt.Sprint(next())+`,"action":{"type":"session/titleChanged","title":"x"},"origin":{"clientId":"someone","clientSeq":1},`+
			`"rejectionReason":`+mustJSON(t, p)+`}}`))
	}
	r.barrier(t, next())
	r.assertUp(t)

	chat, ok := r.client.Chat(hostileChat)
	if !ok || chat.ActiveTurn == nil || len(chat.ActiveTurn.ResponseParts) == 0 {
		t.Fatalf("chat state lost: %+v", chat)
	}
	md, ok := chat.ActiveTurn.ResponseParts[0].Variant.(protocol.MarkdownResponsePart)
	if !ok || !strings.Contains(md.Content.String(), hostilehost.Escapes[0]) {
		t.Errorf("the deltas did not apply as data; content = %q", md.Content.String())
	}
	for _, e := range r.events.all() {
		var text string
		switch e := e.(type) {
		case HostErrorEvent:
			text = e.Err.Error()
		case ConnectionEvent:
			if e.Cause != nil {
				text = e.Cause.Error()
			}
		case ChannelDroppedEvent:
			text = e.Reason
		}
		if i := strings.IndexFunc(text, isTermControl); i >= 0 {
			t.Errorf("%T message carries control character %U: %q", e, []rune(text[i:])[0], text)
		}
	}
}

func isTermControl(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestHostileOversizeFrame: a 50 MB frame (and one just over the limit)
// closes the connection; the client says why, reconnects cleanly and keeps
// its state, and its heap never holds the frame.
func TestHostileOversizeFrame(t *testing.T) { onBothWires(t, testHostileOversizeFrame) }

func testHostileOversizeFrame(t *testing.T, version string) {
	r := startHostile(t, version, nil, nil)
	r.barrier(t, 11)
	before := heapInUse()
	seq := int64(100)
	for _, size := range []int{50_000_000, int(jsonrpc.DefaultReadLimit) + 1} {
		from := r.events.len()
		old := r.conn
		seq++
		// The write may fail once the client has closed on us mid-frame.
		_ = r.conn.Send(r.ctx, hostilehost.HugeFrame(hostileSession, seq, size))
		ev, _ := r.events.waitFor(t, r.ctx, from, "a host error about the frame", func(e Event) bool {
			he, ok := e.(HostErrorEvent)
			return ok && errors.Is(he.Err, jsonrpc.ErrFrameTooBig)
		})
		// The user must learn which limit was hit: the byte limit here.
		if msg := ev.(HostErrorEvent).Err.Error(); !strings.Contains(msg, fmt.Sprintf("%d-byte read limit", jsonrpc.DefaultReadLimit)) || strings.Contains(msg, "array elements") {
			t.Errorf("%d-byte frame: host error %q does not name the byte limit (or names the wrong one)", size, msg)
		}
		r.events.waitFor(t, r.ctx, from, "Reconnecting", isStatus(StatusReconnecting))
		select {
		case <-old.Done():
		case <-r.ctx.Done():
			t.Fatal("the oversize frame did not close the connection")
		}
		r.conn = r.nextConn(t)
		r.events.waitFor(t, r.ctx, from, "Ready again", isStatus(StatusReady))
		if s, ok := r.client.Session(hostileSession); !ok || strings.Contains(s.Title, "AAAA") {
			t.Fatalf("session state after the oversize frame: ok=%v title len %d", ok, len(s.Title))
		}
		r.barrier(t, seq+1)
		seq++
		r.assertUp(t)
	}
	after := heapInUse()
	growth := int64(after) - int64(before)
	t.Logf("live heap: %d KiB before, %d KiB after two oversize frames (growth %d KiB; budget %d MiB)",
		before>>10, after>>10, growth>>10, hostileHeapBudget>>20)
	if growth > hostileHeapBudget {
		t.Errorf("live heap grew by %d MiB, over the %d MiB budget", growth>>20, hostileHeapBudget>>20)
	}
}

// TestHostileBigStructures: million-item arrays (each inside the byte
// limit, but a million `{}` would decode into ~140 MB of structs), the
// largest array the client accepts, 100k nested arrays and 100k nested
// objects. Million-item frames close the connection (jsonrpc's
// MaxArrayElements) and the client reconnects cleanly; the rest are taken
// on the same connection. The live heap stays within hostileHeapBudget.
func TestHostileBigStructures(t *testing.T) { onBothWires(t, testHostileBigStructures) }

func testHostileBigStructures(t *testing.T, version string) {
	r := startHostile(t, version, nil, nil)
	r.barrier(t, 11)
	before := heapInUse()

	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var m runtime.MemStats
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				runtime.ReadMemStats(&m)
				if m.HeapAlloc > peak.Load() {
					peak.Store(m.HeapAlloc)
				}
			}
		}
	}()

	seq := int64(100)
	million := []struct {
		name  string
		frame []byte
	}{
		{"1M numbers in an unknown member", hostilehost.ManyItems(hostileSession, 1, "session/titleChanged", "junk", "0", 1_000_000)},
		{"1M strings as agents", hostilehost.ManyItems(protocol.RootChannel, 1, "root/agentsChanged", "agents", `"x"`, 1_000_000)},
		{"1M empty objects as agents", hostilehost.ManyItems(protocol.RootChannel, 1, "root/agentsChanged", "agents", `{}`, 1_000_000)},
		{"1M empty objects in an unknown action", hostilehost.ManyItems(hostileSession, 1, "session/chatsChanged", "chats", `{}`, 1_000_000)},
	}
	for _, f := range million {
		if int64(len(f.frame)) > jsonrpc.DefaultReadLimit {
			t.Fatalf("%s: %d bytes, over the byte limit; the test means to stay inside it", f.name, len(f.frame))
		}
		from := r.events.len()
		old := r.conn
		_ = r.conn.Send(r.ctx, f.frame)
		ev, _ := r.events.waitFor(t, r.ctx, from, f.name+": a host error", func(e Event) bool {
			he, ok := e.(HostErrorEvent)
			return ok && errors.Is(he.Err, jsonrpc.ErrFrameTooBig)
		})
		// These frames are far inside the byte limit: the error must name
		// the array-element limit, not the byte limit, or the user would
		// raise the wrong one.
		msg := ev.(HostErrorEvent).Err.Error()
		if !strings.Contains(msg, fmt.Sprintf("more than %d array elements", jsonrpc.DefaultMaxArrayElements)) || strings.Contains(msg, "-byte") {
			t.Errorf("%s: host error %q does not name the array-element limit (or names the byte limit)", f.name, msg)
		}
		select {
		case <-old.Done():
		case <-r.ctx.Done():
			t.Fatalf("%s did not close the connection", f.name)
		}
		r.conn = r.nextConn(t)
		r.events.waitFor(t, r.ctx, from, f.name+": Ready again", isStatus(StatusReady))
		seq++
		r.barrier(t, seq)
		if root, _ := r.client.Root(); len(root.Agents) != 1 {
			t.Fatalf("%s: root has %d agents, want the snapshot's 1", f.name, len(root.Agents))
		}
	}

	// Inside every limit: the biggest `{}` array the client accepts, and
	// nesting 100k deep. Same connection.
	accepted := []struct {
		name  string
		frame []byte
	}{
		{"the largest accepted array of empty agents", hostilehost.ManyItems(protocol.RootChannel, seq+1, "root/agentsChanged", "agents", `{}`, jsonrpc.DefaultMaxArrayElements-10)},
		{"100k nested arrays (notification)", hostilehost.DeepNesting("action", "", 100_000)},
		{"100k nested arrays (request)", hostilehost.DeepNesting("resourceRead", "deep-1", 100_000)},
		{"100k nested objects in an action", hostilehost.DeepObject(hostileSession, seq+2, 100_000)},
	}
	conn := r.conn
	for _, f := range accepted {
		r.send(t, f.frame)
	}
	r.barrier(t, seq+3)
	if r.conn != conn || conn.Err() != nil {
		t.Errorf("frames inside the limits dropped the connection: %v", conn.Err())
	}
	if root, _ := r.client.Root(); len(root.Agents) != jsonrpc.DefaultMaxArrayElements-10 {
		t.Errorf("root has %d agents after the largest accepted agentsChanged", len(root.Agents))
	}
	close(stop)
	<-sampled
	r.assertUp(t)

	after := heapInUse()
	growth := int64(after) - int64(before)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.Logf("live heap: %d KiB before, %d KiB after, growth %d KiB (the root state now holds %d agents); sampled peak %d MiB (budget %d MiB), heap obtained from the OS %d MiB; growth budget %d MiB",
		before>>10, after>>10, growth>>10, jsonrpc.DefaultMaxArrayElements-10, peak.Load()>>20, hostilePeakBudget>>20, ms.HeapSys>>20, hostileHeapBudget>>20)
	if growth > hostileHeapBudget {
		t.Errorf("live heap grew by %d MiB, over the %d MiB budget", growth>>20, hostileHeapBudget>>20)
	}
	// The sampler can miss a short spike, so it only ever under-reports;
	// over the budget is a real failure.
	if p := peak.Load(); p > hostilePeakBudget {
		t.Errorf("heap peaked at %d MiB while decoding big structures, over the %d MiB bound the frame limits should give", p>>20, hostilePeakBudget>>20)
	}
	for _, fr := range conn.Inbound() {
		if bytes.Contains(fr, []byte(`"deep-1"`)) && !bytes.Contains(fr, []byte(`"error"`)) {
			t.Errorf("answer to the deep request is not an error: %.200s", fr)
		}
	}
}

// TestHostileSeqOrdering: duplicated, out-of-order and stale serverSeq
// never apply an action twice; the state equals the in-order application
// of each distinct envelope once.
func TestHostileSeqOrdering(t *testing.T) { onBothWires(t, testHostileSeqOrdering) }

func testHostileSeqOrdering(t *testing.T, version string) {
	r := startHostile(t, version, nil, nil)
	delta := func(s string) map[string]any {
		return map[string]any{"type": "chat/delta", "turnId": "turn-1", "partId": "md-1", "content": s}
	}
	sends := []struct {
		seq int64
		txt string
	}{
		{9, "STALE9"}, {10, "STALE10"}, // at or below the snapshot's fromSeq (10)
		{11, "a"}, {12, "b"}, {12, "b"}, {11, "a"}, {13, "c"}, {13, "c"}, {12, "DUP12"},
		{11, "DUP11"}, {20, "d"}, {15, "LATE15"}, {20, "DUP20"}, {21, "e"}, {-1, "NEG"}, {0, "ZERO"},
	}
	for _, s := range sends {
		r.send(t, hostilehost.Envelope(hostileChat, s.seq, delta(s.txt)))
	}
	// The expected content is the distinct, increasing serverSeqs applied once.
	want := "abcde"
	from := 0
	r.events.waitFor(t, r.ctx, from, "the chat to show "+want, func(e Event) bool {
		c, ok := r.client.Chat(hostileChat)
		return ok && isChannelState(hostileChat)(e) && c.ActiveTurn != nil && len(c.ActiveTurn.ResponseParts) == 1 &&
			strings.HasSuffix(c.ActiveTurn.ResponseParts[0].Variant.(protocol.MarkdownResponsePart).Content.String(), "e")
	})
	r.barrier(t, 30)
	c, _ := r.client.Chat(hostileChat)
	got := c.ActiveTurn.ResponseParts[0].Variant.(protocol.MarkdownResponsePart).Content.String()
	if got != want {
		t.Errorf("content %q, want %q (duplicates or stale serverSeqs applied)", got, want)
	}

	// The whole state must equal the reducer run over the distinct envelopes.
	st, err := protocol.DecodeSnapshotState(hostileChat, hostileChatState)
	if err != nil {
		t.Fatal(err)
	}
	exp := st.Variant
	for _, s := range []string{"a", "b", "c", "d", "e"} {
		var a protocol.StateAction
		if err := json.Unmarshal([]byte(mustJSON(t, delta(s))), &a); err != nil {
			t.Fatal(err)
		}
		exp = protocol.Reduce(exp, a, protocol.Rules{})
	}
	if g, w := mustJSON(t, c), mustJSON(t, exp); g != w {
		t.Errorf("state differs from in-order application:\n got  %s\n want %s", g, w)
	}
	r.assertUp(t)
}

// TestHostileUnsubscribedAndUnsolicited: actions for channels never
// subscribed, responses to requests never made and frames that are not
// JSON-RPC leave the client up, on the same connection, with its state
// and subscriptions untouched.
func TestHostileUnsubscribedAndUnsolicited(t *testing.T) {
	onBothWires(t, testHostileUnsubscribedAndUnsolicited)
}

func testHostileUnsubscribedAndUnsolicited(t *testing.T, version string) {
	r := startHostile(t, version, nil, nil)
	r.barrier(t, 11)
	channelsBefore := strings.Join(sortedChannels(r.client), ",")
	rootBefore, _ := r.client.Root()

	count := 0
	for i, ch := range []string{"ahp-session:/never", "ahp-chat:/never", "ahp-terminal:/never", "", "ahp-root:/", "AHP-ROOT://",
		"ahp-session:/hostile/../never", "file:///etc/passwd", "\x1b[2J", strings.Repeat("x", 100000)} {
		r.send(t, hostilehost.Envelope(ch, int64(12+i), map[string]any{"type": "session/titleChanged", "title": "INJECTED"}))
		r.send(t, hostilehost.Envelope(ch, int64(12+i), map[string]any{"type": "root/agentsChanged", "agents": []any{}}))
		count += 2
	}
	for _, f := range hostilehost.UnsolicitedResponses() {
		r.send(t, f)
		count++
	}
	for _, f := range hostilehost.Garbage() {
		r.send(t, f)
		count++
	}
	r.barrier(t, 40)
	r.assertUp(t)
	if r.conn.Err() != nil {
		t.Errorf("connection dropped: %v", r.conn.Err())
	}
	if s, _ := r.client.Session(hostileSession); s.Title == "INJECTED" {
		t.Error("an action for another channel changed the session")
	}
	for _, ch := range []string{"ahp-session:/never", "ahp-chat:/never"} {
		if _, ok := r.client.State(ch); ok {
			t.Errorf("client holds state for %s, which it never subscribed", ch)
		}
	}
	if got := strings.Join(sortedChannels(r.client), ","); got != channelsBefore {
		t.Errorf("channels changed: %s → %s", channelsBefore, got)
	}
	if root, _ := r.client.Root(); mustJSON(t, root) != mustJSON(t, rootBefore) {
		t.Errorf("root state changed: %s", mustJSON(t, root))
	}
	t.Logf("%d unsubscribed-channel envelopes, unsolicited responses and garbage frames; client stayed up", count)
}

func sortedChannels(c *Client) []string {
	chs := c.Channels()
	for i := 1; i < len(chs); i++ {
		for j := i; j > 0 && chs[j] < chs[j-1]; j-- {
			chs[j], chs[j-1] = chs[j-1], chs[j]
		}
	}
	return chs
}

// TestHostileFileRequests: the host asks the client for local files and
// other client-side resources. Every request is answered with an error
// (PermissionDenied for resource methods, MethodNotFound otherwise) and no
// frame the client ever sends carries file contents.
func TestHostileFileRequests(t *testing.T) { onBothWires(t, testHostileFileRequests) }

func testHostileFileRequests(t *testing.T, version string) {
	r := startHostile(t, version, nil, nil)
	passwd, _ := os.ReadFile("/etc/passwd")
	firstLine, _, _ := bytes.Cut(passwd, []byte("\n"))
	reqs := hostilehost.FileRequests()
	for _, fr := range reqs {
		reply, err := r.conn.Call(r.ctx, fr.Method, fr.Params)
		if err != nil {
			t.Fatalf("%s: %v", fr.Method, err)
		}
		resp := reply.Response
		if resp.Error == nil || resp.Result != nil {
			t.Errorf("%s %v answered with a result: %s", fr.Method, fr.Params, reply.Frame)
			continue
		}
		want := jsonrpc.MethodNotFound
		if strings.HasPrefix(fr.Method, "resource") || fr.Method == "createResourceWatch" {
			want = jsonrpc.PermissionDenied
		}
		if fr.Method == "initialize" {
			want = resp.Error.Code // any error: a host cannot initialize the client
		}
		if resp.Error.Code != want {
			t.Errorf("%s: error code %d (%s), want %d", fr.Method, resp.Error.Code, resp.Error.Message, want)
		}
	}
	r.assertUp(t)
	for _, fr := range r.conn.Inbound() {
		if len(firstLine) > 0 && bytes.Contains(fr, firstLine) {
			t.Fatalf("a client frame carries /etc/passwd: %.200s", fr)
		}
		for _, secret := range []string{"root:x:0:0", "BEGIN OPENSSH", "PATH="} {
			if bytes.Contains(fr, []byte(secret)) {
				t.Errorf("a client frame carries %q: %.200s", secret, fr)
			}
		}
	}
	t.Logf("%d host → client requests for local resources, all refused", len(reqs))
}

// TestTranscriptReplay feeds the host → client frames of every recorded
// demohost session in ../testdata/transcripts to a fresh mirror (snapshots
// from initialize/reconnect/subscribe results, action envelopes in wire
// order) and checks it reproduces the state the recording client ended with.
func TestTranscriptReplay(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "transcripts", "*.jsonl"))
	if len(files) == 0 {
		t.Fatal("no transcripts in ../testdata/transcripts; record them (see protocol/internal/hostilehost/record_test.go)")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var meta struct {
				ClientID string `json:"clientId"`
				Clock    string `json:"clock"`
			}
			var final map[string]json.RawMessage
			type reqKey struct {
				conn int64
				id   string
			}
			methods := map[reqKey]string{}
			var m *mirror
			var clock protocol.Clock
			// The transcript is read as the client reads the socket: in
			// the shape of the version initialize named.
			wire := protocol.WireUnknown
			frames := 0
			for n, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
				var l struct {
					Meta  *json.RawMessage           `json:"meta"`
					Final map[string]json.RawMessage `json:"final"`
					Conn  int64                      `json:"conn"`
					Dir   string                     `json:"dir"`
					Frame json.RawMessage            `json:"frame"`
				}
				if err := json.Unmarshal(line, &l); err != nil {
					t.Fatalf("line %d: %v", n+1, err)
				}
				switch {
				case l.Meta != nil:
					if err := json.Unmarshal(*l.Meta, &meta); err != nil {
						t.Fatal(err)
					}
					at, err := time.Parse(time.RFC3339, meta.Clock)
					if err != nil {
						t.Fatalf("meta clock: %v", err)
					}
					clock = func() time.Time { return at }
					m = newMirror(clock)
					continue
				case l.Final != nil:
					final = l.Final
					continue
				}
				if m == nil {
					t.Fatal("frames before the meta line")
				}
				frames++
				msg, err := jsonrpc.Decode(l.Frame)
				if err != nil {
					t.Fatalf("line %d: recorded frame does not decode: %v", n+1, err)
				}
				switch x := msg.(type) {
				case *jsonrpc.Request:
					if l.Dir == "in" {
						if x.ID != nil {
							methods[reqKey{l.Conn, x.ID.String()}] = x.Method
						} else if x.Method == "unsubscribe" {
							var p protocol.UnsubscribeParams
							_ = json.Unmarshal(x.Params, &p)
							m.drop(p.Channel)
						}
						continue
					}
					if x.Method == "action" {
						params, err := upParams(wire, x.Method, x.Params)
						if err != nil {
							t.Fatalf("line %d: envelope: %v", n+1, err)
						}
						var env protocol.ActionEnvelope
						if err := json.Unmarshal(params, &env); err != nil {
							t.Fatalf("line %d: envelope: %v", n+1, err)
						}
						onlyDefined(wire, &env)
						m.applyEnvelope(env, meta.ClientID)
					}
				case *jsonrpc.Response:
					if l.Dir != "out" || x.ID == nil || x.Error != nil {
						continue
					}
					var snaps []protocol.Snapshot
					switch methods[reqKey{l.Conn, x.ID.String()}] {
					case "initialize":
						var named struct {
							ProtocolVersion string `json:"protocolVersion"`
						}
						_ = json.Unmarshal(x.Result, &named)
						wire = protocol.WireOf(named.ProtocolVersion)
						m.rules = protocol.RulesFor(wire, clock)
						var r protocol.InitializeResult
						if err := decodeResult(wire, "initialize", x.Result, &r); err != nil {
							t.Fatal(err)
						}
						snaps = r.Snapshots
					case "subscribe":
						var r protocol.SubscribeResult
						if err := decodeResult(wire, "subscribe", x.Result, &r); err != nil {
							t.Fatal(err)
						}
						if r.Snapshot != nil {
							snaps = []protocol.Snapshot{*r.Snapshot}
						}
					case "reconnect":
						var r protocol.ReconnectResult
						if err := decodeResult(wire, "reconnect", x.Result, &r); err != nil {
							t.Fatal(err)
						}
						switch v := r.Variant.(type) {
						case protocol.ReconnectSnapshotResult:
							snaps = v.Snapshots
						case protocol.ReconnectReplayResult:
							for _, env := range v.Actions {
								onlyDefined(wire, &env)
								m.applyEnvelope(env, meta.ClientID)
							}
							for _, ch := range v.Missing {
								m.drop(ch)
							}
						}
					}
					for _, s := range snaps {
						m.setSnapshot(s.Resource, s.State.Variant, s.FromSeq)
					}
				}
			}
			if len(final) == 0 {
				t.Fatal("transcript has no final state")
			}
			for ch, want := range final {
				got, ok := m.state(ch)
				if !ok {
					t.Errorf("%s: replay has no state", ch)
					continue
				}
				if wire == protocol.Wire06 {
					if want, err = convert.UpState(wire, ch, want); err != nil {
						t.Fatalf("%s: recorded final state: %v", ch, err)
					}
				}
				ws, err := protocol.DecodeSnapshotState(ch, want)
				if err != nil {
					t.Fatalf("%s: recorded final state: %v", ch, err)
				}
				if g, w := mustJSON(t, got), mustJSON(t, ws.Variant); g != w {
					t.Errorf("%s: replayed state differs from the recorded one:\n got  %s\n want %s", ch, g, w)
				}
			}
			t.Logf("%d frames replayed, %d channels match", frames, len(final))
		})
	}
}
