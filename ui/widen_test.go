package ui

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

// confirmWiden answers the confirmation on screen with yes, as a person
// does: past its first second, → onto "Yes", then enter.
func confirmWiden(d *driver) {
	d.t.Helper()
	if !strings.Contains(ansi.Strip(d.m.Render()), "Applies to:") {
		d.t.Fatalf("no confirmation on screen:\n%s", ansi.Strip(d.m.Render()))
	}
	d.skew.Add(int64(2 * answerDelay))
	d.keys("right", "enter")
}

// TestTypingHeyInNewSessionSettings: "hey" typed into the new-session
// settings step (security finding 6) leaves the approval mode at its
// default, as h stops at the first value rather than wrapping to "Allow
// all", and y does not create the session; enter creates it with the
// default.
func TestTypingHeyInNewSessionSettings(t *testing.T) {
	d := newDriver(t, nil)
	newSessionSettings(d)
	d.rec.take()
	d.typeText("hey")
	step := d.m.sessions.cfgStep
	if step == nil || d.m.modal != modalNewSession {
		t.Fatalf("typing hey left the settings step (modal %v)", d.m.modal)
	}
	p := step.props[0]
	if p.id != demohost.ConfigApprovals {
		t.Fatalf("the first setting is %s, want the approvals", p.id)
	}
	if got := p.valueIn(step.values); string(got) != `"default"` {
		t.Fatalf("typing hey set the approvals to %s, want the default", got)
	}
	d.expectSent()
	d.keys("enter")
	d.until("the new session open", func() bool {
		return d.m.hasSess && d.m.openSession != demohost.DemoSessionURI && d.m.openSession != demohost.HistorySessionURI && d.m.sess.Config != nil
	})
	if got := d.m.sess.Config.Values[demohost.ConfigApprovals]; string(got) != `"default"` {
		t.Fatalf("the session was created with approvals %s, want the default", got)
	}
}

// TestNewSessionWidenAsksFirst: → onto a broader approval mode opens a
// confirmation that names its effect and the new session; keys of its
// first second and a printable y do not confirm; esc keeps the mode, and
// only enter on "Yes" sets it.
func TestNewSessionWidenAsksFirst(t *testing.T) {
	d := newDriver(t, nil)
	newSessionSettings(d)
	d.keys("l")
	screen := ansi.Strip(d.m.Render())
	for _, want := range []string{"Allow more without asking?", "Assisted permissions", "Applies to: the new session", "No"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the confirmation lacks %q:\n%s", want, screen)
		}
	}
	value := func() string {
		s := d.m.sessions.cfgStep
		return string(s.props[0].valueIn(s.values))
	}
	d.keys("right", "enter", "y") // in its first second: dropped
	if value() != `"default"` || d.m.modal != modalWiden {
		t.Fatalf("keys of the confirmation's first second set %s (modal %v)", value(), d.m.modal)
	}
	d.skew.Add(int64(2 * answerDelay))
	d.keys("y", "enter") // y is no answer; enter on "No" keeps the mode
	if value() != `"default"` || d.m.modal != modalNewSession {
		t.Fatalf("y, enter on No set %s (modal %v)", value(), d.m.modal)
	}
	d.keys("l")
	confirmWiden(d)
	if value() != `"assisted"` || d.m.modal != modalNewSession {
		t.Fatalf("yes set %s (modal %v), want assisted back in the dialog", value(), d.m.modal)
	}
	d.keys("l")
	if s := ansi.Strip(d.m.Render()); !strings.Contains(s, "Allow all") || !strings.Contains(s, "Run every tool call without asking") {
		t.Errorf("the confirmation does not say what Allow all does:\n%s", s)
	}
	d.keys("esc")
	if value() != `"assisted"` {
		t.Fatalf("esc set %s", value())
	}
	// ← back to a narrower mode needs no confirmation.
	d.keys("h")
	if value() != `"default"` || d.m.modal != modalNewSession {
		t.Fatalf("← set %s (modal %v), want the default at once", value(), d.m.modal)
	}
}

// TestGlobalAutoApproveAsksFirst: → on the host's Global Auto Approve in
// the settings sheet sends nothing and opens a confirmation naming every
// client of the host; confirming sends root/configChanged.
func TestGlobalAutoApproveAsksFirst(t *testing.T) {
	d := newDriver(t, nil)
	d.openDemo()
	d.until("the settings", func() bool { return d.m.sess.Config != nil && d.m.root.Config != nil })
	d.keys("O")
	for range 10 {
		if strings.Contains(ansi.Strip(d.m.Render()), "▸ Global Auto Approve") {
			break
		}
		d.keys("down")
	}
	d.keys("l")
	d.expectSent()
	screen := ansi.Strip(d.m.Render())
	for _, want := range []string{"Global Auto Approve", "every client of this host, VS Code windows included", "without asking"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the confirmation lacks %q:\n%s", want, screen)
		}
	}
	confirmWiden(d)
	sent := d.expectSent("root/configChanged")
	r := sent[0].Action.Variant.(protocol.RootConfigChangedAction)
	if string(r.Config[demohost.RootConfigGlobalAutoApprove]) != "true" || len(r.Config) != 1 {
		t.Fatalf("sent %+v, want only global auto-approve on", r)
	}
	if !d.m.settings.open {
		t.Fatal("the sheet closed behind the confirmation")
	}
}

// TestBroaderOptionAsksFirst: the number of a broader approval option
// ("Allow in this Session") sends nothing until confirmed, naming this
// session.
func TestBroaderOptionAsksFirst(t *testing.T) {
	m := fxModel(optionsChat())
	clock := withStepClock(m)
	m.client.(*stubClient).accept = true
	m.chatPanel.selectDefaultItem()
	m.resize(120, 60)
	m.Update(press("1"))
	if n := len(m.client.(*stubClient).sent); n != 0 {
		t.Fatalf("1 dispatched %d actions before any confirmation", n)
	}
	screen := ansi.Strip(m.Render())
	if !strings.Contains(screen, "Allow in this Session") || !strings.Contains(screen, "Applies to: this session") {
		t.Fatalf("no confirmation naming the option and the session:\n%s", screen)
	}
	clock.skip(2 * time.Second)
	m.Update(press("right"))
	m.Update(press("enter"))
	if _, _, _, option := confirmed(t, lastSent(t, m)); option != "allow-session" {
		t.Fatalf("confirmed with option %q, want allow-session", option)
	}
}

// TestAutoApprovedCardSaysSo: a call the host ran without asking says so
// on its card, with the rule when the session has one.
func TestAutoApprovedCardSaysSo(t *testing.T) {
	tc := protocol.NewToolCallState(protocol.ToolCallCompletedState{ToolCallID: "c1", ToolName: "bash", DisplayName: "Run",
		InvocationMessage: protocol.PlainString("rm -rf build"), Success: true, PastTenseMessage: protocol.PlainString("Ran rm -rf build"),
		Confirmed: protocol.ToolCallConfirmationReasonNotNeeded})
	th := views.NewTheme(true, true)
	got := flat(ansi.Strip(views.RenderToolCard(th, tc, views.CardContext{AutoApproval: "Allow all in this session"}, 70)))
	if !strings.Contains(got, "ran without asking: Allow all in this session") {
		t.Errorf("the card of a call run under Allow all does not say so:\n%s", got)
	}
	if s := ansi.Strip(views.RenderToolCard(th, tc, views.CardContext{}, 70)); strings.Contains(s, "without asking") {
		t.Errorf("a call that needed no confirmation in a manual session claims a rule:\n%s", s)
	}
	bySetting := protocol.NewToolCallState(protocol.ToolCallCompletedState{ToolCallID: "c1", ToolName: "bash", DisplayName: "Run",
		InvocationMessage: protocol.PlainString("ls"), Success: true, PastTenseMessage: protocol.PlainString("Ran ls"),
		Confirmed: protocol.ToolCallConfirmationReasonSetting})
	if s := flat(ansi.Strip(views.RenderToolCard(th, bySetting, views.CardContext{}, 70))); !strings.Contains(s, "ran without asking") {
		t.Errorf("a call a setting confirmed does not say so:\n%s", s)
	}
}

// TestAutoApprovalFromSessionConfig: the session's settings name their
// rule for the cards only when they let more run than the default.
func TestAutoApprovalFromSessionConfig(t *testing.T) {
	s := protocol.SessionState{Config: &protocol.SessionConfigState{Schema: vscodeApprovalsSchema()}}
	if got := autoRule(s, true); got != "" {
		t.Errorf("the default approvals give rule %q, want none", got)
	}
	s.Config.Values = map[string]json.RawMessage{demohost.ConfigApprovals: rawJSON(demohost.ApprovalsAllowAll)}
	if got := autoRule(s, true); got != "Allow all in this session" {
		t.Errorf("Allow all gives rule %q", got)
	}
}

// flat joins a screen's lines with their frame and padding trimmed, so a
// sentence wrapped over rows reads whole.
func flat(screen string) string {
	var out []string
	for _, l := range strings.Split(screen, "\n") {
		out = append(out, strings.Trim(l, " │╭╮╰╯─"))
	}
	return strings.Join(out, " ")
}

// vscodeApprovalsSchema is the approval setting of VS Code's agent host
// (1.133 on), as its resolveSessionConfig sends it.
func vscodeApprovalsSchema() protocol.SessionConfigSchema {
	yes := true
	desc := "Tool approval behavior for this session"
	return protocol.SessionConfigSchema{Type: "object", Properties: map[string]protocol.SessionConfigPropertySchema{
		demohost.ConfigApprovals: {Type: "string", Title: "Approvals", Description: &desc, Default: rawJSON("default"),
			Enum:             []protocol.JSONPrimitive{{Raw: rawJSON("default")}, {Raw: rawJSON("assisted")}, {Raw: rawJSON("autoApprove")}},
			EnumLabels:       []string{"Manual permissions", "Assisted permissions", "Allow all"},
			EnumDescriptions: []string{"Asks when approval settings don't apply", "Evaluates risk before running tools", "Runs tool calls without asking"},
			SessionMutable:   &yes},
	}}
}
