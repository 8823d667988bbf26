package client_test

import (
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
	"github.com/ahptui/ahptui/protocol/internal/testhost"
)

// The hosts people run, by what they accept (DELTA §1): each picks the
// highest offered version inside its ranges.
var versionHosts = []struct {
	name    string
	accepts []string
	version string
	wire    protocol.Wire
}{
	{"upstream 1.0", []string{"^1.0.0", "~0.9.0"}, "1.0.0", protocol.Wire10},
	{"VS Code 1.141", []string{"^0.10.0"}, "0.10.0", protocol.Wire10},
	{"upstream 0.9", []string{"~0.9.0"}, "0.9.0", protocol.Wire10},
	{"0.6 only", []string{"0.6.0"}, "0.6.0", protocol.Wire06},
}

const (
	mcpServerID = "github"
	mcpResource = "https://mcp.example.com"
)

// fakeClock is an Options.Clock a test moves by hand.
type fakeClock struct{ ns atomic.Int64 }

func newFakeClock() *fakeClock {
	c := &fakeClock{}
	c.ns.Store(time.Date(2026, 10, 9, 12, 0, 0, 0, time.UTC).UnixNano())
	return c
}

func (c *fakeClock) Now() time.Time          { return time.Unix(0, c.ns.Load()).UTC() }
func (c *fakeClock) Advance(d time.Duration) { c.ns.Add(int64(d)) }

// TestVersionsEndToEnd runs one user session against each kind of host
// over a real WebSocket: initialize, subscribe, a streamed turn with a
// tool call that needs a step-up grant (auth required → authenticate →
// resolved → complete), the token re-pushed after a reconnect with its
// lifetime counted down, and an MCP server stopped and started. The host
// checks every frame both ways, as it is on the socket, against the
// negotiated version's schema; the client sees 1.0 on every wire.
func TestVersionsEndToEnd(t *testing.T) {
	for _, vh := range versionHosts {
		t.Run(vh.name, func(t *testing.T) {
			clock := newFakeClock()
			h := newHost(t, testhost.Options{Versions: vh.accepts})
			session := testhost.NewSession("test", "first")
			session.Customizations = []protocol.Customization{protocol.NewCustomization(protocol.McpServerCustomization{
				ID: mcpServerID, URI: "file:///w/.mcp.json", Name: "GitHub",
				State: protocol.NewMcpServerState(protocol.McpServerReadyState{}),
			})}
			h.SetState(sessionURI, session)
			c := dial(t, h, func(o *client.Options) { o.Clock = clock.Now })

			// initialize
			if c.ProtocolVersion() != vh.version || c.Wire() != vh.wire {
				t.Fatalf("negotiated %q on %v, want %s on %v", c.ProtocolVersion(), c.Wire(), vh.version, vh.wire)
			}
			// subscribe
			subscribe(t, c, sessionURI)
			subscribe(t, c, chatURI)
			if st := mcpState(t, c); st != "ready" {
				t.Fatalf("MCP server %q after subscribe, want ready", st)
			}

			authRequired(t, h, c, vh.wire)
			streamTurnWithStepUp(t, h, c, clock, vh.wire)
			mcpStopStart(t, h, c)

			for _, f := range h.Frames() {
				if f.Method != "initialize" && f.Wire != vh.wire {
					t.Errorf("frame %s on wire %v, want %v", f.Method, f.Wire, vh.wire)
				}
			}
			checkClientFrames(t, vh.version, h.Frames())
		})
	}
}

func streamTurnWithStepUp(t *testing.T, h *testhost.Host, c *client.Client, clock *fakeClock, wire protocol.Wire) {
	t.Helper()
	if _, err := c.Dispatch(chatURI, turnStarted("t1")); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, c, "the turn echoed", func() bool { return c.PendingCount(chatURI) == 0 })
	// The mirror reduces by the wire's rules: 0.6 stamps a chat's
	// modifiedAt with the clock, 1.0 derives it from the turns.
	if ch, _ := c.Chat(chatURI); (ch.ModifiedAt == protocol.Timestamp(clock.Now())) != (wire == protocol.Wire06) {
		t.Errorf("chat modifiedAt %s after turnStarted on %v (clock %s)", ch.ModifiedAt, wire, protocol.Timestamp(clock.Now()))
	}
	chat := func(a protocol.StateActionVariant) { h.Inject(chatURI, protocol.NewStateAction(a)) }
	chat(protocol.ChatResponsePartAction{TurnID: "t1", Part: protocol.NewResponsePart(protocol.MarkdownResponsePart{ID: "p1", Content: protocol.NewText("Hel")})})
	chat(protocol.ChatDeltaAction{TurnID: "t1", PartID: "p1", Content: "lo"})
	mcp := protocol.NewToolCallContributor(protocol.ToolCallMcpContributor{CustomizationID: mcpServerID})
	chat(protocol.ChatToolCallStartAction{TurnID: "t1", ToolCallID: "tc1", ToolName: "list_issues", DisplayName: "List issues",
		Contributor: &mcp})
	chat(protocol.ChatToolCallReadyAction{TurnID: "t1", ToolCallID: "tc1", InvocationMessage: protocol.PlainString("Listing issues"),
		ToolInput: protocol.InlineToolInput(`{"repo":"ahptui"}`), Confirmed: ptr(protocol.ToolCallConfirmationReasonNotNeeded)})
	chat(protocol.ChatToolCallAuthRequiredAction{TurnID: "t1", ToolCallID: "tc1", Auth: protocol.McpAuthRequirement{
		Reason:         protocol.McpAuthRequiredReasonRequired,
		Resource:       protocol.ProtectedResourceMetadata{Resource: mcpResource, AuthorizationServers: []string{"https://auth.example.com"}},
		RequiredScopes: []string{"repo"},
	}})
	waitUntil(t, c, "the tool call asks for a grant", func() bool {
		tc, ok := toolCall(c)
		return ok && tc.Status() == protocol.ToolCallStatusAuthRequired
	})
	tc, _ := toolCall(c)
	if req := tc.AuthRequirement(); req == nil || req.Resource.Resource != mcpResource {
		t.Fatalf("auth requirement = %+v", req)
	}

	// The step-up grant: the token goes with its lifetime on 1.0.0 (none
	// on 0.6, 0.9 or 0.10), the host resolves the call, and the turn completes.
	if err := c.Authenticate(ctxT(t), mcpResource, "tok-1", []string{"repo"}, clock.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	chat(protocol.ChatToolCallAuthResolvedAction{TurnID: "t1", ToolCallID: "tc1"})
	waitUntil(t, c, "the tool call runs", func() bool {
		tc, ok := toolCall(c)
		return ok && tc.Status() == protocol.ToolCallStatusRunning
	})
	chat(protocol.ChatToolCallCompleteAction{TurnID: "t1", ToolCallID: "tc1", Result: protocol.ToolCallResult{
		Success: true, PastTenseMessage: protocol.PlainString("Listed issues")}})
	// A second call waits for the user's approval, which the client sends
	// and the host echoes (a nested union on the wire).
	chat(protocol.ChatToolCallStartAction{TurnID: "t1", ToolCallID: "tc2", ToolName: "close_issue", DisplayName: "Close issue",
		Contributor: &mcp})
	chat(protocol.ChatToolCallReadyAction{TurnID: "t1", ToolCallID: "tc2", InvocationMessage: protocol.PlainString("Closing #1"),
		ToolInput: protocol.InlineToolInput(`{"issue":1}`)})
	waitUntil(t, c, "the second call waits for approval", func() bool {
		return toolCallStatus(c, "tc2") == protocol.ToolCallStatusPendingConfirmation
	})
	if _, err := c.Dispatch(chatURI, protocol.NewStateAction(protocol.ChatToolCallApprovedAction{TurnID: "t1", ToolCallID: "tc2",
		Confirmed: protocol.ToolCallConfirmationReasonUserAction})); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, c, "the approval echoed", func() bool { return c.PendingCount(chatURI) == 0 })
	if st := toolCallStatus(c, "tc2"); st != protocol.ToolCallStatusRunning {
		t.Fatalf("approved call is %q after the echo, want running", st)
	}
	chat(protocol.ChatToolCallCompleteAction{TurnID: "t1", ToolCallID: "tc2", Result: protocol.ToolCallResult{
		Success: true, PastTenseMessage: protocol.PlainString("Closed #1")}})
	chat(protocol.ChatDeltaAction{TurnID: "t1", PartID: "p1", Content: " world"})
	chat(protocol.ChatTurnCompleteAction{TurnID: "t1", Duration: 2})
	waitUntil(t, c, "the turn completes", func() bool {
		ch, ok := c.Chat(chatURI)
		return ok && ch.ActiveTurn == nil && len(ch.Turns) == 1
	})
	ch, _ := c.Chat(chatURI)
	var text string
	var status []string
	for _, p := range ch.Turns[0].ResponseParts {
		switch v := p.Variant.(type) {
		case protocol.MarkdownResponsePart:
			text += v.Content.String()
		case protocol.ToolCallResponsePart:
			status = append(status, v.ToolCall.Status())
		}
	}
	done := protocol.ToolCallStatusCompleted
	if text != "Hello world" || !slices.Equal(status, []string{done, done}) {
		t.Errorf("completed turn: text %q, tool calls %q; want \"Hello world\" and two completed", text, status)
	}

	// After a reconnect the token is pushed again, its lifetime less the
	// time that passed.
	clock.Advance(10 * time.Minute)
	n := len(h.AuthCalls())
	h.DropConnections()
	waitEvent(t, c, func(e client.ConnectionEvent) bool { return e.Status == client.StatusReady })
	calls := h.AuthCalls()
	if len(calls) != n+1 || calls[0].Token != "tok-1" || calls[n].Token != "tok-1" {
		t.Fatalf("authenticate calls = %+v, want the grant and its re-push", calls)
	}
	want := []*int64{ptr(int64(3600)), ptr(int64(3000))}
	if v := c.ProtocolVersion(); v != "1.0.0" {
		want = []*int64{nil, nil} // expiresIn came with 1.0.0
	}
	for i, call := range []testhost.AuthCall{calls[0], calls[n]} {
		if !equalPtr(call.ExpiresIn, want[i]) {
			t.Errorf("push %d: expiresIn %v, want %v", i, deref(call.ExpiresIn), deref(want[i]))
		}
	}
}

// authRequired: the host asks for a token on the connection. 1.0 names
// the resource by its full metadata (the same sign-in a tool call's
// requirement opens), 0.6 by its identifier only.
func authRequired(t *testing.T, h *testhost.Host, c *client.Client, wire protocol.Wire) {
	t.Helper()
	reason := protocol.AuthRequiredReasonExpired
	h.NotifyRoot("auth/required", protocol.AuthRequiredParams{Channel: protocol.RootChannel, Reason: &reason,
		Resource: protocol.AuthRequiredResource{ProtectedResourceMetadata: protocol.ProtectedResourceMetadata{
			Resource: mcpResource, AuthorizationServers: []string{"https://auth.example.com"}}}})
	e := waitEvent(t, c, func(e client.AuthRequiredEvent) bool { return true })
	got := e.Params.Resource
	if got.Resource != mcpResource || e.Params.Reason == nil || *e.Params.Reason != reason {
		t.Errorf("auth/required = %+v", e.Params)
	}
	if servers := len(got.AuthorizationServers); (servers == 1) != (wire == protocol.Wire10) {
		t.Errorf("auth/required on %v carries %d authorization servers", wire, servers)
	}
}

func mcpStopStart(t *testing.T, h *testhost.Host, c *client.Client) {
	t.Helper()
	for _, step := range []struct {
		action protocol.StateActionVariant
		want   string
	}{
		{protocol.SessionMcpServerStopRequestedAction{ID: mcpServerID}, "stopped"},
		{protocol.SessionMcpServerStartRequestedAction{ID: mcpServerID}, "starting"},
	} {
		if _, err := c.Dispatch(sessionURI, protocol.NewStateAction(step.action)); err != nil {
			t.Fatal(err)
		}
		if st := mcpState(t, c); st != step.want {
			t.Errorf("optimistic MCP state %q, want %q", st, step.want)
		}
		waitUntil(t, c, "the request echoed", func() bool { return c.PendingCount(sessionURI) == 0 })
		hs, _ := h.State(sessionURI)
		if st := mcpStateOf(hs.(protocol.SessionState)); st != step.want {
			t.Errorf("host's MCP state %q, want %q", st, step.want)
		}
	}
	// The host brings the server up and says so.
	h.Inject(sessionURI, protocol.NewStateAction(protocol.SessionMcpServerStateChangedAction{ID: mcpServerID,
		State: protocol.NewMcpServerState(protocol.McpServerReadyState{})}))
	waitUntil(t, c, "the server ready again", func() bool { return mcpState(t, c) == "ready" })
	// Another client disables it: 0.6 says enabled, 1.0 an enablement
	// list, and the client reads it either way.
	h.Inject(sessionURI, protocol.NewStateAction(protocol.SessionCustomizationToggledAction{ID: mcpServerID,
		Enablement: protocol.SessionEnablement(false)}))
	waitUntil(t, c, "the server disabled", func() bool {
		s, _ := c.Session(sessionURI)
		for _, cu := range s.Customizations {
			if m, ok := cu.Variant.(protocol.McpServerCustomization); ok && m.ID == mcpServerID {
				return !protocol.EffectiveEnabled(m.Enablement)
			}
		}
		return false
	})
}

// TestRefusingHostWithRanges: a host that accepts none of the offered
// versions, naming ranges, is reported in one line; its initialize was
// still a valid frame.
func TestRefusingHostWithRanges(t *testing.T) {
	h := newHost(t, testhost.Options{Versions: []string{"^2.0.0", ">=0.1.0 <0.3.0"}})
	_, err := client.Dial(ctxT(t), options(h))
	var uv *client.UnsupportedProtocolVersionError
	if !errors.As(err, &uv) {
		t.Fatalf("Dial = %v, want *UnsupportedProtocolVersionError", err)
	}
	const want = "host accepts AHP ^2.0.0 (>=2.0.0 <3.0.0), >=0.1.0 <0.3.0; ahptui offers 1.0.0, 0.10.0, 0.9.0, 0.8.0, 0.7.0, 0.6.0"
	if uv.Summary() != want || strings.Contains(uv.Summary(), "\n") {
		t.Errorf("summary %q, want %q", uv.Summary(), want)
	}
	if m := h.Methods(1); !slices.Equal(m, []string{"initialize"}) {
		t.Errorf("methods = %v, want only initialize", m)
	}
}

// TestNot06ActionsAreNotSent: on a 0.6 host a 1.0-only action is refused
// before it changes anything; on 1.0 it goes.
func TestNot06ActionsAreNotSent(t *testing.T) {
	for _, vh := range []struct {
		version string
		sent    bool
	}{{"0.6.0", false}, {"1.0.0", true}} {
		t.Run(vh.version, func(t *testing.T) {
			h := newHost(t, testhost.Options{Versions: []string{vh.version}})
			c := dial(t, h, nil)
			subscribe(t, c, chatURI)
			_, err := c.Dispatch(chatURI, protocol.NewStateAction(protocol.ChatTurnResumeAction{TurnID: "t1"}))
			if (err == nil) != vh.sent || (err != nil && !errors.Is(err, client.ErrNotInVersion)) {
				t.Fatalf("Dispatch(chat/turnResume) = %v, want sent %v (else ErrNotInVersion)", err, vh.sent)
			}
			if got := c.PendingCount(chatURI); got != map[bool]int{true: 1, false: 0}[vh.sent] {
				t.Errorf("pending = %d", got)
			}
			// A command 0.6 cannot say (a side chat) is refused the same way.
			side := protocol.CreateChatParams{Channel: sessionURI, Chat: "ahp-chat:/side", Source: &protocol.ChatSource{
				Variant: protocol.SideChatSource{Chat: chatURI, TurnID: "t1"}}}
			if err := c.CreateChat(ctxT(t), side); (err == nil) != vh.sent || (err != nil && !errors.Is(err, client.ErrNotInVersion)) {
				t.Errorf("CreateChat(side chat) = %v, want sent %v (else ErrNotInVersion)", err, vh.sent)
			}
		})
	}
}

func toolCall(c *client.Client) (protocol.ToolCallState, bool) { return toolCallByID(c, "tc1") }

func toolCallByID(c *client.Client, id string) (protocol.ToolCallState, bool) {
	ch, ok := c.Chat(chatURI)
	if !ok || ch.ActiveTurn == nil {
		return protocol.ToolCallState{}, false
	}
	for _, p := range ch.ActiveTurn.ResponseParts {
		if v, ok := p.Variant.(protocol.ToolCallResponsePart); ok && v.ToolCall.ID() == id {
			return v.ToolCall, true
		}
	}
	return protocol.ToolCallState{}, false
}

func toolCallStatus(c *client.Client, id string) string {
	tc, _ := toolCallByID(c, id)
	return tc.Status()
}

func mcpState(t *testing.T, c *client.Client) string {
	t.Helper()
	s, ok := c.Session(sessionURI)
	if !ok {
		t.Fatal("session not mirrored")
	}
	return mcpStateOf(s)
}

func mcpStateOf(s protocol.SessionState) string {
	for _, cu := range s.Customizations {
		if m, ok := cu.Variant.(protocol.McpServerCustomization); ok && m.ID == mcpServerID {
			return m.State.Kind()
		}
	}
	return ""
}

func equalPtr[T comparable](a, b *T) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestHostDowngradedUnderPendingAction: a 1.0-only action dispatched
// while reconnecting is accepted (the wire was 1.0), but the host comes
// back speaking 0.6 only. The action cannot be sent: it is rolled back as
// rejected instead of waiting for an echo that never comes, and the rest
// of the session carries on on the 0.6 wire.
func TestHostDowngradedUnderPendingAction(t *testing.T) {
	h := newHost(t, testhost.Options{Versions: []string{"^1.0.0"}})
	c := dial(t, h, nil)
	subscribe(t, c, chatURI)
	h.RefuseConnections(true)
	h.DropConnections()
	waitEvent(t, c, func(e client.ConnectionEvent) bool { return e.Status == client.StatusReconnecting })
	resume := protocol.NewStateAction(protocol.ChatTurnResumeAction{TurnID: "t1"})
	seq, err := c.Dispatch(chatURI, resume)
	if err != nil {
		t.Fatalf("Dispatch while reconnecting to a 1.0 host: %v", err)
	}
	h.SetVersions([]string{"0.6.0"})
	h.Forget() // the restarted host knows no one: the client initializes again
	h.RefuseConnections(false)
	r := waitEvent(t, c, func(e client.ActionRejectedEvent) bool { return e.ClientSeq == seq })
	if !strings.Contains(r.Reason, "not sent") {
		t.Errorf("rejection reason %q", r.Reason)
	}
	waitUntil(t, c, "ready on 0.6", func() bool {
		return c.Status() == client.StatusReady && c.Wire() == protocol.Wire06
	})
	if n := c.PendingCount(chatURI); n != 0 {
		t.Errorf("pending = %d, want the unsendable action settled", n)
	}
	for _, f := range h.Frames() {
		if f.Method == "dispatchAction" {
			t.Errorf("a dispatch reached the host: %s", f.Raw)
		}
	}
}
