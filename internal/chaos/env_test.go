package chaos

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/demohost/authserver"
	"github.com/ahptui/ahptui/internal/faultproxy"
	"github.com/ahptui/ahptui/internal/schemacheck"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
)

const (
	// waitTimeout bounds every single wait. Generous: under -race on two
	// cores a reconnect plus a scripted turn can take seconds.
	waitTimeout = 30 * time.Second

	// The victim pings often so a stall is noticed soon after the
	// timeout. The timeout itself must leave room for a -race process on
	// a loaded 2-core machine to answer: at 600 ms, CI runs at load
	// averages around 30 saw spurious ping failures, which dropped the
	// link under an authenticate call in setup and put the victim in
	// "reconnecting" before a test injected its fault (TestConnectionFaults
	// drop and stall). 3 s costs a stall a few more seconds to notice,
	// and guards nothing less: every fault that must be noticed (a stall,
	// a delay of 3× the timeout) is still noticed only through the pings.
	victimPingInterval = 100 * time.Millisecond
	victimPingTimeout  = 3 * time.Second

	// tooSlowForPings is the per-chunk delay of a link that is alive but
	// too slow: a ping's round trip takes 3x the ping timeout, so it
	// fails; one way takes 1.5x, so a dispatch sent into the delay lands
	// at the host after the victim gave up on the link and its echo goes
	// nowhere. It stays well under the host's 10 s write timeout
	// (jsonrpc.DefaultWriteTimeout), which 3x the timeout (9 s) came
	// close to, so the host never gives up on the delayed link first.
	tooSlowForPings = victimPingTimeout * 3 / 2

	victimID = "chaos-victim"
	directID = "chaos-direct"
)

// env is one demo host, a fault proxy in front of it, the victim client
// (through the proxy) and the reference client (direct).
type env struct {
	t      testing.TB
	ctx    context.Context
	host   *demohost.Host
	ledger *ledger
	proxy  *faultproxy.Proxy
	victim *client.Client
	vrec   *recorder
	direct *client.Client
	drec   *recorder

	mu   sync.Mutex
	sent []sentAction // every victim dispatch, in order
}

type sentAction struct {
	seq     int64
	channel string
	what    string
}

type envConfig struct {
	stepDelay time.Duration
	// replayBuffer, when set, overrides the host's replay buffer.
	replayBuffer int
	// version is the AHP version the host serves; "" is 1.0.
	version string
}

func hostAddr(t testing.TB, h *demohost.Host) string {
	t.Helper()
	u, err := url.Parse(h.URL())
	if err != nil {
		t.Fatalf("demo host URL %q: %v", h.URL(), err)
	}
	return u.Host
}

func newEnv(t testing.TB, cfg envConfig) *env {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	e := &env{t: t, ctx: ctx, ledger: newLedger()}
	// Every frame both ways is schema-checked, faults or not: a reconnect
	// or re-dispatch must never put an invalid frame on the wire.
	version := cfg.version
	if version == "" {
		version = demohost.Version10
	}
	v := schemacheck.MustForWire(t, protocol.WireOf(version))
	host, err := demohost.Start(ctx, demohost.Config{StepDelay: cfg.stepDelay, ReplayBuffer: cfg.replayBuffer, Tap: e.ledger.tap,
		Validate: v.ValidateMessage, Version: version})
	if err != nil {
		t.Fatalf("start demo host: %v", err)
	}
	e.host = host
	t.Cleanup(func() {
		_ = host.Close()
		for _, fe := range host.ValidationErrors() {
			t.Errorf("invalid frame: %v", fe)
		}
	})
	e.proxy, err = faultproxy.Start(hostAddr(t, host))
	if err != nil {
		t.Fatalf("start fault proxy: %v", err)
	}
	t.Cleanup(func() { _ = e.proxy.Close() })

	e.direct, e.drec = dialClient(t, host.URL(), directID, 0, 0)
	e.victim, e.vrec = dialClient(t, "ws://"+e.proxy.Addr()+"/", victimID, victimPingInterval, victimPingTimeout)
	for _, c := range []*client.Client{e.direct, e.victim} {
		for _, ch := range []string{demohost.DemoSessionURI, demohost.DemoChatURI} {
			sctx, scancel := context.WithTimeout(ctx, waitTimeout)
			err := c.Subscribe(sctx, ch)
			scancel()
			if err != nil {
				t.Fatalf("subscribe %s: %v", ch, err)
			}
		}
	}
	return e
}

// dialClient connects a protocol client and drains its events into a
// recorder; Cleanup closes it (before the host, as cleanups run LIFO).
func dialClient(t testing.TB, u, id string, ping, pingTimeout time.Duration) (*client.Client, *recorder) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	c, err := client.Dial(ctx, client.Options{
		URL: u, ClientID: id, ClientInfo: protocol.Implementation{Name: "ahptui-chaos"},
		PingInterval: ping, PingTimeout: pingTimeout,
		ReconnectInitial: 20 * time.Millisecond, ReconnectMax: 200 * time.Millisecond,
		GiveUpAfter: waitTimeout,
	})
	if err != nil {
		t.Fatalf("dial %s as %s: %v", u, id, err)
	}
	rec := newRecorder(c.Events())
	t.Cleanup(func() {
		_ = c.Close()
		<-rec.done
	})
	return c, rec
}

func (e *env) waitCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(e.ctx, waitTimeout)
}

// dispatch sends one victim action and records its clientSeq for the
// exactly-once check.
func (e *env) dispatch(channel string, v protocol.StateActionVariant, what string) {
	e.t.Helper()
	seq, err := e.victim.Dispatch(channel, protocol.NewStateAction(v))
	if err != nil {
		e.t.Fatalf("dispatch %s: %v", what, err)
	}
	e.mu.Lock()
	e.sent = append(e.sent, sentAction{seq: seq, channel: channel, what: what})
	e.mu.Unlock()
}

func userMessage(text string) protocol.Message {
	return protocol.Message{Text: text, Origin: protocol.MessageOrigin{Kind: protocol.MessageKindUser}}
}

func isoNow() string { return protocol.Timestamp(time.Now()) }

// queue sends a message the way the UI does while a turn runs: as a queued
// message, which the host turns into a turn of its own when the chat is
// idle. It is never refused for a busy chat, unlike chat/turnStarted.
func (e *env) queue(id, text string) {
	e.dispatch(demohost.DemoChatURI, protocol.ChatPendingMessageSetAction{
		Kind: protocol.PendingMessageKindQueued, ID: id, Message: userMessage(text)}, "queue "+id)
}

func (e *env) setTitle(title string) {
	e.dispatch(demohost.DemoSessionURI, protocol.SessionTitleChangedAction{Title: title}, "title "+title)
}

// resource is the URL of one of the demo host's protected resources.
func (e *env) resource(path string) string {
	return "http://" + hostAddr(e.t, e.host) + path
}

// pushTokens obtains real tokens from the demo authorization server (the
// consent page approved headlessly, then a PKCE code exchange with
// x/oauth2) and pushes them with the victim: GitHub (mcp:read) and Deploy
// (tools:deploy, which lets "deploy" turns run without a challenge).
func (e *env) pushTokens() {
	e.t.Helper()
	for _, r := range []struct {
		path   string
		scopes []string
	}{
		{demohost.GitHubResourcePath, demohost.GitHubScopes},
		{demohost.DeployResourcePath, demohost.DeployScopes},
	} {
		res := e.resource(r.path)
		tok := fetchToken(e.t, e.host.AuthIssuer(), res, r.scopes)
		ctx, cancel := e.waitCtx()
		err := e.victim.Authenticate(ctx, res, tok, r.scopes, time.Time{})
		cancel()
		if err != nil {
			e.t.Fatalf("authenticate %s: %v", res, err)
		}
	}
}

// tokensPushed is how many tokens pushTokens pushes.
const tokensPushed = 2

func fetchToken(t testing.TB, issuer, resource string, scopes []string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	conf := &oauth2.Config{
		ClientID: authserver.DefaultPublicID,
		// Nothing listens here: ApproveHeadless returns the redirect
		// instead of following it, and the code is read from it.
		RedirectURL: "http://127.0.0.1:9/callback",
		Scopes:      scopes,
		Endpoint: oauth2.Endpoint{AuthURL: issuer + authserver.AuthorizePath, TokenURL: issuer + authserver.TokenPath,
			AuthStyle: oauth2.AuthStyleInParams},
	}
	verifier := oauth2.GenerateVerifier()
	state := "chaos-" + verifier[:16]
	redirect, err := authserver.ApproveHeadless(ctx, nil, conf.AuthCodeURL(state,
		oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", resource)))
	if err != nil {
		t.Fatalf("approve consent for %s: %v", resource, err)
	}
	if err := authserver.RedirectError(redirect); err != nil {
		t.Fatalf("authorization for %s refused: %v", resource, err)
	}
	q := redirect.Query()
	if q.Get("state") != state || q.Get("code") == "" {
		t.Fatalf("authorization redirect for %s lacks code or state", resource)
	}
	tok, err := conf.Exchange(ctx, q.Get("code"), oauth2.VerifierOption(verifier), oauth2.SetAuthURLParam("resource", resource))
	if err != nil {
		t.Fatalf("token exchange for %s: %v", resource, err)
	}
	return tok.AccessToken
}

// turnCount is how many turns (finished or active) carry message text.
func turnCount(c protocol.ChatState, text string) int {
	n := 0
	for _, t := range c.Turns {
		if t.Message.Text == text {
			n++
		}
	}
	if c.ActiveTurn != nil && c.ActiveTurn.Message.Text == text {
		n++
	}
	return n
}

// waitVictim waits until cond holds on the victim's chat.
func (e *env) waitVictimChat(what string, cond func(protocol.ChatState) bool) {
	e.t.Helper()
	ctx, cancel := e.waitCtx()
	defer cancel()
	err := waitAny(ctx, what, func() bool {
		c, ok := e.victim.Chat(demohost.DemoChatURI)
		return ok && cond(c)
	}, e.vrec)
	if err != nil {
		e.t.Fatal(err)
	}
}

// waitAny re-checks cond after every event of any of the recorders.
func waitAny(ctx context.Context, what string, cond func() bool, recs ...*recorder) error {
	for {
		wakes := make([]<-chan struct{}, len(recs))
		for i, r := range recs {
			wakes[i] = r.wake()
		}
		if cond() {
			return nil
		}
		// Two recorders at most here; a select on both.
		var w2 <-chan struct{}
		if len(wakes) > 1 {
			w2 = wakes[1]
		}
		select {
		case <-wakes[0]:
		case <-w2:
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w", what, ctx.Err())
		}
	}
}

// settled waits until the victim and ref agree byte for byte on the demo
// session and chat, with no turn running, no queued message and nothing
// pending at the victim, and extra holds on ref's chat. It returns the
// final chat.
func (e *env) settled(ref *client.Client, refRec *recorder, extra func(protocol.ChatState) error) protocol.ChatState {
	e.t.Helper()
	ctx, cancel := e.waitCtx()
	defer cancel()
	var why error
	var final protocol.ChatState
	err := waitAny(ctx, "victim and reference to agree", func() bool {
		why = agree(e.victim, ref, extra)
		if why == nil {
			final, _ = ref.Chat(demohost.DemoChatURI)
		}
		return why == nil
	}, e.vrec, refRec)
	if err != nil {
		e.t.Fatalf("%v; last difference: %v", err, why)
	}
	return final
}

func agree(victim, ref *client.Client, extra func(protocol.ChatState) error) error {
	rc, ok1 := ref.Chat(demohost.DemoChatURI)
	_, ok2 := victim.Chat(demohost.DemoChatURI)
	if !ok1 || !ok2 {
		return fmt.Errorf("chat not mirrored (reference %v, victim %v)", ok1, ok2)
	}
	if rc.ActiveTurn != nil {
		return fmt.Errorf("turn %s (%q) still running: %s", rc.ActiveTurn.ID, rc.ActiveTurn.Message.Text, toolStates(rc.ActiveTurn.ResponseParts))
	}
	if len(rc.QueuedMessages) > 0 {
		return fmt.Errorf("%d messages still queued", len(rc.QueuedMessages))
	}
	for _, ch := range []string{demohost.DemoSessionURI, demohost.DemoChatURI} {
		if n := victim.PendingCount(ch); n > 0 {
			return fmt.Errorf("victim has %d unconfirmed actions on %s", n, ch)
		}
	}
	if extra != nil {
		if err := extra(rc); err != nil {
			return err
		}
	}
	for _, ch := range []string{demohost.DemoSessionURI, demohost.DemoChatURI} {
		r, _ := ref.State(ch)
		v, _ := victim.State(ch)
		rj, err1 := comparable(r)
		vj, err2 := comparable(v)
		if err1 != nil || err2 != nil {
			return fmt.Errorf("encode %s: %v / %v", ch, err1, err2)
		}
		if !bytes.Equal(rj, vj) {
			return fmt.Errorf("%s differs: %s", ch, firstDiff(vj, rj))
		}
	}
	return nil
}

// toolStates lists the tool calls among parts with their states, to say
// what a stuck turn waits for.
func toolStates(parts []protocol.ResponsePart) string {
	var out []string
	for _, p := range parts {
		if tc, ok := p.Variant.(protocol.ToolCallResponsePart); ok {
			out = append(out, tc.ToolCall.Kind())
		}
	}
	return "tool calls " + strings.Join(out, ", ")
}

// comparable is the JSON encoding of a mirrored state with every
// "modifiedAt" removed. The reducers stamp modifiedAt from the local clock
// when they apply an action (as the spec's reference reducers do), so two
// correct mirrors of the same host differ there by the milliseconds between
// their receipts; every other byte must match.
func comparable(state any) ([]byte, error) {
	raw, err := json.Marshal(state)
	if err != nil {
		return nil, err
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	return json.Marshal(dropKey(v, "modifiedAt"))
}

func dropKey(v any, key string) any {
	switch x := v.(type) {
	case map[string]any:
		delete(x, key)
		for k, e := range x {
			x[k] = dropKey(e, key)
		}
	case []any:
		for i, e := range x {
			x[i] = dropKey(e, key)
		}
	}
	return v
}

// firstDiff shows where two encodings part, with some context.
func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(0, i-80)
	clip := func(s []byte) string {
		hi := min(len(s), i+120)
		if lo >= hi {
			return ""
		}
		return strings.ToValidUTF8(string(s[lo:hi]), "?")
	}
	return fmt.Sprintf("at byte %d (victim %d bytes, reference %d bytes)\nvictim:    …%s…\nreference: …%s…", i, len(a), len(b), clip(a), clip(b))
}

// sentSince returns the victim's dispatches from index i on.
func (e *env) sentSince(i int) []sentAction {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]sentAction(nil), e.sent[i:]...)
}

// sentCount is how many actions the victim dispatched so far.
func (e *env) sentCount() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.sent)
}

// checkExactlyOnce verifies, from a host's ledger, that every action in
// sent was applied exactly once by that host and that it applied no other
// victim action and refused none.
func (e *env) checkExactlyOnce(led *ledger, sent []sentAction) {
	e.t.Helper()
	accepted := led.acceptedBy(victimID)
	for _, s := range sent {
		if n := accepted[s.seq]; n != 1 {
			e.t.Errorf("%s (clientSeq %d) applied %d times by the host, want exactly once", s.what, s.seq, n)
		}
	}
	if len(accepted) != len(sent) {
		e.t.Errorf("host applied %d distinct victim actions, the victim dispatched %d to it", len(accepted), len(sent))
	}
	for _, r := range led.rejectedFor(victimID) {
		e.t.Errorf("host refused victim action %s (clientSeq %d)", r.typ, r.origin.seq)
	}
}
