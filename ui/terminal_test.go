package ui

import (
	"errors"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/keymap"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
)

const fxTerm = "agenthost-terminal://fx/call_9"

// countingScreen records every byte fed to the emulators a pane builds.
type countingScreen struct {
	vtScreen
	fed *strings.Builder
}

func (c countingScreen) Feed(s string) { c.fed.WriteString(s); c.vtScreen.Feed(s) }

// termModel is the fixture model with a tool call that runs in fxTerm,
// selected, and a stub terminal state for it.
func termModel(t *testing.T, st protocol.TerminalState) (*Model, *stubClient, *strings.Builder, *int) {
	t.Helper()
	chat := fxChatState()
	chat.Turns[0].ResponseParts = append(chat.Turns[0].ResponseParts, tcPart(protocol.ToolCallCompletedState{ToolCallID: "call_9", ToolName: "bash",
		DisplayName: "Run make", InvocationMessage: protocol.PlainString("make"), Success: true, PastTenseMessage: protocol.PlainString("Ran make"),
		Confirmed: protocol.ToolCallConfirmationReasonNotNeeded, Content: []protocol.ToolResultContent{
			protocol.NewToolResultContent(protocol.ToolResultTerminalContent{Resource: fxTerm, Title: "Run make"})}}))
	m := fxModel(chat)
	stub := m.client.(*stubClient)
	stub.accept = true
	stub.terminals = map[string]protocol.TerminalState{fxTerm: st}
	fed, builds := &strings.Builder{}, new(int)
	m.terms.newScreen = func(cols, rows int) vtScreen {
		*builds++
		s := newXVT(cols, rows, terminalScrollback)
		t.Cleanup(s.Close)
		return countingScreen{s, fed}
	}
	m.resize(100, 30)
	return m, stub, fed, builds
}

func unclassified(s string) protocol.TerminalContentPart {
	return protocol.TerminalContentPart{Variant: protocol.TerminalUnclassifiedPart{Type: "unclassified", Value: protocol.NewText(s)}}
}

func termState(claim string, parts ...protocol.TerminalContentPart) protocol.TerminalState {
	cols, rows := int64(60), int64(10)
	return protocol.TerminalState{Title: "make", Cols: &cols, Rows: &rows, Content: parts,
		Lifecycle: protocol.TerminalLifecycleState{Variant: protocol.TerminalRunningLifecycleState{}},
		Claim:     protocol.NewTerminalClaim(protocol.TerminalClientClaim{Kind: "client", ClientID: claim})}
}

// setTerm replaces the stub's terminal state and tells the model, as the
// client does when the channel's state changes.
func setTerm(m *Model, stub *stubClient, st protocol.TerminalState) {
	stub.terminals[fxTerm] = st
	m.Update(eventsMsg{[]client.Event{client.ChannelStateEvent{Channel: fxTerm}}})
}

// selectTool moves the chat's selection onto the tool call with id.
func selectTool(t *testing.T, m *Model, id string) {
	t.Helper()
	for range 30 {
		if it, ok := m.chatPanel.selectedItem(); ok && it.Kind == itemToolCall && it.Tool.ID() == id {
			return
		}
		m.Update(press("["))
	}
	t.Fatalf("could not select tool call %s", id)
}

// TestTerminalFromCardFeedsOnlyNewBytes: w on a tool call that runs in a
// terminal subscribes to it and shows its output; a snapshot that extends
// it feeds only the new bytes; terminal/cleared and a snapshot that does
// not extend what was fed rebuild the emulator; esc unsubscribes.
func TestTerminalFromCardFeedsOnlyNewBytes(t *testing.T) {
	m, stub, fed, builds := termModel(t, termState("other", unclassified("$ make\r\nbuilding alpha\r\n")))
	selectTool(t, m, "call_9")
	pressUntil(t, m, "w", "the terminal opens", func() bool { return m.terms.hasSt })
	if m.context() != keymap.ContextTerminal {
		t.Fatalf("context = %v, want terminal", m.context())
	}
	if !slices.Contains(stub.subscriptions(), "+"+fxTerm) {
		t.Fatalf("not subscribed: %v", stub.subscriptions())
	}
	screen := ansi.Strip(m.Render())
	if !strings.Contains(screen, "building alpha") || !strings.Contains(screen, "Terminal · make") {
		t.Fatalf("pane:\n%s", screen)
	}

	setTerm(m, stub, termState("other", unclassified("$ make\r\nbuilding alpha\r\nbuilding beta\r\n")))
	if got, want := fed.String(), "$ make\r\nbuilding alpha\r\nbuilding beta\r\n"; got != want || *builds != 1 {
		t.Fatalf("fed %q in %d emulators, want %q in one", got, *builds, want)
	}
	// A new part (a command) extends too.
	exit := int64(2)
	cmd := protocol.TerminalContentPart{Variant: protocol.TerminalCommandPart{Type: "command", CommandID: "c1", CommandLine: "make test",
		Output: protocol.NewText("FAIL x\r\n"), IsComplete: true, ExitCode: &exit}}
	setTerm(m, stub, termState("other", unclassified("$ make\r\nbuilding alpha\r\nbuilding beta\r\n"), cmd))
	if strings.Count(fed.String(), "building alpha") != 1 || !strings.HasSuffix(fed.String(), "FAIL x\r\n") || *builds != 1 {
		t.Fatalf("fed %q in %d emulators", fed.String(), *builds)
	}
	if screen := ansi.Strip(m.Render()); strings.Count(screen, "building alpha") != 1 {
		t.Fatalf("output shown more than once:\n%s", screen)
	}

	// terminal/cleared: the content starts again, so does the emulator.
	setTerm(m, stub, termState("other"))
	setTerm(m, stub, termState("other", unclassified("fresh\r\n")))
	if *builds < 2 || strings.Contains(ansi.Strip(m.Render()), "building alpha") {
		t.Fatalf("cleared terminal not rebuilt (%d emulators):\n%s", *builds, ansi.Strip(m.Render()))
	}
	// Same length, other bytes (a reconnect's fresh snapshot): rebuilt.
	n := *builds
	setTerm(m, stub, termState("other", unclassified("FRESH\r\n")))
	if *builds != n+1 || !strings.Contains(ansi.Strip(m.Render()), "FRESH") {
		t.Fatalf("a snapshot that does not extend what was fed was not rebuilt:\n%s", ansi.Strip(m.Render()))
	}

	// Opened from the card (w), esc goes back to the chat (issue 36
	// item 9), not to the list.
	_, leave := m.Update(press("esc"))
	if m.terms.channel != "" || m.terms.open || m.context() == keymap.ContextTerminals {
		t.Fatalf("esc: channel %q, open %v, context %v", m.terms.channel, m.terms.open, m.context())
	}
	pump(t, m, leave, "unsubscribed", func() bool { return slices.Contains(stub.subscriptions(), "-"+fxTerm) })
}

// TestTerminalInputNeedsClaimAndKey: i types only while this client holds
// the claim; another client's claim is said; keys reach the terminal as
// terminal/input only after i, and esc stops that.
func TestTerminalInputNeedsClaimAndKey(t *testing.T) {
	m, stub, _, _ := termModel(t, termState("other-client", unclassified("$ ")))
	m.root.Terminals = []protocol.TerminalInfo{{Resource: fxTerm, Title: "make",
		Claim: protocol.NewTerminalClaim(protocol.TerminalClientClaim{Kind: "client", ClientID: "other-client"})}}
	pressUntil(t, m, "T", "the list", func() bool { return m.terms.open })
	if screen := ansi.Strip(m.Render()); !strings.Contains(screen, "Terminals") || !strings.Contains(screen, fxTerm) {
		t.Fatalf("the list:\n%s", screen)
	}
	pressUntil(t, m, "enter", "the terminal opens", func() bool { return m.terms.hasSt })
	if screen := ansi.Strip(m.Render()); !strings.Contains(screen, "held by another client") {
		t.Errorf("the pane does not say who holds it:\n%s", screen)
	}
	pressUntil(t, m, "i", "the refusal", statusHas(m, "only its holder types"))
	m.Update(press("l"))
	if m.terms.input || len(stub.sent) != 0 {
		t.Fatalf("typed without the claim: input %v, sent %v", m.terms.input, stub.sent)
	}

	setTerm(m, stub, termState("stub-client", unclassified("$ ")))
	m.Update(press("l"))
	if len(stub.sent) != 0 {
		t.Fatal("a key reached the terminal before i")
	}
	m.Update(press("i"))
	if m.context() != keymap.ContextTerminalInput {
		t.Fatalf("context = %v after i", m.context())
	}
	m.Update(press("l"))
	m.Update(press("s"))
	m.Update(press("enter"))
	var typed string
	for _, a := range stub.sent {
		in, ok := a.Variant.(protocol.TerminalInputAction)
		if !ok {
			t.Fatalf("sent %T", a.Variant)
		}
		typed += in.Data
	}
	if typed != "ls\r" {
		t.Fatalf("typed %q, want ls and enter", typed)
	}
	m.Update(press("esc"))
	if m.terms.input || m.context() != keymap.ContextTerminal {
		t.Fatalf("esc did not stop typing: context %v", m.context())
	}
	// The claim moving away stops typing.
	m.Update(press("i"))
	setTerm(m, stub, termState("someone-else", unclassified("$ ")))
	if m.terms.input {
		t.Fatal("still typing after the claim moved")
	}
}

// TestTerminalCommandsAndScroll: with command detection the pane lists the
// commands with their exit codes; g goes to the top, G follows again.
func TestTerminalCommandsAndScroll(t *testing.T) {
	var out strings.Builder
	for i := range 200 {
		out.WriteString("line ")
		out.WriteString(strings.Repeat("#", i%9))
		out.WriteString("\r\n")
	}
	zero, two := int64(0), int64(2)
	st := termState("other", unclassified("first-line\r\n"),
		protocol.TerminalContentPart{Variant: protocol.TerminalCommandPart{Type: "command", CommandID: "a", CommandLine: "make build", Output: protocol.NewText(out.String()), IsComplete: true, ExitCode: &zero}},
		protocol.TerminalContentPart{Variant: protocol.TerminalCommandPart{Type: "command", CommandID: "b", CommandLine: "make test", Output: protocol.NewText("FAIL\r\nlast-line\r\n"), IsComplete: true, ExitCode: &two}})
	on := true
	st.SupportsCommandDetection = &on
	m, _, _, _ := termModel(t, st)
	pump(t, m, m.terms.openFromCard(protocol.ToolResultTerminalContent{Resource: fxTerm, Title: "make"}), "the terminal opens", func() bool { return m.terms.hasSt })
	screen := ansi.Strip(m.Render())
	for _, want := range []string{"✓ exit 0  make build", "✗ exit 2  make test", "last-line"} {
		if !strings.Contains(screen, want) {
			t.Errorf("pane lacks %q:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, "first-line") {
		t.Fatalf("the pane does not follow the output:\n%s", screen)
	}
	m.Update(press("g"))
	if screen = ansi.Strip(m.Render()); !strings.Contains(screen, "first-line") || strings.Contains(screen, "last-line") {
		t.Fatalf("g did not go to the top:\n%s", screen)
	}
	m.Update(tea.KeyPressMsg{Code: tea.KeyPgDown})
	if m.terms.firstShown() == 0 {
		t.Fatal("pgdn did not scroll")
	}
	m.Update(press("G"))
	if screen = ansi.Strip(m.Render()); !strings.Contains(screen, "last-line") || !m.terms.follow {
		t.Fatalf("G did not follow again:\n%s", screen)
	}
	// Without command detection there is no command list.
	st.SupportsCommandDetection = nil
	m.client.(*stubClient).terminals[fxTerm] = st
	m.terms.refresh(fxTerm)
	if strings.Contains(ansi.Strip(m.Render()), "✓ exit 0") {
		t.Error("commands listed without supportsCommandDetection")
	}
}

// TestTerminalBurstFedOverFrames: a burst larger than one frame's feed is
// fed over the following updates, every byte once, in order.
func TestTerminalBurstFedOverFrames(t *testing.T) {
	m, stub, fed, builds := termModel(t, termState("other", unclassified("start\r\n")))
	pump(t, m, m.terms.openFromCard(protocol.ToolResultTerminalContent{Resource: fxTerm, Title: "make"}), "the terminal opens", func() bool { return m.terms.hasSt })
	var b strings.Builder
	b.WriteString("start\r\n")
	for i := 0; b.Len() < 5*maxFeedPerFrame; i++ {
		b.WriteString("burst line ")
		b.WriteString(strings.Repeat("x", i%40))
		b.WriteString("\r\n")
	}
	b.WriteString("burst-end\r\n")
	stub.terminals[fxTerm] = termState("other", unclassified(b.String()))
	_, cmd := m.Update(eventsMsg{[]client.Event{client.ChannelStateEvent{Channel: fxTerm}}})
	if fed.Len() > len("start\r\n")+maxFeedPerFrame {
		t.Fatalf("one update fed %d bytes, over the frame's %d", fed.Len(), maxFeedPerFrame)
	}
	pump(t, m, cmd, "the burst fed", func() bool { return m.terms.unfed(stub.terminals[fxTerm].Content) == 0 })
	if fed.String() != b.String() || *builds != 1 {
		t.Fatalf("fed %d bytes in %d emulators, want the %d of the stream once", fed.Len(), *builds, b.Len())
	}
	if !strings.Contains(ansi.Strip(m.Render()), "burst-end") {
		t.Fatal("the burst's end is not shown")
	}
}

// TestTerminalSizeBounded: a host's pty size cannot make the pane
// allocate without bound; a missing one is 80×24.
func TestTerminalSizeBounded(t *testing.T) {
	huge := int64(1 << 40)
	neg := int64(-5)
	for _, tc := range []struct {
		cols, rows *int64
		c, r       int
	}{{&huge, &huge, maxTermCols, maxTermRows}, {nil, nil, 80, 24}, {&neg, &neg, 80, 24}} {
		if c, r := termSize(protocol.TerminalState{Cols: tc.cols, Rows: tc.rows}); c != tc.c || r != tc.r {
			t.Errorf("termSize = %dx%d, want %dx%d", c, r, tc.c, tc.r)
		}
	}
}

// TestTerminalWheelScrolls: the wheel scrolls the open pane, not the chat
// behind it, and scrolling back to the end follows again.
func TestTerminalWheelScrolls(t *testing.T) {
	var out strings.Builder
	for i := range 100 {
		out.WriteString("row " + strings.Repeat("=", i%5) + "\r\n")
	}
	m, _, _, _ := termModel(t, termState("other", unclassified(out.String())))
	pump(t, m, m.terms.openFromCard(protocol.ToolResultTerminalContent{Resource: fxTerm, Title: "make"}), "the terminal opens", func() bool { return m.terms.hasSt })
	chatScroll := m.chatPanel.scroll
	end := m.terms.firstShown()
	m.Update(tea.MouseWheelMsg{Button: tea.MouseWheelUp})
	if m.terms.follow || m.terms.firstShown() != end-3 || m.chatPanel.scroll != chatScroll {
		t.Fatalf("wheel up: follow %v, first %d (was %d), chat scroll %d", m.terms.follow, m.terms.firstShown(), end, m.chatPanel.scroll)
	}
	m.Update(tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	if !m.terms.follow {
		t.Fatal("wheel down to the end does not follow again")
	}
}

// TestTerminalGoneShowsKeptOutput: VS Code's host refuses to subscribe
// to a shell call's terminal once its command has run ("No agent for
// session: agenthost-terminal://…"). The card's terminal content kept
// the output's preview and the exit code: the pane shows those, says
// what they are, and closing it unsubscribes nothing. Without a preview
// the refusal is an error, as before.
func TestTerminalGoneShowsKeptOutput(t *testing.T) {
	m, stub, _, _ := termModel(t, termState("other"))
	stub.refuse = map[string]error{fxTerm: errors.New("No agent for session: " + fxTerm)}
	preview, code := "echo-mcp.js\nhello.txt\n", int64(0)
	ref := protocol.ToolResultTerminalContent{Resource: fxTerm, Title: "Run Shell Command",
		Result: &protocol.TerminalCommandResult{ExitCode: &code, Preview: &preview}}
	pump(t, m, m.terms.openFromCard(ref), "the kept output shows", func() bool { return m.terms.hasSt })
	screen := ansi.Strip(m.Render())
	for _, want := range []string{"echo-mcp.js", "hello.txt", "exited 0", "the output its tool call kept"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the pane lacks %q:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, "claim unknown") {
		t.Errorf("the kept output speaks of a claim:\n%s", screen)
	}
	if strings.Contains(screen, "could not open") {
		t.Errorf("a kept output is reported as an error:\n%s", screen)
	}
	stub.mu.Lock()
	before := len(stub.subs)
	stub.mu.Unlock()
	runAll(m, m.terms.leave())
	stub.mu.Lock()
	after := stub.subs[before:]
	stub.mu.Unlock()
	if len(after) != 0 {
		t.Errorf("leaving a kept output sent %v, want nothing (never subscribed)", after)
	}

	// No preview: the refusal is said.
	ref.Result = nil
	pump(t, m, m.terms.openFromCard(ref), "the refusal is said", func() bool {
		return strings.Contains(m.status.text, "could not open the terminal")
	})
}

// TestTerminalsListsToolCallTerminals (issue 36 item 9): a host that
// lists no terminals (VS Code's) still ran the chat's shell calls in
// some; T lists them, enter opens one, and esc goes back to the list.
func TestTerminalsListsToolCallTerminals(t *testing.T) {
	m, stub, _, _ := termModel(t, termState("other", unclassified("$ make\r\nbuilding alpha\r\n")))
	m.root.Terminals = nil
	m.Update(press("T"))
	if !m.terms.open {
		t.Fatal("T did not open the terminals list")
	}
	screen := ansi.Strip(m.Render())
	if strings.Contains(screen, "lists no terminals") || !strings.Contains(screen, "Run make") {
		t.Fatalf("the list does not show the tool call's terminal:\n%s", screen)
	}
	pressUntil(t, m, "enter", "the terminal opens", func() bool { return m.terms.hasSt })
	if !slices.Contains(stub.subscriptions(), "+"+fxTerm) {
		t.Fatalf("not subscribed: %v", stub.subscriptions())
	}
	m.Update(press("esc"))
	if !m.terms.open || m.terms.channel != "" || m.context() != keymap.ContextTerminals {
		t.Fatalf("esc from a pane opened from the list: open %v, channel %q, context %v", m.terms.open, m.terms.channel, m.context())
	}
}

// TestTerminalLeftKeepsNoOutput: a pane left (or its terminal dropped)
// holds nothing of the terminal it showed: a finished build's megabytes
// stayed reachable from the pane until another terminal was opened
// (issue 33's long day).
func TestTerminalLeftKeepsNoOutput(t *testing.T) {
	for _, how := range []string{"leave", "dropped"} {
		m, _, _, _ := termModel(t, termState("other", unclassified(strings.Repeat("build output\r\n", 1000))))
		pump(t, m, m.terms.openFromCard(protocol.ToolResultTerminalContent{Resource: fxTerm, Title: "make"}), "the terminal opens", func() bool { return m.terms.hasSt })
		if how == "leave" {
			m.terms.leave()
		} else {
			m.terms.dropped(fxTerm, "gone")
		}
		if n := len(m.terms.st.Content); n != 0 || m.terms.st.Title != "" {
			t.Errorf("%s: the pane still holds the terminal's state (%d parts, title %q)", how, n, m.terms.st.Title)
		}
	}
}
