package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/authpkce"
	"github.com/ahptui/ahptui/keymap"
	"github.com/ahptui/ahptui/protocol"
)

// askingFake is a saved sign-in elsewhere for fxGitHub: Lookup asks
// before it goes to this host (authpkce.DecisionAsk).
func askingFake() *answerRecorder {
	return &answerRecorder{fakeSaved: fakeSaved{matches: map[string]authpkce.Match{fxGitHub: {Decision: authpkce.DecisionAsk,
		Token: authpkce.CachedToken{Host: "wss://elsewhere:443", AccessToken: "gh-elsewhere", Scopes: []string{"mcp:read"}}}}}}
}

// terminalTyped is what reached the terminal as terminal/input.
func terminalTyped(t *testing.T, stub *stubClient) string {
	t.Helper()
	var typed string
	for _, a := range stub.sent {
		if in, ok := a.Variant.(protocol.TerminalInputAction); ok {
			typed += in.Data
		}
	}
	return typed
}

// TestTypingInTerminalNeverAnswersATrustQuestion: the user types
// "yarn install" into a terminal this client holds; the host advertises a
// saved grant's resource halfway. The y (and everything after it) goes to
// the terminal, however slowly it is typed: the question waits behind the
// pane's input, the pane says how to reach it, and only after esc is it
// drawn — with its first second's keys dropped.
func TestTypingInTerminalNeverAnswersATrustQuestion(t *testing.T) {
	m, stub, _, _ := termModel(t, termState("stub-client", unclassified("$ ")))
	m.resize(80, 24) // the pane's header says it within 80 columns
	m.root.Terminals = []protocol.TerminalInfo{{Resource: fxTerm, Title: "make",
		Claim: protocol.NewTerminalClaim(protocol.TerminalClientClaim{Kind: "client", ClientID: "stub-client"})}}
	clock := withStepClock(m)
	fake := askingFake()
	m.cfg.Auth = fake
	rec := &authRecorder{stubClient: stub}
	m.client = rec

	pressUntil(t, m, "T", "the list", func() bool { return m.terms.open })
	pressUntil(t, m, "enter", "the terminal opens", func() bool { return m.terms.hasSt })
	m.Update(press("i"))
	if !m.terms.input {
		t.Fatal("i did not start typing into the terminal")
	}
	typeInto(m, "ya")
	runAll(m, m.signin.pushSavedTokens())
	if _, ok := m.signin.pendingAsk(); !ok {
		t.Fatal("the host's advertisement raised no question")
	}
	for _, r := range "rn install" {
		clock.skip(2 * time.Second) // slower than any guard
		m.Update(press(string(r)))
	}
	m.Update(press("y"))
	m.Update(press("enter"))
	if len(rec.pushed) != 0 || len(fake.answers) != 0 {
		t.Fatalf("typing into the terminal answered the question: pushed %v, answers stored %v", rec.pushed, fake.answers)
	}
	if !m.typing() {
		t.Fatal("typing() is false while the terminal takes typed keys")
	}
	if got := terminalTyped(t, stub); got != "yarn instally\r" {
		t.Fatalf("the terminal got %q, want every typed key", got)
	}
	if askOnScreen(m, "Use a saved sign-in?") {
		t.Fatalf("the question is drawn over the terminal that has the keys:\n%s", ansi.Strip(m.Render()))
	}
	// The pane covers the status line: it says itself how to reach it.
	if screen := ansi.Strip(m.Render()); !strings.Contains(screen, "a question waits: esc to see it") {
		t.Fatalf("the pane does not say a question waits:\n%s", screen)
	}
	if w := m.questionWaits(); !strings.Contains(w, "stop typing into the terminal") {
		t.Fatalf("questionWaits = %q", w)
	}

	m.Update(press("esc"))
	if m.terms.input {
		t.Fatal("esc did not stop typing")
	}
	if !askOnScreen(m, "Use a saved sign-in?") {
		t.Fatalf("the question is not drawn once typing stopped:\n%s", ansi.Strip(m.Render()))
	}
	m.Update(press("y"))
	if len(rec.pushed) != 0 || len(fake.answers) != 0 {
		t.Fatalf("a y in the question's first second answered it: pushed %v, answers %v", rec.pushed, fake.answers)
	}
	clock.skip(2 * time.Second)
	_, cmd := m.Update(press("n"))
	runAll(m, cmd)
	if len(rec.pushed) != 0 || len(fake.answers) != 1 || !strings.HasSuffix(fake.answers[0], "|deny") {
		t.Fatalf("a deliberate n: pushed %v, answers %v", rec.pushed, fake.answers)
	}
}

// TestTypingAgentTokenNeverAnswersATrustQuestion: the agent token field
// (t) is a text field like the composer: a question raised while it is
// open waits, and a y typed into the token is the token's.
func TestTypingAgentTokenNeverAnswersATrustQuestion(t *testing.T) {
	m := fxModel(fxChatState())
	m.resize(120, 40)
	clock := withStepClock(m)
	fake := askingFake()
	m.cfg.Auth = fake
	rec := &authRecorder{stubClient: m.client.(*stubClient)}
	m.client = rec

	runAll(m, m.signin.openToken("https://agent.example/api", true))
	typeInto(m, "ghp_")
	runAll(m, m.signin.pushSavedTokens())
	if _, ok := m.signin.pendingAsk(); !ok {
		t.Fatal("the host's advertisement raised no question")
	}
	clock.skip(2 * time.Second)
	m.Update(press("y"))
	clock.skip(2 * time.Second)
	m.Update(press("y"))
	if len(rec.pushed) != 0 || len(fake.answers) != 0 {
		t.Fatalf("typing the token answered the question: pushed %v, answers stored %v", rec.pushed, fake.answers)
	}
	if got := m.signin.agent.token.in.Value(); got != "ghp_yy" {
		t.Fatalf("the token field holds %q, want ghp_yy", got)
	}
	if sb := statusBar(m); !strings.Contains(sb, "a question waits") {
		t.Fatalf("the status line does not say a question waits: %q", sb)
	}
}

// TestEveryTextFieldHoldsQuestions enumerates the key targets: every one
// that declares itself a text field (keyTarget.textField) has a scenario
// here, in which the router gives it the keys, typing() is true, keymap
// agrees its context takes text, and a y typed there answers no question
// the host raised. Each text context keymap knows is reached by one of
// them, so a field added later fails here until it is routed as one.
func TestEveryTextFieldHoldsQuestions(t *testing.T) {
	scenarios := map[keyTarget]func(t *testing.T) *Model{
		toComposer: func(t *testing.T) *Model {
			m := fxModel(fxChatState())
			pressUntil(t, m, "i", "the composer", func() bool { return m.focus == focusComposer })
			return m
		},
		toForm: func(t *testing.T) *Model {
			m := fxModel(fxChatState())
			m.form = newInputForm(fxChat, protocol.ChatInputRequest{ID: "in1", Message: ptr("Which env?")}, m.keys.Input)
			m.modal = modalInput
			return m
		},
		toTerminalInput: func(t *testing.T) *Model {
			m, _, _, _ := termModel(t, termState("stub-client", unclassified("$ ")))
			m.root.Terminals = []protocol.TerminalInfo{{Resource: fxTerm, Title: "make"}}
			pressUntil(t, m, "T", "the list", func() bool { return m.terms.open })
			pressUntil(t, m, "enter", "the terminal opens", func() bool { return m.terms.hasSt })
			m.Update(press("i"))
			return m
		},
		toToken: func(t *testing.T) *Model {
			m := fxModel(fxChatState())
			runAll(m, m.signin.openToken("https://agent.example/api", true))
			return m
		},
		toPaste: func(t *testing.T) *Model {
			m := fxModel(fxChatState())
			m.signin.grants[fxDeploy] = &grantFlow{resource: fxDeploy, phase: grantWaiting, url: "https://auth.example/authorize"}
			m.signin.paste = newPasteField(fxDeploy)
			return m
		},
	}
	covered := map[keymap.Context]bool{}
	for to := keyTarget(0); to < numTargets; to++ {
		if !to.textField() {
			continue
		}
		open, ok := scenarios[to]
		if !ok {
			t.Errorf("key target %d is a text field and has no scenario here: add one", to)
			continue
		}
		t.Run(fmt.Sprint(to), func(t *testing.T) {
			m := open(t)
			m.resize(120, 40)
			clock := withStepClock(m)
			fake := askingFake()
			m.cfg.Auth = fake
			rec := &authRecorder{stubClient: m.client.(*stubClient)}
			m.client = rec
			r := m.target()
			if r.to != to {
				t.Fatalf("the keys go to target %d, want %d", r.to, to)
			}
			if !r.ctx.TextEntry() {
				t.Fatalf("keymap says %v takes no text, the router says it does", r.ctx)
			}
			covered[r.ctx] = true
			runAll(m, m.signin.pushSavedTokens())
			if _, ok := m.signin.pendingAsk(); !ok {
				t.Fatal("the host's advertisement raised no question")
			}
			if !m.typing() || m.askShown() {
				t.Fatalf("typing() = %v, askShown() = %v with a text field open", m.typing(), m.askShown())
			}
			if m.target().to != to {
				t.Fatalf("the question took the keys: target %d", m.target().to)
			}
			if w := m.questionWaits(); !strings.HasPrefix(w, "a question waits: press ") {
				t.Fatalf("questionWaits = %q: it does not say how to leave the field", w)
			}
			clock.skip(2 * time.Second)
			_, cmd := m.Update(press("y"))
			runAll(m, cmd)
			if len(rec.pushed) != 0 || len(fake.answers) != 0 {
				t.Fatalf("a y typed into the field answered the question: pushed %v, answers %v", rec.pushed, fake.answers)
			}
		})
	}
	for _, ctx := range keymap.Contexts {
		if ctx.TextEntry() && !covered[ctx] {
			t.Errorf("keymap's text context %v is reached by no text field target", ctx)
		}
	}
}

// TestTypingInTerminalNeverApprovesANewCard: an approval card the host
// raises while the user types into a terminal is selected in the chat
// under the pane, but gets none of the typed keys: they all go to the
// terminal (the card's keys are reached only through the chat target,
// never a text field).
func TestTypingInTerminalNeverApprovesANewCard(t *testing.T) {
	m, stub, _, _ := termModel(t, termState("stub-client", unclassified("$ ")))
	m.root.Terminals = []protocol.TerminalInfo{{Resource: fxTerm, Title: "make"}}
	withCard := stub.chats[fxChat]
	calm := withCard
	at := *calm.ActiveTurn
	at.ResponseParts = at.ResponseParts[:1]
	calm.ActiveTurn = &at
	stub.chats[fxChat] = calm
	m.refreshChannel(fxChat)
	m.focus, m.chatPanel.sel = focusChat, chatSel{}
	clock := withStepClock(m)

	pressUntil(t, m, "T", "the list", func() bool { return m.terms.open })
	pressUntil(t, m, "enter", "the terminal opens", func() bool { return m.terms.hasSt })
	m.Update(press("i"))
	typeInto(m, "ls")
	stub.chats[fxChat] = withCard // tc4 now waits for approval
	m.refreshChannel(fxChat)
	if m.chatPanel.sel.item != "tc4" {
		t.Fatalf("selection %q: the new card was not brought within reach", m.chatPanel.sel.item)
	}
	for _, r := range "yarn" {
		clock.skip(2 * time.Second)
		m.Update(press(string(r)))
	}
	for _, a := range stub.sent {
		if _, ok := a.Variant.(protocol.TerminalInputAction); !ok {
			t.Fatalf("typing into the terminal dispatched %T", a.Variant)
		}
	}
	if got := terminalTyped(t, stub); got != "lsyarn" {
		t.Fatalf("the terminal got %q", got)
	}
}

// TestPasteGoesWhereKeysGo: a bracketed paste follows the key route. Into
// a terminal being typed into it is the terminal's (line breaks as enter),
// not the composer's hidden under the pane; with a question on screen it
// answers nothing and lands nowhere.
func TestPasteGoesWhereKeysGo(t *testing.T) {
	m, stub, _, _ := termModel(t, termState("stub-client", unclassified("$ ")))
	m.root.Terminals = []protocol.TerminalInfo{{Resource: fxTerm, Title: "make"}}
	clock := withStepClock(m)
	fake := askingFake()
	m.cfg.Auth = fake
	rec := &authRecorder{stubClient: stub}
	m.client = rec
	pressUntil(t, m, "i", "the composer", func() bool { return m.focus == focusComposer })
	m.Update(press("esc"))
	pressUntil(t, m, "T", "the list", func() bool { return m.terms.open })
	m.focus = focusComposer // where the keys were before the pane
	pressUntil(t, m, "enter", "the terminal opens", func() bool { return m.terms.hasSt })
	m.Update(press("i"))
	runAll(m, m.signin.pushSavedTokens())
	clock.skip(2 * time.Second)
	m.Update(tea.PasteMsg{Content: "yarn install\n"})
	if got := terminalTyped(t, stub); got != "yarn install\r" {
		t.Fatalf("the terminal got %q, want the paste", got)
	}
	if v := m.chatPanel.composer.Value(); v != "" {
		t.Fatalf("the composer under the pane took the paste: %q", v)
	}
	m.Update(press("esc")) // stop typing: the question shows
	clock.skip(2 * time.Second)
	m.Update(tea.PasteMsg{Content: "y"})
	if len(rec.pushed) != 0 || len(fake.answers) != 0 {
		t.Fatalf("a paste answered the question: pushed %v, answers %v", rec.pushed, fake.answers)
	}
	if v := m.chatPanel.composer.Value(); v != "" || terminalTyped(t, stub) != "yarn install\r" {
		t.Fatalf("a paste over the question landed: composer %q, terminal %q", v, terminalTyped(t, stub))
	}
}
