package ui

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
)

// selectConfigRow moves the dialog's settings cursor onto the property id.
func selectConfigRow(d *driver, id string) {
	d.t.Helper()
	i := slices.IndexFunc(d.m.sessions.cfgStep.props, func(p configProp) bool { return p.id == id })
	if i < 0 {
		d.t.Fatalf("the dialog has no setting %s", id)
	}
	for d.m.sessions.cfgStep.sel < i {
		d.keys("down")
	}
}

// newSessionCreated presses enter on the dialog's settings and waits for
// the new session's config.
func newSessionCreated(d *driver) *protocol.SessionConfigState {
	d.t.Helper()
	d.keys("enter")
	d.until("the new session open", func() bool {
		return d.m.hasSess && d.m.openSession != demohost.DemoSessionURI && d.m.openSession != demohost.HistorySessionURI &&
			d.m.sess.Config != nil
	})
	return d.m.sess.Config
}

// TestSettingNumberInDialog: e on a number setting opens the input form;
// what is not a number stays in the form with the reason; a number goes
// back to the dialog and into createSession's config. e on a readOnly
// setting opens nothing (issue 26).
func TestSettingNumberInDialog(t *testing.T) {
	d := newDriver(t, nil)
	newSessionSettings(d)
	selectConfigRow(d, demohost.ConfigBranch)
	d.keys("e")
	if d.m.modal != modalNewSession || d.m.form != nil {
		t.Fatalf("e on a readOnly setting opened the form (modal %v)", d.m.modal)
	}
	selectConfigRow(d, demohost.ConfigMaxToolCalls)
	if !strings.Contains(d.m.Render(), "e to edit") {
		t.Errorf("the selected number setting does not say e edits it:\n%s", d.m.Render())
	}
	d.keys("e")
	if d.m.modal != modalInput || d.m.form == nil || d.m.form.setting == nil {
		t.Fatalf("e did not open the form on the number (modal %v)", d.m.modal)
	}
	screen := ansi.Strip(d.m.Render())
	if strings.Contains(screen, "answer later") || strings.Contains(screen, "decline") {
		t.Errorf("the setting's form offers to answer later or decline:\n%s", screen)
	}
	for _, want := range []string{"Change a setting", "Max tool calls", "20", "esc cancel"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the form does not show %q:\n%s", want, screen)
		}
	}
	d.keys("ctrl+u")
	d.typeText("lots")
	d.keys("ctrl+s")
	if d.m.modal != modalInput || !strings.Contains(d.m.form.state.Error, "wants a number") {
		t.Fatalf("a word was taken for a number (modal %v, error %q)", d.m.modal, d.m.form.state.Error)
	}
	d.keys("ctrl+u")
	d.typeText("7")
	d.keys("ctrl+s")
	if d.m.modal != modalNewSession || d.m.sessions.cfgStep == nil {
		t.Fatalf("submitting did not go back to the dialog (modal %v)", d.m.modal)
	}
	if !strings.Contains(d.m.Render(), "Max tool calls: 7") {
		t.Fatalf("the dialog does not show the new value:\n%s", d.m.Render())
	}
	cfg := newSessionCreated(d)
	if got := string(cfg.Values[demohost.ConfigMaxToolCalls]); got != "7" {
		t.Fatalf("the session was created with max tool calls %s, want 7", got)
	}
}

// TestSettingTextAndNumberInSheet: in the settings sheet, e edits the
// host's text setting (root/configChanged) and the session's number
// (session/configChanged); esc in the form sends nothing (issue 26).
func TestSettingTextAndNumberInSheet(t *testing.T) {
	d := newDriver(t, nil)
	d.openDemo()
	d.until("the settings", func() bool { return d.m.sess.Config != nil && d.m.root.Config != nil })
	d.keys("O")
	session, _ := d.m.settings.rows()
	at := func(id string) int {
		for i, r := range session {
			if r.prop.id == id {
				return i
			}
		}
		t.Fatalf("the sheet has no session setting %s", id)
		return 0
	}
	for d.m.settings.sel < at(demohost.ConfigMaxToolCalls) {
		d.keys("down")
	}
	d.keys("e")
	if d.m.modal != modalInput || d.m.form == nil {
		t.Fatal("e did not open the form on the number")
	}
	d.keys("ctrl+u")
	d.typeText("5")
	d.keys("esc")
	if d.m.modal != modalNone || !d.m.settings.open {
		t.Fatalf("esc did not go back to the sheet (modal %v, sheet open %v)", d.m.modal, d.m.settings.open)
	}
	d.expectSent()
	d.keys("e", "ctrl+u")
	d.typeText("5")
	d.keys("ctrl+s")
	sent := d.expectSent("session/configChanged")
	a := sent[0].Action.Variant.(protocol.SessionConfigChangedAction)
	if string(a.Config[demohost.ConfigMaxToolCalls]) != "5" || len(a.Config) != 1 {
		t.Fatalf("sent %+v, want max tool calls 5", a)
	}
	d.untilConfirmed(sent[0].ClientSeq, func() bool { return true })
	if got := string(d.m.sess.Config.Values[demohost.ConfigMaxToolCalls]); got != "5" {
		t.Fatalf("the host kept max tool calls %s", got)
	}
	// The host's proxy: after the session's settings and the host's
	// global auto-approve.
	d.keys("down", "down")
	d.keys("e")
	if d.m.form == nil || d.m.form.setting.prop.id != demohost.RootConfigProxy {
		t.Fatalf("e did not open the form on the proxy (form %+v)", d.m.form)
	}
	d.typeText("http://proxy.example:3128")
	d.keys("ctrl+s")
	// A host setting reaches every client of the host: it asks first.
	d.expectSent()
	confirmWiden(d)
	sent = d.expectSent("root/configChanged")
	r := sent[0].Action.Variant.(protocol.RootConfigChangedAction)
	if sent[0].Channel != protocol.RootChannel || string(r.Config[demohost.RootConfigProxy]) != `"http://proxy.example:3128"` {
		t.Fatalf("sent %s %+v, want the proxy set on the root", sent[0].Channel, r)
	}
	d.untilConfirmed(sent[0].ClientSeq, func() bool { return true })
	if !strings.Contains(d.m.Render(), "Proxy: http://proxy.example:3128") {
		t.Fatalf("the sheet does not show the host's new proxy:\n%s", d.m.Render())
	}
}

// TestSettingCompletions: a setting the schema marks enumDynamic is
// edited in the form, whose choices are the host's completions for what
// is typed (sessionConfigCompletions); the pick goes in createSession's
// config (issue 26).
func TestSettingCompletions(t *testing.T) {
	d := newDriver(t, nil)
	newSessionSettings(d)
	selectConfigRow(d, demohost.ConfigBaseBranch)
	d.keys("right")
	if d.m.modal != modalNewSession {
		t.Fatal("→ on a completed setting left the dialog")
	}
	d.keys("e")
	options := func() []string {
		if d.m.form == nil {
			return nil
		}
		var out []string
		for _, o := range questionOptions(d.m.form.request.Questions[0]) {
			out = append(out, o.ID)
		}
		return out
	}
	// The seeds list only main; the host lists every branch.
	d.until("the host's values", func() bool { return slices.Contains(options(), "develop") })
	d.typeText("rel")
	d.until("the values matching rel", func() bool {
		o := options()
		return len(o) == 2 && o[0] == "release/1.0" && o[1] == "release/1.1"
	})
	if screen := d.m.Render(); !strings.Contains(screen, "release/1.1") || strings.Contains(screen, "develop") {
		t.Fatalf("the form does not show the matching values only:\n%s", screen)
	}
	d.keys("down", "enter", "ctrl+s")
	if d.m.modal != modalNewSession {
		t.Fatalf("submitting did not go back to the dialog (modal %v, error %q)", d.m.modal, d.m.form.state.Error)
	}
	cfg := newSessionCreated(d)
	if got := string(cfg.Values[demohost.ConfigBaseBranch]); got != `"release/1.1"` {
		t.Fatalf("the session was created with base branch %s, want release/1.1", got)
	}
}

// TestCompletionsAskOncePerPause: a word typed fast is one query to the
// host, for the whole word, not one for each key.
func TestCompletionsAskOncePerPause(t *testing.T) {
	d := newDriver(t, nil)
	newSessionSettings(d)
	selectConfigRow(d, demohost.ConfigBaseBranch)
	d.keys("e")
	queries := func() []string {
		d.rec.mu.Lock()
		defer d.rec.mu.Unlock()
		return slices.Clone(d.rec.queries)
	}
	d.until("the first query", func() bool { return len(queries()) == 1 })
	d.typeText("rel")
	d.until("the values matching rel", func() bool {
		return d.m.form != nil && len(questionOptions(d.m.form.request.Questions[0])) == 2
	})
	if q := queries(); !slices.Equal(q, []string{"", "rel"}) {
		t.Fatalf("the host was asked %q, want the opening query and rel", q)
	}
}

// TestSettingsSheetHostRules: a host setting the host marks readOnly is
// shown and not changed, by ←/→ or e; a value the host refuses is
// rolled back and the host's reason is on the status line (issue 26).
func TestSettingsSheetHostRules(t *testing.T) {
	d := newDriver(t, nil)
	d.openDemo()
	d.until("the settings", func() bool { return d.m.sess.Config != nil && d.m.root.Config != nil })
	d.keys("O")
	session, host := d.m.settings.rows()
	if !strings.Contains(ansi.Strip(d.m.Render()), "Managed by policy: false (set by the host)") {
		t.Errorf("the readOnly host setting is not shown as the host's:\n%s", ansi.Strip(d.m.Render()))
	}
	for range len(session) + len(host) {
		d.keys("down")
	}
	if r := host[len(host)-1]; r.prop.id != demohost.RootConfigManaged || r.editable {
		t.Fatalf("the last row is %s (editable %v), want the readOnly %s", r.prop.id, r.editable, demohost.RootConfigManaged)
	}
	d.keys("right", "left", "e")
	d.expectSent()
	if d.m.modal != modalNone || d.m.form != nil {
		t.Fatal("e opened the form on a readOnly host setting")
	}
	for d.m.settings.sel > slices.IndexFunc(session, func(r settingRow) bool { return r.prop.id == demohost.ConfigMaxToolCalls }) {
		d.keys("up")
	}
	d.keys("e", "ctrl+u")
	d.typeText("2.5")
	d.keys("ctrl+s")
	sent := d.expectSent("session/configChanged")
	d.untilEvent("the host's refusal", func(ev client.Event) bool {
		r, ok := ev.(client.ActionRejectedEvent)
		return ok && r.ClientSeq == sent[0].ClientSeq
	})
	if got := string(d.m.sess.Config.Values[demohost.ConfigMaxToolCalls]); got != "20" {
		t.Fatalf("a refused value stayed: max tool calls %s", got)
	}
	d.until("the host's reason on the status line", func() bool {
		s := d.m.status.text
		return strings.Contains(s, "could not change the session's settings") && strings.Contains(s, "maxToolCalls does not take 2.5")
	})
}

// TestStepFromNoValue: a setting with neither a value nor a default (VS
// Code's sandbox: default / on / off) starts at its first choice on ←
// and →, and a step stops at the ends: → from the last and ← from the
// first do nothing (security finding 6: no wrap from the narrowest to
// the broadest).
func TestStepFromNoValue(t *testing.T) {
	p := configProp{id: "sandboxEnabled", enum: []json.RawMessage{json.RawMessage(`"default"`), json.RawMessage(`"on"`), json.RawMessage(`"off"`)}}
	for _, dir := range []int{1, -1} {
		if v, ok := p.step(nil, dir); !ok || string(v) != `"default"` {
			t.Errorf("step(no value, %d) = %s, want the first", dir, v)
		}
	}
	if v, ok := p.step(json.RawMessage(`"off"`), 1); ok || string(v) != `"off"` {
		t.Errorf("→ from the last choice gave %s (%v), want it kept", v, ok)
	}
	if v, ok := p.step(json.RawMessage(`"default"`), -1); ok || string(v) != `"default"` {
		t.Errorf("← from the first choice gave %s (%v), want it kept", v, ok)
	}
	// Turning the sandbox off lets more run without asking.
	if !p.widens(json.RawMessage(`"default"`), json.RawMessage(`"off"`)) {
		t.Error("the sandbox off is not recognised as widening")
	}
}

// TestCompletionsCapped: a host that answers a completion query with
// hundreds of values has the first maxCompletions listed (typing narrows
// them), hostile labels included, and an answer to an older query is
// dropped.
func TestCompletionsCapped(t *testing.T) {
	d := newDriver(t, nil)
	newSessionSettings(d)
	selectConfigRow(d, demohost.ConfigBaseBranch)
	d.keys("e")
	d.until("the host's values", func() bool {
		return d.m.form != nil && len(questionOptions(d.m.form.request.Questions[0])) == 6
	})
	e := d.m.form.setting
	var items []protocol.SessionConfigValueItem
	for i := range 500 {
		items = append(items, protocol.SessionConfigValueItem{Value: fmt.Sprintf("b%d", i), Label: fmt.Sprintf("\x1b[2Jb%d", i)})
	}
	d.send(completionsMsg{edit: e, query: "an older query", items: items})
	if n := len(questionOptions(d.m.form.request.Questions[0])); n != 6 {
		t.Fatalf("an answer to an older query replaced the choices (%d)", n)
	}
	d.send(completionsMsg{edit: e, query: e.asked, items: items})
	if n := len(questionOptions(d.m.form.request.Questions[0])); n != maxCompletions {
		t.Fatalf("the form lists %d of 500 values, want %d", n, maxCompletions)
	}
	if screen := d.m.Render(); strings.Contains(screen, "\x1b[2J") {
		t.Fatal("a completion's escape sequence reached the screen")
	}
}
