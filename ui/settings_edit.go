package ui

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
	"github.com/ahptui/ahptui/protocol/jsonrpc"
	"github.com/ahptui/ahptui/views"
)

// editWay is how a setting changes where it is shown.
type editWay int

const (
	editNone editWay = iota // shown only
	editStep                // ←/→ step through its choices
	editForm                // the edit key opens the input form on it
)

// way is how p changes: an enum or a boolean by its choices; text, a
// number, or a value the host completes (enumDynamic) in the input form;
// a readOnly one, a one-value enum, an object or a list not at all.
func (p configProp) way() editWay {
	switch {
	case p.readOnly:
		return editNone
	case len(p.choices()) >= 2:
		return editStep
	case p.dynamic, len(p.lists) > 0:
		return editForm
	case len(p.enum) > 0:
		return editNone
	case p.typ == "string", p.typ == "number", p.typ == "integer":
		return editForm
	}
	return editNone
}

func (p configProp) numeric() bool { return p.typ == "number" || p.typ == "integer" }

// question is p as the input form asks it, starting from value v.
func (p configProp) question(v json.RawMessage) protocol.ChatInputQuestion {
	title := p.title
	if title == "" {
		title = p.id
	}
	msg := p.description
	if msg == "" {
		msg = title
	}
	switch {
	case p.dynamic:
		yes := true
		q := protocol.ChatInputSingleSelectQuestion{Kind: "single-select", ID: p.id, Title: &title, Message: msg,
			Options: []protocol.ChatInputOption{}, AllowFreeformInput: &yes}
		for _, e := range p.enum {
			var s string
			if json.Unmarshal(e, &s) != nil {
				continue
			}
			label, _ := p.label(e)
			q.Options = append(q.Options, protocol.ChatInputOption{ID: s, Label: label})
		}
		return protocol.NewChatInputQuestion(q)
	case p.numeric():
		yes := true
		q := protocol.ChatInputNumberQuestion{Kind: "number", ID: p.id, Title: &title, Message: msg, Required: &yes}
		var n float64
		if json.Unmarshal(v, &n) == nil {
			q.DefaultValue = &n
		}
		return protocol.NewChatInputQuestion(q)
	}
	var s string
	_ = json.Unmarshal(v, &s)
	return protocol.NewChatInputQuestion(protocol.ChatInputTextQuestion{Kind: "text", ID: p.id, Title: &title, Message: msg, DefaultValue: &s})
}

// valueOf is the form's answer as p's JSON value; ok is false for an
// empty answer, which is the empty string for text.
func (p configProp) valueOf(a protocol.ChatInputAnswerValue, ok bool) (json.RawMessage, error) {
	name := views.SanitizeLine(p.title)
	if !ok {
		if p.typ == "string" && !p.dynamic {
			return json.RawMessage(`""`), nil
		}
		return nil, fmt.Errorf("%q needs a value", name)
	}
	switch v := a.Variant.(type) {
	case protocol.ChatInputTextAnswerValue:
		return json.Marshal(v.Value)
	case protocol.ChatInputSelectedAnswerValue:
		return json.Marshal(v.Value)
	case protocol.ChatInputNumberAnswerValue:
		if math.IsInf(v.Value, 0) || math.IsNaN(v.Value) {
			return nil, fmt.Errorf("%q wants a number", name)
		}
		if p.typ == "integer" && v.Value != math.Trunc(v.Value) {
			return nil, fmt.Errorf("%q wants a whole number", name)
		}
		return json.RawMessage(strconv.FormatFloat(v.Value, 'f', -1, 64)), nil
	}
	return nil, fmt.Errorf("%q: not a value this setting takes", name)
}

// settingEdit is the input form opened on one setting rather than on an
// input request: submitting it sets the value, esc goes back.
type settingEdit struct {
	prop  configProp
	old   json.RawMessage // the value the form started from
	back  modal           // the dialog the form was opened from
	apply func(json.RawMessage) tea.Cmd
	// complete fetches a dynamic setting's values matching a query; nil
	// for the others. asked is the query last sent: only its answer is
	// shown, so answers overtaken by typing are dropped.
	complete func(e *settingEdit, query string) tea.Cmd
	asked    string
}

// maxCompletions is how many of the host's values the form lists: typing
// narrows them, and a host that answers with thousands must not push the
// form off the screen.
const maxCompletions = 20

// completionDelay is how long typing must pause before the host is asked
// for the values matching it: a word typed fast is one query, not one a
// key.
const completionDelay = 150 * time.Millisecond

// completionsDueMsg says typing paused at query: ask the host, unless
// more was typed since (edit.asked moved on) or the form closed.
type completionsDueMsg struct {
	edit  *settingEdit
	query string
}

// completionsMsg is sessionConfigCompletions' answer to query.
type completionsMsg struct {
	edit  *settingEdit
	query string
	items []protocol.SessionConfigValueItem
	err   error
}

// completer returns what fetches prop's values from the host for a
// session of provider in dir with the values chosen so far.
func (a *app) completer(provider string, dir *protocol.URI, config map[string]json.RawMessage, prop string) func(*settingEdit, string) tea.Cmd {
	c, ctx := a.client, a.ctx
	return func(e *settingEdit, query string) tea.Cmd {
		if c == nil {
			return nil
		}
		p := protocol.SessionConfigCompletionsParams{Provider: &provider, WorkingDirectory: dir, Config: config, Property: prop, Query: &query}
		return func() tea.Msg {
			res, err := c.SessionConfigCompletions(ctx, p)
			return completionsMsg{edit: e, query: query, items: res.Items, err: err}
		}
	}
}

// openSettingForm opens the input form on p, valued v, over the dialog
// back. complete is nil unless p is dynamic.
func (a *app) openSettingForm(p configProp, v json.RawMessage, back modal, apply func(json.RawMessage) tea.Cmd, complete func(*settingEdit, string) tea.Cmd) tea.Cmd {
	req := protocol.ChatInputRequest{ID: "setting:" + p.id, Questions: []protocol.ChatInputQuestion{p.question(v)}}
	if len(p.lists) > 0 {
		req = p.listsRequest(v)
	}
	f := newInputForm("", req, a.keys.Input)
	f.state.Setting = true
	if len(p.lists) > 0 {
		maps.Copy(f.state.Drafts, p.listsDrafts(v))
	}
	e := &settingEdit{prop: p, old: v, back: back, apply: apply, complete: complete}
	f.setting = e
	a.form, a.modal = f, modalInput
	if !p.dynamic {
		e.complete = nil
		return nil
	}
	// The current value is the choice, listed first when the seeds lack it.
	var cur string
	if json.Unmarshal(v, &cur) == nil && cur != "" {
		q := f.request.Questions[0].Variant.(protocol.ChatInputSingleSelectQuestion)
		i := optionIndex(q.Options, cur)
		if i < 0 {
			label, _ := p.label(v)
			q.Options = append([]protocol.ChatInputOption{{ID: cur, Label: label}}, q.Options...)
			f.request.Questions[0] = protocol.NewChatInputQuestion(q)
			i = 0
		}
		f.state.Drafts[p.id] = views.InputDraft{Choice: cur, Highlight: i}
	}
	if complete == nil {
		return nil
	}
	return complete(e, "")
}

func optionIndex(opts []protocol.ChatInputOption, id string) int {
	for i, o := range opts {
		if o.ID == id {
			return i
		}
	}
	return -1
}

// editForm hands a key or a paste to the open form; in a dynamic
// setting's form, text typed is a search: it drops the choice and asks
// the host for the values that match.
func (a *app) editForm(msg tea.Msg) tea.Cmd {
	f := a.form
	cmd := f.update(msg)
	e := f.setting
	if e == nil || e.complete == nil {
		return cmd
	}
	d := f.state.Drafts[e.prop.id]
	if q := strings.TrimSpace(d.Text); q != e.asked {
		e.asked = q
		if d.Text != "" {
			d.Choice = ""
			f.state.Drafts[e.prop.id] = d
		}
		due := completionsDueMsg{edit: e, query: q}
		return tea.Batch(cmd, tea.Tick(completionDelay, func(time.Time) tea.Msg { return due }))
	}
	return cmd
}

// onCompletionsDue asks the host for the values matching a query typing
// paused at, if it is still the form's latest.
func (a *app) onCompletionsDue(msg completionsDueMsg) tea.Cmd {
	if f := a.form; f == nil || f.setting != msg.edit || msg.query != msg.edit.asked || msg.edit.complete == nil {
		return nil
	}
	return msg.edit.complete(msg.edit, msg.query)
}

// onCompletions shows the host's values for the latest query as the
// form's choices.
func (a *app) onCompletions(msg completionsMsg) tea.Cmd {
	f := a.form
	if f == nil || f.setting != msg.edit || msg.query != msg.edit.asked {
		return nil // the form closed, or typing overtook the query
	}
	if msg.err != nil {
		var je *jsonrpc.Error
		if (errors.As(msg.err, &je) && je.Code == jsonrpc.MethodNotFound) || errors.Is(msg.err, client.ErrNotInVersion) {
			return nil // the seeds and free text are all there is
		}
		f.state.Error = "the host did not list values: " + msg.err.Error()
		return nil
	}
	q, ok := f.request.Questions[0].Variant.(protocol.ChatInputSingleSelectQuestion)
	if !ok {
		return nil
	}
	items := msg.items[:min(len(msg.items), maxCompletions)]
	q.Options = make([]protocol.ChatInputOption, 0, len(items))
	for _, it := range items {
		label := it.Label
		if label == "" {
			label = it.Value
		}
		q.Options = append(q.Options, protocol.ChatInputOption{ID: it.Value, Label: label, Description: it.Description})
	}
	f.request.Questions[0] = protocol.NewChatInputQuestion(q)
	d := f.state.Drafts[q.ID]
	d.Highlight = clampCursor(d.Highlight, len(q.Options))
	if i := optionIndex(q.Options, d.Choice); i >= 0 {
		d.Highlight = i
	}
	f.state.Drafts[q.ID] = d
	f.state.Error = ""
	return nil
}

// submitSetting sets the value the form holds, or says what is wrong
// with it in the form.
func (a *app) submitSetting() tea.Cmd {
	f := a.form
	e := f.setting
	var v json.RawMessage
	var err error
	if len(e.prop.lists) > 0 {
		v, err = e.prop.listsValue(e.old, f.state.Drafts)
	} else {
		var av protocol.ChatInputAnswerValue
		var ok bool
		av, ok, err = answerFromDraft(f.request.Questions[0], f.state.Drafts[e.prop.id])
		if err == nil {
			v, err = e.prop.valueOf(av, ok)
		}
	}
	if err != nil {
		f.state.Error = err.Error()
		return nil
	}
	a.form, a.modal = nil, e.back
	return e.apply(v)
}

// cancelSetting closes the form, back to the dialog it came from.
func (a *app) cancelSetting() {
	a.modal, a.form = a.form.setting.back, nil
}
