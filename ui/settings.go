package ui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/host/privilege"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
	"github.com/ahptui/ahptui/protocol/jsonrpc"
	"github.com/ahptui/ahptui/views"
)

// configProp is what the UI reads of a session or root config property;
// both schema types carry it.
type configProp struct {
	id, title, description string
	enum                   []json.RawMessage
	def                    json.RawMessage // the schema's default
	labels, descs          []string
	isBool, readOnly       bool
	mutable                bool             // may change while the session runs
	typ                    string           // the schema's type: string, number, integer, boolean, object, array
	dynamic                bool             // enumDynamic: its values come from sessionConfigCompletions
	lists                  []privilege.List // an object of lists of names (grants.go)
}

func sessionProps(s protocol.SessionConfigSchema) []configProp {
	return propsOf(privilege.SessionSettings(s))
}

func rootProps(s protocol.ConfigSchema) []configProp { return propsOf(privilege.RootSettings(s)) }

// propsOf is the settings as the UI holds them: the schema is read once,
// by host/privilege, which the commands share.
func propsOf(settings []privilege.Setting) []configProp {
	out := make([]configProp, len(settings))
	for i, st := range settings {
		out[i] = configProp{id: st.ID, title: st.Title, description: st.Description, def: st.Default,
			enum: st.Enum, labels: st.Labels, descs: st.Descs, isBool: st.IsBool(), readOnly: st.ReadOnly,
			mutable: st.Mutable, typ: st.Type, dynamic: st.Dynamic, lists: st.Lists}
	}
	return out
}

// choices is the values ←/→ step through: an enum's, or a boolean's two.
// A dynamic enum's values are only seeds: it is edited in the form.
func (p configProp) choices() []json.RawMessage {
	if p.dynamic {
		return nil
	}
	if len(p.enum) > 0 {
		return p.enum
	}
	if p.isBool {
		return []json.RawMessage{json.RawMessage("false"), json.RawMessage("true")}
	}
	return nil
}

func sameJSON(a, b json.RawMessage) bool {
	return bytes.Equal(bytes.TrimSpace(a), bytes.TrimSpace(b))
}

// label is how value v of p reads: its enumLabel, else the value itself
// (host/privilege's reading, which the commands share).
func (p configProp) label(v json.RawMessage) (label, desc string) { return p.setting().Label(v) }

// valueIn is p's value in values, else its default: a host echoes only
// the values it resolved, and only those are sent back.
func (p configProp) valueIn(values map[string]json.RawMessage) json.RawMessage {
	if v, ok := values[p.id]; ok {
		return v
	}
	return p.def
}

// step is value v moved by dir through p's choices. It stops at the
// ends: a wrap would take the narrowest approval mode to the broadest in
// one key (ok is false there).
func (p configProp) step(v json.RawMessage, dir int) (json.RawMessage, bool) {
	cs := p.choices()
	if len(cs) < 2 {
		return v, false
	}
	i := slices.IndexFunc(cs, func(c json.RawMessage) bool { return sameJSON(c, v) })
	if i < 0 { // no value yet (no default either): the first
		return cs[0], true
	}
	if i+dir < 0 || i+dir >= len(cs) {
		return v, false
	}
	return cs[i+dir], true
}

// atEnd says why ←/→ did nothing on a choice at its end.
func atEnd(p configProp, dir int) tea.Cmd {
	if len(p.choices()) < 2 {
		return nil
	}
	end := "last"
	if dir < 0 {
		end = "first"
	}
	return reportInfo(fmt.Sprintf("%q is at its %s value", views.SanitizeLine(p.title), end))
}

// row is p with value v as views draw it; editable says whether the
// place it is shown lets it change.
func (p configProp) row(v json.RawMessage, editable bool, why string) views.ConfigRow {
	label, desc := p.label(v)
	r := views.ConfigRow{Title: p.title, Description: p.description, Value: label, ValueDesc: desc, Editable: editable}
	if r.Title == "" {
		r.Title = p.id
	}
	for _, c := range p.choices() {
		l, _ := p.label(c)
		r.Choices = append(r.Choices, l)
	}
	if !editable {
		r.Why = why
	}
	return r
}

// newConfig is the new-session dialog's second step: the settings the
// host resolved for the picked agent.
type newConfig struct {
	choice newChoice
	// dirs is the folder the session is created in: the dialog's last
	// row, after the host's settings; none when empty.
	dirs    []protocol.URI
	shown   bool // the host's settings are on screen (a re-resolve keeps the dialog)
	loading bool
	props   []configProp
	values  map[string]json.RawMessage
	sel     int
}

// configResolvedMsg is resolveSessionConfig's answer for the dialog.
type configResolvedMsg struct {
	step *newConfig
	res  protocol.ResolveSessionConfigResult
	err  error
}

// resolveConfigCmd asks the host for ch's settings; the dialog shows them
// once they arrive.
func (sl *sessionList) resolveConfigCmd(ch newChoice) tea.Cmd {
	c, ctx := sl.client, sl.ctx
	step := &newConfig{choice: ch, loading: true, dirs: sl.defaultDirs(ch)}
	sl.cfgStep = step
	p := protocol.ResolveSessionConfigParams{Provider: &ch.provider}
	if len(step.dirs) > 0 {
		p.WorkingDirectory = &step.dirs[0]
	}
	return func() tea.Msg {
		res, err := c.ResolveSessionConfig(ctx, p)
		return configResolvedMsg{step: step, res: res, err: err}
	}
}

// onConfigResolved shows the resolved settings, or creates the session
// at once when there are none to choose (a host without the command
// included: it is skipped silently).
func (sl *sessionList) onConfigResolved(msg configResolvedMsg) tea.Cmd {
	if sl.cfgStep != msg.step || sl.modal != modalNewSession {
		return nil // cancelled, or overtaken by another pick
	}
	step := msg.step
	if step.shown && (msg.err != nil || len(msg.res.Schema.Properties) == 0) {
		// Asked again for a new folder: the dialog stays, as it was.
		step.loading = false
		if msg.err != nil {
			return reportError(fmt.Errorf("the host did not say which settings a session in that folder takes: %w", msg.err))
		}
		return nil
	}
	if msg.err != nil || len(msg.res.Schema.Properties) == 0 {
		sl.modal, sl.cfgStep = modalNone, nil
		var je *jsonrpc.Error
		if msg.err != nil && !(errors.As(msg.err, &je) && je.Code == jsonrpc.MethodNotFound) && !errors.Is(msg.err, client.ErrNotInVersion) {
			return tea.Batch(reportError(fmt.Errorf("the host did not say which settings a session takes, so it is created with the host's defaults: %w", msg.err)),
				sl.createSessionCmd(step.choice, step.dirs, nil))
		}
		return sl.createSessionCmd(step.choice, step.dirs, msg.res.Values)
	}
	step.loading, step.shown = false, true
	step.props = sessionProps(msg.res.Schema)
	step.values = maps.Clone(msg.res.Values)
	if step.values == nil {
		step.values = map[string]json.RawMessage{}
	}
	return nil
}

// setStepValue sets p to v for the session the dialog creates; a value
// that lets more run without asking is set only once confirmed.
func (sl *sessionList) setStepValue(step *newConfig, p configProp, v json.RawMessage) tea.Cmd {
	old := p.valueIn(step.values)
	if !p.widens(old, v) {
		step.values[p.id] = v
		return nil
	}
	return sl.askWiden(settingView(p, old, v, reachNewSession), func() tea.Cmd {
		if sl.cfgStep == step {
			step.values[p.id] = v
		}
		return nil
	})
}

// keyConfigStep drives the settings step: ↑/↓ pick a setting, ←/→ change
// it (not a readOnly one; a value that lets more run without asking only
// once confirmed), enter creates, esc backs out.
func (sl *sessionList) keyConfigStep(msg tea.KeyPressMsg) tea.Cmd {
	step, k := sl.cfgStep, sl.keys.NewSession
	switch {
	case key.Matches(msg, k.Cancel):
		sl.modal, sl.cfgStep = modalNone, nil
	case step.loading:
	case cursorKey(msg, k.Up, k.Down):
		step.sel = moveCursor(msg, k.Up, step.sel, 1+len(step.props))
	case key.Matches(msg, k.Prev), key.Matches(msg, k.Next):
		dir := 1
		if key.Matches(msg, k.Prev) {
			dir = -1
		}
		if step.sel == len(step.props) {
			return reportInfo(fmt.Sprintf("%s edits the folder", k.Edit.Help().Key))
		}
		if step.sel < len(step.props) {
			p := step.props[step.sel]
			if p.readOnly {
				return reportInfo(fmt.Sprintf("%q is set by the host and cannot be changed", views.SanitizeLine(p.title)))
			}
			old := p.valueIn(step.values)
			if v, ok := p.step(old, dir); ok {
				return sl.setStepValue(step, p, v)
			} else if p.way() == editForm {
				return reportInfo(fmt.Sprintf("%s edits %q", k.Edit.Help().Key, views.SanitizeLine(p.title)))
			}
			return atEnd(p, dir)
		}
	case key.Matches(msg, k.Edit):
		return sl.editSetting(step)
	case key.Matches(msg, k.Create):
		sl.modal, sl.cfgStep = modalNone, nil
		return sl.createSessionCmd(step.choice, step.dirs, step.values)
	}
	return nil
}

func (sl *sessionList) configRows() []views.ConfigRow {
	step := sl.cfgStep
	out := make([]views.ConfigRow, 0, 1+len(step.props))
	for _, p := range step.props {
		why := "not editable here"
		if p.readOnly {
			why = "set by the host"
		}
		out = append(out, p.row(p.valueIn(step.values), p.way() != editNone, why))
	}
	return append(out, views.ConfigRow{Title: "Folder", Description: "The folder the agent works in",
		Value: folderLabel(step.dirs), Editable: true})
}

func (sl *sessionList) configAgent() string {
	ch := sl.cfgStep.choice
	if ch.modelName != "" {
		return ch.agentName + " · " + ch.modelName
	}
	return ch.agentName
}

// labelOf is a value's label, for status messages.
func labelOf(p configProp, v json.RawMessage) string {
	l, _ := p.label(v)
	return strings.TrimSpace(l)
}

// editSetting opens the input form on the highlighted setting of the
// dialog; its value goes in the session's config when submitted.
func (sl *sessionList) editSetting(step *newConfig) tea.Cmd {
	if step.sel == len(step.props) {
		return sl.editFolder(step)
	}
	if step.sel > len(step.props) {
		return nil
	}
	p := step.props[step.sel]
	if p.way() != editForm {
		return reportInfo(fmt.Sprintf("%q is not edited in a form: %s", views.SanitizeLine(p.title), sl.keys.NewSession.Next.Help().Key))
	}
	apply := func(v json.RawMessage) tea.Cmd { return sl.setStepValue(step, p, v) }
	var complete func(*settingEdit, string) tea.Cmd
	if p.dynamic {
		var dir *protocol.URI
		if len(step.dirs) > 0 {
			dir = &step.dirs[0]
		}
		complete = sl.completer(step.choice.provider, dir, maps.Clone(step.values), p.id)
	}
	return sl.openSettingForm(p, p.valueIn(step.values), modalNewSession, apply, complete)
}
