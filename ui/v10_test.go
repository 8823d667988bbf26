package ui

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/authpkce"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
	"github.com/ahptui/ahptui/views"
)

// actionStub is the fixture client that accepts and records what the model
// dispatches and the sessions it creates: the features below are judged by
// the action the key sends, and the stub's state is what a host would show.
type actionStub struct {
	*stubClient
	mu      sync.Mutex
	sent    []sentAction
	created []protocol.CreateSessionParams
}

func (a *actionStub) Dispatch(ch string, act protocol.StateAction) (int64, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.sent = append(a.sent, sentAction{Channel: ch, ClientSeq: int64(len(a.sent) + 1), Action: act})
	return int64(len(a.sent)), nil
}

func (a *actionStub) CreateSession(_ context.Context, p protocol.CreateSessionParams) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.created = append(a.created, p)
	return nil
}

func (a *actionStub) actions() []sentAction {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]sentAction(nil), a.sent...)
}

// v10Model is fxModel on a 1.0 host whose dispatches are recorded, with a
// clock the test moves.
func v10Model(t *testing.T, chat protocol.ChatState) (*Model, *actionStub, *time.Time) {
	t.Helper()
	m := fxModel(chat)
	stub := &actionStub{stubClient: m.client.(*stubClient)}
	stub.version = "1.0.0"
	m.client = stub
	now := fixedNow
	m.clock = func() time.Time { return now }
	m.resize(160, 50)
	return m, stub, &now
}

// setSession replaces the open session's state as the host's echo would,
// through the event the client queues.
func setSession(m *Model, stub *actionStub, sess protocol.SessionState) {
	stub.sessions[fxSession] = sess
	m.Update(eventsMsg{[]client.Event{client.ChannelStateEvent{Channel: fxSession}}})
}

func setChat(m *Model, stub *actionStub, chat protocol.ChatState) {
	stub.chats[fxChat] = chat
	m.Update(eventsMsg{[]client.Event{client.ChannelStateEvent{Channel: fxChat}}})
}

// withServer is fxSessionState with server db in state st.
func withServer(st protocol.McpServerStateVariant, enablement ...protocol.CustomizationEnablement) protocol.SessionState {
	sess := fxSessionState()
	cs := append([]protocol.Customization(nil), sess.Customizations...)
	for i, c := range cs {
		if s, ok := c.Variant.(protocol.McpServerCustomization); ok && s.ID == "db" {
			s.State = protocol.NewMcpServerState(st)
			s.Enablement = enablement
			cs[i] = protocol.NewCustomization(s)
		}
	}
	sess.Customizations = cs
	return sess
}

func selectServer(t *testing.T, m *Model, id string) {
	t.Helper()
	m.focus = focusMCP
	for i, r := range m.signin.servers() {
		if r.ID == id {
			m.mcp.sel = i
			m.settle()
			return
		}
	}
	t.Fatalf("no MCP server %q", id)
}

// TestBlockingMCPStart: a server starting with blocking: true shows how
// long it has held new messages, counted from when the UI first saw it
// starting, and b asks the host to move it to the background.
func TestBlockingMCPStart(t *testing.T) {
	m, stub, now := v10Model(t, fxChatState())
	m.cfg.Tick = time.Hour // the ticker runs, as in the program
	start := *now
	blocking := protocol.McpServerStartingState{Blocking: ptr(true)}
	// The fixture's db is starting without blocking: nothing to count.
	setSession(m, stub, fxSessionState())
	if m.mcp.startTicking {
		t.Fatal("the timer ticks before any start blocks")
	}
	stub.sessions[fxSession] = withServer(blocking)
	_, cmd := m.Update(eventsMsg{[]client.Event{client.ChannelStateEvent{Channel: fxSession}}})
	if !m.mcp.startTicking {
		t.Fatal("a blocking start armed no tick: its timer would not count")
	}
	pump(t, m, cmd, "the status line names the blocking start", statusHas(m, "Postgres holds new messages (b in the MCP panel)"))
	if got := m.mcp.startSeen["db"]; !got.Equal(start) {
		t.Fatalf("start first seen at %v, want %v", got, start)
	}
	selectServer(t, m, "db")

	out := ansi.Strip(m.Render())
	for _, want := range []string{"starting… 0s · new messages wait", "b background start"} {
		if !strings.Contains(out, want) {
			t.Errorf("screen lacks %q:\n%s", want, out)
		}
	}
	if help := ansi.Strip(m.helpLine()); !strings.Contains(help, "b background start") {
		t.Errorf("the MCP footer does not offer the background key: %q", help)
	}

	// The tick redraws from the clock; a later snapshot of the same
	// start keeps the first sighting.
	*now = start.Add(12*time.Second + 400*time.Millisecond)
	m.Update(startTickMsg{})
	setSession(m, stub, withServer(blocking))
	if out := ansi.Strip(m.Render()); !strings.Contains(out, "starting… 12s") {
		t.Errorf("after 12.4s the timer does not say 12s:\n%s", out)
	}

	m.Update(press("b"))
	sent := stub.actions()
	if len(sent) != 1 {
		t.Fatalf("b sent %d actions, want 1", len(sent))
	}
	bg, ok := sent[0].Action.Variant.(protocol.SessionMcpServerBackgroundRequestedAction)
	if !ok || bg.ID != "db" || sent[0].Channel != fxSession {
		t.Fatalf("b sent %s %+v on %s, want session/mcpServerBackgroundRequested{db} on %s",
			sent[0].Action.Kind(), sent[0].Action.Variant, sent[0].Channel, fxSession)
	}

	// Backgrounded (blocking false): no timer, no key, no tick re-armed.
	setSession(m, stub, withServer(protocol.McpServerStartingState{Blocking: ptr(false)}))
	m.Update(startTickMsg{})
	if m.mcp.startTicking {
		t.Error("the tick re-armed with no blocking start left")
	}
	panel := ansi.Strip(strings.Join(m.mcp.view(40, 30), "\n"))
	if strings.Contains(panel, "new messages wait") || strings.Contains(ansi.Strip(m.helpLine()), "background") {
		t.Errorf("a backgrounded start still offers the key:\n%s\n%s", panel, ansi.Strip(m.helpLine()))
	}
	m.Update(press("b"))
	if n := len(stub.actions()); n != 1 {
		t.Errorf("b on a start that blocks nothing sent an action (%d in all)", n)
	}

	// Ready, then starting again: the timer starts over.
	setSession(m, stub, withServer(protocol.McpServerReadyState{}))
	if _, ok := m.mcp.startSeen["db"]; ok {
		t.Error("a ready server keeps its start time")
	}
	*now = start.Add(time.Minute)
	setSession(m, stub, withServer(blocking))
	if out := ansi.Strip(m.Render()); !strings.Contains(out, "starting… 0s") {
		t.Errorf("a new start does not count from 0s:\n%s", out)
	}
}

// TestToggleKeepsHostDecisions: space sends the session decision first and
// keeps the workspace decision the host published.
func TestToggleKeepsHostDecisions(t *testing.T) {
	m, stub, _ := v10Model(t, fxChatState())
	workspaceOff := protocol.CustomizationEnablement{Variant: protocol.CustomizationWorkspaceEnablement{Kind: "workspace", URI: "file:///w", Enabled: false}}
	setSession(m, stub, withServer(protocol.McpServerReadyState{}, workspaceOff))
	selectServer(t, m, "db")
	if m.signin.servers()[m.mcp.sel].Enabled {
		t.Fatal("a server the workspace turned off shows enabled")
	}
	m.Update(press("space"))
	sent := stub.actions()
	if len(sent) != 1 {
		t.Fatalf("space sent %d actions", len(sent))
	}
	tg, ok := sent[0].Action.Variant.(protocol.SessionCustomizationToggledAction)
	if !ok || tg.ID != "db" {
		t.Fatalf("space sent %+v", sent[0].Action.Variant)
	}
	if len(tg.Enablement) != 2 || tg.Enablement[0].Kind() != "session" || !protocol.EffectiveEnabled(tg.Enablement) ||
		tg.Enablement[1].Kind() != "workspace" {
		t.Errorf("toggle sent %+v, want [session on, workspace off]", tg.Enablement)
	}
}

// erroredChat is the fixture chat whose latest turn stopped at an error
// part, resumable or not.
func erroredChat(resumable *bool) protocol.ChatState {
	chat := fxChatState()
	chat.ActiveTurn = nil
	chat.Turns = append(append([]protocol.Turn(nil), chat.Turns...), protocol.Turn{
		ID: "t-err", Message: userMsg("Deploy it."), State: protocol.TurnStateError,
		ResponseParts: []protocol.ResponsePart{
			part(protocol.MarkdownResponsePart{ID: "md-err", Content: protocol.NewText("Deploying…")}),
			part(protocol.ErrorResponsePart{Error: protocol.ErrorInfo{ErrorType: "rate_limited",
				Message: "the model is rate limited\x1b[31m, try later"}, Resumable: resumable}),
		}})
	return chat
}

// TestResumableErrorPart: an error part shows inline, sanitized; on the
// latest turn and resumable, r sends chat/turnResume for it.
func TestResumableErrorPart(t *testing.T) {
	for _, tc := range []struct {
		name      string
		resumable *bool
		running   bool // a newer turn runs: the errored one is not the latest
	}{
		{"resumable", ptr(true), false},
		{"not resumable", ptr(false), false},
		{"resumable unsaid", nil, false},
		{"a turn runs after it", ptr(true), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, stub, _ := v10Model(t, fxChatState())
			chat := erroredChat(tc.resumable)
			if tc.running {
				chat.ActiveTurn = &protocol.ActiveTurn{ID: "t-next", Message: userMsg("Again."), StartedAt: "2026-01-02T15:00:00.000Z"}
			}
			setChat(m, stub, chat)
			m.focus = focusChat
			m.chatPanel.scroll = 0
			m.settle()
			out := m.Render()
			if strings.Contains(out, "\x1b[31m") {
				t.Fatal("the host's escape reached the screen")
			}
			plain := ansi.Strip(out)
			if !strings.Contains(plain, "✗ error: the model is rate limited, try later (rate_limited)") {
				t.Fatalf("error part not shown inline:\n%s", plain)
			}
			want := tc.name == "resumable"
			if got := strings.Contains(plain, "r resume turn"); got != want {
				t.Errorf("resume offered in the transcript = %v, want %v:\n%s", got, want, plain)
			}
			if got := strings.Contains(ansi.Strip(m.helpLine()), "resume turn"); got != want {
				t.Errorf("footer offers resume = %v, want %v: %q", got, want, ansi.Strip(m.helpLine()))
			}
			_, cmd := m.Update(press("r"))
			sent := stub.actions()
			if !want {
				if len(sent) != 0 {
					t.Fatalf("r sent %+v with nothing to resume", sent)
				}
				pump(t, m, cmd, "the reason r did nothing", statusHas(m, "no turn to resume"))
				return
			}
			if len(sent) != 1 {
				t.Fatalf("r sent %d actions, want 1", len(sent))
			}
			rs, ok := sent[0].Action.Variant.(protocol.ChatTurnResumeAction)
			if !ok || rs.TurnID != "t-err" || sent[0].Channel != fxChat {
				t.Fatalf("r sent %s %+v on %s, want chat/turnResume{t-err}", sent[0].Action.Kind(), sent[0].Action.Variant, sent[0].Channel)
			}
		})
	}
}

// TestAuthRequiredMetadata: a 1.0 auth/required names the resource's
// metadata, and the sign-in uses it; metadata naming no authorization
// server falls back to what the agent advertised, as for 0.6.
func TestAuthRequiredMetadata(t *testing.T) {
	const res = "https://agent.example/api"
	for _, tc := range []struct {
		name   string
		in     protocol.AuthRequiredResource
		wantAS string
	}{
		{"full metadata", protocol.AuthRequiredResource{ProtectedResourceMetadata: protocol.ProtectedResourceMetadata{
			Resource: res, AuthorizationServers: []string{"https://login.agent.example"}, ScopesSupported: []string{"api"}}},
			"https://login.agent.example"},
		{"identifier only (1.0)", authResource(res), "https://advertised.example"},
		{"0.6 string", protocol.AuthRequiredResource{ProtectedResourceMetadata: protocol.ProtectedResourceMetadata{Resource: res}, AsString: true},
			"https://advertised.example"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, _, _ := v10Model(t, fxChatState())
			m.root.Agents[0].ProtectedResources = []protocol.ProtectedResourceMetadata{{Resource: res, AuthorizationServers: []string{"https://advertised.example"}}}
			m.signin.forgetAdvertised()
			m.Update(eventMsg{client.AuthRequiredEvent{Params: protocol.AuthRequiredParams{Channel: fxSession, Resource: tc.in}}})
			if len(m.signin.prompts) != 1 || !m.chatPanel.sel.prompt {
				t.Fatalf("auth/required opened %d prompts", len(m.signin.prompts))
			}
			req := m.signin.agentRequirement(m.signin.prompts[0])
			if req.Resource.Resource != res || len(req.Resource.AuthorizationServers) != 1 || req.Resource.AuthorizationServers[0] != tc.wantAS {
				t.Errorf("sign-in requirement %+v, want resource %s at %s", req.Resource, res, tc.wantAS)
			}
		})
	}
}

// TestNewSessionWorkingDirectories: a new session carries the configured
// directories, only the first for an agent that takes one.
func TestNewSessionWorkingDirectories(t *testing.T) {
	dirs := []string{"file:///home/me/repo", "file:///home/me/lib"}
	for _, tc := range []struct {
		name  string
		multi bool
		dirs  []string
		want  []string
	}{
		{"none configured", false, nil, nil},
		{"one agent directory", false, dirs, dirs[:1]},
		{"multiple working directories", true, dirs, dirs},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, stub, _ := v10Model(t, fxChatState())
			m.cfg.WorkingDirectories = tc.dirs
			if tc.multi {
				m.root.Agents[0].Capabilities = &protocol.AgentCapabilities{MultipleWorkingDirectories: &protocol.MultipleWorkingDirectoriesCapability{}}
			}
			choices := m.sessions.newChoices()
			if len(choices) == 0 {
				t.Fatal("no agent to create a session with")
			}
			// Run the command's parts, not what they report back: the
			// reports would open the session on the stub.
			batch, _ := m.sessions.createSessionCmd(choices[0], m.sessions.defaultDirs(choices[0]), nil)().(tea.BatchMsg)
			for _, c := range batch {
				if c != nil {
					c()
				}
			}
			stub.mu.Lock()
			defer stub.mu.Unlock()
			if len(stub.created) != 1 {
				t.Fatalf("%d createSession calls", len(stub.created))
			}
			got := stub.created[0].WorkingDirectories
			if strings.Join(got, " ") != strings.Join(tc.want, " ") || (tc.want == nil) != (got == nil) {
				t.Errorf("workingDirectories = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestFullHelpLists10Keys: the help overlay lists the resume and
// background keys whether or not they would act now.
func TestFullHelpLists10Keys(t *testing.T) {
	m, _, _ := v10Model(t, fxChatState())
	m.resize(200, 60)
	out := ansi.Strip(views.RenderFullHelp(m.th, m.help, m.keys, m.context(), m.width, m.height, 0))
	for _, w := range []string{`r\s+resume turn`, `b\s+background start`} {
		if !regexp.MustCompile(w).MatchString(out) {
			t.Errorf("help overlay lacks %s:\n%s", w, out)
		}
	}
}

// TestSignInsSheetSaysWhatForgetDoes: the sheet says, for the selected
// grant, whether forgetting it reaches the host: on the 1.0 wire (0.9 and
// 0.10 included) for a resource the host advertised, never on 0.6.
func TestSignInsSheetSaysWhatForgetDoes(t *testing.T) {
	const res = "https://agent.example/api"
	for _, tc := range []struct {
		version    string
		advertised bool
		want       string
	}{
		{"1.0.0", true, "Forgetting also tells this host (AHP 1.0) to drop the token."},
		{"0.9.0", true, "Forgetting also tells this host (AHP 1.0) to drop the token."},
		{"0.10.0", true, "Forgetting also tells this host (AHP 1.0) to drop the token."},
		{"1.0.0", false, ""},
		{"0.6.0", true, "This host speaks AHP 0.6: it cannot be told to drop a token it was given"},
	} {
		t.Run(fmt.Sprintf("%s advertised=%v", tc.version, tc.advertised), func(t *testing.T) {
			m, stub, _ := v10Model(t, fxChatState())
			stub.version = tc.version
			if tc.advertised {
				advertise(m, res)
			}
			m.signin.list = signInList{open: true, grants: []authpkce.StoredGrant{{Resource: res, Issuer: "https://login.example"}}}
			got := m.signin.forgetText()
			if (tc.want == "") != (got == "") || !strings.HasPrefix(got, tc.want) {
				t.Fatalf("forgetText = %q, want %q", got, tc.want)
			}
			if tc.want == "" {
				return
			}
			if flat := strings.Join(strings.Fields(ansi.Strip(m.Render())), " "); !strings.Contains(flat, tc.want) {
				t.Errorf("the sheet does not say %q:\n%s", tc.want, m.Render())
			}
		})
	}
}

// TestSessionCreationFailed: a session whose creation failed (lifecycle
// failed) is reported once on the status line, with the host's reason
// sanitized; it has no chat to show otherwise.
func TestSessionCreationFailed(t *testing.T) {
	m, stub, _ := v10Model(t, fxChatState())
	sess := fxSessionState()
	sess.Lifecycle = protocol.SessionLifecycleFailed
	sess.CreationError = &protocol.ErrorInfo{ErrorType: "quota", Message: "no agent slots left\x1b[2J"}
	stub.sessions[fxSession] = sess
	_, cmd := m.Update(eventsMsg{[]client.Event{client.ChannelStateEvent{Channel: fxSession}}})
	pump(t, m, cmd, "the failure reported", statusHas(m, "the host could not create session "+fxSession+": no agent slots left (quota)"))
	if strings.Contains(m.status.text, "\x1b") {
		t.Fatalf("the host's escape reached the status line: %q", m.status.text)
	}
	if m.creationFailed() != nil {
		t.Error("the same failure is reported again")
	}
}
