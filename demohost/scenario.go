package demohost

import (
	"time"

	"github.com/ahptui/ahptui/demohost/authserver"
	"github.com/ahptui/ahptui/protocol"
)

// The seeded demo session and the customizations every session gets.
const (
	DemoSessionURI   = "ahp-session:/demo"
	DemoChatURI      = "ahp-chat://default/YWhwLXNlc3Npb246L2RlbW8" // base64url("ahp-session:/demo")
	DemoSessionTitle = "Demo: MCP servers, tools and sign-in"

	// A second, idle session whose chat already holds a finished turn, so
	// the session list and transcript have history to show at start-up.
	HistorySessionURI   = "ahp-session:/history"
	HistoryChatURI      = "ahp-chat://default/YWhwLXNlc3Npb246L2hpc3Rvcnk" // base64url("ahp-session:/history")
	HistorySessionTitle = "Earlier: why TestReconnect flakes"

	// DemoWorkingDirectory is the seeded sessions' working directory.
	DemoWorkingDirectory = "file:///demo"

	// Top-level MCP servers.
	GitHubServerID     = "mcp-github"     // protected: authRequired until a token for GitHubResourcePath
	FilesystemServerID = "mcp-filesystem" // starting → ready
	// IndexerServerID, in the sessions clients create (not the seeded
	// ones), starts only when a user starts it, and then slowly with
	// blocking set (1.0): turns wait for it until it is ready or a client
	// moves its start to the background.
	IndexerServerID   = "mcp-indexer"
	IndexerServerName = "Indexer"
	// The plugin container and its children.
	PluginID       = "plugin-devtools"
	DeployServerID = "mcp-deploy" // ready; its deploy tool asks for step-up auth
	FlakyServerID  = "mcp-flaky"  // starting → error
	SkillID        = "skill-release-notes"

	// Paths under the host's http://127.0.0.1:PORT origin naming the
	// protected resources (RFC 8707 resource indicators).
	GitHubResourcePath = "/mcp/github"
	DeployResourcePath = "/mcp/deploy"
)

// Scopes the scripted servers ask for.
var (
	GitHubScopes = []string{"mcp:read"}     // McpServerAuthRequiredState.requiredScopes
	DeployScopes = []string{"tools:deploy"} // the step-up challenge's requiredScopes
)

// ResumableErrorType is the errorType of the "resume" path's resumable
// error.
const ResumableErrorType = "RateLimited"

// Tool names the scripted turns call (ToolCallState.toolName).
const (
	ToolSearchFiles = "search_files" // mcp-filesystem, runs and completes
	ToolListIssues  = "list_issues"  // mcp-github: completes once GitHub is signed in, fails before
	ToolWriteFile   = "write_file"   // mcp-filesystem, needs confirmation
	ToolDeploy      = "deploy"       // mcp-deploy, step-up auth mid-run
	ToolRunTests    = "run_tests"    // mcp-filesystem, completes with success=false
	ToolFetchPage   = "fetch_page"   // mcp-filesystem, its result waits for review
)

// serverOrder fixes the order of scripted transitions (maps iterate randomly).
var serverOrder = []string{GitHubServerID, FilesystemServerID, DeployServerID, FlakyServerID, IndexerServerID}

type serverOutcome int

const (
	outcomeReady serverOutcome = iota
	outcomeError
	outcomeProtected
)

type serverSpec struct {
	id, name, parent string
	outcome          serverOutcome
	resource         string
	scopes           []string
	preregistered    bool
	// steps staggers start-up so a watcher sees each server leave starting.
	steps int
	// manual: stopped until a client starts it (never with the session).
	manual bool
	// blocking: its start holds new turns (McpServerStartingState.blocking).
	blocking bool
}

// IndexerStartSteps is how many steps the indexer takes to start: long
// enough at the default pace (about 12 s) to see it block a turn and to
// move it to the background.
const IndexerStartSteps = 30

func demoServers(base string, auth *authserver.Server) (map[string]serverSpec, map[string]protocol.ProtectedResourceMetadata) {
	servers := map[string]serverSpec{
		GitHubServerID: {id: GitHubServerID, name: "GitHub", outcome: outcomeProtected,
			resource: base + GitHubResourcePath, scopes: GitHubScopes, preregistered: true, steps: 3},
		FilesystemServerID: {id: FilesystemServerID, name: "Filesystem", outcome: outcomeReady, steps: 2},
		DeployServerID:     {id: DeployServerID, name: "Deploy", parent: PluginID, outcome: outcomeReady, resource: base + DeployResourcePath, steps: 4},
		FlakyServerID:      {id: FlakyServerID, name: "Flaky", parent: PluginID, outcome: outcomeError, steps: 5},
		IndexerServerID:    {id: IndexerServerID, name: IndexerServerName, outcome: outcomeReady, steps: IndexerStartSteps, manual: true, blocking: true},
	}
	resources := map[string]protocol.ProtectedResourceMetadata{}
	for _, r := range []struct{ uri, name string }{
		{base + GitHubResourcePath, "GitHub MCP server"},
		{base + DeployResourcePath, "Deploy MCP server"},
	} {
		name := r.name
		resources[r.uri] = protocol.ProtectedResourceMetadata{
			Resource:               r.uri,
			ResourceName:           &name,
			AuthorizationServers:   []string{auth.Issuer()},
			ScopesSupported:        auth.Scopes(),
			BearerMethodsSupported: []string{"header"},
		}
	}
	return servers, resources
}

func mcpCustomization(sp serverSpec) protocol.McpServerCustomization {
	uri := "file:///demo/.mcp.json"
	if sp.parent != "" {
		uri = "file:///demo/plugins/devtools/plugin.json"
	}
	var st protocol.McpServerStateVariant = protocol.McpServerStartingState{}
	if sp.manual {
		st = protocol.McpServerStoppedState{}
	}
	return protocol.McpServerCustomization{ID: sp.id, URI: uri, Name: sp.name, State: protocol.NewMcpServerState(st)}
}

// startingState is the state a server starts in: blocking for a server
// whose tools the agent waits for.
func (sp serverSpec) startingState() protocol.McpServerStartingState {
	if !sp.blocking {
		return protocol.McpServerStartingState{}
	}
	blocking := true
	return protocol.McpServerStartingState{Blocking: &blocking}
}

// blockingServer names a server of the session that is starting with
// blocking set, or "" when no start holds turns back.
func blockingServer(s protocol.SessionState) string {
	for _, id := range serverOrder {
		m, _, ok := findServer(s, id)
		if !ok {
			continue
		}
		if st, starting := m.State.Variant.(protocol.McpServerStartingState); starting && st.Blocking != nil && *st.Blocking {
			return m.Name
		}
	}
	return ""
}

func demoCustomizations(servers map[string]serverSpec, withIndexer bool) []protocol.Customization {
	desc := "Drafts release notes from merged pull requests."
	cs := []protocol.Customization{
		protocol.NewCustomization(mcpCustomization(servers[GitHubServerID])),
		protocol.NewCustomization(mcpCustomization(servers[FilesystemServerID])),
		protocol.NewCustomization(protocol.PluginCustomization{
			ID: PluginID, URI: "file:///demo/plugins/devtools", Name: "Dev Tools",
			Load: &protocol.CustomizationLoadState{Variant: protocol.CustomizationLoadedState{}},
			Children: []protocol.ChildCustomization{
				protocol.NewChildCustomization(mcpCustomization(servers[DeployServerID])),
				protocol.NewChildCustomization(mcpCustomization(servers[FlakyServerID])),
				protocol.NewChildCustomization(protocol.SkillCustomization{ID: SkillID,
					URI: "file:///demo/plugins/devtools/skills/release-notes/SKILL.md", Name: "Release notes", Description: &desc}),
			},
		}),
	}
	if withIndexer {
		cs = append(cs, protocol.NewCustomization(mcpCustomization(servers[IndexerServerID])))
	}
	return cs
}

// findServer locates an MCP server customization and reports whether it is
// effectively enabled (its container's flag included).
func findServer(s protocol.SessionState, id string) (protocol.McpServerCustomization, bool, bool) {
	for _, c := range s.Customizations {
		switch v := c.Variant.(type) {
		case protocol.McpServerCustomization:
			if v.ID == id {
				return v, protocol.EffectiveEnabled(v.Enablement), true
			}
		case protocol.PluginCustomization:
			for _, ch := range v.Children {
				if m, ok := ch.Variant.(protocol.McpServerCustomization); ok && m.ID == id {
					return m, protocol.EffectiveEnabled(v.Enablement) && protocol.EffectiveEnabled(m.Enablement), true
				}
			}
		case protocol.DirectoryCustomization:
			for _, ch := range v.Children {
				if m, ok := ch.Variant.(protocol.McpServerCustomization); ok && m.ID == id {
					return m, v.Enabled && protocol.EffectiveEnabled(m.Enablement), true
				}
			}
		}
	}
	return protocol.McpServerCustomization{}, false, false
}

// customizationExists reports whether any customization (container or
// child) has id.
func customizationExists(s protocol.SessionState, id string) bool {
	for _, c := range s.Customizations {
		if customizationID(c.Variant) == id {
			return true
		}
		var children []protocol.ChildCustomization
		switch v := c.Variant.(type) {
		case protocol.PluginCustomization:
			children = v.Children
		case protocol.DirectoryCustomization:
			children = v.Children
		}
		for _, ch := range children {
			if childID(ch.Variant) == id {
				return true
			}
		}
	}
	return false
}

func customizationID(v protocol.CustomizationVariant) string {
	switch v := v.(type) {
	case protocol.McpServerCustomization:
		return v.ID
	case protocol.PluginCustomization:
		return v.ID
	case protocol.DirectoryCustomization:
		return v.ID
	}
	return ""
}

func childID(v protocol.ChildCustomizationVariant) string {
	switch v := v.(type) {
	case protocol.McpServerCustomization:
		return v.ID
	case protocol.SkillCustomization:
		return v.ID
	case protocol.AgentCustomization:
		return v.ID
	case protocol.PromptCustomization:
		return v.ID
	case protocol.RuleCustomization:
		return v.ID
	case protocol.HookCustomization:
		return v.ID
	}
	return ""
}

// startAllServersLocked schedules the start-up of every enabled server
// that starts with the session.
func (h *Host) startAllServersLocked(s *session) {
	for _, id := range serverOrder {
		if _, enabled, ok := findServer(s.state, id); ok && enabled && !h.servers[id].manual {
			h.scheduleServerLocked(s, id)
		}
	}
}

// startServerLocked (re)starts a server: starting now, its outcome after
// its steps.
func (h *Host) startServerLocked(s *session, id string) {
	h.setServerStateLocked(s, id, h.servers[id].startingState())
	h.scheduleServerLocked(s, id)
}

// scheduleServerLocked moves a starting server to its scripted outcome
// after a step, unless something changed it in between.
func (h *Host) scheduleServerLocked(s *session, id string) {
	s.srvGen[id]++
	gen := s.srvGen[id]
	h.afterSteps(h.servers[id].steps, func() {
		if h.sessions[s.uri] != s || s.srvGen[id] != gen {
			return
		}
		m, enabled, ok := findServer(s.state, id)
		if !ok || !enabled || m.State.Kind() != "starting" {
			return
		}
		h.applyLocked(s.uri, protocol.SessionMcpServerStateChangedAction{ID: id, State: h.serverOutcomeLocked(id)}, nil)
	})
}

func (h *Host) serverOutcomeLocked(id string) protocol.McpServerState {
	sp := h.servers[id]
	switch sp.outcome {
	case outcomeError:
		stack := "at spawn (flaky-mcp)"
		return protocol.NewMcpServerState(protocol.McpServerErrorState{Error: protocol.ErrorInfo{
			ErrorType: "ConnectionRefused", Message: "flaky-mcp exited during start-up: connection refused", Stack: &stack}})
	case outcomeProtected:
		if h.grantedLocked("", sp.resource, sp.scopes) {
			return protocol.NewMcpServerState(protocol.McpServerReadyState{})
		}
		return protocol.NewMcpServerState(h.serverAuthRequired(sp, protocol.McpAuthRequiredReasonRequired))
	}
	return protocol.NewMcpServerState(protocol.McpServerReadyState{})
}

func (h *Host) serverAuthRequired(sp serverSpec, reason protocol.McpAuthRequiredReason) protocol.McpServerAuthRequiredState {
	desc := "Sign in to " + sp.name + " to use its tools."
	if reason == protocol.McpAuthRequiredReasonExpired {
		desc = "Your " + sp.name + " sign-in expired; sign in again."
	}
	st := protocol.McpServerAuthRequiredState{Reason: reason,
		Resource: h.resources[sp.resource], RequiredScopes: append([]string(nil), sp.scopes...), Description: &desc}
	if sp.preregistered {
		st.OauthClient = &protocol.McpOAuthClient{ClientID: h.auth.PublicClientID()}
	}
	return st
}

// setServerStateLocked changes a server's runtime state at once,
// invalidating any scheduled transition.
func (h *Host) setServerStateLocked(s *session, id string, st protocol.McpServerStateVariant) {
	s.srvGen[id]++
	h.applyLocked(s.uri, protocol.SessionMcpServerStateChangedAction{ID: id, State: protocol.NewMcpServerState(st)}, nil)
}

// sessionRanLocked: a chat of s has had a turn (or runs one).
func (h *Host) sessionRanLocked(s *session) bool {
	for _, uri := range s.chats {
		if ch := h.chats[uri]; ch != nil && (len(ch.state.Turns) > 0 || ch.state.ActiveTurn != nil) {
			return true
		}
	}
	return false
}

// startHeldLocked starts the servers whose start waited for the session
// to run (Config.HoldStartsUntilRun), those still starting and enabled.
func (h *Host) startHeldLocked(uri string) {
	s := h.sessions[uri]
	if s == nil || len(s.held) == 0 {
		return
	}
	for _, id := range serverOrder {
		if !s.held[id] {
			continue
		}
		if m, enabled, ok := findServer(s.state, id); ok && enabled && m.State.Kind() == "starting" {
			h.startServerLocked(s, id)
		}
	}
	s.held = nil
}

// reconcileServersLocked follows the user's intent after a toggle: a server
// that is effectively disabled is stopped, one re-enabled is started.
func (h *Host) reconcileServersLocked(s *session) {
	for _, id := range serverOrder {
		m, enabled, ok := findServer(s.state, id)
		if !ok {
			continue
		}
		kind := m.State.Kind()
		switch {
		case !enabled && kind != "stopped":
			h.setServerStateLocked(s, id, protocol.McpServerStoppedState{})
		case enabled && kind == "stopped" && !h.servers[id].manual:
			h.startServerLocked(s, id)
		}
	}
}

// hasScopes reports whether granted ⊇ need.
func hasScopes(granted, need []string) bool {
	for _, n := range need {
		found := false
		for _, g := range granted {
			if g == n {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// seedHistoryLocked fills the history session's chat with one finished
// turn (user message, markdown, a completed MCP tool call, usage).
func (h *Host) seedHistoryLocked(s *session) {
	c := h.chats[HistoryChatURI]
	if c == nil {
		return
	}
	start := h.clock().Add(-time.Hour)
	s.createdAt = start
	startedAt := isoTime(start)
	dur := 5400.0
	in, out, model := int64(1200), int64(340), "demo-1"
	input := `{"query":"TestReconnect"}`
	turn := protocol.Turn{
		ID: "history-1", StartedAt: &startedAt, Duration: &dur, State: protocol.TurnStateComplete,
		Message: protocol.Message{Text: "Why does TestReconnect flake?", Origin: protocol.MessageOrigin{Kind: protocol.MessageKindUser}},
		ResponseParts: []protocol.ResponsePart{
			protocol.NewResponsePart(protocol.MarkdownResponsePart{ID: "history-1-a", Content: protocol.NewText("Let me look for the test first.\n")}),
			protocol.NewResponsePart(protocol.ToolCallResponsePart{ToolCall: protocol.NewToolCallState(protocol.ToolCallCompletedState{
				ToolCallID: "history-1-tc", ToolName: ToolSearchFiles, DisplayName: "Search files", Contributor: mcpContributor(FilesystemServerID),
				InvocationMessage: protocol.MarkdownString("Searching for `TestReconnect`"), ToolInput: protocol.InlineToolInput(input),
				Success: true, PastTenseMessage: protocol.MarkdownString("Found 1 match for `TestReconnect`"),
				Content: textContent("protocol/conn_test.go:88"), Confirmed: protocol.ToolCallConfirmationReasonNotNeeded,
			})}),
			protocol.NewResponsePart(protocol.MarkdownResponsePart{ID: "history-1-b", Content: protocol.NewText(
				"It waits on a **fixed sleep** instead of the reconnect event. Wait on the event with a timeout instead.\n")}),
		},
		Usage: &protocol.UsageInfo{InputTokens: &in, OutputTokens: &out, Model: &model},
	}
	c.state.Turns = []protocol.Turn{turn}
	c.state.Title = "Flaky test"
	c.state.ModifiedAt = isoTime(start.Add(time.Duration(dur) * time.Millisecond))
	s.state.Chats = []protocol.ChatSummary{chatSummary(c.state)}
	s.summary = h.sessionSummaryLocked(s)
}
