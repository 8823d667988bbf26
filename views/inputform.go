package views

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/ahptui/ahptui/keymap"
	"github.com/ahptui/ahptui/protocol"
)

// InputFormState is the UI's local state of an open input-request form:
// which question has focus and what the user has entered so far. The UI
// owns and mutates it; RenderInputRequest only reads it. A question with no
// entry in Drafts shows the request's synchronized answer (another client
// may have drafted it), else its default.
type InputFormState struct {
	Focus  int                   // index into the request's questions
	Drafts map[string]InputDraft // by question id
	Error  string                // validation message to show, e.g. "answer the required questions"
	// Setting: the form edits a setting, not an input request; it is
	// titled so, and esc cancels (nothing waits to be answered later).
	Setting bool
}

// InputDraft is the local entry for one question. Which fields matter
// depends on the question kind:
//
//   - text, number: Text, with the cursor at byte offset Cursor;
//   - boolean: Bool;
//   - single-select: Choice (the chosen option id), Highlight (the option
//     under the cursor), Text for free-form input when allowed;
//   - multi-select: Chosen (option ids), Highlight, Text for free-form.
type InputDraft struct {
	Text      string
	Cursor    int
	Bool      *bool
	Choice    string
	Chosen    map[string]bool
	Highlight int
}

// DraftFromAnswer turns a synchronized answer into a local draft, so the
// UI can start editing from what another client (or the host) entered.
func DraftFromAnswer(a protocol.ChatInputAnswer) InputDraft {
	var d InputDraft
	ans, ok := a.Variant.(protocol.ChatInputAnswered)
	if !ok {
		return d
	}
	switch v := ans.Value.Variant.(type) {
	case protocol.ChatInputTextAnswerValue:
		d.Text = v.Value
	case protocol.ChatInputNumberAnswerValue:
		d.Text = strconv.FormatFloat(v.Value, 'f', -1, 64)
	case protocol.ChatInputBooleanAnswerValue:
		b := v.Value
		d.Bool = &b
	case protocol.ChatInputSelectedAnswerValue:
		d.Choice = v.Value
		if len(v.FreeformValues) > 0 {
			d.Text = v.FreeformValues[0]
		}
	case protocol.ChatInputSelectedManyAnswerValue:
		d.Chosen = map[string]bool{}
		for _, id := range v.Value {
			d.Chosen[id] = true
		}
		if len(v.FreeformValues) > 0 {
			d.Text = v.FreeformValues[0]
		}
	}
	d.Cursor = len(d.Text)
	return d
}

// question is the common shape of the ChatInputQuestion variants.
type question struct {
	id, kind, title, message string
	required                 bool
	options                  []protocol.ChatInputOption
	freeform                 bool
	hint                     string // range, format, default
	defaultText              string
	defaultBool              *bool
}

func normalizeQuestion(q protocol.ChatInputQuestion) question {
	b := func(p *bool) bool { return p != nil && *p }
	switch v := q.Variant.(type) {
	case protocol.ChatInputTextQuestion:
		out := question{id: v.ID, kind: "text", title: strOr(v.Title), message: v.Message, required: b(v.Required), defaultText: strOr(v.DefaultValue)}
		var h []string
		if v.Format != nil {
			h = append(h, *v.Format)
		}
		if v.Min != nil || v.Max != nil {
			h = append(h, rangeText("characters", intPtrF(v.Min), intPtrF(v.Max)))
		}
		out.hint = strings.Join(h, ", ")
		return out
	case protocol.ChatInputNumberQuestion:
		out := question{id: v.ID, kind: "number", title: strOr(v.Title), message: v.Message, required: b(v.Required)}
		if v.DefaultValue != nil {
			out.defaultText = strconv.FormatFloat(*v.DefaultValue, 'f', -1, 64)
		}
		if v.Min != nil || v.Max != nil {
			out.hint = rangeText("", v.Min, v.Max)
		}
		return out
	case protocol.ChatInputBooleanQuestion:
		return question{id: v.ID, kind: "boolean", title: strOr(v.Title), message: v.Message, required: b(v.Required), defaultBool: v.DefaultValue}
	case protocol.ChatInputSingleSelectQuestion:
		return question{id: v.ID, kind: "single-select", title: strOr(v.Title), message: v.Message, required: b(v.Required),
			options: v.Options, freeform: b(v.AllowFreeformInput)}
	case protocol.ChatInputMultiSelectQuestion:
		out := question{id: v.ID, kind: "multi-select", title: strOr(v.Title), message: v.Message, required: b(v.Required),
			options: v.Options, freeform: b(v.AllowFreeformInput)}
		if v.Min != nil || v.Max != nil {
			out.hint = rangeText("choices", intPtrF(v.Min), intPtrF(v.Max))
		}
		return out
	case protocol.UnknownChatInputQuestion:
		return question{kind: v.Discriminator}
	}
	return question{kind: q.Kind()}
}

func intPtrF(p *int64) *float64 {
	if p == nil {
		return nil
	}
	f := float64(*p)
	return &f
}

func rangeText(unit string, lo, hi *float64) string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	var s string
	switch {
	case lo != nil && hi != nil:
		s = f(*lo) + "–" + f(*hi)
	case lo != nil:
		s = "at least " + f(*lo)
	default:
		s = "at most " + f(*hi)
	}
	if unit != "" {
		s += " " + unit
	}
	return s
}

// draftFor is the state's draft for q, else the synchronized answer, else
// the question's default.
func draftFor(req protocol.ChatInputRequest, state InputFormState, q question) (InputDraft, bool) {
	if d, ok := state.Drafts[q.id]; ok {
		return d, true
	}
	if a, ok := req.Answers[q.id]; ok {
		if _, skipped := a.Variant.(protocol.ChatInputSkipped); !skipped {
			return DraftFromAnswer(a), true
		}
	}
	d := InputDraft{Text: q.defaultText, Bool: q.defaultBool}
	return d, false
}

// RenderInputRequest draws an open input request (elicitation) as a framed
// form exactly width cells wide: the request's message and URL, each
// question with its current draft, the focused question marked and, for
// text entry, a cursor; then the keys to move, submit and decline.
func RenderInputRequest(th Theme, req protocol.ChatInputRequest, state InputFormState, width int) string {
	if width < 12 {
		width = 12
	}
	frame := th.PanelFocused.Padding(0, 1)
	inner := width - frame.GetHorizontalFrameSize()
	var lines []string
	add := func(style lipgloss.Style, s string) {
		for _, l := range wrapLines(s, inner) {
			lines = append(lines, style.Render(l))
		}
	}
	if state.Setting {
		add(th.Title, "◆ Change a setting")
	} else {
		add(th.Title, "◆ Input requested")
	}
	if m := Sanitize(strOr(req.Message)); strings.TrimSpace(m) != "" {
		for _, l := range strings.Split(m, "\n") {
			add(th.Text, l)
		}
	}
	if req.URL != nil && *req.URL != "" {
		add(th.Muted, "review this URL:")
		lines = append(lines, urlLines(th, *req.URL, inner)...)
	}
	for i, q0 := range req.Questions {
		q := normalizeQuestion(q0)
		focused := i == state.Focus
		lines = append(lines, "")
		lines = append(lines, questionLines(th, req, state, q, focused, inner)...)
	}
	if e := SanitizeLine(state.Error); e != "" {
		lines = append(lines, "")
		add(th.Error, "✗ "+e)
	}
	lines = append(lines, "")
	var hints []string
	if state.Focus >= 0 && state.Focus < len(req.Questions) {
		// The keys that answer the focused question, by its kind.
		switch req.Questions[state.Focus].Variant.(type) {
		case protocol.ChatInputSingleSelectQuestion, protocol.ChatInputMultiSelectQuestion:
			up, down := hintKeys.Input.ChoiceUp, hintKeys.Input.ChoiceDown
			up.SetHelp(up.Help().Key+"/"+down.Help().Key, "move")
			hints = append(hints, hintLine(th, up, hintKeys.Input.Pick, hintKeys.Input.PickNumber))
		case protocol.ChatInputBooleanQuestion:
			hints = append(hints, hintLine(th, hintKeys.Input.BooleanHelp()...))
		}
	}
	// Enter moves on, and on the last question submits: it joins the
	// key that does the same.
	last := state.Focus >= len(req.Questions)-1
	next, prev, submit := hintKeys.Input.NextField, hintKeys.Input.PrevField, hintKeys.Input.Submit
	enterKey := hintKeys.Input.Enter.Help().Key
	prev.SetHelp(prev.Help().Key, "back")
	if last {
		submit.SetHelp(enterKey+"/"+submit.Help().Key, submit.Help().Desc)
	} else {
		next.SetHelp(enterKey+"/"+next.Help().Key, "next")
	}
	switch {
	case len(req.Questions) > 1 && !last:
		hints = append(hints, hintLine(th, next, prev))
	case len(req.Questions) > 1:
		hints = append(hints, hintLine(th, prev))
	}
	if state.Setting {
		cancel := hintKeys.Input.Close
		cancel.SetHelp(cancel.Help().Key, "cancel")
		hints = append(hints, hintLine(th, submit, cancel))
	} else {
		hints = append(hints, hintLine(th, submit, hintKeys.Input.Close, hintKeys.Input.Decline))
	}
	lines = append(lines, wrapLines(strings.Join(hints, th.Subtle.Render(" · ")), inner)...)
	return frame.Width(width).Render(strings.Join(lines, "\n"))
}

func questionLines(th Theme, req protocol.ChatInputRequest, state InputFormState, q question, focused bool, inner int) []string {
	var lines []string
	marker := "  "
	if focused {
		marker = "› "
	}
	head := SanitizeLine(q.title)
	msg := SanitizeLine(q.message)
	if head == "" {
		head, msg = msg, ""
	}
	if head == "" {
		head = "Question"
	}
	if q.required {
		head += " *"
	}
	headStyle := th.Text.Bold(true)
	if focused {
		headStyle = th.Title
	}
	for i, l := range wrapLines(head, inner-2) {
		if i == 0 {
			lines = append(lines, headStyle.Render(marker+l))
		} else {
			lines = append(lines, headStyle.Render("  "+l))
		}
	}
	sub := func(style lipgloss.Style, s string) {
		for _, l := range wrapLines(s, inner-2) {
			lines = append(lines, "  "+style.Render(l))
		}
	}
	if msg != "" {
		sub(th.Text, msg)
	}
	if q.hint != "" {
		sub(th.Muted, "("+SanitizeLine(q.hint)+")")
	}
	d, has := draftFor(req, state, q)
	switch q.kind {
	case "text", "number":
		lines = append(lines, "  "+textField(th, d, q.defaultText, has, focused, inner-2))
	case "boolean":
		yes, no := "( ) yes", "( ) no"
		if d.Bool != nil {
			if *d.Bool {
				yes = "(•) yes"
			} else {
				no = "(•) no"
			}
		}
		lines = append(lines, "  "+th.Text.Render(yes+"   "+no))
	case "single-select", "multi-select":
		multi := q.kind == "multi-select"
		for j, o := range q.options {
			var box string
			switch {
			case multi && d.Chosen[o.ID]:
				box = "[x] "
			case multi:
				box = "[ ] "
			case d.Choice == o.ID:
				box = "(•) "
			default:
				box = "( ) "
			}
			cur := "  "
			if focused && j == d.Highlight {
				cur = "▸ "
			}
			label := SanitizeLine(o.Label)
			if o.Recommended != nil && *o.Recommended {
				label += " (recommended)"
			}
			if desc := SanitizeLine(strOr(o.Description)); desc != "" {
				label += " — " + desc
			}
			row := wrapIndented(cur+box+label, inner-2, "      ")
			for k, l := range row {
				if focused && j == d.Highlight && k == 0 {
					lines = append(lines, "  "+th.Selected.Render(l))
				} else {
					lines = append(lines, "  "+th.Text.Render(l))
				}
			}
		}
		if q.freeform {
			lines = append(lines, "  "+th.Muted.Render("other: ")+textField(th, d, "", d.Text != "", focused && d.Highlight == len(q.options), inner-2-7))
		}
	default:
		sub(th.Muted, fmt.Sprintf("(a %q question this client cannot show)", SanitizeLine(q.kind)))
	}
	if a, ok := req.Answers[q.id]; ok {
		if _, skipped := a.Variant.(protocol.ChatInputSkipped); skipped {
			sub(th.Muted, "skipped")
		}
	}
	return lines
}

// textField draws a one-line entry box: the text (or the default as a
// placeholder), with a cursor when focused, scrolled so the cursor shows.
func textField(th Theme, d InputDraft, placeholder string, has, focused bool, width int) string {
	if width < 4 {
		width = 4
	}
	text := SanitizeLine(d.Text)
	if !has && text == "" && placeholder != "" {
		return th.Subtle.Render(Truncate("[ "+SanitizeLine(placeholder)+" ]", width))
	}
	room := width - 4 // "[ " + " ]"
	if !focused {
		return th.Text.Render("[ " + Truncate(text, room) + " ]")
	}
	cur := min(max(d.Cursor, 0), len(d.Text))
	before := SanitizeLine(d.Text[:cur])
	after := SanitizeLine(d.Text[cur:])
	// Keep the cursor in view: show the end of what is before it.
	bw := lipgloss.Width(before)
	if bw > room-1 {
		before = "…" + truncateLeft(before, room-2)
	}
	line := before + "▏" + after
	return th.Text.Render("[ " + Truncate(line, room) + " ]")
}

// truncateLeft keeps the last width cells of s.
func truncateLeft(s string, width int) string {
	w := lipgloss.Width(s)
	if w <= width {
		return s
	}
	r := []rune(s)
	for len(r) > 0 && lipgloss.Width(string(r)) > width {
		r = r[1:]
	}
	return string(r)
}

// inputRequestSummary is how an input request appears inline in the
// transcript: what was asked and where it stands. The UI opens the form
// (RenderInputRequest) to answer it. ended is how its turn ended ("" while
// it runs): a request the turn left unanswered is closed and says so.
func inputRequestSummary(th Theme, p protocol.InputRequestResponsePart, width int, ended protocol.TurnState) []string {
	var lines []string
	add := func(style lipgloss.Style, s string) {
		for _, l := range wrapLines(s, width) {
			lines = append(lines, style.Render(l))
		}
	}
	head := "◆ Input requested"
	style := th.Warning.Bold(true)
	if p.Response == nil && ended != "" {
		head, style = "⊘ Input requested", th.Muted
	}
	if p.Response != nil {
		style = th.Muted
		switch *p.Response {
		case protocol.ChatInputResponseKindAccept:
			head = "✓ Input given"
		case protocol.ChatInputResponseKindDecline:
			head = "⊘ Input declined"
		case protocol.ChatInputResponseKindCancel:
			head = "⊘ Input request cancelled"
		default:
			head = "Input request: " + SanitizeLine(string(*p.Response))
		}
	}
	if m := SanitizeLine(strOr(p.Request.Message)); m != "" {
		head += ": " + m
	}
	add(style, head)
	if p.Request.URL != nil && *p.Request.URL != "" {
		for _, l := range urlLines(th, *p.Request.URL, width-2) {
			lines = append(lines, "  "+l)
		}
	}
	for _, q0 := range p.Request.Questions {
		q := normalizeQuestion(q0)
		label := SanitizeLine(q.title)
		if label == "" {
			label = SanitizeLine(q.message)
		}
		ans := answerText(p.Request.Answers[q.id], q)
		for _, l := range wrapLines("• "+label+": "+ans, width-2) {
			lines = append(lines, "  "+th.Text.Render(l))
		}
	}
	switch {
	case p.Response == nil && ended != "":
		add(th.Muted, UnansweredText(ended))
	case p.Response == nil:
		add(th.Muted, "waiting for an answer")
	}
	return lines
}

// selectedInputRequest is an input request holding the transcript's
// selection: its summary framed like a selected tool card, with the keys
// that open its form or decline it while it waits for an answer.
func selectedInputRequest(th Theme, p protocol.InputRequestResponsePart, width int, ended protocol.TurnState) []string {
	frame := th.PanelFocused.Padding(0, 1)
	inner := max(width-frame.GetHorizontalFrameSize(), 1)
	lines := inputRequestSummary(th, p, inner, ended)
	if p.Response == nil && ended == "" {
		answer, decline := hintKeys.Chat.Answers(keymap.AnswerInput)
		lines = append(lines, wrapLines(hintLine(th, answer, decline), inner)...)
	}
	return strings.Split(frame.Width(max(width, 4)).Render(strings.Join(lines, "\n")), "\n")
}

// answerText is a synchronized answer in words.
func answerText(a protocol.ChatInputAnswer, q question) string {
	switch v := a.Variant.(type) {
	case nil:
		return "—"
	case protocol.ChatInputSkipped:
		return "skipped"
	case protocol.ChatInputAnswered:
		label := func(id string) string {
			for _, o := range q.options {
				if o.ID == id {
					return SanitizeLine(o.Label)
				}
			}
			return SanitizeLine(id)
		}
		var s string
		switch x := v.Value.Variant.(type) {
		case protocol.ChatInputTextAnswerValue:
			s = SanitizeLine(x.Value)
		case protocol.ChatInputNumberAnswerValue:
			s = strconv.FormatFloat(x.Value, 'f', -1, 64)
		case protocol.ChatInputBooleanAnswerValue:
			s = map[bool]string{true: "yes", false: "no"}[x.Value]
		case protocol.ChatInputSelectedAnswerValue:
			s = label(x.Value)
		case protocol.ChatInputSelectedManyAnswerValue:
			var ls []string
			for _, id := range x.Value {
				ls = append(ls, label(id))
			}
			s = strings.Join(ls, ", ")
		default:
			s = "(answered)"
		}
		if v.State == "draft" {
			s += " (draft)"
		}
		return s
	}
	return "(answered)"
}
