package demohost

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ahptui/ahptui/demohost/authserver"
	"github.com/ahptui/ahptui/internal/schemacheck"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

type negotiation struct {
	name     string
	versions []string
	clientID string
	want     string
	code     int64
}

// negotiations are the offers each served version is tested with: the
// 1.0 rule (the highest offer inside ^1.0.0 or ~0.9.0, whatever the
// order; VS Code's 0.10.0 is not in them), and the 0.6 host's one exact
// version.
var negotiations = map[string][]negotiation{
	Version10: {
		{"exact", []string{"1.0.0"}, "c1", "1.0.0", 0},
		{"later minor", []string{"1.2.3"}, "c2", "1.2.3", 0},
		{"0.9 labels the 1.0 wire", []string{"0.9.0"}, "c3", "0.9.0", 0},
		{"0.9 patch", []string{"0.9.4"}, "c3p", "0.9.4", 0},
		{"highest whatever the order", []string{"0.9.0", "0.6.0", "1.0.0"}, "c6", "1.0.0", 0},
		{"ahptui's offer", protocol.ProtocolVersionsFor(protocol.Wire10, protocol.Wire08, protocol.Wire07, protocol.Wire06), "c10", "1.0.0", 0},
		{"VS Code's 0.10 alone", []string{"0.10.0"}, "c11", "", jsonrpc.UnsupportedProtocolVersion},
		{"0.6 alone", []string{"0.6.0"}, "c4", "", jsonrpc.UnsupportedProtocolVersion},
		{"next major", []string{"2.0.0"}, "c7", "", jsonrpc.UnsupportedProtocolVersion},
		{"malformed offer", []string{"1.0"}, "c8", "", jsonrpc.InvalidParams},
		{"prerelease offer", []string{"1.0.1-beta.1", "1.0.0"}, "c9", "", jsonrpc.InvalidParams},
		{"no versions", []string{}, "c5", "", jsonrpc.InvalidParams},
		{"no client id", []string{"1.0.0"}, "", "", jsonrpc.InvalidParams},
	},
	Version06: {
		{"exact", []string{"0.6.0"}, "c1", "0.6.0", 0},
		{"ahptui's offer", protocol.ProtocolVersionsFor(protocol.Wire10, protocol.Wire08, protocol.Wire07, protocol.Wire06), "c10", "0.6.0", 0},
		{"another patch", []string{"0.6.3"}, "c2", "", jsonrpc.UnsupportedProtocolVersion},
		{"1.0 only", []string{"1.0.0", "0.10.0", "0.9.0"}, "c7", "", jsonrpc.UnsupportedProtocolVersion},
		{"malformed offer", []string{"0.6"}, "c8", "", jsonrpc.InvalidParams},
		{"no client id", []string{"0.6.0"}, "", "", jsonrpc.InvalidParams},
	},
}

func TestInitializeNegotiatesVersion(t *testing.T) {
	forEachVersion(t, func(t *testing.T, version string) {
		h, v := startHost(t, Config{Version: version})
		testNegotiation(t, h, v, negotiations[version])
	})
}

func testNegotiation(t *testing.T, h *Host, v *schemacheck.Validator, tests []negotiation) {
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := dial(t, h, v, tt.clientID)
			params := map[string]any{"channel": "ahp-root://", "protocolVersions": tt.versions, "clientId": tt.clientID,
				"initialSubscriptions": []string{rootURI, DemoSessionURI, "ahp-session:/nope"}}
			if tt.code != 0 {
				raw, _ := json.Marshal(params)
				id := jsonrpc.Int64ID(1)
				// Sent unvalidated: some of these params are deliberately invalid.
				f, _ := jsonrpc.Encode(&jsonrpc.Request{ID: &id, Method: "initialize", Params: raw})
				c.send(f)
				var resp *jsonrpc.Response
				c.waitUntil("initialize error", func() bool { resp = c.resps["1"]; return resp != nil })
				if resp.Error == nil || resp.Error.Code != tt.code {
					t.Fatalf("got %v %s, want code %d", resp.Error, resp.Result, tt.code)
				}
				if tt.code == jsonrpc.UnsupportedProtocolVersion {
					var data protocol.UnsupportedProtocolVersionErrorData
					if err := json.Unmarshal(resp.Error.Data, &data); err != nil || !slices.Equal(data.SupportedVersions, SupportedVersions(h.Version())) {
						t.Fatalf("error data %s: %v", resp.Error.Data, err)
					}
					if err := v.Validate("UnsupportedProtocolVersionErrorData", resp.Error.Data); err != nil {
						t.Fatalf("error data fails the schema: %v", err)
					}
				}
				return
			}
			var res protocol.InitializeResult
			c.mustCall("initialize", params, &res)
			if res.ProtocolVersion != tt.want {
				t.Fatalf("protocolVersion = %q, want %q", res.ProtocolVersion, tt.want)
			}
			if len(res.Snapshots) != 2 {
				t.Fatalf("got %d snapshots, want root and the demo session (the unknown one skipped)", len(res.Snapshots))
			}
			root, ok := res.Snapshots[0].State.Variant.(protocol.RootState)
			if !ok || len(root.Agents) != 1 || root.Agents[0].Provider != Provider {
				t.Fatalf("root snapshot = %#v", res.Snapshots[0].State.Variant)
			}
			sess, ok := res.Snapshots[1].State.Variant.(protocol.SessionState)
			if !ok || sess.Title != DemoSessionTitle || len(sess.Customizations) != 3 {
				t.Fatalf("session snapshot: title %q, %d top-level customizations; want %q and 3", sess.Title, len(sess.Customizations), DemoSessionTitle)
			}
			// A second initialize on the same connection is refused.
			c.wantError("initialize", params, jsonrpc.InvalidRequest)
		})
	}
}

func TestErrors(t *testing.T) {
	forEachVersion(t, func(t *testing.T, version string) {
		h, v := startHost(t, Config{Version: version})
		c := dial(t, h, v, "errs")
		c.wantError("subscribe", map[string]any{"channel": DemoSessionURI}, jsonrpc.InvalidRequest) // before initialize
		c.mustCall("ping", map[string]any{"channel": rootURI}, nil)                                 // ping works any time
		c.initialize(rootURI)

		if r := c.callMaybeInvalid("frobnicate", map[string]any{"channel": rootURI}, false); r.Error == nil || r.Error.Code != jsonrpc.MethodNotFound {
			t.Fatalf("unknown method: %v", r.Error)
		}
		// Bad params: sent raw, since they are invalid on purpose. Over 0.6
		// they pass the conversion first, which must not make them valid.
		badDir := `{"channel":"ahp-session:/bad","workingDirectories":[42]}`
		if version == Version06 {
			badDir = `{"channel":"ahp-session:/bad","workingDirectory":42}`
		}
		for i, bad := range []struct{ method, raw string }{
			{"subscribe", `{"channel":42}`}, {"subscribe", `[1,2]`}, {"subscribe", `{"channel":"ahp-root://","view":{"turns":"many"}}`},
			{"createSession", badDir}, {"createChat", `{"channel":"ahp-session:/demo","chat":"ahp-chat:/c9","source":"fork"}`},
		} {
			method, raw := bad.method, bad.raw
			id := jsonrpc.Int64ID(int64(1000 + i))
			f, _ := jsonrpc.Encode(&jsonrpc.Request{ID: &id, Method: method, Params: json.RawMessage(raw)})
			c.send(f)
			var resp *jsonrpc.Response
			c.waitUntil("bad params answer", func() bool { resp = c.resps[id.String()]; return resp != nil })
			if resp.Error == nil || resp.Error.Code != jsonrpc.InvalidParams {
				t.Fatalf("%s %s: got %v, want -32602", method, raw, resp.Error)
			}
		}
		c.wantError("subscribe", map[string]any{"channel": "ahp-session:/missing"}, jsonrpc.SessionNotFound)

		uri := "ahp-session:/twice"
		c.mustCall("createSession", protocol.CreateSessionParams{Channel: uri}, nil)
		c.wantError("createSession", protocol.CreateSessionParams{Channel: uri}, jsonrpc.SessionAlreadyExists)
		other := "other"
		c.wantError("createSession", protocol.CreateSessionParams{Channel: "ahp-session:/p", Provider: &other}, jsonrpc.ProviderNotFound)
		c.wantError("disposeSession", protocol.DisposeSessionParams{Channel: "ahp-session:/missing"}, jsonrpc.SessionNotFound)

		// The catalogue: the demo session plus the new one, and root events.
		var list protocol.ListSessionsResult
		c.mustCall("listSessions", map[string]any{"channel": rootURI}, &list)
		if len(list.Items) != 3 || list.Items[2].Resource != HistorySessionURI {
			t.Fatalf("listSessions = %+v, want 3 items, the history session last", list.Items)
		}
		one := int64(1)
		c.mustCall("listSessions", protocol.ListSessionsParams{Limit: &one}, &list)
		if len(list.Items) != 1 || list.NextCursor == nil {
			t.Fatalf("paged listSessions = %+v", list)
		}
		var page2 protocol.ListSessionsResult
		c.mustCall("listSessions", protocol.ListSessionsParams{Cursor: list.NextCursor, Limit: &one}, &page2)
		if len(page2.Items) != 1 || page2.NextCursor == nil || page2.Items[0].Resource == list.Items[0].Resource {
			t.Fatalf("second page = %+v", page2)
		}
		bad := "garbage"
		c.wantError("listSessions", protocol.ListSessionsParams{Cursor: &bad}, jsonrpc.InvalidParams)
		c.waitUntil("root/sessionAdded", func() bool {
			for _, n := range c.notes {
				if n.Method == "root/sessionAdded" && strings.Contains(string(n.Params), uri) {
					return true
				}
			}
			return false
		})
		c.mustCall("disposeSession", protocol.DisposeSessionParams{Channel: uri}, nil)
		c.waitUntil("root/sessionRemoved", func() bool {
			for _, n := range c.notes {
				if n.Method == "root/sessionRemoved" && strings.Contains(string(n.Params), uri) {
					return true
				}
			}
			return false
		})
		c.wantError("fetchTurns", protocol.FetchTurnsParams{Channel: "ahp-chat:/missing"}, jsonrpc.NotFound)
		c.mustCall("fetchTurns", protocol.FetchTurnsParams{Channel: DemoChatURI}, nil)
	})
}

func TestGarbageFramesSurvived(t *testing.T) {
	forEachVersion(t, func(t *testing.T, version string) {
		h, v := startHost(t, Config{Version: version})
		c := dial(t, h, v, "garbage")
		c.initialize(rootURI)
		for _, f := range []string{"not json at all", `[{"jsonrpc":"2.0","id":9,"method":"ping"}]`, `{"jsonrpc":"2.0","id":7}`, `{"jsonrpc":"1.0","id":8,"method":"ping"}`, "\x00\xff", `{}`} {
			c.send([]byte(f))
		}
		c.waitUntil("an error answer to the parse error", func() bool { return c.resps["null"] != nil })
		// The reader goroutine keeps storing the later garbage frames' answers
		// (id null too) in resps, so it is read under the client's lock.
		c.mu.Lock()
		answer := c.resps["null"]
		c.mu.Unlock()
		if answer.Error == nil {
			t.Fatalf("parse error answered with %s", answer.Result)
		}
		c.mustCall("ping", map[string]any{"channel": rootURI}, nil)
		// A notification for an unknown method is ignored without an answer.
		f, _ := jsonrpc.Encode(&jsonrpc.Request{Method: "no/such/notification", Params: json.RawMessage(`{"channel":"ahp-root://"}`)})
		c.send(f)
		c.mustCall("ping", map[string]any{"channel": rootURI}, nil)
	})
}

func TestStreamedTurnWatchedByTwoClients(t *testing.T) {
	forEachVersion(t, func(t *testing.T, version string) {
		h, v := startHost(t, Config{Version: version})
		a := dial(t, h, v, "writer")
		b := dial(t, h, v, "watcher")
		a.initialize(rootURI, DemoSessionURI, DemoChatURI)
		var sub protocol.SubscribeResult
		b.initialize()
		for _, ch := range []string{rootURI, DemoSessionURI, DemoChatURI} {
			b.mustCall("subscribe", protocol.SubscribeParams{Channel: ch}, &sub)
			if sub.Snapshot == nil || sub.Snapshot.Resource != ch {
				t.Fatalf("subscribe %s: snapshot %+v", ch, sub.Snapshot)
			}
		}
		seq := a.dispatch(DemoChatURI, turnStarted("t1", "stream something"))
		echo := a.waitEcho("turnStarted echo", DemoChatURI, seq)
		if echo.RejectionReason != nil {
			t.Fatalf("turnStarted rejected: %s", *echo.RejectionReason)
		}
		for _, c := range []*rawClient{a, b} {
			c.waitEnvelope("turnComplete", DemoChatURI, func(e protocol.ActionEnvelope) bool {
				tc, ok := e.Action.Variant.(protocol.ChatTurnCompleteAction)
				return ok && tc.TurnID == "t1"
			})
			if n := c.countEnvelopes(isType("chat/delta")); n < 10 {
				t.Errorf("%s saw %d deltas, want a real stream", c.clientID, n)
			}
			if n := c.countEnvelopes(isType("chat/reasoning")); n == 0 {
				t.Errorf("%s saw no reasoning", c.clientID)
			}
			// The session catalogue follows the chat (chatUpdated).
			c.waitEnvelope("chatUpdated", DemoSessionURI, isType("session/chatUpdated"))
		}
		// serverSeq is one global, strictly increasing sequence.
		a.mu.Lock()
		var last int64
		for _, e := range a.envelopesLocked() {
			if e.ServerSeq <= last {
				t.Errorf("serverSeq %d after %d", e.ServerSeq, last)
			}
			last = e.ServerSeq
		}
		a.mu.Unlock()
		// Root subscribers heard about the status change.
		a.waitUntil("root/sessionSummaryChanged", func() bool {
			for _, n := range a.notes {
				if n.Method == "root/sessionSummaryChanged" {
					return true
				}
			}
			return false
		})
	})
}

func TestApprovePendingToolCall(t *testing.T) {
	forEachVersion(t, func(t *testing.T, version string) {
		h, v := startHost(t, Config{Version: version})
		c := dial(t, h, v, "approver")
		c.initialize(rootURI, DemoSessionURI, DemoChatURI)
		c.dispatch(DemoChatURI, turnStarted("t1", "please write the changelog"))
		tcID := "t1-tc-write"
		c.waitEnvelope("pending confirmation", DemoChatURI, func(e protocol.ActionEnvelope) bool {
			r, ok := e.Action.Variant.(protocol.ChatToolCallReadyAction)
			return ok && r.ToolCallID == tcID && r.Confirmed == nil
		})
		c.waitEnvelope("inputNeeded toolConfirmation", DemoSessionURI, func(e protocol.ActionEnvelope) bool {
			s, ok := e.Action.Variant.(protocol.SessionInputNeededSetAction)
			return ok && s.Request.Kind() == "toolConfirmation"
		})
		// Completing someone else's server tool is refused.
		bad := c.dispatch(DemoChatURI, protocol.ChatToolCallCompleteAction{TurnID: "t1", ToolCallID: tcID,
			Result: protocol.ToolCallResult{Success: true, PastTenseMessage: protocol.PlainString("x")}})
		if e := c.waitEcho("rejected complete", DemoChatURI, bad); e.RejectionReason == nil {
			t.Fatal("a client completed a server tool call")
		}
		seq := c.dispatch(DemoChatURI, protocol.ChatToolCallApprovedAction{TurnID: "t1", ToolCallID: tcID, Approved: true, Confirmed: protocol.ToolCallConfirmationReasonUserAction})
		if e := c.waitEcho("approve echo", DemoChatURI, seq); e.RejectionReason != nil {
			t.Fatalf("approval rejected: %s", *e.RejectionReason)
		}
		c.waitEnvelope("tool call complete", DemoChatURI, func(e protocol.ActionEnvelope) bool {
			a, ok := e.Action.Variant.(protocol.ChatToolCallCompleteAction)
			return ok && a.ToolCallID == tcID && a.Result.Success
		})
		c.waitEnvelope("inputNeeded removed", DemoSessionURI, isType("session/inputNeededRemoved"))
		c.waitEnvelope("turn complete", DemoChatURI, isType("chat/turnComplete"))
		// Approving again: the tool call is no longer pending.
		again := c.dispatch(DemoChatURI, protocol.ChatToolCallApprovedAction{TurnID: "t1", ToolCallID: tcID, Approved: true, Confirmed: protocol.ToolCallConfirmationReasonUserAction})
		if e := c.waitEcho("second approve", DemoChatURI, again); e.RejectionReason == nil {
			t.Fatal("a second approval was accepted")
		}
	})
}

func TestRejectsInvalidClientActions(t *testing.T) {
	h, v := startHost(t, Config{})
	c := dial(t, h, v, "rejects")
	c.initialize(rootURI, DemoSessionURI, DemoChatURI)
	tests := []struct {
		name    string
		channel string
		action  protocol.StateActionVariant
	}{
		{"server-only action", DemoSessionURI, protocol.SessionReadyAction{}},
		{"server-only chat action", DemoChatURI, protocol.ChatDeltaAction{TurnID: "x", PartID: "p", Content: "hi"}},
		{"cancel without a turn", DemoChatURI, protocol.ChatTurnCancelledAction{TurnID: "nope"}},
		{"unknown tool call", DemoChatURI, protocol.ChatToolCallApprovedAction{TurnID: "nope", ToolCallID: "nope", Approved: true, Confirmed: protocol.ToolCallConfirmationReasonUserAction}},
		{"unknown customization", DemoSessionURI, protocol.SessionCustomizationToggledAction{ID: "nope", Enablement: protocol.SessionEnablement(false)}},
		{"agent message", DemoChatURI, protocol.ChatTurnStartedAction{TurnID: "t9", StartedAt: "2026-01-01T00:00:00.000Z", Message: protocol.Message{Text: "x", Origin: protocol.MessageOrigin{Kind: protocol.MessageKindAgent}}}},
		{"session action on a chat", DemoChatURI, protocol.SessionTitleChangedAction{Title: "x"}},
		{"input answer for no request", DemoChatURI, protocol.ChatInputCompletedAction{RequestID: "nope", Response: protocol.ChatInputResponseKindCancel}},
		// The spec requires refusing a defaultChat that is not one of the session's chats.
		{"default chat not in session", DemoSessionURI, protocol.SessionDefaultChatChangedAction{DefaultChat: ptr("ahp-chat:/not-here")}},
		{"remove unknown queued message", DemoChatURI, protocol.ChatPendingMessageRemovedAction{Kind: protocol.PendingMessageKindQueued, ID: "nope"}},
		{"remove unknown steering message", DemoChatURI, protocol.ChatPendingMessageRemovedAction{Kind: protocol.PendingMessageKindSteering, ID: "nope"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seq := c.dispatch(tt.channel, tt.action)
			e := c.waitEcho(tt.name, tt.channel, seq)
			if e.RejectionReason == nil || *e.RejectionReason == "" {
				t.Fatalf("accepted: %+v", e)
			}
		})
	}
	// Actions on a channel that does not exist are dropped without an echo;
	// the next valid action proves the host went on.
	c.dispatch("ahp-chat:/missing", protocol.ChatTurnCancelledAction{TurnID: "x"})
	seq := c.dispatch(DemoSessionURI, protocol.SessionTitleChangedAction{Title: "Renamed"})
	c.waitEcho("title echo", DemoSessionURI, seq)
	if n := c.countEnvelopes(func(e protocol.ActionEnvelope) bool { return e.Channel == "ahp-chat:/missing" }); n != 0 {
		t.Fatalf("%d envelopes for a missing channel", n)
	}
}

func TestMcpServerTransitions(t *testing.T) {
	forEachVersion(t, func(t *testing.T, version string) {
		h, v := startHost(t, Config{Version: version})
		c := dial(t, h, v, "mcp")
		res := c.initialize(rootURI, DemoSessionURI)
		sess := res.Snapshots[1].State.Variant.(protocol.SessionState)
		if _, _, ok := findServer(sess, DeployServerID); !ok {
			t.Fatal("the plugin's MCP server is missing")
		}
		// Start-up outcomes: ready, error, authRequired (with metadata).
		for _, w := range []struct{ id, kind string }{{FilesystemServerID, "ready"}, {DeployServerID, "ready"}, {FlakyServerID, "error"}, {GitHubServerID, "authRequired"}} {
			c.waitServer(DemoSessionURI, w.id, w.kind)
		}
		ar := c.waitServer(DemoSessionURI, GitHubServerID, "authRequired").State.Variant.(protocol.McpServerAuthRequiredState)
		if ar.Reason != protocol.McpAuthRequiredReasonRequired || ar.OauthClient == nil || ar.OauthClient.ClientID != h.Auth().PublicClientID() ||
			ar.Resource.Resource != resourceURL(h, GitHubResourcePath) || len(ar.Resource.AuthorizationServers) != 1 || ar.Resource.AuthorizationServers[0] != h.AuthIssuer() {
			t.Fatalf("authRequired state = %+v", ar)
		}

		// Stop, then start: stopped → starting → ready.
		stop := c.dispatch(DemoSessionURI, protocol.SessionMcpServerStopRequestedAction{ID: FilesystemServerID})
		if e := c.waitEcho("stop echo", DemoSessionURI, stop); e.RejectionReason != nil {
			t.Fatalf("stop rejected: %s", *e.RejectionReason)
		}
		readyBefore := c.countEnvelopes(serverState(FilesystemServerID, "ready"))
		start := c.dispatch(DemoSessionURI, protocol.SessionMcpServerStartRequestedAction{ID: FilesystemServerID})
		if e := c.waitEcho("start echo", DemoSessionURI, start); e.RejectionReason != nil {
			t.Fatalf("start rejected: %s", *e.RejectionReason)
		}
		c.waitUntil("filesystem ready again", func() bool {
			n := 0
			for _, e := range c.envelopesLocked() {
				if serverState(FilesystemServerID, "ready")(e) {
					n++
				}
			}
			return n > readyBefore
		})

		// Disabling the plugin stops its servers; enabling starts them again.
		off := c.dispatch(DemoSessionURI, protocol.SessionCustomizationToggledAction{ID: PluginID, Enablement: protocol.SessionEnablement(false)})
		c.waitEcho("toggle off", DemoSessionURI, off)
		c.waitEnvelope("deploy stopped", DemoSessionURI, serverState(DeployServerID, "stopped"))
		c.waitEnvelope("flaky stopped", DemoSessionURI, serverState(FlakyServerID, "stopped"))
		// A disabled server cannot be started.
		refused := c.dispatch(DemoSessionURI, protocol.SessionMcpServerStartRequestedAction{ID: DeployServerID})
		if e := c.waitEcho("start disabled", DemoSessionURI, refused); e.RejectionReason == nil {
			t.Fatal("started a disabled server")
		}
		on := c.dispatch(DemoSessionURI, protocol.SessionCustomizationToggledAction{ID: PluginID, Enablement: protocol.SessionEnablement(true)})
		c.waitEcho("toggle on", DemoSessionURI, on)
		c.waitEnvelope("deploy starting", DemoSessionURI, serverState(DeployServerID, "starting"))
		c.waitEnvelope("deploy ready again", DemoSessionURI, serverState(DeployServerID, "ready"))
		c.waitServer(DemoSessionURI, DeployServerID, "ready")
	})
}

func TestSignInMakesProtectedServerReady(t *testing.T) {
	forEachVersion(t, func(t *testing.T, version string) {
		h, v := startHost(t, Config{Version: version})
		c := dial(t, h, v, "signin")
		c.initialize(rootURI, DemoSessionURI)
		c.waitServer(DemoSessionURI, GitHubServerID, "authRequired")
		cb := startCallback(t)
		github := resourceURL(h, GitHubResourcePath)

		// Tokens the host must refuse: garbage, wrong audience, unknown resource.
		c.wantError("authenticate", protocol.AuthenticateParams{Resource: github, Token: "not-a-token"}, jsonrpc.AuthRequired)
		other := grant(t, h.AuthIssuer(), h.Auth().PublicClientID(), cb, resourceURL(h, DeployResourcePath), []string{"mcp:read"})
		e := c.wantError("authenticate", protocol.AuthenticateParams{Resource: github, Token: other}, jsonrpc.AuthRequired)
		if err := v.Validate("AuthRequiredErrorData", e.Data); err != nil {
			t.Fatalf("AuthRequired data fails the schema: %v (%s)", err, e.Data)
		}
		c.wantError("authenticate", protocol.AuthenticateParams{Resource: "https://elsewhere.invalid/", Token: other}, jsonrpc.InvalidParams)
		noScope := grant(t, h.AuthIssuer(), h.Auth().PublicClientID(), cb, github, []string{"mcp:write"})
		c.wantError("authenticate", protocol.AuthenticateParams{Resource: github, Token: noScope}, jsonrpc.AuthRequired)

		tok := grant(t, h.AuthIssuer(), h.Auth().PublicClientID(), cb, github, GitHubScopes)
		c.mustCall("authenticate", protocol.AuthenticateParams{Resource: github, Token: tok, Scopes: GitHubScopes}, nil)
		c.waitServer(DemoSessionURI, GitHubServerID, "ready")
	})
}

// stepUpChallenge starts a deploy turn and waits for the tool call to ask
// for more scopes, checking the challenge's shape.
func stepUpChallenge(t *testing.T, h *Host, c *rawClient) string {
	t.Helper()
	c.dispatch(DemoChatURI, turnStarted("t1", "deploy the preview"))
	tcID := "t1-tc-deploy"
	e := c.waitEnvelope("toolCallAuthRequired", DemoChatURI, isType("chat/toolCallAuthRequired"))
	ar := e.Action.Variant.(protocol.ChatToolCallAuthRequiredAction)
	if ar.ToolCallID != tcID || ar.Auth.Reason != protocol.McpAuthRequiredReasonInsufficientScope || ar.Auth.OauthClient != nil ||
		ar.Auth.Resource.Resource != resourceURL(h, DeployResourcePath) || len(ar.Auth.RequiredScopes) != 1 || ar.Auth.RequiredScopes[0] != "tools:deploy" {
		t.Fatalf("challenge = %+v", ar)
	}
	c.waitEnvelope("inputNeeded toolAuthentication", DemoSessionURI, func(e protocol.ActionEnvelope) bool {
		s, ok := e.Action.Variant.(protocol.SessionInputNeededSetAction)
		return ok && s.Request.Kind() == "toolAuthentication"
	})
	start := c.countEnvelopes(func(e protocol.ActionEnvelope) bool {
		a, ok := e.Action.Variant.(protocol.ChatToolCallStartAction)
		if !ok || a.Contributor == nil {
			return false
		}
		m, ok := a.Contributor.Variant.(protocol.ToolCallMcpContributor)
		return ok && m.CustomizationID == DeployServerID
	})
	if start != 1 {
		t.Fatalf("deploy tool call not contributed by the deploy MCP server")
	}
	return tcID
}

func TestStepUpResolvedByPKCEGrant(t *testing.T) {
	forEachVersion(t, func(t *testing.T, version string) {
		h, v := startHost(t, Config{Version: version})
		c := dial(t, h, v, "stepup")
		c.initialize(rootURI, DemoSessionURI, DemoChatURI)
		tcID := stepUpChallenge(t, h, c)
		deploy := resourceURL(h, DeployResourcePath)
		cb := startCallback(t)
		// No oauthClient in the challenge: register dynamically, as a client must.
		clientID := registerClient(t, h.AuthIssuer(), cb.URL, []string{"mcp:read", "tools:deploy"})

		weak := grant(t, h.AuthIssuer(), clientID, cb, deploy, []string{"mcp:read"})
		c.wantError("authenticate", protocol.AuthenticateParams{Resource: deploy, Token: weak}, jsonrpc.AuthRequired)

		tok := grant(t, h.AuthIssuer(), clientID, cb, deploy, []string{"mcp:read", "tools:deploy"})
		c.mustCall("authenticate", protocol.AuthenticateParams{Resource: deploy, Token: tok, Scopes: []string{"tools:deploy"}}, nil)
		c.waitEnvelope("toolCallAuthResolved", DemoChatURI, isType("chat/toolCallAuthResolved"))
		c.waitEnvelope("inputNeededRemoved", DemoSessionURI, isType("session/inputNeededRemoved"))
		c.waitEnvelope("deploy completes", DemoChatURI, func(e protocol.ActionEnvelope) bool {
			a, ok := e.Action.Variant.(protocol.ChatToolCallCompleteAction)
			return ok && a.ToolCallID == tcID && a.Result.Success
		})
		c.waitEnvelope("turn complete", DemoChatURI, isType("chat/turnComplete"))
		if text := lastTurnMarkdown(h, DemoChatURI); !strings.Contains(text, "Done.") || strings.Contains(text, "cancelled") {
			t.Fatalf("after a granted deploy the agent wrote %q", text)
		}
	})
}

func TestStepUpCancelled(t *testing.T) {
	forEachVersion(t, func(t *testing.T, version string) {
		h, v := startHost(t, Config{Version: version})
		c := dial(t, h, v, "cancel")
		c.initialize(rootURI, DemoSessionURI, DemoChatURI)
		tcID := stepUpChallenge(t, h, c)
		code := "cancelled"
		seq := c.dispatch(DemoChatURI, protocol.ChatToolCallCompleteAction{TurnID: "t1", ToolCallID: tcID, Result: protocol.ToolCallResult{
			Success: false, PastTenseMessage: protocol.PlainString("Cancelled"), Error: &protocol.ToolCallResultError{Message: "cancelled by the user", Code: &code}}})
		if e := c.waitEcho("cancel echo", DemoChatURI, seq); e.RejectionReason != nil {
			t.Fatalf("cancel rejected: %s", *e.RejectionReason)
		}
		c.waitEnvelope("inputNeededRemoved", DemoSessionURI, isType("session/inputNeededRemoved"))
		c.waitEnvelope("turn complete", DemoChatURI, isType("chat/turnComplete"))
		if n := c.countEnvelopes(isType("chat/toolCallAuthResolved")); n != 0 {
			t.Fatal("a cancelled challenge was resolved")
		}
		// The agent says nothing was deployed and does not then claim "Done.".
		text := lastTurnMarkdown(h, DemoChatURI)
		if !strings.Contains(text, "Deployment cancelled") || strings.Contains(text, "Done.") {
			t.Fatalf("after a cancelled deploy the agent wrote %q", text)
		}
	})
}

// lastTurnMarkdown is the markdown the host's agent wrote in chat's last
// finished turn.
func lastTurnMarkdown(h *Host, chat string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	turns := h.chats[chat].state.Turns
	if len(turns) == 0 {
		return ""
	}
	var b strings.Builder
	for _, p := range turns[len(turns)-1].ResponseParts {
		if md, ok := p.Variant.(protocol.MarkdownResponsePart); ok {
			b.WriteString(md.Content.String())
		}
	}
	return b.String()
}

func TestInputRequestAnswered(t *testing.T) {
	forEachVersion(t, func(t *testing.T, version string) {
		h, v := startHost(t, Config{Version: version})
		c := dial(t, h, v, "asker")
		c.initialize(rootURI, DemoSessionURI, DemoChatURI)
		c.dispatch(DemoChatURI, turnStarted("t1", "ask me"))
		e := c.waitEnvelope("inputRequested", DemoChatURI, isType("chat/inputRequested"))
		req := e.Action.Variant.(protocol.ChatInputRequestedAction).Request
		c.waitEnvelope("inputNeeded chatInput", DemoSessionURI, func(e protocol.ActionEnvelope) bool {
			s, ok := e.Action.Variant.(protocol.SessionInputNeededSetAction)
			return ok && s.Request.Kind() == "chatInput"
		})
		// Accepting without the required answer is refused.
		early := c.dispatch(DemoChatURI, protocol.ChatInputCompletedAction{RequestID: req.ID, Response: protocol.ChatInputResponseKindAccept})
		if e := c.waitEcho("early accept", DemoChatURI, early); e.RejectionReason == nil {
			t.Fatal("accepted an input request without its required answer")
		}
		ans := protocol.NewChatInputAnswer(protocol.ChatInputAnswered{State: "submitted",
			Value: protocol.NewChatInputAnswerValue(protocol.ChatInputSelectedAnswerValue{Value: "production"})})
		s1 := c.dispatch(DemoChatURI, protocol.ChatInputAnswerChangedAction{RequestID: req.ID, QuestionID: "target", Answer: &ans})
		if e := c.waitEcho("answer", DemoChatURI, s1); e.RejectionReason != nil {
			t.Fatalf("answer rejected: %s", *e.RejectionReason)
		}
		s2 := c.dispatch(DemoChatURI, protocol.ChatInputCompletedAction{RequestID: req.ID, Response: protocol.ChatInputResponseKindAccept})
		if e := c.waitEcho("complete", DemoChatURI, s2); e.RejectionReason != nil {
			t.Fatalf("completion rejected: %s", *e.RejectionReason)
		}
		c.waitEnvelope("answer used", DemoChatURI, func(e protocol.ActionEnvelope) bool {
			d, ok := e.Action.Variant.(protocol.ChatDeltaAction)
			return ok && strings.Contains(d.Content, "production")
		})
		c.waitEnvelope("turn complete", DemoChatURI, isType("chat/turnComplete"))
	})
}

func TestCancelAndQueuedMessages(t *testing.T) {
	forEachVersion(t, func(t *testing.T, version string) {
		h, v := startHost(t, Config{Version: version})
		c := dial(t, h, v, "queue")
		c.initialize(rootURI, DemoSessionURI, DemoChatURI)
		// The confirmation scenario blocks, so the turn is reliably running.
		c.dispatch(DemoChatURI, turnStarted("t1", "please write it"))
		c.waitEnvelope("pending confirmation", DemoChatURI, isType("chat/toolCallReady"))
		busy := c.dispatch(DemoChatURI, turnStarted("t2", "another"))
		if e := c.waitEcho("second turn", DemoChatURI, busy); e.RejectionReason == nil {
			t.Fatal("a second turn started while one was running")
		}
		q := c.dispatch(DemoChatURI, protocol.ChatPendingMessageSetAction{Kind: protocol.PendingMessageKindQueued, ID: "q1", Message: userMessage("stream next")})
		c.waitEcho("queued", DemoChatURI, q)
		cancel := c.dispatch(DemoChatURI, protocol.ChatTurnCancelledAction{TurnID: "t1"})
		if e := c.waitEcho("cancel", DemoChatURI, cancel); e.RejectionReason != nil {
			t.Fatalf("cancel rejected: %s", *e.RejectionReason)
		}
		c.waitEnvelope("queued message consumed", DemoChatURI, func(e protocol.ActionEnvelope) bool {
			a, ok := e.Action.Variant.(protocol.ChatTurnStartedAction)
			return ok && e.Origin == nil && a.QueuedMessageID != nil && *a.QueuedMessageID == "q1"
		})
		c.waitEnvelope("queued turn completes", DemoChatURI, isType("chat/turnComplete"))
		if n := c.countEnvelopes(func(e protocol.ActionEnvelope) bool {
			return e.Origin == nil && e.Action.Kind() == "chat/toolCallComplete"
		}); n != 0 {
			t.Fatal("the cancelled turn kept running")
		}
	})
}

func TestDedupeRedispatchedClientSeq(t *testing.T) {
	forEachVersion(t, func(t *testing.T, version string) {
		h, v := startHost(t, Config{Version: version})
		c := dial(t, h, v, "dedupe")
		c.initialize(rootURI, DemoSessionURI)
		c.dispatchSeq(DemoSessionURI, 1, protocol.SessionTitleChangedAction{Title: "first"})
		first := c.waitEcho("first", DemoSessionURI, 1)
		c.dispatchSeq(DemoSessionURI, 1, protocol.SessionTitleChangedAction{Title: "duplicate"})
		c.dispatchSeq(DemoSessionURI, 2, protocol.SessionTitleChangedAction{Title: "second"})
		c.waitEcho("second", DemoSessionURI, 2)
		isDup := func(e protocol.ActionEnvelope) bool {
			a, ok := e.Action.Variant.(protocol.SessionTitleChangedAction)
			return ok && a.Title == "duplicate"
		}
		if n := c.countEnvelopes(isDup); n != 0 {
			t.Fatal("a re-dispatched clientSeq was applied again")
		}
		// The duplicate is answered with the original envelope (same serverSeq),
		// so a client that cannot know whether it was applied settles it.
		echoes := c.countEnvelopes(func(e protocol.ActionEnvelope) bool {
			return e.Origin != nil && e.Origin.ClientSeq == 1 && e.ServerSeq == first.ServerSeq
		})
		if echoes != 2 {
			t.Fatalf("clientSeq 1 echoed %d times with its original serverSeq, want 2 (original + duplicate)", echoes)
		}

		// The dedupe is per clientId and survives reconnection.
		h.DropConnections()
		c2 := dial(t, h, v, "dedupe")
		var res json.RawMessage
		c2.mustCall("reconnect", protocol.ReconnectParams{ClientID: "dedupe", LastSeenServerSeq: c.lastSeq(), Subscriptions: []string{DemoSessionURI}}, &res)
		c2.dispatchSeq(DemoSessionURI, 2, protocol.SessionTitleChangedAction{Title: "duplicate"})
		c2.waitEcho("re-sent 2", DemoSessionURI, 2)
		c2.dispatchSeq(DemoSessionURI, 3, protocol.SessionTitleChangedAction{Title: "third"})
		c2.waitEcho("third", DemoSessionURI, 3)
		if n := c2.countEnvelopes(isDup); n != 0 {
			t.Fatal("a re-sent action was applied after reconnect")
		}
		var sub protocol.SubscribeResult
		c2.mustCall("subscribe", protocol.SubscribeParams{Channel: DemoSessionURI}, &sub)
		if st := sub.Snapshot.State.Variant.(protocol.SessionState); st.Title != "third" {
			t.Fatalf("title = %q", st.Title)
		}
	})
}

func TestReconnectReplayAndMissing(t *testing.T) {
	forEachVersion(t, func(t *testing.T, version string) {
		h, v := startHost(t, Config{Version: version})
		a := dial(t, h, v, "replayer")
		a.initialize(rootURI, DemoSessionURI, DemoChatURI)
		gone := "ahp-session:/doomed"
		a.mustCall("createSession", protocol.CreateSessionParams{Channel: gone}, nil)
		a.mustCall("subscribe", protocol.SubscribeParams{Channel: gone}, nil)
		seq := a.dispatch(DemoSessionURI, protocol.SessionTitleChangedAction{Title: "before"})
		a.waitEcho("before", DemoSessionURI, seq)
		last := a.lastSeq()

		h.DropConnections()
		a.waitUntil("drop", func() bool { return a.closed })

		b := dial(t, h, v, "other")
		b.initialize(rootURI, DemoSessionURI)
		bs := b.dispatch(DemoSessionURI, protocol.SessionTitleChangedAction{Title: "while away"})
		b.waitEcho("while away", DemoSessionURI, bs)
		b.mustCall("disposeSession", protocol.DisposeSessionParams{Channel: gone}, nil)

		a2 := dial(t, h, v, "replayer")
		var res protocol.ReconnectResult
		a2.mustCall("reconnect", protocol.ReconnectParams{ClientID: "replayer", LastSeenServerSeq: last,
			Subscriptions: []string{rootURI, DemoSessionURI, DemoChatURI, gone}}, &res)
		replay, ok := res.Variant.(protocol.ReconnectReplayResult)
		if !ok {
			t.Fatalf("reconnect result %T, want replay", res.Variant)
		}
		if len(replay.Missing) != 1 || replay.Missing[0] != gone {
			t.Fatalf("missing = %v, want [%s]", replay.Missing, gone)
		}
		found := false
		for _, e := range replay.Actions {
			if e.ServerSeq <= last {
				t.Errorf("replayed seq %d <= lastSeen %d", e.ServerSeq, last)
			}
			if tc, ok := e.Action.Variant.(protocol.SessionTitleChangedAction); ok && tc.Title == "while away" {
				found = true
			}
			if e.Channel == gone {
				t.Errorf("replayed an action of the disposed session")
			}
		}
		if !found {
			t.Fatalf("replay lacks the action made while disconnected: %+v", replay.Actions)
		}
		// Live again: new actions reach the reconnected client.
		bs = b.dispatch(DemoSessionURI, protocol.SessionTitleChangedAction{Title: "after"})
		a2.waitEnvelope("live after reconnect", DemoSessionURI, func(e protocol.ActionEnvelope) bool {
			tc, ok := e.Action.Variant.(protocol.SessionTitleChangedAction)
			return ok && tc.Title == "after"
		})
	})
}

func TestReconnectFallsBackToSnapshot(t *testing.T) {
	forEachVersion(t, func(t *testing.T, version string) {
		h, v := startHost(t, Config{Version: version, ReplayBuffer: 4})
		a := dial(t, h, v, "snap")
		a.initialize(rootURI, DemoSessionURI)
		mine := a.dispatch(DemoSessionURI, protocol.SessionIsReadChangedAction{IsRead: true})
		orig := a.waitEcho("isRead", DemoSessionURI, mine)
		last := a.lastSeq()
		h.DropConnections()
		b := dial(t, h, v, "busy")
		b.initialize(DemoSessionURI)
		for i := range 6 {
			s := b.dispatch(DemoSessionURI, protocol.SessionTitleChangedAction{Title: "t" + string(rune('a'+i))})
			b.waitEcho("title", DemoSessionURI, s)
		}
		a2 := dial(t, h, v, "snap")
		var res protocol.ReconnectResult
		a2.mustCall("reconnect", protocol.ReconnectParams{ClientID: "snap", LastSeenServerSeq: last, Subscriptions: []string{rootURI, DemoSessionURI, "ahp-session:/never"}}, &res)
		snap, ok := res.Variant.(protocol.ReconnectSnapshotResult)
		if !ok || len(snap.Snapshots) != 2 {
			t.Fatalf("reconnect = %#v, want two snapshots", res.Variant)
		}
		if st, ok := snap.Snapshots[1].State.Variant.(protocol.SessionState); !ok || st.Title != "tf" {
			t.Fatalf("session snapshot title = %#v", snap.Snapshots[1].State.Variant)
		}
		// Re-sending an action the host applied long ago (beyond the replay
		// buffer) still gets its original echo, not a second application.
		a2.dispatchSeq(DemoSessionURI, mine, protocol.SessionIsReadChangedAction{IsRead: true})
		if e := a2.waitEcho("re-sent isRead", DemoSessionURI, mine); e.ServerSeq != orig.ServerSeq {
			t.Fatalf("duplicate echoed with serverSeq %d, want the original %d", e.ServerSeq, orig.ServerSeq)
		}

		// After a restart nothing can be replayed, even with no gap.
		cur := h.ServerSeq()
		h.Restart()
		a3 := dial(t, h, v, "snap")
		a3.mustCall("reconnect", protocol.ReconnectParams{ClientID: "snap", LastSeenServerSeq: cur, Subscriptions: []string{DemoSessionURI}}, &res)
		if _, ok := res.Variant.(protocol.ReconnectSnapshotResult); !ok {
			t.Fatalf("after Restart reconnect = %T, want snapshot", res.Variant)
		}
	})
}

func TestClientThatNeverReadsDoesNotBlockOthers(t *testing.T) {
	disconnects := make(chan string, 16)
	// Megabytes of schema checks would dominate this test; every other test
	// validates every frame.
	v := validatorFor(t, Version10)
	h, err := Start(context.Background(), Config{StepDelay: -1, SendQueue: 4, OnDisconnect: func(_ int64, reason string) { disconnects <- reason }})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	// A small receive buffer keeps the slow client's socket from absorbing
	// megabytes before the host notices it is not reading.
	dialer := &net.Dialer{}
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dialer.DialContext(ctx, network, addr)
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetReadBuffer(4096)
		}
		return c, err
	}}
	defer tr.CloseIdleConnections()
	slow, err := jsonrpc.Dial(ctx, h.URL(), jsonrpc.DialOptions{HTTPClient: &http.Client{Transport: tr}})
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close("done")
	id := jsonrpc.Int64ID(1)
	raw, _ := json.Marshal(protocol.InitializeParams{ProtocolVersions: []string{Version10}, ClientID: "slow", InitialSubscriptions: []string{DemoSessionURI}})
	f, _ := jsonrpc.Encode(&jsonrpc.Request{ID: &id, Method: "initialize", Params: raw})
	if err := slow.Write(ctx, f); err != nil {
		t.Fatal(err)
	}

	// Another client floods the session (without watching it, so only the
	// slow client must absorb the echoes) and checks with a ping every few
	// actions that the host still answers it promptly.
	fast := dial(t, h, v, "fast")
	fast.noValidate.Store(true)
	fast.initialize()
	big := strings.Repeat("x", 128<<10)
	for i := 0; ; i++ {
		raw, _ := json.Marshal(protocol.DispatchActionParams{Channel: DemoSessionURI, ClientSeq: int64(i + 1),
			Action: protocol.NewStateAction(protocol.SessionTitleChangedAction{Title: big + string(rune('a'+i%26))})})
		f, _ := jsonrpc.Encode(&jsonrpc.Request{Method: "dispatchAction", Params: raw})
		fast.send(f)
		if i%4 == 3 {
			fast.mustCall("ping", map[string]any{"channel": rootURI}, nil)
		}
		select {
		case reason := <-disconnects:
			t.Logf("disconnected after %d titles", i+1)
			if !strings.Contains(reason, "send queue full") {
				t.Fatalf("disconnected for %q", reason)
			}
			fast.mustCall("ping", map[string]any{"channel": rootURI}, nil)
			return
		default:
		}
		if i > 500 {
			t.Fatal("the slow client was never disconnected")
		}
	}
}

func TestCloseLeavesNoConnections(t *testing.T) {
	v := validatorFor(t, Version10)
	h, err := Start(context.Background(), Config{StepDelay: -1, Validate: v.ValidateMessage})
	if err != nil {
		t.Fatal(err)
	}
	c := dial(t, h, v, "closer")
	c.initialize(rootURI, DemoSessionURI, DemoChatURI)
	c.dispatch(DemoChatURI, turnStarted("t1", "please write")) // leaves a turn blocked on confirmation
	c.waitEnvelope("blocked turn", DemoChatURI, isType("chat/toolCallReady"))
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	c.waitUntil("connection closed by Close", func() bool { return c.closed })
	if n := h.ConnCount(); n != 0 {
		t.Fatalf("%d connections after Close", n)
	}
	if err := h.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

// TestFullTour drives the default script, the one `ahptui --demo` shows:
// reasoning, streamed markdown, MCP tool calls, a confirmation, step-up
// auth and a question, to the end of the turn.
func TestFullTour(t *testing.T) {
	forEachVersion(t, func(t *testing.T, version string) {
		var mu sync.Mutex
		var tapped []string
		logs := &lockedBuffer{}
		h, v := startHost(t, Config{Version: version, Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
			Tap: func(_ int64, dir Direction, frame []byte) {
				mu.Lock()
				tapped = append(tapped, string(dir)+" "+string(frame))
				mu.Unlock()
			}})
		c := dial(t, h, v, "tour")
		c.initialize(rootURI, DemoSessionURI, DemoChatURI)
		c.dispatch(DemoChatURI, turnStarted("t1", "show me everything"))

		c.waitEnvelope("t1-tc-search complete", DemoChatURI, func(e protocol.ActionEnvelope) bool {
			a, ok := e.Action.Variant.(protocol.ChatToolCallCompleteAction)
			return ok && a.ToolCallID == "t1-tc-search" && a.Result.Success
		})
		// GitHub is not signed in (its badge says so): List issues fails
		// and says how to sign in (issue 22, item 15).
		c.waitEnvelope("t1-tc-issues failed", DemoChatURI, func(e protocol.ActionEnvelope) bool {
			a, ok := e.Action.Variant.(protocol.ChatToolCallCompleteAction)
			return ok && a.ToolCallID == "t1-tc-issues" && !a.Result.Success && a.Result.Error != nil && a.Result.Error.Message == GitHubSignInFirst
		})
		c.waitEnvelope("write pending", DemoChatURI, func(e protocol.ActionEnvelope) bool {
			a, ok := e.Action.Variant.(protocol.ChatToolCallReadyAction)
			return ok && a.ToolCallID == "t1-tc-write"
		})
		deny := c.dispatch(DemoChatURI, protocol.ChatToolCallDeniedAction{TurnID: "t1", ToolCallID: "t1-tc-write", Reason: "denied"})
		if e := c.waitEcho("deny", DemoChatURI, deny); e.RejectionReason != nil {
			t.Fatalf("deny rejected: %s", *e.RejectionReason)
		}
		c.waitEnvelope("deploy challenge", DemoChatURI, isType("chat/toolCallAuthRequired"))
		cb := startCallback(t)
		deploy := resourceURL(h, DeployResourcePath)
		clientID := registerClient(t, h.AuthIssuer(), cb.URL, DeployScopes)
		tok := grant(t, h.AuthIssuer(), clientID, cb, deploy, DeployScopes)
		c.mustCall("authenticate", protocol.AuthenticateParams{Resource: deploy, Token: tok}, nil)
		e := c.waitEnvelope("question", DemoChatURI, isType("chat/inputRequested"))
		req := e.Action.Variant.(protocol.ChatInputRequestedAction).Request
		decline := c.dispatch(DemoChatURI, protocol.ChatInputCompletedAction{RequestID: req.ID, Response: protocol.ChatInputResponseKindDecline})
		c.waitEcho("decline", DemoChatURI, decline)
		c.waitEnvelope("turn complete", DemoChatURI, isType("chat/turnComplete"))

		// The mirrored chat holds one complete turn with every part kind.
		c.mu.Lock()
		chat, _ := c.mirror[DemoChatURI].(protocol.ChatState)
		c.mu.Unlock()
		if len(chat.Turns) != 1 || chat.ActiveTurn != nil || chat.Turns[0].State != protocol.TurnStateComplete {
			t.Fatalf("chat after the tour: %d turns, active %v", len(chat.Turns), chat.ActiveTurn != nil)
		}
		kinds := map[string]int{}
		for _, p := range chat.Turns[0].ResponseParts {
			kinds[p.Kind()]++
		}
		for _, k := range []string{"reasoning", "markdown", "toolCall", "inputRequest"} {
			if kinds[k] == 0 {
				t.Errorf("the tour has no %s part (%v)", k, kinds)
			}
		}
		// The tap saw the authenticate request, but never the token.
		mu.Lock()
		defer mu.Unlock()
		sawAuth := false
		for _, f := range tapped {
			if strings.Contains(f, tok) {
				t.Fatal("the frame tap leaked a bearer token")
			}
			sawAuth = sawAuth || strings.Contains(f, `"authenticate"`)
		}
		if !sawAuth {
			t.Fatal("the tap missed the authenticate request")
		}
		if l := logs.String(); strings.Contains(l, tok) || !strings.Contains(l, "token accepted") {
			t.Fatalf("host log leaks the token or misses the acceptance:\n%s", l)
		}
	})
}

type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (w *lockedBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *lockedBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

func TestCreateSessionAndChat(t *testing.T) {
	h, v := startHost(t, Config{NoDemoSession: true})
	c := dial(t, h, v, "creator")
	c.initialize(rootURI)
	uri := "ahp-session:/fresh"
	c.mustCall("createSession", protocol.CreateSessionParams{Channel: uri}, nil)
	var sub protocol.SubscribeResult
	c.mustCall("subscribe", protocol.SubscribeParams{Channel: uri}, &sub)
	c.waitUntil("session ready", func() bool { return c.sessionMirrorLocked(uri).Lifecycle == protocol.SessionLifecycleReady })
	st := c.sessionMirrorLocked(uri)
	if st.DefaultChat == nil || len(st.Chats) != 1 {
		t.Fatalf("new session chats = %+v", st.Chats)
	}
	chatURI := chatURIOf("second", uri)
	msg := userMessage("stream to the new chat")
	c.mustCall("createChat", protocol.CreateChatParams{Channel: uri, Chat: chatURI, InitialMessage: &msg}, nil)
	c.wantError("createChat", protocol.CreateChatParams{Channel: uri, Chat: chatURI}, jsonrpc.AlreadyExists)
	c.waitUntil("chat in catalogue", func() bool { return len(c.sessionMirrorLocked(uri).Chats) == 2 })
	c.mustCall("subscribe", protocol.SubscribeParams{Channel: chatURI}, &sub)
	c.waitUntil("initial message answered", func() bool {
		ch, _ := c.mirror[chatURI].(protocol.ChatState)
		return len(ch.Turns) == 1 && ch.ActiveTurn == nil
	})
}

// TestNoGoroutineLeak: Close ends every goroutine the host started, even
// with a turn blocked, an MCP start pending and clients connected.
func TestNoGoroutineLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	v := validatorFor(t, Version10)
	h, err := Start(context.Background(), Config{StepDelay: time.Hour, Validate: v.ValidateMessage})
	if err != nil {
		t.Fatal(err)
	}
	c := dial(t, h, v, "leaky")
	c.initialize(rootURI, DemoSessionURI, DemoChatURI)
	c.dispatch(DemoChatURI, turnStarted("t1", "hello"))
	c.waitEcho("turn", DemoChatURI, 1)
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	c.waitUntil("closed", func() bool { return c.closed })
	<-c.done
	// Goroutines exit asynchronously after Close returns only in the
	// runtime's bookkeeping (e.g. net/http's idle conns), so allow a grace
	// period, checked against a deadline rather than a fixed sleep.
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before+2 {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines before, %d after Close:\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
		}
		runtime.Gosched()
		time.Sleep(10 * time.Millisecond)
	}
}

// TestPacedStream runs a turn with real (tiny) step delays, the path the
// watchable demo takes, and a server start staggered over several steps.
func TestPacedStream(t *testing.T) {
	h, v := startHost(t, Config{StepDelay: 2 * time.Millisecond})
	c := dial(t, h, v, "paced")
	c.initialize(rootURI, DemoSessionURI, DemoChatURI)
	c.waitServer(DemoSessionURI, FlakyServerID, "error")
	c.dispatch(DemoChatURI, turnStarted("t1", "hello, stream please"))
	c.waitEnvelope("turn complete", DemoChatURI, isType("chat/turnComplete"))
	c.mu.Lock()
	defer c.mu.Unlock()
	chat := c.mirror[DemoChatURI].(protocol.ChatState)
	if len(chat.Turns) != 1 {
		t.Fatalf("turns = %d", len(chat.Turns))
	}
	var md string
	for _, p := range chat.Turns[0].ResponseParts {
		if m, ok := p.Variant.(protocol.MarkdownResponsePart); ok {
			md += m.Content.String()
		}
	}
	if md != streamText {
		t.Fatalf("streamed markdown = %q, want %q", md, streamText)
	}
}

func TestSteeringMessageConsumed(t *testing.T) {
	h, v := startHost(t, Config{})
	c := dial(t, h, v, "steer")
	c.initialize(rootURI, DemoSessionURI, DemoChatURI)
	c.dispatch(DemoChatURI, turnStarted("t1", "please write"))
	c.waitEnvelope("pending confirmation", DemoChatURI, isType("chat/toolCallReady"))
	s := c.dispatch(DemoChatURI, protocol.ChatPendingMessageSetAction{Kind: protocol.PendingMessageKindSteering, ID: "s1", Message: userMessage("keep it short")})
	c.waitEcho("steering set", DemoChatURI, s)
	c.dispatch(DemoChatURI, protocol.ChatToolCallDeniedAction{TurnID: "t1", ToolCallID: "t1-tc-write", Reason: "denied"})
	c.waitEnvelope("steering consumed", DemoChatURI, func(e protocol.ActionEnvelope) bool {
		a, ok := e.Action.Variant.(protocol.ChatPendingMessageRemovedAction)
		return ok && e.Origin == nil && a.Kind == protocol.PendingMessageKindSteering && a.ID == "s1"
	})
	c.waitEnvelope("turn complete", DemoChatURI, isType("chat/turnComplete"))
	c.mu.Lock()
	defer c.mu.Unlock()
	if chat := c.mirror[DemoChatURI].(protocol.ChatState); chat.SteeringMessage != nil {
		t.Fatal("steering message left pending")
	}
}

func TestRestartNeedsTokensAgain(t *testing.T) {
	forEachVersion(t, func(t *testing.T, version string) {
		h, v := startHost(t, Config{Version: version})
		c := dial(t, h, v, "restart")
		c.initialize(rootURI, DemoSessionURI)
		github, tok := signInGitHub(t, h, c)

		h.Restart()
		c2 := dial(t, h, v, "restart")
		var res protocol.ReconnectResult
		c2.mustCall("reconnect", protocol.ReconnectParams{ClientID: "restart", LastSeenServerSeq: c.lastSeq(), Subscriptions: []string{DemoSessionURI}}, &res)
		if _, ok := res.Variant.(protocol.ReconnectSnapshotResult); !ok {
			t.Fatalf("reconnect after Restart = %T", res.Variant)
		}
		c2.waitServer(DemoSessionURI, GitHubServerID, "authRequired")
		c2.mustCall("authenticate", protocol.AuthenticateParams{Resource: github, Token: tok}, nil)
		c2.waitServer(DemoSessionURI, GitHubServerID, "ready")
	})
}

func TestExpiredTokenAsksAgain(t *testing.T) {
	forEachVersion(t, func(t *testing.T, version string) {
		h, v := startHost(t, Config{Version: version, AuthConfig: authserver.Config{AccessTokenLifespan: time.Second}})
		c := dial(t, h, v, "expiry")
		c.initialize(rootURI, DemoSessionURI)
		github, tok := signInGitHub(t, h, c)

		// The token lives one second: the host notices and asks again.
		m := c.waitServer(DemoSessionURI, GitHubServerID, "authRequired")
		if ar := m.State.Variant.(protocol.McpServerAuthRequiredState); ar.Reason != protocol.McpAuthRequiredReasonExpired {
			t.Fatalf("reason = %q, want expired", ar.Reason)
		}
		c.waitUntil("auth/required", func() bool {
			for _, n := range c.notes {
				if n.Method == "auth/required" && strings.Contains(string(n.Params), `"expired"`) && strings.Contains(string(n.Params), github) {
					return true
				}
			}
			return false
		})
		c.wantError("authenticate", protocol.AuthenticateParams{Resource: github, Token: tok}, jsonrpc.AuthRequired)
		fresh := grant(t, h.AuthIssuer(), h.Auth().PublicClientID(), startCallback(t), github, GitHubScopes)
		c.mustCall("authenticate", protocol.AuthenticateParams{Resource: github, Token: fresh}, nil)
		c.waitServer(DemoSessionURI, GitHubServerID, "ready")
	})
}

// TestAddrRestartsOnSameResources: a host restarted on the same Addr with
// the same authorization server advertises the same protected resources
// (what a saved-token test relies on); an address off loopback is refused.
func TestAddrRestartsOnSameResources(t *testing.T) {
	ctx := context.Background()
	as, err := authserver.Start(ctx, authserver.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer as.Close()
	h1, err := Start(ctx, Config{StepDelay: -1, Auth: as})
	if err != nil {
		t.Fatal(err)
	}
	addr := strings.TrimSuffix(strings.TrimPrefix(h1.URL(), "ws://"), "/")
	resources := func(h *Host) string {
		h.mu.Lock()
		defer h.mu.Unlock()
		var out []string
		for r := range h.resources {
			out = append(out, r)
		}
		slices.Sort(out)
		return strings.Join(out, " ")
	}
	res1 := resources(h1)
	if !strings.Contains(res1, "http://"+addr+GitHubResourcePath) {
		t.Fatalf("resources %q lack GitHub on %s", res1, addr)
	}
	if err := h1.Close(); err != nil {
		t.Fatal(err)
	}
	h2, err := Start(ctx, Config{StepDelay: -1, Auth: as, Addr: addr})
	if err != nil {
		t.Fatalf("restart on %s: %v", addr, err)
	}
	defer h2.Close()
	if h2.URL() != h1.URL() || resources(h2) != res1 {
		t.Fatalf("restarted host at %s advertises %s, want %s at %s", h2.URL(), resources(h2), res1, h1.URL())
	}
	for _, bad := range []string{"0.0.0.0:0", ":0", "localhost:0", "192.168.1.1:0", "nonsense"} {
		if h, err := Start(ctx, Config{StepDelay: -1, Auth: as, Addr: bad}); err == nil {
			h.Close()
			t.Errorf("Addr %q accepted", bad)
		}
	}
}

// TestTourListsIssuesOnceSignedIn: the tour's List issues succeeded on
// the GitHub server while its badge said "⚠ sign in" (issue 22, item 15).
// Once GitHub is signed in (the badge says ready), it lists the issues.
func TestTourListsIssuesOnceSignedIn(t *testing.T) {
	h, v := startHost(t, Config{})
	c := dial(t, h, v, "tour")
	c.initialize(rootURI, DemoSessionURI, DemoChatURI)
	signInGitHub(t, h, c)
	c.dispatch(DemoChatURI, turnStarted("t1", "hello"))
	c.waitEnvelope("t1-tc-issues listed", DemoChatURI, func(e protocol.ActionEnvelope) bool {
		a, ok := e.Action.Variant.(protocol.ChatToolCallCompleteAction)
		return ok && a.ToolCallID == "t1-tc-issues" && a.Result.Success
	})
}
