package ui

import (
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
)

var goldenSizes = []struct {
	name string
	w, h int
}{{"60", 60, 32}, {"100", 100, 36}, {"160", 160, 40}}

// screen runs m as a real Bubble Tea program (teatest) at w×h, sends msgs,
// quits, and returns the final model's whole screen.
func screen(t *testing.T, m *Model, w, h int, msgs ...tea.Msg) string {
	t.Helper()
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(w, h))
	for _, msg := range msgs {
		tm.Send(msg)
	}
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	// The program ends at once after Quit; the timeout only bounds a hung
	// one, so it is generous: 5 s was within reach of a -race test binary
	// on a 2-core machine at load averages of 30 and more.
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(30*time.Second)).(*Model)
	out := fm.Render()
	if got := strings.Count(out, "\n") + 1; got != h {
		t.Errorf("screen has %d lines, want %d", got, h)
	}
	for i, l := range strings.Split(out, "\n") {
		if lw := ansi.StringWidth(l); lw != w {
			t.Errorf("line %d is %d cells wide, want %d: %q", i, lw, w, ansi.Strip(l))
		}
	}
	return out
}

// sgr matches the attribute-only escape sequences our own NO_COLOR theme
// emits (bold, reverse, …). Anything else in a NO_COLOR screen came from
// somewhere it must not.
var sgr = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

// ownLink matches the hyperlinks (OSC 8) the app draws around a sign-in
// URL's rows, and their reset; views.SignInLink decides which URL may be
// one (TestSignInURLIsHyperlink), so only the id is checked here.
var ownLink = regexp.MustCompile("\x1b\\]8;(id=ahptui-[0-9a-z]+;https?://[!-~]+)?;?\x07")

func checkGolden(t *testing.T, build func() *Model, msgs ...tea.Msg) {
	for _, sz := range goldenSizes {
		t.Run(sz.name, func(t *testing.T) {
			out := screen(t, build(), sz.w, sz.h, msgs...)
			if rest := ownLink.ReplaceAllString(sgr.ReplaceAllString(out, ""), ""); strings.ContainsAny(rest, "\x1b\u009b") {
				t.Errorf("screen has escape sequences besides SGR attributes: %q", rest)
			}
			golden.RequireEqual(t, ansi.Strip(out))
		})
	}
}

func TestGoldenMCPPanel(t *testing.T) {
	checkGolden(t, func() *Model {
		m := fxModel(fxChatState())
		m.focus = focusMCP
		m.mcp.sel = 3 // Flaky: its error shows under it
		return m
	})
}

func TestGoldenChatCards(t *testing.T) {
	checkGolden(t, func() *Model {
		m := fxModel(fxChatState())
		m.chatPanel.sel.item = "tc4"
		return m
	})
}

func TestGoldenGrantPrompt(t *testing.T) {
	for _, tc := range []struct {
		name string
		flow *grantFlow
	}{
		{"before", nil},
		{"during", &grantFlow{resource: fxDeploy, phase: grantWaiting, browserErr: errors.New("--no-browser"),
			requirement: toRequirement(protocol.McpAuthRequirement{Resource: fxResource(fxDeploy, "Deploy MCP server")}),
			url:         "http://127.0.0.1:4001/authorize?client_id=ahptui-demo&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256&redirect_uri=http%3A%2F%2F127.0.0.1%3A40123%2Fcallback&resource=http%3A%2F%2F127.0.0.1%3A4000%2Fmcp%2Fdeploy&response_type=code&scope=tools%3Adeploy&state=QWERTYUIOPASDFGH"}},
		{"after", &grantFlow{resource: fxDeploy, phase: grantDone}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkGolden(t, func() *Model {
				m := fxModel(fxChatState(fxAuthPart()))
				m.chatPanel.sel.item = "tc5"
				if tc.flow != nil {
					f := *tc.flow
					m.signin.grants[fxDeploy] = &f
					m.signin.noteChallenges(&f) // the flow was for this card
				}
				return m
			})
		})
	}
}

func TestGoldenStatusReconnecting(t *testing.T) {
	checkGolden(t, func() *Model { return fxModel(fxChatState()) },
		eventMsg{client.ConnectionEvent{Status: client.StatusReconnecting, Attempt: 3,
			Cause: errors.New("read tcp 127.0.0.1:4000: connection reset by peer")}})
}

// hostile is a tool name and invocation that try every trick a host could
// play on a terminal: clear screen, cursor moves, OSC 52 clipboard writes,
// OSC 8 hyperlinks, 8-bit CSI, title changes, DCS, bidi reordering.
const hostile = "evil\x1b[2J\x1b[H\x1b]52;c;cm0gLXJmIH4=\x07\x1b]8;;http://evil.invalid\x07click\x1b]8;;\x07\u009b31mred\x1b]0;pwned\x07\x1bP1$qm\x1b\\\u202eexe.txt\r\x1b[31m"

func TestGoldenHostileToolName(t *testing.T) {
	checkGolden(t, func() *Model {
		chat := fxChatState(tcPart(protocol.ToolCallRunningState{ToolCallID: "tc-evil", ToolName: hostile, DisplayName: hostile,
			InvocationMessage: protocol.PlainString(hostile), Confirmed: protocol.ToolCallConfirmationReasonNotNeeded}))
		chat.Title = hostile
		m := fxModel(chat)
		m.chatPanel.sel.item = "tc-evil"
		m.sess.Title = hostile
		m.sessions.list[0].Title = hostile
		m.status.text = hostile
		return m
	})
}

// At 60×20 and 80×24 the MCP panel is a short strip under the chat; it
// must still show every server's state (it once showed a single name).
func TestGoldenMCPPanelSmall(t *testing.T) {
	for _, sz := range []struct {
		name string
		w, h int
	}{{"60x20", 60, 20}, {"80x24", 80, 24}} {
		t.Run(sz.name, func(t *testing.T) {
			m := fxModel(fxChatState())
			m.focus = focusMCP
			m.mcp.sel = 3
			out := ansi.Strip(screen(t, m, sz.w, sz.h))
			for _, r := range mcpRows(m.sess) {
				b := m.th.McpBadge(r.StateKind, "")
				if !strings.Contains(out, r.Name+" "+b.Glyph) {
					t.Errorf("%s and its state are not on screen:\n%s", r.Name, out)
				}
			}
			golden.RequireEqual(t, out)
		})
	}
}

// allStatesChat is the fixture chat with a card in every tool-call state:
// completed and cancelled in the finished turn; streaming, pending
// confirmation, running, pending result confirmation and auth-required in
// the running one.
func allStatesChat() protocol.ChatState {
	return fxChatState(
		tcPart(protocol.ToolCallStreamingState{ToolCallID: "tc-s", ToolName: "grep", DisplayName: "Search code",
			PartialInput: ptr(`{"pattern": "Reconn`), InvocationMessage: ptr(protocol.PlainString("Searching the code"))}),
		tcPart(protocol.ToolCallRunningState{ToolCallID: "tc-r", ToolName: "run_tests", DisplayName: "Run tests",
			Contributor: mcpBy("fs"), InvocationMessage: protocol.PlainString("Running go test ./..."),
			Confirmed: protocol.ToolCallConfirmationReasonNotNeeded}),
		tcPart(protocol.ToolCallPendingResultConfirmationState{ToolCallID: "tc-p", ToolName: "read_env", DisplayName: "Read env",
			InvocationMessage: protocol.PlainString("Read .env"), Success: true,
			PastTenseMessage: protocol.PlainString("Read 3 variables"), Confirmed: protocol.ToolCallConfirmationReasonNotNeeded}),
		fxAuthPart(),
	)
}

// One teatest golden shows a card in each of the seven tool-call states, at
// each width; the screen is tall enough for every card, and the test names
// the states it must find so a golden that lost one cannot pass.
func TestGoldenAllToolCallStates(t *testing.T) {
	for _, sz := range []struct {
		name string
		w, h int
	}{{"60", 60, 100}, {"100", 100, 86}, {"160", 160, 78}} {
		t.Run(sz.name, func(t *testing.T) {
			m := fxModel(allStatesChat())
			m.chatPanel.sel.item = "tc-p"
			out := ansi.Strip(screen(t, m, sz.w, sz.h))
			for _, want := range []string{"Search files", "Delete build cache", "Search code", "Write file", "Run tests", "Read env", "Deploy"} {
				if !strings.Contains(out, want) {
					t.Errorf("the %s card is not on screen", want)
				}
			}
			golden.RequireEqual(t, out)
		})
	}
}
