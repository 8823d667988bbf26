package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

// settingsSheet is the settings sheet (O): the open session's settings,
// of which those the schema marks sessionMutable change here (sent as
// session/configChanged), and the host's (root/configChanged).
type settingsSheet struct {
	*app
	open bool
	sel  int
}

// settingRow is one row of the sheet: which channel it belongs to and
// what it holds.
type settingRow struct {
	channel  string // the open session's URI, or the root channel
	prop     configProp
	value    json.RawMessage
	editable bool
	why      string
	// modelConfig: a setting of the model's own (its configSchema),
	// carried in the next message's ModelSelection.config.
	modelConfig bool
}

// judged is r with whether it can be edited here, and if not why: the
// host set it, or its kind has no editor.
func (r settingRow) judged() settingRow {
	switch {
	case r.prop.readOnly:
		r.why = "set by the host"
	case r.prop.way() == editNone:
		r.why = "not editable here"
	default:
		r.editable = true
	}
	return r
}

// rows is the sheet's rows, the session's first (its settings, then
// the model), derived from the
// snapshots each time (they change under the sheet).
func (st *settingsSheet) rows() (session, host []settingRow) {
	if st.hasSess && st.sess.Config != nil {
		for _, p := range sessionProps(st.sess.Config.Schema) {
			r := settingRow{channel: st.openSession, prop: p, value: p.valueIn(st.sess.Config.Values)}
			if !p.readOnly && !p.mutable {
				r.why = "set when the session is created"
			} else {
				r = r.judged()
			}
			session = append(session, r)
		}
	}
	if r, ok := st.modelRow(); ok {
		session = append(session, r)
	}
	session = append(session, st.modelConfigRows()...)
	if st.root.Config != nil {
		for _, p := range rootProps(st.root.Config.Schema) {
			host = append(host, settingRow{channel: protocol.RootChannel, prop: p, value: p.valueIn(st.root.Config.Values)}.judged())
		}
	}
	return session, host
}

func (st *settingsSheet) toggle() {
	st.open, st.sel = !st.open, 0
}

func (st *settingsSheet) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	k := st.keys.Settings
	session, host := st.rows()
	all := append(session, host...)
	switch {
	case key.Matches(msg, k.Close):
		st.open = false
	case cursorKey(msg, k.Up, k.Down):
		st.sel = moveCursor(msg, k.Up, st.sel, len(all))
	case key.Matches(msg, k.Prev), key.Matches(msg, k.Next):
		if st.sel >= len(all) {
			return nil
		}
		dir := 1
		if key.Matches(msg, k.Prev) {
			dir = -1
		}
		return st.change(all[st.sel], dir)
	case key.Matches(msg, k.Edit):
		if st.sel < len(all) {
			return st.edit(all[st.sel])
		}
	}
	return nil
}

// change sends the row's next value to the host; the mirror shows it at
// once and the host confirms or rejects it.
func (st *settingsSheet) change(r settingRow, dir int) tea.Cmd {
	title := views.SanitizeLine(r.prop.title)
	if !r.editable {
		return reportInfo(fmt.Sprintf("%q cannot be changed here: %s", title, r.why))
	}
	v, ok := r.prop.step(r.value, dir)
	if !ok && r.prop.way() == editForm {
		return reportInfo(fmt.Sprintf("%s edits %q", st.keys.Settings.Edit.Help().Key, title))
	}
	if !ok {
		return atEnd(r.prop, dir)
	}
	return st.confirmThenSend(r, v)
}

// confirmThenSend sends v for the row, after a confirmation naming its
// effect and reach when it is a host setting (every client of the host
// takes it) or lets more run without asking in the session. The model
// and its own settings go with the next message and widen nothing.
func (st *settingsSheet) confirmThenSend(r settingRow, v json.RawMessage) tea.Cmd {
	switch {
	case r.prop.id == modelPropID || r.modelConfig:
	case r.channel == protocol.RootChannel:
		return st.askWiden(settingView(r.prop, r.value, v, reachHost), func() tea.Cmd { return st.send(r, v) })
	case r.prop.widens(r.value, v):
		return st.askWiden(settingView(r.prop, r.value, v, reachSession), func() tea.Cmd { return st.send(r, v) })
	}
	return st.send(r, v)
}

// edit opens the input form on a text, number or completed setting; the
// value submitted is sent as change sends a choice.
func (st *settingsSheet) edit(r settingRow) tea.Cmd {
	title := views.SanitizeLine(r.prop.title)
	if !r.editable {
		return reportInfo(fmt.Sprintf("%q cannot be changed here: %s", title, r.why))
	}
	if r.prop.way() != editForm {
		return reportInfo(fmt.Sprintf("%s changes %q", st.keys.Settings.Next.Help().Key, title))
	}
	var complete func(*settingEdit, string) tea.Cmd
	if r.prop.dynamic && st.hasSess {
		var dir *protocol.URI
		if len(st.sess.WorkingDirectories) > 0 {
			dir = &st.sess.WorkingDirectories[0]
		}
		complete = st.completer(st.sess.Provider, dir, st.sess.Config.Values, r.prop.id)
	}
	return st.openSettingForm(r.prop, r.value, modalNone, func(v json.RawMessage) tea.Cmd { return st.confirmThenSend(r, v) }, complete)
}

// modelPropID names the sheet's Model row: not a host setting, so no
// config id a host sends can be it (ids are JSON object keys, never
// empty here).
const modelPropID = ""

// modelRow is the sheet's Model row: the models the session's agent
// offers, the value the one the next message goes with. The model is
// chosen per message (Message.model), so a change takes effect from
// the next message sent; it raises no privilege and needs no
// confirmation.
func (st *settingsSheet) modelRow() (settingRow, bool) {
	models := st.sessionModels()
	if len(models) < 2 {
		// One model is no choice: the header names it.
		return settingRow{}, false
	}
	p := configProp{id: modelPropID, title: "Model", typ: "string", mutable: true,
		description: "The model the next message is sent with"}
	for _, md := range models {
		id, _ := json.Marshal(md.ID)
		p.enum, p.labels = append(p.enum, id), append(p.labels, md.Name)
	}
	p.def = p.enum[0]
	r := settingRow{channel: st.openSession, prop: p, value: p.def, editable: true}
	if id := st.modelID(); id != "" {
		r.value, _ = json.Marshal(id)
	}
	return r, true
}

// sessionModels is the models the open session's agent offers.
func (a *app) sessionModels() []protocol.SessionModelInfo {
	if !a.hasSess {
		return nil
	}
	for _, ag := range a.root.Agents {
		if ag.Provider == a.sess.Provider {
			return ag.Models
		}
	}
	return nil
}

// currentModel is the model the open session's next message goes with,
// as its agent describes it: the one chosen or last used, else the
// first the agent offers (the one the Model row shows).
func (a *app) currentModel() (protocol.SessionModelInfo, bool) {
	models := a.sessionModels()
	if len(models) == 0 {
		return protocol.SessionModelInfo{}, false
	}
	if id := a.modelID(); id != "" {
		for _, m := range models {
			if m.ID == id {
				return m, true
			}
		}
		return protocol.SessionModelInfo{}, false // a model the agent no longer lists
	}
	return models[0], true
}

// modelSelection is the open session's model selection: the one chosen
// here or at creation, else the one its latest message went with.
func (a *app) modelSelection() *protocol.ModelSelection {
	if sel := a.models[hostSession{a.cfg.Host, a.openSession}]; sel != nil {
		return sel
	}
	if a.hasChat {
		for i := len(a.chat.Turns) - 1; i >= 0; i-- {
			if m := a.chat.Turns[i].Message.Model; m != nil {
				return m
			}
		}
	}
	return nil
}

// modelConfigRows are the current model's own settings (its
// configSchema, e.g. VS Code's "Optimize for" or "Thinking Level"), under
// the Model row: chosen here, they go in the next message's
// ModelSelection.config, as the spec says.
func (st *settingsSheet) modelConfigRows() []settingRow {
	md, ok := st.currentModel()
	if !ok || md.ConfigSchema == nil {
		return nil
	}
	var values map[string]json.RawMessage
	if sel := st.modelSelection(); sel != nil && sel.ID == md.ID {
		values = make(map[string]json.RawMessage, len(sel.Config))
		for k, v := range sel.Config {
			values[k] = v.Raw
		}
	}
	var out []settingRow
	for _, p := range rootProps(*md.ConfigSchema) {
		out = append(out, settingRow{channel: st.openSession, prop: p, value: p.valueIn(values), modelConfig: true}.judged())
	}
	return out
}

// keptConfig is the model settings in old that model md also has, with
// a value its schema allows: what a change of model carries over.
func keptConfig(old map[string]protocol.JSONPrimitive, md protocol.SessionModelInfo) map[string]protocol.JSONPrimitive {
	if md.ConfigSchema == nil || len(old) == 0 {
		return nil
	}
	out := map[string]protocol.JSONPrimitive{}
	for k, v := range old {
		p, ok := md.ConfigSchema.Properties[k]
		if !ok {
			continue
		}
		if len(p.Enum) > 0 && !slices.ContainsFunc(p.Enum, func(e protocol.JSONPrimitive) bool { return sameJSON(e.Raw, v.Raw) }) {
			continue
		}
		out[k] = v
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// modelID is the id of the model the open session's next message is
// sent with: the one picked here or at creation, else the one its latest
// message went with; "" when neither says.
func (a *app) modelID() string {
	if sel := a.modelSelection(); sel != nil {
		return sel.ID
	}
	return ""
}

// send sets the row's setting to v on its channel.
func (st *settingsSheet) send(r settingRow, v json.RawMessage) tea.Cmd {
	title := views.SanitizeLine(r.prop.title)
	if r.prop.id == modelPropID {
		var id string
		if json.Unmarshal(v, &id) != nil || id == "" {
			return reportError(fmt.Errorf("could not change the model: %s is not a model id", views.SanitizeLine(string(v))))
		}
		sel := &protocol.ModelSelection{ID: id}
		if old := st.modelSelection(); old != nil {
			for _, md := range st.sessionModels() {
				if md.ID == id {
					sel.Config = keptConfig(old.Config, md)
				}
			}
		}
		st.models[hostSession{st.cfg.Host, r.channel}] = sel
		return reportInfo(fmt.Sprintf("Model: %s, from the next message", views.SanitizeLine(labelOf(r.prop, v))))
	}
	if r.modelConfig {
		return st.sendModelConfig(r, v)
	}
	if st.client == nil {
		return reportError(errNoClient)
	}
	cfg := map[string]json.RawMessage{r.prop.id: v}
	var a protocol.StateActionVariant = protocol.SessionConfigChangedAction{Config: cfg}
	if r.channel == protocol.RootChannel {
		a = protocol.RootConfigChangedAction{Config: cfg}
	}
	if _, err := st.client.Dispatch(r.channel, protocol.NewStateAction(a)); err != nil {
		return reportError(fmt.Errorf("could not change %q: %w", title, err))
	}
	return reportInfo(fmt.Sprintf("%s: %s", title, views.SanitizeLine(labelOf(r.prop, v))))
}

// sendModelConfig sets one of the current model's own settings to v:
// kept in the session's model selection, it goes with the next message
// (Message.model.config), the model named with it.
func (st *settingsSheet) sendModelConfig(r settingRow, v json.RawMessage) tea.Cmd {
	title := views.SanitizeLine(r.prop.title)
	md, ok := st.currentModel()
	if !ok {
		return reportError(fmt.Errorf("could not change %q: the session's model is not one its agent lists", title))
	}
	if t := bytes.TrimSpace(v); len(t) == 0 || t[0] == '{' || t[0] == '[' || !json.Valid(t) {
		return reportError(fmt.Errorf("could not change %q: a model setting is a string, number or true/false", title))
	}
	sel := &protocol.ModelSelection{ID: md.ID, Config: map[string]protocol.JSONPrimitive{}}
	if old := st.modelSelection(); old != nil && old.ID == md.ID {
		maps.Copy(sel.Config, old.Config)
	}
	sel.Config[r.prop.id] = protocol.JSONPrimitive{Raw: slices.Clone(bytes.TrimSpace(v))}
	st.models[hostSession{st.cfg.Host, r.channel}] = sel
	return reportInfo(fmt.Sprintf("%s: %s, from the next message", title, views.SanitizeLine(labelOf(r.prop, v))))
}

func (st *settingsSheet) view(width, height int) string {
	session, host := st.rows()
	conv := func(rs []settingRow) []views.ConfigRow {
		out := make([]views.ConfigRow, len(rs))
		for i, r := range rs {
			out[i] = r.prop.row(r.value, r.editable, r.why)
		}
		return out
	}
	st.sel = clampCursor(st.sel, len(session)+len(host))
	return views.RenderSettingsSheet(st.th, st.keys, conv(session), conv(host), st.sel, width, height)
}
