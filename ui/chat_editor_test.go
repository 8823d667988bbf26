package ui

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	tea "charm.land/bubbletea/v2"
)

func TestEditorFromEnv(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"VISUAL": "code --wait", "EDITOR": "vi"}, "code --wait"},
		{map[string]string{"VISUAL": "  ", "EDITOR": "nano"}, "nano"},
		{map[string]string{}, ""},
	} {
		if got := EditorFromEnv(env(tc.env)); got != tc.want {
			t.Errorf("EditorFromEnv(%v) = %q, want %q", tc.env, got, tc.want)
		}
	}
}

// draftFile writes text to a file the way editDraft leaves it for the
// editor.
func draftFile(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "draft.md")
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestEditorDoneKeepsDraftsApart: what the editor saved replaces the
// composer's draft (its trailing newline dropped) when the chat it was
// opened on is still open; a failed editor changes nothing; the file is
// removed either way.
func TestEditorDoneKeepsDraftsApart(t *testing.T) {
	m := fxModel(fxChatState())
	cp := m.chatPanel
	cp.composer.SetValue("typed")
	here := draftKey{cp.cfg.Host, cp.openSession, cp.openChat}

	p := draftFile(t, "typed\nand edited\n")
	runAll(m, func() tea.Msg { return editorDoneMsg{key: here, path: p} })
	if got := cp.composer.Value(); got != "typed\nand edited" {
		t.Errorf("composer after the editor = %q", got)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Errorf("the draft file is still there: %v", err)
	}

	p = draftFile(t, "the editor crashed half way")
	runAll(m, func() tea.Msg { return editorDoneMsg{key: here, path: p, err: errors.New("exit status 1")} })
	if got := cp.composer.Value(); got != "typed\nand edited" {
		t.Errorf("a failed editor changed the draft to %q", got)
	}
	if !m.status.isErr {
		t.Error("a failed editor said nothing")
	}

	// The chat changed meanwhile: the text goes to the draft it was
	// written for, not into another chat's composer.
	other := draftKey{cp.cfg.Host, "ahp-session:/elsewhere", ""}
	p = draftFile(t, "for elsewhere\n")
	runAll(m, func() tea.Msg { return editorDoneMsg{key: other, path: p} })
	if got := cp.composer.Value(); got != "typed\nand edited" {
		t.Errorf("another chat's edited draft landed here: %q", got)
	}
	if cp.drafts[other] != "for elsewhere" {
		t.Errorf("the other chat's draft = %q", cp.drafts[other])
	}
}
