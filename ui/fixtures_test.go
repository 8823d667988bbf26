package ui

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
	"github.com/ahptui/ahptui/views"
)

// fixedNow is the goldens' clock: ages and durations never drift.
var fixedNow = time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)

// stubClient serves fixed snapshots for view goldens (no network). Model
// tests that check actions use the real client instead (driver_test.go).
type stubClient struct {
	root     protocol.RootState
	sessions map[string]protocol.SessionState
	chats    map[string]protocol.ChatState
	events   chan client.Event
	version  string // the negotiated version; "" is 0.6.0, what the goldens show
	// sent records every Dispatch, refused or not; accept makes Dispatch
	// succeed (the snapshots still change only when a test says so).
	sent   []protocol.StateAction
	accept bool
	// terminals are the subscribed terminals' states.
	terminals map[string]protocol.TerminalState
	// refuse is what Subscribe answers for a channel the host refuses.
	refuse map[string]error
	mu     sync.Mutex
	subs   []string
}

func (s *stubClient) Events() <-chan client.Event { return s.events }
func (s *stubClient) ProtocolVersion() string {
	if s.version == "" {
		return "0.6.0"
	}
	return s.version
}
func (s *stubClient) Wire() protocol.Wire { return protocol.WireOf(s.ProtocolVersion()) }
func (s *stubClient) Subscribe(_ context.Context, ch string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.subs = append(s.subs, "+"+ch)
	return s.refuse[ch]
}
func (s *stubClient) Unsubscribe(_ context.Context, ch string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.subs = append(s.subs, "-"+ch)
	return nil
}

// subscriptions is what was subscribed (+) and unsubscribed (-), in order.
func (s *stubClient) subscriptions() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.subs)
}
func (s *stubClient) CreateSession(context.Context, protocol.CreateSessionParams) error {
	return nil
}
func (s *stubClient) DisposeSession(context.Context, string) error { return nil }
func (s *stubClient) SessionConfigCompletions(context.Context, protocol.SessionConfigCompletionsParams) (protocol.SessionConfigCompletionsResult, error) {
	return protocol.SessionConfigCompletionsResult{}, nil
}

func (s *stubClient) ResolveSessionConfig(context.Context, protocol.ResolveSessionConfigParams) (protocol.ResolveSessionConfigResult, error) {
	return protocol.ResolveSessionConfigResult{}, nil
}
func (s *stubClient) Authenticate(context.Context, string, string, []string, time.Time) error {
	return nil
}
func (s *stubClient) ForgetToken(string) {}
func (s *stubClient) Dispatch(_ string, a protocol.StateAction) (int64, error) {
	s.sent = append(s.sent, a)
	if s.accept {
		return int64(len(s.sent)), nil
	}
	return 0, errors.New("stub: read-only")
}
func (s *stubClient) Reconnect()                       {}
func (s *stubClient) Root() (protocol.RootState, bool) { return s.root, true }
func (s *stubClient) Session(uri string) (protocol.SessionState, bool) {
	v, ok := s.sessions[uri]
	return v, ok
}
func (s *stubClient) Chat(uri string) (protocol.ChatState, bool) {
	v, ok := s.chats[uri]
	return v, ok
}
func (s *stubClient) Terminal(uri string) (protocol.TerminalState, bool) {
	v, ok := s.terminals[uri]
	return v, ok
}
func (s *stubClient) ClientID() string { return "stub-client" }
func (s *stubClient) Close() error     { return nil }

func ptr[T any](v T) *T { return &v }

const (
	fxSession = "ahp-session:/fx"
	fxChat    = "ahp-chat:/fx"
	fxDeploy  = "http://127.0.0.1:4000/mcp/deploy"
	fxGitHub  = "http://127.0.0.1:4000/mcp/github"
)

func fxResource(uri, name string) protocol.ProtectedResourceMetadata {
	return protocol.ProtectedResourceMetadata{Resource: uri, ResourceName: ptr(name),
		AuthorizationServers: []string{"http://127.0.0.1:4001"}, ScopesSupported: []string{"mcp:read", "tools:deploy"}}
}

func fxServer(id, name string, st protocol.McpServerStateVariant, enabled bool) protocol.McpServerCustomization {
	return protocol.McpServerCustomization{ID: id, URI: "file:///fx/.mcp.json", Name: name, Enablement: protocol.SessionEnablement(enabled),
		State: protocol.NewMcpServerState(st)}
}

// authResource is an auth/required resource as a 1.0 host sends it: the
// whole metadata (0.6 sent the identifier alone).
func authResource(uri string) protocol.AuthRequiredResource {
	return protocol.AuthRequiredResource{ProtectedResourceMetadata: protocol.ProtectedResourceMetadata{Resource: uri}}
}

// fxSessionState has one MCP server in each of the five states, one of
// them inside a plugin, plus a disabled one.
func fxSessionState() protocol.SessionState {
	authSt := protocol.McpServerAuthRequiredState{Reason: protocol.McpAuthRequiredReasonRequired,
		Resource: fxResource(fxGitHub, "GitHub MCP server"), RequiredScopes: []string{"mcp:read"},
		Description: ptr("Sign in to GitHub to use its tools.")}
	return protocol.SessionState{
		Provider: "demo", Title: "Release 1.4: fix reconnect", Status: protocol.SessionStatusInProgress,
		Lifecycle: protocol.SessionLifecycleReady, ActiveClients: []protocol.SessionActiveClient{},
		Chats:       []protocol.ChatSummary{{Resource: fxChat, Title: "Main", ModifiedAt: "2026-01-02T15:00:00.000Z"}},
		DefaultChat: ptr(fxChat),
		Customizations: []protocol.Customization{
			protocol.NewCustomization(fxServer("gh", "GitHub", authSt, true)),
			protocol.NewCustomization(fxServer("fs", "Filesystem", protocol.McpServerReadyState{}, true)),
			protocol.NewCustomization(fxServer("db", "Postgres", protocol.McpServerStartingState{}, true)),
			protocol.NewCustomization(protocol.PluginCustomization{ID: "plug", URI: "file:///fx/plug", Name: "Dev Tools",
				Children: []protocol.ChildCustomization{
					protocol.NewChildCustomization(fxServer("flaky", "Flaky", protocol.McpServerErrorState{Error: protocol.ErrorInfo{
						ErrorType: "ConnectionRefused", Message: "flaky-mcp exited during start-up: connection refused"}}, true)),
					protocol.NewChildCustomization(fxServer("old", "Legacy", protocol.McpServerStoppedState{}, true)),
					protocol.NewChildCustomization(fxServer("off", "Disabled one", protocol.McpServerStoppedState{}, false)),
				}}),
		},
	}
}

func fxSummaries() []protocol.SessionSummary {
	return []protocol.SessionSummary{
		{Provider: "demo", Title: "Release 1.4: fix reconnect", Status: protocol.SessionStatusInProgress,
			Activity: ptr("Deploying"), Resource: fxSession, CreatedAt: "2026-01-02T14:00:00.000Z", ModifiedAt: "2026-01-02T15:02:00.000Z"},
		{Provider: "demo", Title: "Triage flaky tests", Status: protocol.SessionStatusInputNeeded,
			Resource: "ahp-session:/fx2", CreatedAt: "2026-01-01T10:00:00.000Z", ModifiedAt: "2026-01-02T12:00:00.000Z"},
		{Provider: "demo", Title: "Docs cleanup", Status: protocol.SessionStatusIdle,
			Resource: "ahp-session:/fx3", CreatedAt: "2025-12-20T10:00:00.000Z", ModifiedAt: "2025-12-28T09:00:00.000Z"},
	}
}

func userMsg(s string) protocol.Message {
	return protocol.Message{Text: s, Origin: protocol.MessageOrigin{Kind: protocol.MessageKindUser}}
}

func part(v protocol.ResponsePartVariant) protocol.ResponsePart { return protocol.NewResponsePart(v) }

func tcPart(v protocol.ToolCallStateVariant) protocol.ResponsePart {
	return part(protocol.ToolCallResponsePart{ToolCall: protocol.NewToolCallState(v)})
}

func mcpBy(id string) *protocol.ToolCallContributor {
	c := protocol.NewToolCallContributor(protocol.ToolCallMcpContributor{CustomizationID: id})
	return &c
}

// fxChatState is a chat with a completed turn full of cards and a running
// turn whose tool call waits for approval; extra appends more parts to the
// running turn (e.g. an auth-required call).
func fxChatState(extra ...protocol.ResponsePart) protocol.ChatState {
	done := protocol.Turn{ID: "t1", Message: userMsg("Find the failing reconnect test and list open issues."), State: protocol.TurnStateComplete,
		ResponseParts: []protocol.ResponsePart{
			part(protocol.ReasoningResponsePart{ID: "r1", Content: protocol.NewText("Look for TestReconnect first.")}),
			part(protocol.MarkdownResponsePart{ID: "m1", Content: protocol.NewText("I searched the tree and the tracker.")}),
			tcPart(protocol.ToolCallCompletedState{ToolCallID: "tc1", ToolName: "search_files", DisplayName: "Search files",
				Contributor: mcpBy("fs"), InvocationMessage: protocol.PlainString("Searching for TestReconnect"), Success: true,
				PastTenseMessage: protocol.PlainString("Found 3 matches"), Confirmed: protocol.ToolCallConfirmationReasonNotNeeded}),
			tcPart(protocol.ToolCallCompletedState{ToolCallID: "tc2", ToolName: "list_issues", DisplayName: "List issues",
				InvocationMessage: protocol.PlainString("Listing open issues"), Success: false,
				PastTenseMessage: protocol.PlainString("Could not list issues"), Error: &protocol.ToolCallResultError{Message: "GitHub answered 503"},
				Confirmed: protocol.ToolCallConfirmationReasonNotNeeded}),
			tcPart(protocol.ToolCallCancelledState{ToolCallID: "tc3", ToolName: "rm_rf", DisplayName: "Delete build cache",
				InvocationMessage: protocol.PlainString("Delete ./build"), Reason: protocol.ToolCallCancellationReasonDenied}),
		}}
	active := &protocol.ActiveTurn{ID: "t2", StartedAt: "2026-01-02T15:03:00.000Z", Message: userMsg("Update the changelog, then deploy a preview."),
		ResponseParts: append([]protocol.ResponsePart{
			part(protocol.MarkdownResponsePart{ID: "m2", Content: protocol.NewText("I will update CHANGELOG.md; approve the write.")}),
			tcPart(protocol.ToolCallPendingConfirmationState{ToolCallID: "tc4", ToolName: "write_file", DisplayName: "Write file",
				Contributor: mcpBy("fs"), InvocationMessage: protocol.PlainString("Write CHANGELOG.md"),
				ConfirmationTitle: ptr(protocol.PlainString("Allow the agent to write CHANGELOG.md?"))}),
		}, extra...)}
	return protocol.ChatState{Resource: fxChat, Title: "Main", Status: protocol.SessionStatusInProgress, Activity: ptr("Writing a file"),
		ModifiedAt: "2026-01-02T15:03:00.000Z", Turns: []protocol.Turn{done}, ActiveTurn: active}
}

func fxDeployAuth() protocol.McpAuthRequirement {
	return protocol.McpAuthRequirement{Reason: protocol.McpAuthRequiredReasonInsufficientScope,
		Resource: fxResource(fxDeploy, "Deploy MCP server"), RequiredScopes: []string{"tools:deploy"},
		Description: ptr("Deploying needs the tools:deploy scope; grant it to continue.")}
}

func fxAuthPart() protocol.ResponsePart {
	return tcPart(protocol.ToolCallAuthRequiredState{ToolCallID: "tc5", ToolName: "deploy", DisplayName: "Deploy",
		Contributor: protocol.ToolCallMcpContributor{CustomizationID: "deploy"}, InvocationMessage: protocol.PlainString("Deploy the preview environment"),
		Confirmed: protocol.ToolCallConfirmationReasonNotNeeded, Auth: fxDeployAuth()})
}

// fxModel builds a model already showing the fixture session and chat, with
// a fixed clock, no colour and no ticker.
func fxModel(chat protocol.ChatState) *Model {
	sess := fxSessionState()
	stub := &stubClient{root: protocol.RootState{Agents: []protocol.AgentInfo{{Provider: "demo", DisplayName: "Demo agent",
		Models: []protocol.SessionModelInfo{{ID: "m1", Provider: "demo", Name: "Demo model"}}}}},
		sessions: map[string]protocol.SessionState{fxSession: sess}, chats: map[string]protocol.ChatState{fxChat: chat},
		events: make(chan client.Event)}
	m := New(Config{
		Host: "ws://127.0.0.1:4000/",
		// Never answers: the fixture connects the model itself, so no late
		// connect result can race the messages a test sends.
		Connect: func(ctx context.Context) (Client, error) { <-ctx.Done(); return nil, ctx.Err() },
		Clock:   func() time.Time { return fixedNow },
		NewID:   func() string { return "fixed-id" },
		NoColor: true, Tick: -1,
	})
	m.client = stub
	m.status.conn.state, m.status.conn.version = views.ConnReady, "0.6.0"
	m.root = stub.root
	m.sessions.list = fxSummaries()
	m.openSession, m.sess, m.hasSess = fxSession, sess, true
	m.openChat, m.chat, m.hasChat = fxChat, chat, true
	// As refreshChannel does when the chat arrives: the keys follow it.
	m.keys.SetTurnRunning(chat.ActiveTurn != nil)
	m.focus = focusChat
	return m
}

// toolFailed reports a completed tool call whose result says it failed.
func toolFailed(tc protocol.ToolCallState) bool {
	c, ok := tc.Variant.(protocol.ToolCallCompletedState)
	return ok && !c.Success
}

// pump runs cmd the way the program would (see driver) on a model
// without a host, handing the messages back to Update until cond holds.
// Status reports are messages, so a test that checks the status line
// after a key pumps until the report arrives. Commands that never finish
// (waiting on the stub's events, a long tick) are abandoned on return.
func pump(t *testing.T, m *Model, cmd tea.Cmd, what string, cond func() bool) {
	t.Helper()
	d := &driver{t: t, m: m, msgs: make(chan tea.Msg), done: make(chan struct{})}
	defer close(d.done)
	d.run(cmd)
	d.until(what, cond)
}

// pressUntil presses k and pumps until cond holds.
func pressUntil(t *testing.T, m *Model, k, what string, cond func() bool) {
	t.Helper()
	_, cmd := m.Update(press(k))
	pump(t, m, cmd, what, cond)
}

// statusHas is a pump condition: the status line mentions s.
func statusHas(m *Model, s string) func() bool {
	return func() bool { return strings.Contains(m.status.text, s) }
}
