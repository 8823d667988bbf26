package ui

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/keymap"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

// inputForm answers one input request (elicitation). Its state is
// views.InputFormState, which views.RenderInputRequest draws; the keys below
// edit it.
type inputForm struct {
	chat    string
	request protocol.ChatInputRequest
	state   views.InputFormState
	keys    keymap.InputKeys
	// setting is set when the form edits a setting (settings_edit.go)
	// rather than answer an input request.
	setting *settingEdit
}

func newInputForm(chat string, req protocol.ChatInputRequest, keys keymap.InputKeys) *inputForm {
	f := &inputForm{chat: chat, request: req, state: views.InputFormState{Drafts: map[string]views.InputDraft{}}, keys: keys}
	for _, q := range req.Questions {
		id, _, _, _ := questionBase(q)
		f.state.Drafts[id] = initialDraft(q, req.Answers)
	}
	return f
}

// initialDraft starts from what another client already drafted, else the
// question's default (the recommended option for a single choice).
func initialDraft(q protocol.ChatInputQuestion, answers map[string]protocol.ChatInputAnswer) views.InputDraft {
	id, _, _, _ := questionBase(q)
	if a, ok := answers[id]; ok {
		return views.DraftFromAnswer(a)
	}
	var d views.InputDraft
	switch v := q.Variant.(type) {
	case protocol.ChatInputTextQuestion:
		d.Text = deref(v.DefaultValue)
	case protocol.ChatInputNumberQuestion:
		if v.DefaultValue != nil {
			d.Text = strconv.FormatFloat(*v.DefaultValue, 'f', -1, 64)
		}
	case protocol.ChatInputBooleanQuestion:
		d.Bool = v.DefaultValue
	case protocol.ChatInputSingleSelectQuestion:
		for i, o := range v.Options {
			if deref(o.Recommended) {
				d.Choice, d.Highlight = o.ID, i
			}
		}
	case protocol.ChatInputMultiSelectQuestion:
		d.Chosen = map[string]bool{}
	}
	d.Cursor = len(d.Text)
	return d
}

func (f *inputForm) move(d int) tea.Cmd {
	if n := len(f.request.Questions); n > 0 {
		f.state.Focus = (f.state.Focus + d + n) % n
	}
	return nil
}

// update edits the focused question's draft with one key.
func (f *inputForm) update(msg tea.Msg) tea.Cmd {
	if len(f.request.Questions) == 0 {
		return nil
	}
	q := f.request.Questions[f.state.Focus]
	id, _, _, _ := questionBase(q)
	d := f.state.Drafts[id]
	opts := questionOptions(q)
	switch msg := msg.(type) {
	case tea.PasteMsg:
		d = insertText(d, msg.Content)
	case tea.KeyPressMsg:
		k := msg.String()
		ks := f.keys
		switch q.Variant.(type) {
		case protocol.ChatInputBooleanQuestion:
			switch {
			case key.Matches(msg, ks.Yes):
				d.Bool = ptrTo(true)
			case key.Matches(msg, ks.No):
				d.Bool = ptrTo(false)
			case key.Matches(msg, ks.Toggle):
				d.Bool = ptrTo(d.Bool == nil || !*d.Bool)
			}
			f.state.Drafts[id] = d
			return nil
		case protocol.ChatInputSingleSelectQuestion, protocol.ChatInputMultiSelectQuestion:
			_, multi := q.Variant.(protocol.ChatInputMultiSelectQuestion)
			pick := func(i int) {
				if i < 0 || i >= len(opts) {
					return
				}
				d.Highlight = i
				if multi {
					if d.Chosen == nil {
						d.Chosen = map[string]bool{}
					}
					d.Chosen[opts[i].ID] = !d.Chosen[opts[i].ID]
				} else {
					d.Choice = opts[i].ID
				}
			}
			switch {
			case cursorKey(msg, ks.ChoiceUp, ks.ChoiceDown):
				d.Highlight = moveCursor(msg, ks.ChoiceUp, d.Highlight, len(opts))
			case key.Matches(msg, ks.Pick):
				pick(d.Highlight)
			case key.Matches(msg, ks.PickNumber) && len(k) == 1 && k[0] >= '1' && k[0] <= '9' && d.Text == "":
				pick(int(k[0] - '1'))
			default:
				d = editText(d, msg) // free-form input, when the question allows it
			}
			f.state.Drafts[id] = d
			return nil
		}
		d = editText(d, msg)
	}
	f.state.Drafts[id] = d
	return nil
}

func ptrTo[T any](v T) *T { return &v }

func insertText(d views.InputDraft, s string) views.InputDraft {
	s = strings.ReplaceAll(s, "\n", " ")
	d.Cursor = max(0, min(d.Cursor, len(d.Text)))
	d.Text = d.Text[:d.Cursor] + s + d.Text[d.Cursor:]
	d.Cursor += len(s)
	return d
}

// editText is single-line editing: type, backspace, delete, move, clear.
func editText(d views.InputDraft, msg tea.KeyPressMsg) views.InputDraft {
	d.Cursor = max(0, min(d.Cursor, len(d.Text)))
	switch msg.String() {
	case "backspace":
		if d.Cursor > 0 {
			_, n := utf8.DecodeLastRuneInString(d.Text[:d.Cursor])
			d.Text = d.Text[:d.Cursor-n] + d.Text[d.Cursor:]
			d.Cursor -= n
		}
	case "delete":
		if d.Cursor < len(d.Text) {
			_, n := utf8.DecodeRuneInString(d.Text[d.Cursor:])
			d.Text = d.Text[:d.Cursor] + d.Text[d.Cursor+n:]
		}
	case "left":
		if d.Cursor > 0 {
			_, n := utf8.DecodeLastRuneInString(d.Text[:d.Cursor])
			d.Cursor -= n
		}
	case "right":
		if d.Cursor < len(d.Text) {
			_, n := utf8.DecodeRuneInString(d.Text[d.Cursor:])
			d.Cursor += n
		}
	case "home", "ctrl+a":
		d.Cursor = 0
	case "end", "ctrl+e":
		d.Cursor = len(d.Text)
	case "ctrl+u":
		d.Text, d.Cursor = d.Text[d.Cursor:], 0
	default:
		if msg.Text != "" {
			d = insertText(d, msg.Text)
		}
	}
	return d
}

// questionBase, questionOptions and answerFromDraft are views': the
// commands (cli) answer input requests by the same rules.
func questionBase(q protocol.ChatInputQuestion) (id, title, message string, required bool) {
	return views.QuestionBase(q)
}

func questionOptions(q protocol.ChatInputQuestion) []protocol.ChatInputOption {
	return views.QuestionOptions(q)
}

func answerFromDraft(q protocol.ChatInputQuestion, d views.InputDraft) (protocol.ChatInputAnswerValue, bool, error) {
	return views.AnswerFromDraft(q, d)
}

// submitInput sends each answer as a draft (chat/inputAnswerChanged), then
// accepts the request with the final answers (chat/inputCompleted).
func (a *app) submitInput() tea.Cmd {
	f := a.form
	if f.setting != nil {
		return a.submitSetting()
	}
	if why := a.closedInput(f.chat, f.request.ID); why != "" {
		a.form, a.modal = nil, modalNone
		return reportInfo(why)
	}
	answers := map[string]protocol.ChatInputAnswer{}
	var order []string
	for i, q := range f.request.Questions {
		id, _, _, _ := questionBase(q)
		v, ok, err := answerFromDraft(q, f.state.Drafts[id])
		if err != nil {
			f.state.Error = err.Error()
			f.state.Focus = i
			return nil
		}
		if ok {
			answers[id] = protocol.NewChatInputAnswer(protocol.ChatInputAnswered{State: "submitted", Value: v})
			order = append(order, id)
		}
	}
	for _, id := range order {
		draft := protocol.NewChatInputAnswer(protocol.ChatInputAnswered{State: "draft", Value: answers[id].Variant.(protocol.ChatInputAnswered).Value})
		if _, err := a.dispatch(f.chat, protocol.ChatInputAnswerChangedAction{RequestID: f.request.ID, QuestionID: id, Answer: &draft}); err != nil {
			return reportError(err)
		}
	}
	a.form, a.modal = nil, modalNone
	return a.dispatchThen(f.chat, protocol.ChatInputCompletedAction{
		RequestID: f.request.ID, Response: protocol.ChatInputResponseKindAccept, Answers: answers,
	}, "answers submitted")
}

func (a *app) declineInput() tea.Cmd {
	f := a.form
	if f == nil {
		return nil
	}
	if f.setting != nil {
		a.cancelSetting()
		return nil
	}
	a.form, a.modal = nil, modalNone
	if why := a.closedInput(f.chat, f.request.ID); why != "" {
		return reportInfo(why)
	}
	return a.dispatchThen(f.chat, protocol.ChatInputCompletedAction{
		RequestID: f.request.ID, Response: protocol.ChatInputResponseKindDecline,
	}, "input request declined")
}

// enterForm is enter in the form: a single choice nothing is chosen in
// yet (or a setting's search) takes its highlighted option (a multiple
// choice keeps what space chose: none may be meant), then the next question is focused, or,
// on the last, the form is submitted (which says in the form what is
// still missing, and focuses it).
func (a *app) enterForm() tea.Cmd {
	f := a.form
	if len(f.request.Questions) == 0 {
		return a.submitInput()
	}
	q := f.request.Questions[f.state.Focus]
	id, _, _, _ := questionBase(q)
	d := f.state.Drafts[id]
	opts := questionOptions(q)
	// Text typed in a setting's form searches the host's values (the
	// highlighted one is picked); in a question's, it is the answer.
	search := f.setting != nil && f.setting.complete != nil
	if d.Highlight >= 0 && d.Highlight < len(opts) && (search || strings.TrimSpace(d.Text) == "") {
		switch q.Variant.(type) {
		case protocol.ChatInputSingleSelectQuestion:
			if d.Choice == "" || search {
				d.Choice = opts[d.Highlight].ID
			}
		}
		f.state.Drafts[id] = d
	}
	if f.state.Focus < len(f.request.Questions)-1 {
		return f.move(1)
	}
	return a.submitInput()
}

// formKey handles a key while the input form is open: move between
// questions, submit, decline, or edit the focused answer.
func (a *app) formKey(msg tea.KeyPressMsg) tea.Cmd {
	k := a.keys.Input
	f := a.form
	if f == nil {
		a.modal = modalNone
		return nil
	}
	switch {
	case key.Matches(msg, k.NextField):
		return f.move(1)
	case key.Matches(msg, k.PrevField):
		return f.move(-1)
	case key.Matches(msg, k.Submit):
		return a.submitInput()
	case key.Matches(msg, k.Enter):
		return a.enterForm()
	case key.Matches(msg, k.Decline):
		return a.declineInput()
	case key.Matches(msg, k.Close) && f.setting != nil:
		a.cancelSetting()
		return nil
	case key.Matches(msg, k.Close):
		a.form, a.modal = nil, modalNone
		return reportInfo(fmt.Sprintf("the input request still waits: %s opens it again", a.keys.Chat.NextBlocker.Help().Key))
	}
	return a.editForm(msg)
}
