package demohost

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

// The 1.0 features the demo host plays for ahptui to show (issue 9 items 4
// and 5): a blocking MCP start moved to the background, a resumable error,
// expiresIn and revocation on authenticate, working directories and forks.

// reducerHas reports whether this build's 1.0 reducer applies action to
// state (changes it). The host's state is what the reducer makes of its
// actions, so a scenario built on an action the reducer does not know yet
// has nothing to show; its test says so and skips instead of failing for
// another package.
func reducerHas(state protocol.SnapshotStateVariant, action protocol.StateActionVariant, changed func(protocol.SnapshotStateVariant) bool) bool {
	return changed(protocol.Reduce(state, protocol.NewStateAction(action), protocol.Rules{}))
}

func indexerBlocking(s protocol.SessionState) bool {
	m, _, ok := findServer(s, IndexerServerID)
	st, starting := m.State.Variant.(protocol.McpServerStartingState)
	return ok && starting && st.Blocking != nil && *st.Blocking
}

// TestBlockingStartHoldsTurns: a session a client creates has the indexer
// (the seeded ones do not); it starts only when a client
// starts it, then with blocking set; a turn sent meanwhile waits for it;
// moving the start to the background lets the turn go on while the server
// keeps starting, and it still ends ready. A server whose start is not
// blocking cannot be moved to the background.
func TestBlockingStartHoldsTurns(t *testing.T) {
	probe := protocol.SessionState{Customizations: []protocol.Customization{protocol.NewCustomization(protocol.McpServerCustomization{
		ID: IndexerServerID, State: protocol.NewMcpServerState(serverSpec{blocking: true}.startingState())})}}
	if !reducerHas(probe, protocol.SessionMcpServerBackgroundRequestedAction{ID: IndexerServerID}, func(s protocol.SnapshotStateVariant) bool {
		return !indexerBlocking(s.(protocol.SessionState))
	}) {
		t.Skip("the 1.0 reducer for session/mcpServerBackgroundRequested is not in this build")
	}
	// Slow enough that the start cannot end before the test moves it to
	// the background (IndexerStartSteps steps), quick for everything else.
	h, v := startHost(t, Config{StepDelay: 100 * time.Millisecond})
	c := dial(t, h, v, "blocker")
	c.initialize(rootURI, DemoSessionURI)
	if _, _, ok := findServer(h.sessionState(DemoSessionURI), IndexerServerID); ok {
		t.Fatal("a seeded session has the indexer: its MCP strip no longer fits one row at 80 columns")
	}
	const uri = "ahp-session:/slow"
	chatURI := defaultChatURI(uri)
	c.mustCall("createSession", protocol.CreateSessionParams{Channel: uri}, nil)
	c.mustCall("subscribe", protocol.SubscribeParams{Channel: uri}, nil)
	c.mustCall("subscribe", protocol.SubscribeParams{Channel: chatURI}, nil)
	c.waitServer(uri, FilesystemServerID, "ready")
	if m, _, _ := findServer(h.sessionState(uri), IndexerServerID); m.State.Kind() != "stopped" {
		t.Fatalf("the indexer is %q before anyone started it, want stopped", m.State.Kind())
	}
	refused := c.dispatch(uri, protocol.SessionMcpServerBackgroundRequestedAction{ID: FilesystemServerID})
	if e := c.waitEcho("background a ready server", uri, refused); e.RejectionReason == nil {
		t.Fatal("a server that is not starting was moved to the background")
	}

	c.dispatch(uri, protocol.SessionMcpServerStartRequestedAction{ID: IndexerServerID})
	c.waitUntil("a blocking start", func() bool { return indexerBlocking(c.sessionMirrorLocked(uri)) })
	c.dispatch(chatURI, turnStarted("t1", "stream please"))
	c.waitEnvelope("the turn waits for the indexer", chatURI, func(e protocol.ActionEnvelope) bool {
		a, ok := e.Action.Variant.(protocol.ChatActivityChangedAction)
		return ok && a.Activity != nil && strings.Contains(*a.Activity, IndexerServerName)
	})
	if n := c.countEnvelopes(isType("chat/responsePart")); n != 0 {
		t.Fatalf("the agent answered (%d parts) while a blocking start held the turn", n)
	}

	seq := c.dispatch(uri, protocol.SessionMcpServerBackgroundRequestedAction{ID: IndexerServerID})
	if e := c.waitEcho("background", uri, seq); e.RejectionReason != nil {
		t.Fatalf("background refused: %s", *e.RejectionReason)
	}
	c.waitEnvelope("the turn goes on", chatURI, isType("chat/responsePart"))
	c.mu.Lock()
	m, _, _ := findServer(c.sessionMirrorLocked(uri), IndexerServerID)
	c.mu.Unlock()
	if m.State.Kind() != "starting" {
		t.Errorf("after moving to the background the indexer is %s, want still starting", m.State.Kind())
	}
	c.waitServer(uri, IndexerServerID, "ready")
}

// sessionState reads a session's state under the host's lock.
func (h *Host) sessionState(uri string) protocol.SessionState {
	h.mu.Lock()
	defer h.mu.Unlock()
	if s := h.sessions[uri]; s != nil {
		return s.state
	}
	return protocol.SessionState{}
}

// TestResumableError: "resume" ends the turn with a resumable error part;
// chat/turnResume reopens it and the script finishes it. Over 0.6 the
// same turn is a plain failed turn, and nothing can resume it.
func TestResumableError(t *testing.T) {
	forEachVersion(t, func(t *testing.T, version string) {
		c := demoTurnOver(t, version, "resumer", "please resume later")
		e := c.waitEnvelope("the turn errs", DemoChatURI, isType("chat/error"))
		part := e.Action.Variant.(protocol.ChatErrorAction).Part
		if part.Error.ErrorType != ResumableErrorType {
			t.Fatalf("error part %+v, want errorType %s", part, ResumableErrorType)
		}
		c.waitUntil("the turn ended in error", func() bool {
			ch, _ := c.mirror[DemoChatURI].(protocol.ChatState)
			return ch.ActiveTurn == nil && len(ch.Turns) == 1 && ch.Turns[0].State == protocol.TurnStateError
		})
		if version == Version06 {
			if part.Resumable != nil {
				t.Errorf("a 0.6 client was told the error is resumable: %v", *part.Resumable)
			}
			return
		}
		if part.Resumable == nil || !*part.Resumable {
			t.Fatalf("error part %+v is not resumable", part)
		}
		wrong := c.dispatch(DemoChatURI, protocol.ChatTurnResumeAction{TurnID: "nope"})
		if e := c.waitEcho("resume an unknown turn", DemoChatURI, wrong); e.RejectionReason == nil {
			t.Fatal("resumed a turn that never erred")
		}
		c.mu.Lock()
		errored := c.mirror[DemoChatURI].(protocol.ChatState)
		c.mu.Unlock()
		if !reducerHas(errored, protocol.ChatTurnResumeAction{TurnID: "t1"}, func(s protocol.SnapshotStateVariant) bool {
			return s.(protocol.ChatState).ActiveTurn != nil
		}) {
			t.Skip("the 1.0 reducer for chat/turnResume is not in this build")
		}
		seq := c.dispatch(DemoChatURI, protocol.ChatTurnResumeAction{TurnID: "t1"})
		if e := c.waitEcho("resume", DemoChatURI, seq); e.RejectionReason != nil {
			t.Fatalf("resume refused: %s", *e.RejectionReason)
		}
		c.waitUntil("the resumed turn completes", func() bool {
			ch, _ := c.mirror[DemoChatURI].(protocol.ChatState)
			return ch.ActiveTurn == nil && len(ch.Turns) == 1 && ch.Turns[0].State == protocol.TurnStateComplete
		})
		c.mu.Lock()
		turn := c.mirror[DemoChatURI].(protocol.ChatState).Turns[0]
		c.mu.Unlock()
		var text strings.Builder
		for _, p := range turn.ResponseParts {
			if md, ok := p.Variant.(protocol.MarkdownResponsePart); ok {
				text.WriteString(md.Content.String())
			}
		}
		if !strings.Contains(text.String(), "Resumed") {
			t.Errorf("the resumed turn does not go on where it stopped:\n%s", text.String())
		}
		again := c.dispatch(DemoChatURI, protocol.ChatTurnResumeAction{TurnID: "t1"})
		if e := c.waitEcho("resume twice", DemoChatURI, again); e.RejectionReason == nil {
			t.Fatal("a completed turn was resumed")
		}
	})
}

// TestAuthenticateExpiresIn: the grant ends when the client says the
// token does (expiresIn, sooner than the token's own hour), with the same
// auth/required an expired token gets; a lifetime below one second is
// refused.
func TestAuthenticateExpiresIn(t *testing.T) {
	h, v := startHost(t, Config{})
	c := dial(t, h, v, "lifetime")
	c.initialize(rootURI, DemoSessionURI)
	c.waitServer(DemoSessionURI, GitHubServerID, "authRequired")
	github := resourceURL(h, GitHubResourcePath)
	tok := grant(t, h.AuthIssuer(), h.Auth().PublicClientID(), startCallback(t), github, GitHubScopes)
	zero := int64(0)
	// Sent unvalidated: the schema itself refuses 0.
	if r := c.callMaybeInvalid("authenticate", protocol.AuthenticateParams{Resource: github, Token: tok, ExpiresIn: &zero}, false); r.Error == nil || r.Error.Code != jsonrpc.InvalidParams {
		t.Fatalf("expiresIn 0: got %v, want InvalidParams", r.Error)
	}

	one := int64(1)
	c.mustCall("authenticate", protocol.AuthenticateParams{Resource: github, Token: tok, ExpiresIn: &one}, nil)
	c.waitServer(DemoSessionURI, GitHubServerID, "ready")
	m := c.waitServer(DemoSessionURI, GitHubServerID, "authRequired")
	if ar := m.State.Variant.(protocol.McpServerAuthRequiredState); ar.Reason != protocol.McpAuthRequiredReasonExpired {
		t.Fatalf("reason = %q, want expired", ar.Reason)
	}
	c.waitUntil("auth/required", func() bool {
		return slices.ContainsFunc(c.notes, func(n *jsonrpc.Request) bool { return n.Method == "auth/required" })
	})
}

// TestEmptyTokenRevokes: serving 1.0, authenticate with an empty token
// forgets what the connection proved, so the protected server it kept
// ready waits for a sign-in again (reason required: nothing expired) and
// no auth/required is sent; the 0.6 wire has no revocation and refuses it.
func TestEmptyTokenRevokes(t *testing.T) {
	forEachVersion(t, func(t *testing.T, version string) {
		h, v := startHost(t, Config{Version: version})
		c := dial(t, h, v, "revoker")
		c.initialize(rootURI, DemoSessionURI)
		github, _ := signInGitHub(t, h, c)
		if version == Version06 {
			c.wantError("authenticate", protocol.AuthenticateParams{Resource: github, Token: ""}, jsonrpc.InvalidParams)
			return
		}
		c.wantError("authenticate", protocol.AuthenticateParams{Resource: "https://elsewhere.invalid/", Token: ""}, jsonrpc.InvalidParams)
		c.mustCall("authenticate", protocol.AuthenticateParams{Resource: github, Token: ""}, nil)
		m := c.waitServer(DemoSessionURI, GitHubServerID, "authRequired")
		if ar := m.State.Variant.(protocol.McpServerAuthRequiredState); ar.Reason != protocol.McpAuthRequiredReasonRequired {
			t.Errorf("reason = %q, want required", ar.Reason)
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		for _, n := range c.notes {
			if n.Method == "auth/required" {
				t.Errorf("a revocation the client asked for was answered with auth/required: %s", n.Params)
			}
		}
	})
}

// TestWorkingDirectoriesAndForks: createSession keeps its first working
// directory (the demo agent does not advertise several, and over 0.6 the
// one directory travels as workingDirectory); createChat forks a completed
// turn of the same session (side chats: TestCreateSideChat) and refuses
// unknown turns, other sessions' chats and working directories the
// session lacks.
//
// A successful fork is checked over 1.0 only: the published 0.6 schema's
// ChatOrigin is a oneOf whose variants have no kind constant, so a fork
// origin matches both the user and the fork variant and no 0.6 frame
// carrying one can pass it (the refusals still run over 0.6).
func TestWorkingDirectoriesAndForks(t *testing.T) {
	forEachVersion(t, func(t *testing.T, version string) {
		h, v := startHost(t, Config{Version: version})
		c := dial(t, h, v, "forker")
		c.initialize(rootURI, HistorySessionURI)
		uri := "ahp-session:/dirs"
		c.mustCall("createSession", protocol.CreateSessionParams{Channel: uri, WorkingDirectories: []protocol.URI{"file:///w1", "file:///w2"}}, nil)
		c.mustCall("subscribe", protocol.SubscribeParams{Channel: uri}, nil)
		c.waitUntil("session with its directory", func() bool {
			return slices.Equal(c.sessionMirrorLocked(uri).WorkingDirectories, []protocol.URI{"file:///w1"})
		})
		var list protocol.ListSessionsResult
		c.mustCall("listSessions", protocol.ListSessionsParams{}, &list)
		if i := slices.IndexFunc(list.Items, func(s protocol.SessionSummary) bool { return s.Resource == uri }); i < 0 ||
			!slices.Equal(list.Items[i].WorkingDirectories, []protocol.URI{"file:///w1"}) {
			t.Errorf("the catalogue does not carry the working directory: %+v", list.Items)
		}

		if version == Version10 {
			fork := chatURIOf("history-fork", HistorySessionURI)
			src := protocol.ChatSource{Variant: protocol.ForkChatSource{Chat: HistoryChatURI, TurnID: "history-1"}}
			c.mustCall("createChat", protocol.CreateChatParams{Channel: HistorySessionURI, Chat: fork, Source: &src}, nil)
			var sub protocol.SubscribeResult
			c.mustCall("subscribe", protocol.SubscribeParams{Channel: fork}, &sub)
			c.mu.Lock()
			ch, _ := c.mirror[fork].(protocol.ChatState)
			c.mu.Unlock()
			if len(ch.Turns) != 1 || ch.Turns[0].ID != "history-1" {
				t.Fatalf("the fork has turns %+v, want history-1", ch.Turns)
			}
			if o, ok := ch.Origin.Variant.(protocol.ChatForkOrigin); !ok || o.Chat != HistoryChatURI || o.TurnID != "history-1" {
				t.Errorf("fork origin = %#v", ch.Origin.Variant)
			}
			// 0.6 has no per-chat directories: the conversion drops them.
			c.wantError("createChat", protocol.CreateChatParams{Channel: uri, Chat: chatURIOf("f4", uri), WorkingDirectories: []protocol.URI{"file:///w2"}}, jsonrpc.InvalidParams)
			c.mustCall("createChat", protocol.CreateChatParams{Channel: uri, Chat: chatURIOf("sub", uri), WorkingDirectories: []protocol.URI{"file:///w1"}}, nil)
		}
		for _, tc := range []struct {
			name   string
			params protocol.CreateChatParams
		}{
			{"unknown turn", protocol.CreateChatParams{Channel: HistorySessionURI, Chat: chatURIOf("f2", HistorySessionURI),
				Source: &protocol.ChatSource{Variant: protocol.ForkChatSource{Chat: HistoryChatURI, TurnID: "nope"}}}},
			{"another session's chat", protocol.CreateChatParams{Channel: uri, Chat: chatURIOf("f3", uri),
				Source: &protocol.ChatSource{Variant: protocol.ForkChatSource{Chat: HistoryChatURI, TurnID: "history-1"}}}},
		} {
			c.wantError("createChat", tc.params, jsonrpc.InvalidParams)
		}
	})
}

// TestOldToggleRefused: serving 1.0, a customizationToggled in the 0.6
// form ({id, enabled}, no enablement) is refused with a reason that names
// the form, not read as an empty decision list (DELTA §6.4); the server
// stays as it was. (Over 0.6 the conversion turns enabled into a
// decision, so the same bytes toggle it.)
func TestOldToggleRefused(t *testing.T) {
	h, err := Start(context.Background(), Config{StepDelay: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	c := dial(t, h, validatorFor(t, Version10), "old-toggle")
	// The echo repeats the malformed action, so it cannot pass the schema.
	c.noValidate.Store(true)
	c.initialize(rootURI, DemoSessionURI)
	c.waitServer(DemoSessionURI, FilesystemServerID, "ready")
	c.send([]byte(`{"jsonrpc":"2.0","method":"dispatchAction","params":{"channel":"` + DemoSessionURI +
		`","clientSeq":1,"action":{"type":"session/customizationToggled","id":"` + FilesystemServerID + `","enabled":false}}}`))
	e := c.waitEcho("old toggle", DemoSessionURI, 1)
	if e.RejectionReason == nil || !strings.Contains(*e.RejectionReason, "enablement") {
		t.Fatalf("the 0.6 toggle was not refused for its form: %+v", e)
	}
	if _, enabled, _ := findServer(h.sessionState(DemoSessionURI), FilesystemServerID); !enabled {
		t.Fatal("a refused toggle disabled the server")
	}
}

// TestOlderWireHoldsNoTurns: served over 0.6 the demo held a message
// about ten seconds "Waiting for Indexer to start" while the client,
// which 0.6 cannot tell a start blocks, said the Indexer held nothing
// (issue 22, item 4). Below 1.0 no start holds turns.
func TestOlderWireHoldsNoTurns(t *testing.T) {
	for _, version := range []string{Version10, Version06} {
		h, _ := startHost(t, Config{Version: version})
		h.mu.Lock()
		blocking := h.servers[IndexerServerID].blocking
		h.mu.Unlock()
		if want := version == Version10; blocking != want {
			t.Errorf("AHP %s: the Indexer's start holds turns: %v, want %v", version, blocking, want)
		}
	}
}
