package demohost_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ahptui/ahptui/authpkce"
	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/demohost/authserver"
	"github.com/ahptui/ahptui/internal/schemacheck"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
)

const e2eTimeout = 20 * time.Second

// e2eStep paces the demo host's script. Not -1 (no delay): the client
// coalesces consecutive ChannelStateEvents for one channel, so a state the
// host leaves within microseconds (a server's "starting", a tool call's
// "running" after auth is resolved) could legitimately never be seen, and
// this test asserts that every transition is shown. One step is long enough
// for the event consumer to read each state.
const e2eStep = 20 * time.Millisecond

// watcher consumes the client's events the way the UI does and records,
// after each ChannelStateEvent, the state kinds it can read from the
// mirror: every distinct state of each MCP server and each tool call.
type watcher struct {
	c *client.Client

	mu       sync.Mutex
	changed  chan struct{}
	servers  map[string][]string // server id → state kinds in order seen
	tools    map[string][]string // tool call id → state kinds in order seen
	problems []string            // rejected actions, host errors
	closed   bool
}

func newWatcher(c *client.Client) *watcher {
	w := &watcher{c: c, changed: make(chan struct{}), servers: map[string][]string{}, tools: map[string][]string{}}
	go w.run()
	return w
}

func (w *watcher) run() {
	for ev := range w.c.Events() {
		w.mu.Lock()
		switch e := ev.(type) {
		case client.ChannelStateEvent:
			switch e.Channel {
			case demohost.DemoSessionURI:
				if s, ok := w.c.Session(e.Channel); ok {
					for _, id := range []string{demohost.FilesystemServerID, demohost.GitHubServerID} {
						if m, ok := mcpServer(s, id); ok {
							w.servers[id] = appendDistinct(w.servers[id], m.State.Kind())
						}
					}
				}
			case demohost.DemoChatURI:
				if ch, ok := w.c.Chat(e.Channel); ok {
					for id, kind := range toolCallKinds(ch) {
						w.tools[id] = appendDistinct(w.tools[id], kind)
					}
				}
			}
		case client.ActionRejectedEvent:
			w.problems = append(w.problems, fmt.Sprintf("action %s on %s rejected: %s", e.Action.Kind(), e.Channel, e.Reason))
		case client.HostErrorEvent:
			w.problems = append(w.problems, fmt.Sprintf("host error: %v", e.Err))
		}
		close(w.changed)
		w.changed = make(chan struct{})
		w.mu.Unlock()
	}
	w.mu.Lock()
	w.closed = true
	close(w.changed)
	w.mu.Unlock()
}

// wait blocks until cond (called with w.mu held) holds, failing the test
// after e2eTimeout.
func (w *watcher) wait(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(e2eTimeout)
	defer deadline.Stop()
	for {
		w.mu.Lock()
		ok, ch, closed := cond(), w.changed, w.closed
		w.mu.Unlock()
		if ok {
			return
		}
		if closed {
			t.Fatalf("event stream closed while waiting for %s", what)
		}
		select {
		case <-ch:
		case <-deadline.C:
			w.mu.Lock()
			defer w.mu.Unlock()
			t.Fatalf("timed out waiting for %s (servers %v, tool calls %v, problems %v)", what, w.servers, w.tools, w.problems)
		}
	}
}

func (w *watcher) serverKinds(id string) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.servers[id])
}

func (w *watcher) toolKinds(id string) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.tools[id])
}

func appendDistinct(seq []string, kind string) []string {
	if len(seq) > 0 && seq[len(seq)-1] == kind {
		return seq
	}
	return append(seq, kind)
}

func mcpServer(s protocol.SessionState, id string) (protocol.McpServerCustomization, bool) {
	for _, c := range s.Customizations {
		switch v := c.Variant.(type) {
		case protocol.McpServerCustomization:
			if v.ID == id {
				return v, true
			}
		case protocol.PluginCustomization:
			for _, ch := range v.Children {
				if m, ok := ch.Variant.(protocol.McpServerCustomization); ok && m.ID == id {
					return m, true
				}
			}
		}
	}
	return protocol.McpServerCustomization{}, false
}

// toolCallKinds lists every tool call in the chat (finished turns and the
// active one) with its state kind.
func toolCallKinds(ch protocol.ChatState) map[string]string {
	out := map[string]string{}
	add := func(parts []protocol.ResponsePart) {
		for _, p := range parts {
			if tp, ok := p.Variant.(protocol.ToolCallResponsePart); ok {
				if id := tp.ToolCall.ID(); id != "" {
					out[id] = tp.ToolCall.Kind()
				}
			}
		}
	}
	for _, t := range ch.Turns {
		add(t.ResponseParts)
	}
	if ch.ActiveTurn != nil {
		add(ch.ActiveTurn.ResponseParts)
	}
	return out
}

// findToolCall returns the tool call id in the chat's turn turnID (active
// or finished).
func findToolCall(ch protocol.ChatState, turnID, id string) (protocol.ToolCallState, bool) {
	var parts []protocol.ResponsePart
	if ch.ActiveTurn != nil && ch.ActiveTurn.ID == turnID {
		parts = ch.ActiveTurn.ResponseParts
	}
	for _, t := range ch.Turns {
		if t.ID == turnID {
			parts = t.ResponseParts
		}
	}
	for _, p := range parts {
		if tp, ok := p.Variant.(protocol.ToolCallResponsePart); ok && tp.ToolCall.ID() == id {
			return tp.ToolCall, true
		}
	}
	return protocol.ToolCallState{}, false
}

func finishedTurn(ch protocol.ChatState, turnID string) (protocol.Turn, bool) {
	if ch.ActiveTurn != nil && ch.ActiveTurn.ID == turnID {
		return protocol.Turn{}, false
	}
	for _, t := range ch.Turns {
		if t.ID == turnID {
			return t, true
		}
	}
	return protocol.Turn{}, false
}

func hasInputNeeded(s protocol.SessionState, id string) bool {
	for _, r := range s.InputNeeded {
		if v, ok := r.Variant.(protocol.SessionToolAuthenticationRequest); ok && v.ID == id {
			return true
		}
	}
	return false
}

// requirement maps the wire's auth challenge onto authpkce's plain types:
// a pre-registered client when the host names one, dynamic registration
// otherwise.
func requirement(reason protocol.McpAuthRequiredReason, prm protocol.ProtectedResourceMetadata, scopes []string, oc *protocol.McpOAuthClient, desc *string) authpkce.Requirement {
	r := authpkce.Requirement{
		Reason:         authpkce.Reason(reason),
		Resource:       prm,
		RequiredScopes: slices.Clone(scopes),
	}
	if oc != nil {
		r.OAuthClient = &authpkce.Client{ClientID: oc.ClientID}
		if oc.ClientSecret != nil {
			r.OAuthClient.ClientSecret = *oc.ClientSecret
		}
	}
	if desc != nil {
		r.Description = *desc
	}
	return r
}

// TestProtocolAndAuthpkceAgainstDemoHost drives the real client packages
// (protocol/ for the connection and mirror, authpkce/ for the PKCE grant)
// against the demo host over a real WebSocket, with every frame in both
// directions schema-checked: MCP servers show every transition, a GitHub
// sign-in uses the pre-registered client, a cancelled step-up ends as
// cancelled, and a granted one (dynamic registration) completes the call.
// It runs once per version the demo host serves: the client negotiates
// each and converts the older ones at its boundary.
func TestProtocolAndAuthpkceAgainstDemoHost(t *testing.T) {
	for _, version := range []string{demohost.Version10, demohost.Version08, demohost.Version07, demohost.Version06} {
		t.Run("ahp-"+version, func(t *testing.T) {
			if !slices.Contains(client.SupportedProtocolVersions, version) {
				t.Skipf("this build's client does not offer %s (it offers %v)", version, client.SupportedProtocolVersions)
			}
			testClientAgainstDemoHost(t, version)
		})
	}
}

func testClientAgainstDemoHost(t *testing.T, version string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var validate func([]byte) error
	if w := protocol.WireOf(version); w != protocol.Wire08 { // no 0.8.0 schema to check against
		validate = schemacheck.MustForWire(t, w).ValidateMessage
	}
	h, err := demohost.Start(ctx, demohost.Config{StepDelay: e2eStep, Validate: validate, Version: version})
	if err != nil {
		t.Fatalf("start demo host: %v", err)
	}
	t.Cleanup(func() {
		if err := h.Close(); err != nil {
			t.Errorf("close demo host: %v", err)
		}
		// Both directions: what protocol/ sends is checked as well.
		for _, fe := range h.ValidationErrors() {
			t.Errorf("invalid frame: %v", fe)
		}
	})

	c, err := client.Dial(ctx, client.Options{URL: h.URL(), ClientID: "e2e-4a1f0c2e-client"})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	if got := c.ProtocolVersion(); got != version {
		t.Fatalf("the client negotiated %q with a demo host serving %q", got, version)
	}
	t.Cleanup(func() { _ = c.Close() })
	w := newWatcher(c)
	for _, ch := range []string{demohost.DemoSessionURI, demohost.DemoChatURI} {
		if err := c.Subscribe(ctx, ch); err != nil {
			t.Fatalf("subscribe %s: %v", ch, err)
		}
	}
	session := func() protocol.SessionState { s, _ := c.Session(demohost.DemoSessionURI); return s }
	chat := func() protocol.ChatState { ch, _ := c.Chat(demohost.DemoChatURI); return ch }

	var urlMu sync.Mutex
	var grantURLs []string
	approveErr := make(chan error, 4)
	approve := func(u string) {
		actx, acancel := context.WithTimeout(ctx, e2eTimeout)
		defer acancel()
		redirect, err := authserver.ApproveHeadless(actx, nil, u)
		if err != nil {
			approveErr <- fmt.Errorf("approve on the consent page: %w", err)
			return
		}
		// Following the redirect delivers the code to authpkce's loopback listener.
		req, _ := http.NewRequestWithContext(actx, http.MethodGet, redirect.String(), nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			approveErr <- fmt.Errorf("deliver the code to the callback: %w", err)
			return
		}
		resp.Body.Close()
	}
	a, err := authpkce.New(authpkce.Config{MemoryOnly: true, Timeout: e2eTimeout, OpenBrowser: func(u string) error {
		urlMu.Lock()
		grantURLs = append(grantURLs, u)
		urlMu.Unlock()
		go approve(u)
		return nil
	}})
	if err != nil {
		t.Fatalf("authpkce.New: %v", err)
	}
	grant := func(req authpkce.Requirement) authpkce.Result {
		t.Helper()
		res, err := a.Authenticate(ctx, authpkce.GrantRequest{Requirement: req, Advertised: []string{req.Resource.Resource}}, nil)
		if err != nil {
			select {
			case aerr := <-approveErr:
				t.Fatalf("grant for %s: %v (%v)", req.Resource.Resource, err, aerr)
			default:
			}
			t.Fatalf("grant for %s: %v", req.Resource.Resource, err)
		}
		urlMu.Lock()
		last := grantURLs[len(grantURLs)-1]
		urlMu.Unlock()
		checkGrantURL(t, last, req)
		return res
	}

	t.Run("mcp stop and start show every transition", func(t *testing.T) {
		fs := demohost.FilesystemServerID
		// Wait on what the event consumer recorded, not on the mirror: the
		// mirror is ahead of the events not yet consumed, and acting on it
		// would let the next state coalesce with this one.
		seen := func(kind string) func() bool {
			return func() bool { k := w.servers[fs]; return len(k) > 0 && k[len(k)-1] == kind }
		}
		w.wait(t, "filesystem ready", seen("ready"))
		from := len(w.serverKinds(fs)) - 1
		if _, err := c.Dispatch(demohost.DemoSessionURI, protocol.NewStateAction(protocol.SessionMcpServerStopRequestedAction{ID: fs})); err != nil {
			t.Fatal(err)
		}
		w.wait(t, "filesystem stopped", seen("stopped"))
		if _, err := c.Dispatch(demohost.DemoSessionURI, protocol.NewStateAction(protocol.SessionMcpServerStartRequestedAction{ID: fs})); err != nil {
			t.Fatal(err)
		}
		want := []string{"ready", "stopped", "starting", "ready"}
		w.wait(t, "filesystem ready again", func() bool { return len(w.servers[fs]) >= from+len(want) })
		w.wait(t, "both actions settled", func() bool { return c.PendingCount(demohost.DemoSessionURI) == 0 })
		if got := w.serverKinds(fs)[from:]; !slices.Equal(got, want) {
			t.Fatalf("filesystem states seen = %v, want %v", got, want)
		}
	})

	t.Run("github sign-in with the pre-registered client", func(t *testing.T) {
		gh := demohost.GitHubServerID
		var st protocol.McpServerAuthRequiredState
		w.wait(t, "github authRequired", func() bool {
			m, _ := mcpServer(session(), gh)
			var ok bool
			st, ok = m.State.Variant.(protocol.McpServerAuthRequiredState)
			return ok
		})
		if st.OauthClient == nil {
			t.Fatal("github's challenge names no pre-registered client")
		}
		req := requirement(st.Reason, st.Resource, st.RequiredScopes, st.OauthClient, st.Description)
		res := grant(req)
		if res.ClientID != st.OauthClient.ClientID {
			t.Fatalf("grant used client %q, want the pre-registered %q", res.ClientID, st.OauthClient.ClientID)
		}
		if err := c.Authenticate(ctx, st.Resource.Resource, res.AccessToken, res.Scopes, time.Time{}); err != nil {
			t.Fatalf("authenticate github: %v", err)
		}
		// Wait on what the consumer recorded: the mirror runs ahead of it.
		w.wait(t, "github ready", func() bool { k := w.servers[gh]; return len(k) > 0 && k[len(k)-1] == "ready" })
		if kinds := w.serverKinds(gh); !slices.Contains(kinds, "authRequired") || kinds[len(kinds)-1] != "ready" {
			t.Fatalf("github states seen = %v", kinds)
		}
	})

	// Cancel first: a granted tools:deploy is remembered by the host, so a
	// later deploy would not ask again.
	deploy := func(t *testing.T, turnID string) (string, protocol.ToolCallAuthRequiredState) {
		t.Helper()
		if _, err := c.Dispatch(demohost.DemoChatURI, protocol.NewStateAction(protocol.ChatTurnStartedAction{TurnID: turnID, StartedAt: time.Now().UTC().Format(time.RFC3339Nano),
			Message: protocol.Message{Text: "please deploy", Origin: protocol.MessageOrigin{Kind: protocol.MessageKindUser}}})); err != nil {
			t.Fatal(err)
		}
		tcID := turnID + "-tc-deploy"
		var ar protocol.ToolCallAuthRequiredState
		w.wait(t, "deploy auth-required", func() bool {
			tc, _ := findToolCall(chat(), turnID, tcID)
			var ok bool
			ar, ok = tc.Variant.(protocol.ToolCallAuthRequiredState)
			return ok
		})
		w.wait(t, "toolAuthentication inputNeeded", func() bool { return hasInputNeeded(session(), demohost.DemoChatURI+"#"+tcID) })
		return tcID, ar
	}

	t.Run("cancelled step-up ends cancelled", func(t *testing.T) {
		const turnID = "e2e-cancel"
		tcID, _ := deploy(t, turnID)
		code := "cancelled"
		if _, err := c.Dispatch(demohost.DemoChatURI, protocol.NewStateAction(protocol.ChatToolCallCompleteAction{TurnID: turnID, ToolCallID: tcID, Result: protocol.ToolCallResult{
			Success: false, PastTenseMessage: protocol.PlainString("Cancelled"),
			Error: &protocol.ToolCallResultError{Message: "cancelled by the user", Code: &code}}})); err != nil {
			t.Fatal(err)
		}
		w.wait(t, "cancelled turn complete", func() bool { _, done := finishedTurn(chat(), turnID); return done })
		w.wait(t, "inputNeeded removed", func() bool { return !hasInputNeeded(session(), demohost.DemoChatURI+"#"+tcID) })
		turn, _ := finishedTurn(chat(), turnID)
		if turn.State != protocol.TurnStateComplete {
			t.Fatalf("cancelled turn state = %v, want complete", turn.State)
		}
		tc, _ := findToolCall(chat(), turnID, tcID)
		done, ok := tc.Variant.(protocol.ToolCallCompletedState)
		if !ok || done.Success || done.Error == nil || done.Error.Code == nil || *done.Error.Code != "cancelled" {
			t.Fatalf("cancelled tool call = %s %+v", tc.Kind(), tc.Variant)
		}
		w.wait(t, "completed call seen by the consumer", func() bool { k := w.tools[tcID]; return len(k) > 0 && k[len(k)-1] == "completed" })
		if kinds := w.toolKinds(tcID); slices.Contains(kinds, "running") && slices.Index(kinds, "running") > slices.Index(kinds, "auth-required") {
			t.Fatalf("a cancelled call resumed running: %v", kinds)
		}
	})

	t.Run("granted step-up completes the call", func(t *testing.T) {
		const turnID = "e2e-grant"
		tcID, ar := deploy(t, turnID)
		if ar.Auth.OauthClient != nil {
			t.Fatal("the deploy challenge names a client; this test expects dynamic registration")
		}
		req := requirement(ar.Auth.Reason, ar.Auth.Resource, ar.Auth.RequiredScopes, nil, ar.Auth.Description)
		if req.Reason != authpkce.ReasonInsufficientScope {
			t.Fatalf("reason = %q, want insufficientScope", req.Reason)
		}
		res := grant(req)
		if !hasAll(res.Scopes, ar.Auth.RequiredScopes) {
			t.Fatalf("granted scopes %v do not cover %v", res.Scopes, ar.Auth.RequiredScopes)
		}
		if err := c.Authenticate(ctx, ar.Auth.Resource.Resource, res.AccessToken, ar.Auth.RequiredScopes, time.Time{}); err != nil {
			t.Fatalf("authenticate deploy: %v", err)
		}
		w.wait(t, "granted turn complete", func() bool { _, done := finishedTurn(chat(), turnID); return done })
		w.wait(t, "inputNeeded removed", func() bool { return !hasInputNeeded(session(), demohost.DemoChatURI+"#"+tcID) })
		turn, _ := finishedTurn(chat(), turnID)
		if turn.State != protocol.TurnStateComplete {
			t.Fatalf("granted turn state = %v, want complete", turn.State)
		}
		tc, _ := findToolCall(chat(), turnID, tcID)
		if done, ok := tc.Variant.(protocol.ToolCallCompletedState); !ok || !done.Success {
			t.Fatalf("granted tool call = %s %+v", tc.Kind(), tc.Variant)
		}
		// chat/toolCallAuthResolved moves the call from auth-required back
		// to running before it completes.
		w.wait(t, "completed call seen by the consumer", func() bool { k := w.tools[tcID]; return len(k) > 0 && k[len(k)-1] == "completed" })
		kinds := w.toolKinds(tcID)
		i := slices.Index(kinds, "auth-required")
		if i < 0 || !slices.Equal(kinds[i:], []string{"auth-required", "running", "completed"}) {
			t.Fatalf("deploy tool call states seen = %v, want …auth-required, running, completed", kinds)
		}
	})

	w.mu.Lock()
	defer w.mu.Unlock()
	for _, p := range w.problems {
		t.Errorf("%s", p)
	}
}

// checkGrantURL checks the authorization request authpkce built: PKCE
// with S256, a state, the RFC 8707 resource and the scopes asked for.
func checkGrantURL(t *testing.T, raw string, req authpkce.Requirement) {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatalf("grant URL %q: %v", raw, err)
	}
	q := u.Query()
	if q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" {
		t.Errorf("grant URL lacks S256 PKCE: %s", raw)
	}
	if q.Get("state") == "" {
		t.Errorf("grant URL lacks state: %s", raw)
	}
	if q.Get("resource") != req.Resource.Resource {
		t.Errorf("grant URL resource = %q, want %q", q.Get("resource"), req.Resource.Resource)
	}
	if !hasAll(strings.Fields(q.Get("scope")), req.RequiredScopes) {
		t.Errorf("grant URL scope = %q, want %v", q.Get("scope"), req.RequiredScopes)
	}
}

func hasAll(have, need []string) bool {
	for _, n := range need {
		if !slices.Contains(have, n) {
			return false
		}
	}
	return true
}
