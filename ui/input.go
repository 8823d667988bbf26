package ui

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

// inputForm answers one input request (elicitation): a text field per
// question; choices are typed as option numbers or ids.
type inputForm struct {
	chat    string
	request protocol.ChatInputRequest
	fields  []textinput.Model
	idx     int
	err     string
}

func newInputForm(chat string, req protocol.ChatInputRequest, th views.Theme) *inputForm {
	f := &inputForm{chat: chat, request: req}
	for i, q := range req.Questions {
		ti := textinput.New()
		ti.Prompt = "> "
		st := ti.Styles()
		st.Cursor.Blink = false
		ti.SetStyles(st)
		ti.SetValue(defaultAnswer(q, req.Answers))
		if i == 0 {
			ti.Focus()
		}
		f.fields = append(f.fields, ti)
	}
	return f
}

func (f *inputForm) focusCmd() tea.Cmd {
	if len(f.fields) == 0 {
		return nil
	}
	return f.fields[f.idx].Focus()
}

func (f *inputForm) move(d int) tea.Cmd {
	if len(f.fields) == 0 {
		return nil
	}
	f.fields[f.idx].Blur()
	f.idx = (f.idx + d + len(f.fields)) % len(f.fields)
	return f.fields[f.idx].Focus()
}

func (f *inputForm) update(msg tea.Msg) tea.Cmd {
	if len(f.fields) == 0 {
		return nil
	}
	var cmd tea.Cmd
	f.fields[f.idx], cmd = f.fields[f.idx].Update(msg)
	return cmd
}

func questionBase(q protocol.ChatInputQuestion) (id, title, message string, required bool) {
	switch v := q.Variant.(type) {
	case protocol.ChatInputTextQuestion:
		return v.Id, deref(v.Title), v.Message, deref(v.Required)
	case protocol.ChatInputNumberQuestion:
		return v.Id, deref(v.Title), v.Message, deref(v.Required)
	case protocol.ChatInputBooleanQuestion:
		return v.Id, deref(v.Title), v.Message, deref(v.Required)
	case protocol.ChatInputSingleSelectQuestion:
		return v.Id, deref(v.Title), v.Message, deref(v.Required)
	case protocol.ChatInputMultiSelectQuestion:
		return v.Id, deref(v.Title), v.Message, deref(v.Required)
	}
	return "", "", "", false
}

func questionOptions(q protocol.ChatInputQuestion) []protocol.ChatInputOption {
	switch v := q.Variant.(type) {
	case protocol.ChatInputSingleSelectQuestion:
		return v.Options
	case protocol.ChatInputMultiSelectQuestion:
		return v.Options
	}
	return nil
}

func defaultAnswer(q protocol.ChatInputQuestion, answers map[string]protocol.ChatInputAnswer) string {
	id, _, _, _ := questionBase(q)
	if a, ok := answers[id]; ok {
		if ans, ok := a.Variant.(protocol.ChatInputAnswered); ok {
			switch v := ans.Value.Variant.(type) {
			case protocol.ChatInputTextAnswerValue:
				return v.Value
			case protocol.ChatInputNumberAnswerValue:
				return strconv.FormatFloat(v.Value, 'f', -1, 64)
			case protocol.ChatInputBooleanAnswerValue:
				return map[bool]string{true: "yes", false: "no"}[v.Value]
			case protocol.ChatInputSelectedAnswerValue:
				return v.Value
			case protocol.ChatInputSelectedManyAnswerValue:
				return strings.Join(v.Value, ", ")
			}
		}
	}
	switch v := q.Variant.(type) {
	case protocol.ChatInputTextQuestion:
		return deref(v.DefaultValue)
	case protocol.ChatInputNumberQuestion:
		if v.DefaultValue != nil {
			return strconv.FormatFloat(*v.DefaultValue, 'f', -1, 64)
		}
	case protocol.ChatInputBooleanQuestion:
		if v.DefaultValue != nil {
			return map[bool]string{true: "yes", false: "no"}[*v.DefaultValue]
		}
	case protocol.ChatInputSingleSelectQuestion:
		for _, o := range v.Options {
			if deref(o.Recommended) {
				return o.Id
			}
		}
	}
	return ""
}

// pickOption resolves a typed choice: a 1-based number, an option id or a
// label (case-insensitive).
func pickOption(opts []protocol.ChatInputOption, s string) (string, bool) {
	s = strings.TrimSpace(s)
	if n, err := strconv.Atoi(s); err == nil && n >= 1 && n <= len(opts) {
		return opts[n-1].Id, true
	}
	for _, o := range opts {
		if o.Id == s || strings.EqualFold(o.Label, s) {
			return o.Id, true
		}
	}
	return "", false
}

// parseAnswer turns the typed text into an answer value; ok is false for an
// empty optional answer.
func parseAnswer(q protocol.ChatInputQuestion, text string) (protocol.ChatInputAnswerValue, bool, error) {
	text = strings.TrimSpace(text)
	_, title, msg, required := questionBase(q)
	name := title
	if name == "" {
		name = msg
	}
	name = views.SanitizeLine(name)
	if text == "" {
		if required {
			return protocol.ChatInputAnswerValue{}, false, fmt.Errorf("%q needs an answer", name)
		}
		return protocol.ChatInputAnswerValue{}, false, nil
	}
	switch v := q.Variant.(type) {
	case protocol.ChatInputTextQuestion:
		return protocol.NewChatInputAnswerValue(protocol.ChatInputTextAnswerValue{Kind: "text", Value: text}), true, nil
	case protocol.ChatInputNumberQuestion:
		n, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return protocol.ChatInputAnswerValue{}, false, fmt.Errorf("%q wants a number", name)
		}
		if (v.Min != nil && n < *v.Min) || (v.Max != nil && n > *v.Max) {
			return protocol.ChatInputAnswerValue{}, false, fmt.Errorf("%q is out of range", name)
		}
		return protocol.NewChatInputAnswerValue(protocol.ChatInputNumberAnswerValue{Kind: "number", Value: n}), true, nil
	case protocol.ChatInputBooleanQuestion:
		switch strings.ToLower(text) {
		case "y", "yes", "true", "1":
			return protocol.NewChatInputAnswerValue(protocol.ChatInputBooleanAnswerValue{Kind: "boolean", Value: true}), true, nil
		case "n", "no", "false", "0":
			return protocol.NewChatInputAnswerValue(protocol.ChatInputBooleanAnswerValue{Kind: "boolean", Value: false}), true, nil
		}
		return protocol.ChatInputAnswerValue{}, false, fmt.Errorf("%q wants yes or no", name)
	case protocol.ChatInputSingleSelectQuestion:
		if id, ok := pickOption(v.Options, text); ok {
			return protocol.NewChatInputAnswerValue(protocol.ChatInputSelectedAnswerValue{Kind: "selected", Value: id}), true, nil
		}
		if deref(v.AllowFreeformInput) {
			return protocol.NewChatInputAnswerValue(protocol.ChatInputSelectedAnswerValue{Kind: "selected", Value: text, FreeformValues: []string{text}}), true, nil
		}
		return protocol.ChatInputAnswerValue{}, false, fmt.Errorf("%q: pick one of the listed options by number", name)
	case protocol.ChatInputMultiSelectQuestion:
		ids := []string{}
		var free []string
		for _, part := range strings.Split(text, ",") {
			if strings.TrimSpace(part) == "" {
				continue
			}
			if id, ok := pickOption(v.Options, part); ok {
				ids = append(ids, id)
			} else if deref(v.AllowFreeformInput) {
				free = append(free, strings.TrimSpace(part))
			} else {
				return protocol.ChatInputAnswerValue{}, false, fmt.Errorf("%q: %q is not an option", name, strings.TrimSpace(part))
			}
		}
		return protocol.NewChatInputAnswerValue(protocol.ChatInputSelectedManyAnswerValue{Kind: "selected-many", Value: ids, FreeformValues: free}), true, nil
	}
	return protocol.ChatInputAnswerValue{}, false, errors.New("this question kind is not supported by ahptui")
}

// submitInput sends each answer as a draft (chat/inputAnswerChanged), then
// accepts the request with the final answers (chat/inputCompleted).
func (m *Model) submitInput() {
	f := m.form
	answers := map[string]protocol.ChatInputAnswer{}
	var order []string
	for i, q := range f.request.Questions {
		id, _, _, _ := questionBase(q)
		v, ok, err := parseAnswer(q, f.fields[i].Value())
		if err != nil {
			f.err = err.Error()
			f.fields[f.idx].Blur()
			f.idx = i
			f.fields[i].Focus()
			return
		}
		if ok {
			answers[id] = protocol.NewChatInputAnswer(protocol.ChatInputAnswered{State: "submitted", Value: v})
			order = append(order, id)
		}
	}
	for _, id := range order {
		draft := protocol.NewChatInputAnswer(protocol.ChatInputAnswered{State: "draft", Value: answers[id].Variant.(protocol.ChatInputAnswered).Value})
		if _, ok := m.dispatch(f.chat, protocol.ChatInputAnswerChangedAction{RequestId: f.request.Id, QuestionId: id, Answer: &draft}); !ok {
			return
		}
	}
	if _, ok := m.dispatch(f.chat, protocol.ChatInputCompletedAction{
		RequestId: f.request.Id, Response: protocol.ChatInputResponseKindAccept, Answers: answers,
	}); ok {
		m.setStatus("answers submitted")
	}
	m.form, m.modal = nil, modalNone
}

func (m *Model) declineInput() {
	f := m.form
	if f == nil {
		return
	}
	if _, ok := m.dispatch(f.chat, protocol.ChatInputCompletedAction{
		RequestId: f.request.Id, Response: protocol.ChatInputResponseKindDecline,
	}); ok {
		m.setStatus("input request declined")
	}
	m.form, m.modal = nil, modalNone
}
