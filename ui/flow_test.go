package ui

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/authpkce"
	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/demohost/authserver"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
	"github.com/ahptui/ahptui/views"
)

func newAuth(t *testing.T) *authpkce.Authenticator {
	t.Helper()
	a, err := authpkce.New(authpkce.Config{MemoryOnly: true, Timeout: 20 * time.Second,
		OpenBrowser: func(string) error { return errors.New("--no-browser") }})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// approveInBrowser plays the user: approve on the consent page, then follow
// the redirect to the app's loopback callback.
func approveInBrowser(t *testing.T, authURL string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	u, err := authserver.ApproveHeadless(ctx, nil, authURL)
	if err != nil {
		t.Fatalf("approve: %v", err)
	}
	resp, err := http.Get(u.String())
	if err != nil {
		t.Fatalf("callback: %v", err)
	}
	resp.Body.Close()
}

// overlayText is the sign-in overlay's inside joined without its frame or
// spaces (the URL is hard-wrapped across its lines), or "" when it is not
// on screen.
func overlayText(m *Model) string {
	var b strings.Builder
	in := false
	for _, l := range strings.Split(ansi.Strip(m.Render()), "\n") {
		switch {
		case strings.Contains(l, "━ "+views.GrantOverlayTitle+" ━"):
			in = true
			continue
		case in && (strings.ContainsAny(string([]rune(l)[0]), "┗╰└╚")):
			return b.String()
		case in:
			for _, f := range strings.FieldsFunc(l, func(r rune) bool { return strings.ContainsRune("│┃║ ", r) }) {
				b.WriteString(f)
			}
		}
	}
	return ""
}

func TestGrantFlowForToolCall(t *testing.T) {
	d := newDriver(t, newAuth(t))
	d.openDemo()
	d.sendMessage("deploy the preview")
	d.expectSent("chat/turnStarted")
	it := d.waitItem("auth-required deploy", func(it chatItem) bool { return it.Tool.Status() == protocol.ToolCallStatusAuthRequired })
	d.keys("]", "g")
	res := it.Tool.AuthRequirement().Resource.Resource
	d.until("sign-in URL", func() bool { g := d.m.signin.grants[res]; return g != nil && g.url != "" })
	g := d.m.signin.grants[res]
	// The whole URL is on screen, for a user who cannot open a browser —
	// also at 80×24, where the chat panel's card cannot hold it.
	for _, size := range []struct{ w, h int }{{160, 50}, {80, 24}, {100, 30}} {
		d.send(tea.WindowSizeMsg{Width: size.w, Height: size.h})
		if got := overlayText(d.m); !strings.Contains(got, g.url) {
			t.Fatalf("%dx%d: the sign-in URL is not on screen in full: %s\noverlay: %s\n%s", size.w, size.h, g.url, got, d.m.Render())
		}
		if hl := ansi.Strip(d.m.helpLine()); !strings.Contains(hl, "esc cancel") || !strings.Contains(hl, "u copy") {
			t.Fatalf("%dx%d: help line %q does not offer cancel and copy", size.w, size.h, d.m.helpLine())
		}
	}
	d.send(tea.WindowSizeMsg{Width: 160, Height: 50})
	// The overlay is modal: a chat key does nothing, u copies the URL.
	d.keys("x")
	d.expectSent()
	d.keys("u")
	d.until("u on the overlay to copy the URL", func() bool { return strings.Contains(d.m.status.text, "OSC 52") })
	approveInBrowser(t, g.url)
	d.until("access granted", func() bool { return d.m.signin.grants[res].phase == grantDone })
	d.waitItem("deploy resumed and done", func(x chatItem) bool {
		return x.ID == it.ID && x.Tool.Status() == protocol.ToolCallStatusCompleted && !toolFailed(x.Tool)
	})
	d.expectSent() // authenticate is a command, not an action
}

func TestGrantFlowCancelAndQuit(t *testing.T) {
	d := newDriver(t, newAuth(t))
	d.openDemo()
	d.sendMessage("deploy the preview")
	d.expectSent("chat/turnStarted")
	it := d.waitItem("auth-required deploy", func(it chatItem) bool { return it.Tool.Status() == protocol.ToolCallStatusAuthRequired })
	d.keys("]", "g")
	res := it.Tool.AuthRequirement().Resource.Resource
	d.until("waiting", func() bool { g := d.m.signin.grants[res]; return g != nil && g.grant != nil })
	grant := d.m.signin.grants[res].grant
	d.keys("esc")
	select {
	case <-grant.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("esc did not end the grant (loopback listener still open)")
	}
	d.until("flow cancelled", func() bool { return d.m.signin.grants[res].phase == grantCancelled })
	if _, err := http.Get(grant.RedirectURI()); err == nil {
		t.Errorf("loopback listener %s still answers after cancel", grant.RedirectURI())
	}
	// Accept again, then quit: the flow is cancelled and the client closed.
	d.keys("g")
	d.until("waiting again", func() bool {
		g := d.m.signin.grants[res]
		return g.phase == grantWaiting && g.grant != nil && g.grant != grant
	})
	grant = d.m.signin.grants[res].grant
	_, cmd := d.m.Update(press("q"))
	select {
	case <-grant.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("quit did not cancel the grant")
	}
	if !runsToQuit(cmd) {
		t.Fatal("q did not quit")
	}
	if err := d.rec.Client.Subscribe(context.Background(), demohost.DemoSessionURI); err == nil {
		t.Fatal("client still usable after quit")
	}
}

// runsToQuit runs a command tree (batches and sequences) and reports
// whether it ends the program.
func runsToQuit(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	switch msg := cmd().(type) {
	case tea.QuitMsg:
		return true
	case tea.BatchMsg:
		for _, c := range msg {
			if runsToQuit(c) {
				return true
			}
		}
	default:
		// tea.Sequence's message is unexported: it is a slice of commands.
		if cmds, ok := asCmds(msg); ok {
			for _, c := range cmds {
				if runsToQuit(c) {
					return true
				}
			}
		}
	}
	return false
}

func TestMCPSignIn(t *testing.T) {
	d := newDriver(t, newAuth(t))
	d.openDemo()
	d.until("github asks for sign-in", func() bool {
		for _, r := range mcpRows(d.m.sess) {
			if r.ID == demohost.GitHubServerID && r.StateKind == "authRequired" {
				return true
			}
		}
		return false
	})
	d.m.focus = focusMCP
	for i, r := range mcpRows(d.m.sess) {
		if r.ID == demohost.GitHubServerID {
			d.m.mcp.sel = i
		}
	}
	d.keys("g")
	var res string
	d.until("sign-in URL", func() bool {
		for r, g := range d.m.signin.grants {
			if g.url != "" {
				res = r
				return true
			}
		}
		return false
	})
	approveInBrowser(t, d.m.signin.grants[res].url)
	d.until("github ready", func() bool {
		for _, r := range mcpRows(d.m.sess) {
			if r.ID == demohost.GitHubServerID {
				return r.StateKind == "ready"
			}
		}
		return false
	})
}

func TestAgentAuthRequiredPrompt(t *testing.T) {
	m := fxModel(fxChatState())
	m.resize(120, 40)
	advertise(m, "https://agent.example/api")
	m.Update(eventMsg{client.AuthRequiredEvent{Params: protocol.AuthRequiredParams{Channel: fxSession, Resource: authResource("https://agent.example/api")}}})
	if len(m.signin.prompts) != 1 || !m.chatPanel.sel.prompt {
		t.Fatalf("auth/required did not open a prompt: %+v sel %q", m.signin.prompts, m.chatPanel.sel.item)
	}
	if !strings.Contains(m.Render(), "agent.example/api") {
		t.Fatalf("prompt not shown:\n%s", m.Render())
	}
	if m.context().String() != "chat+grant" {
		t.Fatalf("context %s", m.context())
	}
	m.Update(press("n"))
	if len(m.signin.prompts) != 0 {
		t.Fatalf("n did not dismiss the agent prompt")
	}
	// An AuthRequiredError from a command opens the same prompt.
	m.Update(opDoneMsg{what: "create session", err: &client.AuthRequiredError{Resources: []protocol.ProtectedResourceMetadata{{Resource: "https://agent.example/api"}}}})
	if len(m.signin.prompts) != 1 {
		t.Fatalf("AuthRequiredError did not open a prompt")
	}
}

func TestComposerTakesPrintableKeys(t *testing.T) {
	m := fxModel(fxChatState())
	m.resize(120, 40)
	m.Update(press("i"))
	for _, k := range []string{"q", "?", "m", "a", "x", "!", "g", "n"} {
		_, cmd := m.Update(press(k))
		if runsToQuit(cmd) || m.showAll || !m.showMCP {
			t.Fatalf("%q acted as a binding in the composer", k)
		}
	}
	if got := m.chatPanel.composer.Value(); got != "q?max!gn" {
		t.Fatalf("composer holds %q", got)
	}
	// With a draft, ctrl+c asks first (TestCtrlCWithDraftAsks); a second
	// one quits.
	m.Update(press("ctrl+c"))
	_, cmd := m.Update(press("ctrl+c"))
	if !runsToQuit(cmd) {
		t.Fatal("ctrl+c did not quit from the composer")
	}
}

func TestMouseWheelScrollsTranscript(t *testing.T) {
	m := fxModel(benchChat())
	m.resize(120, 40)
	_ = m.Render()
	before := m.Render()
	m.Update(tea.MouseWheelMsg{X: m.layout.Chat.X + 5, Y: 5, Button: tea.MouseWheelUp})
	if m.chatPanel.scroll == 0 || m.Render() == before {
		t.Fatal("wheel up did not scroll the transcript")
	}
	m.Update(tea.MouseWheelMsg{X: m.layout.Chat.X + 5, Y: 5, Button: tea.MouseWheelDown})
	if m.chatPanel.scroll != 0 {
		t.Fatalf("wheel down left scroll at %d", m.chatPanel.scroll)
	}
}

func TestBackgroundColourRebuildsTheme(t *testing.T) {
	m := fxModel(fxChatState())
	m.cfg.NoColor = false
	m.Update(tea.BackgroundColorMsg{Color: lightGrey{}})
	if m.isDark || m.th.IsDark {
		t.Fatal("a light background left the dark theme in place")
	}
}

// asCmds unpacks tea.Sequence's unexported message, a slice of commands.
func asCmds(msg tea.Msg) ([]tea.Cmd, bool) {
	v := reflect.ValueOf(msg)
	if !v.IsValid() || v.Kind() != reflect.Slice || !v.Type().Elem().ConvertibleTo(reflect.TypeFor[tea.Cmd]()) {
		return nil, false
	}
	out := make([]tea.Cmd, v.Len())
	for i := range out {
		out[i], _ = v.Index(i).Convert(reflect.TypeFor[tea.Cmd]()).Interface().(tea.Cmd)
	}
	return out, true
}

type lightGrey struct{}

func (lightGrey) RGBA() (r, g, b, a uint32) { return 0xeeee, 0xeeee, 0xeeee, 0xffff }

func TestCreateAndDisposeSession(t *testing.T) {
	d := newDriver(t, nil)
	d.until("session list", func() bool { return len(d.m.sessions.list) > 0 })
	n := len(d.m.sessions.list)
	d.m.focus = focusSessions
	d.keys("n")
	if d.m.modal != modalNewSession {
		t.Fatal("n did not open the agent picker")
	}
	d.keys("enter")
	d.until("the session's settings", func() bool { return d.m.sessions.cfgStep != nil && !d.m.sessions.cfgStep.loading })
	d.keys("enter")
	d.until("new session open", func() bool {
		return len(d.m.sessions.list) == n+1 && d.m.hasSess && d.m.openSession != demohost.DemoSessionURI
	})
	created := d.m.openSession
	d.m.focus = focusSessions
	for i, s := range d.m.sessions.list {
		if s.Resource == created {
			d.m.sessions.sel = i
		}
	}
	d.keys("d")
	if d.m.modal != modalConfirmDispose {
		t.Fatal("d did not ask for confirmation")
	}
	d.keys("n")
	if d.m.modal != modalNone || len(d.m.sessions.list) != n+1 {
		t.Fatal("n did not keep the session")
	}
	d.keys("d", "y")
	d.until("session disposed", func() bool { return len(d.m.sessions.list) == n })
}

func TestReconnectShowsInStatus(t *testing.T) {
	d := newDriver(t, nil)
	d.openDemo()
	d.host.DropConnections()
	d.until("reconnecting", func() bool { return d.m.status.conn.state == views.ConnReconnecting })
	if !strings.Contains(d.m.Render(), "reconnecting") {
		t.Fatalf("status line does not say reconnecting:\n%s", d.m.Render())
	}
	d.until("ready again", func() bool { return d.m.status.conn.state == views.ConnReady })
}

func TestExpandReasoning(t *testing.T) {
	m := fxModel(fxChatState())
	m.resize(160, 60)
	m.chatPanel.scroll = 1 << 20 // show the first turn, whose reasoning is collapsed
	if strings.Contains(m.Render(), "Look for TestReconnect first.") {
		t.Fatal("reasoning is not collapsed by default")
	}
	m.Update(press("e"))
	if !m.chatPanel.expanded["r1"] {
		t.Fatal("e did not expand the latest reasoning")
	}
	m.chatPanel.scroll = 1 << 20
	if !strings.Contains(m.Render(), "Look for TestReconnect first.") {
		t.Fatalf("expanded reasoning not shown:\n%s", m.Render())
	}
}
