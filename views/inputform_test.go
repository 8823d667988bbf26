package views

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/protocol"
)

func answered(v protocol.ChatInputAnswerValueVariant) protocol.ChatInputAnswer {
	return protocol.ChatInputAnswer{Variant: protocol.ChatInputAnswered{State: "draft", Value: protocol.ChatInputAnswerValue{Variant: v}}}
}

// testInputRequest asks one question of every kind; two already have
// synchronized drafts (as if another client typed them).
func testInputRequest() protocol.ChatInputRequest {
	return protocol.ChatInputRequest{
		ID:      "req-1",
		Message: ptr("Before I deploy, confirm a few things."),
		Questions: []protocol.ChatInputQuestion{
			{Variant: protocol.ChatInputSingleSelectQuestion{ID: "env", Title: ptr("Environment"), Message: "Where should it go?", Required: ptr(true),
				Options: []protocol.ChatInputOption{
					{ID: "staging", Label: "Staging", Recommended: ptr(true)},
					{ID: "prod", Label: "Production", Description: ptr("customers see it immediately")},
				}}},
			{Variant: protocol.ChatInputTextQuestion{ID: "note", Title: ptr("Release note"), Message: "One line for the changelog", DefaultValue: ptr("Fix login after upgrade"), Max: ptr(int64(80))}},
			{Variant: protocol.ChatInputNumberQuestion{ID: "pct", Title: ptr("Canary size"), Message: "Percent of traffic", Min: ptr(1.0), Max: ptr(50.0)}},
			{Variant: protocol.ChatInputBooleanQuestion{ID: "notify", Title: ptr("Notify"), Message: "Post in #deploys?", DefaultValue: ptr(true)}},
			{Variant: protocol.ChatInputMultiSelectQuestion{ID: "checks", Title: ptr("Checks"), Message: "Which checks must pass?", AllowFreeformInput: ptr(true),
				Options: []protocol.ChatInputOption{{ID: "unit", Label: "Unit tests"}, {ID: "e2e", Label: "End-to-end"}, {ID: "lint", Label: "Lint"}}}},
		},
		Answers: map[string]protocol.ChatInputAnswer{
			"env":    answered(protocol.ChatInputSelectedAnswerValue{Value: "staging"}),
			"checks": answered(protocol.ChatInputSelectedManyAnswerValue{Value: []string{"unit", "lint"}}),
		},
	}
}

func testFormState() InputFormState {
	return InputFormState{Focus: 2, Drafts: map[string]InputDraft{
		"pct":    {Text: "10", Cursor: 1},
		"checks": {Chosen: map[string]bool{"unit": true, "e2e": true}, Highlight: 1},
	}}
}

func TestRenderInputRequestGolden(t *testing.T) {
	req, state := testInputRequest(), testFormState()
	for _, w := range goldenWidths {
		out := RenderInputRequest(noColorTheme, req, state, w)
		checkScreen(t, noColorTheme, out, w)
		checkGolden(t, "input_request", w, out)
	}
	out := RenderInputRequest(colorTheme, req, state, 100)
	checkScreen(t, colorTheme, out, 100)
	checkGolden(t, "input_request_color", 100, out)

	url := protocol.ChatInputRequest{ID: "u", Message: ptr("Review the change before it ships."), URL: ptr(grantURL)}
	out = RenderInputRequest(noColorTheme, url, InputFormState{}, 60)
	checkScreen(t, noColorTheme, out, 60)
	checkGolden(t, "input_request_url", 60, out)
}

func TestRenderInputRequestContent(t *testing.T) {
	req := testInputRequest()
	out := ansi.Strip(RenderInputRequest(noColorTheme, req, testFormState(), 100))
	for _, want := range []string{
		"Input requested", "Before I deploy",
		"Environment *", "(•) Staging (recommended)", "( ) Production — customers see it immediately", // synced draft
		"[ Fix login after upgrade ]", "(at most 80 characters)", // default as placeholder
		"› Canary size", "[ 1▏0 ]", "(1–50)", // focused, cursor after "1"
		"(•) yes",                                      // boolean default
		"[x] Unit tests", "[x] End-to-end", "[ ] Lint", // local draft wins over synced answer
		"enter/tab next", "shift+tab back", "ctrl+s submit", "esc close, answer later", "ctrl+d decline",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("form lacks %q:\n%s", want, out)
		}
	}
	state := testFormState()
	state.Error = "answer the required questions"
	if out := ansi.Strip(RenderInputRequest(noColorTheme, req, state, 100)); !strings.Contains(out, "✗ answer the required questions") {
		t.Error("validation error not shown")
	}
}

func TestRenderInputRequestWidths(t *testing.T) {
	req, state := testInputRequest(), testFormState()
	for _, th := range []Theme{noColorTheme, colorTheme} {
		for w := 12; w <= 250; w += 7 {
			for focus := 0; focus < 5; focus++ {
				state.Focus = focus
				checkScreen(t, th, RenderInputRequest(th, req, state, w), w)
			}
		}
	}
}

func TestRenderInputRequestHostile(t *testing.T) {
	evil := "\x1b]52;c;cm0=\x07\x1b[2Jevil\r\u202e\x9b31m"
	req := protocol.ChatInputRequest{ID: evil, Message: ptr(evil), URL: ptr(evil),
		Questions: []protocol.ChatInputQuestion{
			{Variant: protocol.ChatInputTextQuestion{ID: "a", Title: ptr(evil), Message: evil, DefaultValue: ptr(evil), Format: ptr(evil)}},
			{Variant: protocol.ChatInputSingleSelectQuestion{ID: "b", Message: evil, Options: []protocol.ChatInputOption{{ID: evil, Label: evil, Description: ptr(evil)}}}},
			{Variant: protocol.UnknownChatInputQuestion{Discriminator: evil}},
		},
		Answers: map[string]protocol.ChatInputAnswer{"a": answered(protocol.ChatInputTextAnswerValue{Value: evil})}}
	for _, th := range []Theme{noColorTheme, colorTheme} {
		out := RenderInputRequest(th, req, InputFormState{Error: evil}, 60)
		checkScreen(t, th, out, 60)
		if strings.Contains(ansi.Strip(out), "52;c") {
			t.Fatal("payload visible")
		}
	}
}

func TestDraftFromAnswer(t *testing.T) {
	d := DraftFromAnswer(answered(protocol.ChatInputNumberAnswerValue{Value: 12.5}))
	if d.Text != "12.5" || d.Cursor != 4 {
		t.Errorf("number draft = %+v", d)
	}
	d = DraftFromAnswer(answered(protocol.ChatInputBooleanAnswerValue{Value: false}))
	if d.Bool == nil || *d.Bool {
		t.Errorf("boolean draft = %+v", d)
	}
	d = DraftFromAnswer(answered(protocol.ChatInputSelectedManyAnswerValue{Value: []string{"a"}, FreeformValues: []string{"other"}}))
	if !d.Chosen["a"] || d.Text != "other" {
		t.Errorf("multi draft = %+v", d)
	}
	d = DraftFromAnswer(protocol.ChatInputAnswer{Variant: protocol.ChatInputSkipped{}})
	if d.Text != "" || d.Bool != nil || d.Chosen != nil {
		t.Errorf("skipped answer gave a draft: %+v", d)
	}
}

// The form's hint offers the keys that answer the focused question, by its
// kind, from keymap.Input (they were hard-coded and never shown).
func TestInputFormHintNamesChoiceKeys(t *testing.T) {
	req := protocol.ChatInputRequest{ID: "r", Questions: []protocol.ChatInputQuestion{
		{Variant: protocol.ChatInputSingleSelectQuestion{ID: "env", Message: "Where?", Options: []protocol.ChatInputOption{{ID: "a", Label: "staging"}}}},
		{Variant: protocol.ChatInputBooleanQuestion{ID: "ok", Message: "Notify?"}},
		{Variant: protocol.ChatInputTextQuestion{ID: "why", Message: "Why?"}},
	}}
	for _, tc := range []struct {
		focus    int
		want     []string
		wantNone []string
	}{
		{0, []string{"↑/↓ move", "space choose", "1-9 choose by number", "ctrl+s submit"}, []string{"y yes"}},
		{1, []string{"y yes", "n no", "space toggle", "ctrl+s submit"}, []string{"1-9"}},
		{2, []string{"enter/ctrl+s submit", "shift+tab back"}, []string{"y yes", "1-9", "tab next"}},
	} {
		st := InputFormState{Focus: tc.focus, Drafts: map[string]InputDraft{}}
		out := ansi.Strip(RenderInputRequest(noColorTheme, req, st, 120))
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("focus %d: hint lacks %q:\n%s", tc.focus, w, out)
			}
		}
		for _, w := range tc.wantNone {
			if strings.Contains(out, w) {
				t.Errorf("focus %d: hint offers %q for the wrong kind:\n%s", tc.focus, w, out)
			}
		}
	}
}
