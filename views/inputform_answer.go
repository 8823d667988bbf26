package views

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ahptui/ahptui/protocol"
)

// derefAnswer is *p, or the zero value for nil.
func derefAnswer[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// QuestionBase is a question's id, title, message and whether it must be
// answered, whatever its kind.
func QuestionBase(q protocol.ChatInputQuestion) (id, title, message string, required bool) {
	switch v := q.Variant.(type) {
	case protocol.ChatInputTextQuestion:
		return v.ID, derefAnswer(v.Title), v.Message, derefAnswer(v.Required)
	case protocol.ChatInputNumberQuestion:
		return v.ID, derefAnswer(v.Title), v.Message, derefAnswer(v.Required)
	case protocol.ChatInputBooleanQuestion:
		return v.ID, derefAnswer(v.Title), v.Message, derefAnswer(v.Required)
	case protocol.ChatInputSingleSelectQuestion:
		return v.ID, derefAnswer(v.Title), v.Message, derefAnswer(v.Required)
	case protocol.ChatInputMultiSelectQuestion:
		return v.ID, derefAnswer(v.Title), v.Message, derefAnswer(v.Required)
	}
	return "", "", "", false
}

// QuestionOptions are a select question's options (nil for other kinds).
func QuestionOptions(q protocol.ChatInputQuestion) []protocol.ChatInputOption {
	switch v := q.Variant.(type) {
	case protocol.ChatInputSingleSelectQuestion:
		return v.Options
	case protocol.ChatInputMultiSelectQuestion:
		return v.Options
	}
	return nil
}

// AnswerFromDraft turns the draft into an answer value; ok is false for
// an unanswered optional question.
func AnswerFromDraft(q protocol.ChatInputQuestion, d InputDraft) (protocol.ChatInputAnswerValue, bool, error) {
	_, title, msg, required := QuestionBase(q)
	name := title
	if name == "" {
		name = msg
	}
	name = SanitizeLine(name)
	text := strings.TrimSpace(d.Text)
	missing := func() (protocol.ChatInputAnswerValue, bool, error) {
		if required {
			return protocol.ChatInputAnswerValue{}, false, fmt.Errorf("%q needs an answer", name)
		}
		return protocol.ChatInputAnswerValue{}, false, nil
	}
	switch v := q.Variant.(type) {
	case protocol.ChatInputTextQuestion:
		if text == "" {
			return missing()
		}
		return protocol.NewChatInputAnswerValue(protocol.ChatInputTextAnswerValue{Kind: "text", Value: text}), true, nil
	case protocol.ChatInputNumberQuestion:
		if text == "" {
			return missing()
		}
		n, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return protocol.ChatInputAnswerValue{}, false, fmt.Errorf("%q wants a number", name)
		}
		if (v.Min != nil && n < *v.Min) || (v.Max != nil && n > *v.Max) {
			return protocol.ChatInputAnswerValue{}, false, fmt.Errorf("%q is out of range", name)
		}
		return protocol.NewChatInputAnswerValue(protocol.ChatInputNumberAnswerValue{Kind: "number", Value: n}), true, nil
	case protocol.ChatInputBooleanQuestion:
		if d.Bool == nil {
			return missing()
		}
		return protocol.NewChatInputAnswerValue(protocol.ChatInputBooleanAnswerValue{Kind: "boolean", Value: *d.Bool}), true, nil
	case protocol.ChatInputSingleSelectQuestion:
		switch {
		case d.Choice != "":
			return protocol.NewChatInputAnswerValue(protocol.ChatInputSelectedAnswerValue{Kind: "selected", Value: d.Choice}), true, nil
		case text != "" && derefAnswer(v.AllowFreeformInput):
			return protocol.NewChatInputAnswerValue(protocol.ChatInputSelectedAnswerValue{Kind: "selected", Value: text, FreeformValues: []string{text}}), true, nil
		}
		return missing()
	case protocol.ChatInputMultiSelectQuestion:
		ids := []string{}
		for _, o := range v.Options {
			if d.Chosen[o.ID] {
				ids = append(ids, o.ID)
			}
		}
		var free []string
		if text != "" && derefAnswer(v.AllowFreeformInput) {
			free = []string{text}
		}
		if len(ids) == 0 && len(free) == 0 {
			return missing()
		}
		if (v.Min != nil && int64(len(ids)) < *v.Min) || (v.Max != nil && int64(len(ids)) > *v.Max) {
			return protocol.ChatInputAnswerValue{}, false, fmt.Errorf("%q: wrong number of choices", name)
		}
		return protocol.NewChatInputAnswerValue(protocol.ChatInputSelectedManyAnswerValue{Kind: "selected-many", Value: ids, FreeformValues: free}), true, nil
	}
	return protocol.ChatInputAnswerValue{}, false, errors.New("this question kind is not supported by ahptui")
}
