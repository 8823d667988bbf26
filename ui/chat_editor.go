package ui

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// Composing in the user's editor (ctrl+g in the composer, issue 35): the
// draft goes to a private temporary file, the UI hands the terminal to
// $VISUAL or $EDITOR (Bubble Tea's ExecProcess suspends it and takes the
// terminal back after), and what the editor saved replaces the draft.
// Nothing is sent: the user reads it back in the composer and presses
// enter.

// EditorFromEnv is the editor the user named: $VISUAL, else $EDITOR,
// as git and the shells read them.
func EditorFromEnv(getenv func(string) string) string {
	if v := strings.TrimSpace(getenv("VISUAL")); v != "" {
		return v
	}
	return strings.TrimSpace(getenv("EDITOR"))
}

// editorDoneMsg says the editor on the draft of key exited.
type editorDoneMsg struct {
	key  draftKey
	path string
	err  error
}

// editDraft opens the editor on the composer's draft.
func (cp *chatPanel) editDraft() tea.Cmd {
	editor := cp.cfg.Editor
	if editor == "" {
		if _, err := exec.LookPath("vi"); err != nil {
			return reportError(errors.New("no editor: set $VISUAL or $EDITOR"))
		}
		editor = "vi"
	}
	// CreateTemp makes the file 0600: a draft is the user's alone.
	f, err := os.CreateTemp("", "ahptui-draft-*.md")
	if err != nil {
		return reportError(fmt.Errorf("editing the draft: %w", err))
	}
	_, werr := f.WriteString(cp.composer.Value())
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		_ = os.Remove(f.Name())
		return reportError(fmt.Errorf("editing the draft: %w", werr))
	}
	k := draftKey{cp.cfg.Host, cp.openSession, cp.openChat}
	// Through sh, so an editor with arguments ("code --wait") works as
	// it does in git; the file is an argument, never part of the script.
	c := exec.Command("sh", "-c", editor+` "$1"`, "ahptui-editor", f.Name())
	return tea.ExecProcess(c, func(err error) tea.Msg { return editorDoneMsg{key: k, path: f.Name(), err: err} })
}

// onEditorDone puts what the editor saved in the composer, when the
// draft it was opened on is still the one on screen; else it keeps it as
// that chat's draft. A failed editor leaves the draft as it was.
func (cp *chatPanel) onEditorDone(msg editorDoneMsg) tea.Cmd {
	defer os.Remove(msg.path)
	if msg.err != nil {
		return reportError(fmt.Errorf("the editor failed, the draft is unchanged: %w", msg.err))
	}
	b, err := os.ReadFile(msg.path)
	if err != nil {
		return reportError(fmt.Errorf("reading the edited draft: %w", err))
	}
	// Editors end the file with a newline the draft did not have.
	text := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
	if msg.key == (draftKey{cp.cfg.Host, cp.openSession, cp.openChat}) && cp.editing == nil {
		cp.composer.SetValue(text)
		return nil
	}
	cp.drafts[msg.key] = text
	return reportInfo("the edited draft was kept for the chat it was written in")
}
