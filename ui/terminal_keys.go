package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

// handleKey drives the sheet; it is modal, so every key stops here.
func (t *terminalView) handleKey(msg tea.KeyPressMsg, quit, help func() tea.Cmd) tea.Cmd {
	if t.input {
		return t.keyInput(msg)
	}
	g := t.keys.Global
	switch {
	case key.Matches(msg, g.Quit):
		return quit()
	case key.Matches(msg, g.Help):
		return help()
	}
	if t.channel == "" {
		return t.keyList(msg)
	}
	k := t.keys.Terminal
	page := max(1, t.pageRows()-1)
	switch {
	case key.Matches(msg, g.Terminals):
		return t.close()
	case key.Matches(msg, k.Back) && t.fromChat:
		return t.close()
	case key.Matches(msg, k.Back):
		return t.leave()
	case key.Matches(msg, k.ScrollUp):
		t.scrollBy(-1)
	case key.Matches(msg, k.ScrollDown):
		t.scrollBy(1)
	case key.Matches(msg, k.PageUp):
		t.scrollBy(-page)
	case key.Matches(msg, k.PageDown):
		t.scrollBy(page)
	case key.Matches(msg, k.Top):
		t.top, t.follow = 0, false
	case key.Matches(msg, k.Bottom):
		t.follow = true
	case key.Matches(msg, k.Input):
		return t.startInput()
	}
	return nil
}

func (t *terminalView) keyList(msg tea.KeyPressMsg) tea.Cmd {
	k := t.keys.Terminals
	rows := t.rows()
	switch {
	case key.Matches(msg, k.Close):
		return t.close()
	case cursorKey(msg, k.Up, k.Down):
		t.sel = moveCursor(msg, k.Up, t.sel, len(rows))
	case key.Matches(msg, k.Open):
		if t.sel >= len(rows) {
			return nil
		}
		// A tool call's terminal opens as from its card: its preview
		// stands in once the host no longer serves it.
		for _, ref := range t.chatTerminals() {
			if string(ref.Resource) == rows[t.sel].URI && !t.hostLists(rows[t.sel].URI) {
				cmd := t.openFromCard(ref)
				t.fromChat = false // opened from the list: esc goes back to it
				return cmd
			}
		}
		return t.openTerminal(rows[t.sel].URI, rows[t.sel].Title)
	}
	return nil
}

// startInput lets keys reach the terminal, only while this client holds
// its claim: the holder is who may type into it.
func (t *terminalView) startInput() tea.Cmd {
	if !t.hasSt {
		return reportInfo("the terminal has not loaded yet")
	}
	// The sheet covers the status line: the pane says why, too.
	if !t.holdsClaim() {
		t.note = "only its holder types into it"
		return reportInfo("this terminal is " + views.ClaimWords(t.st.Claim, t.client.ClientID()) + ": only its holder types into it")
	}
	if _, ok := t.st.Lifecycle.Variant.(protocol.TerminalExitedLifecycleState); ok {
		t.note = "the terminal has exited"
		return reportInfo(t.note)
	}
	t.input, t.note, t.follow = true, "", true
	return nil
}

// keyInput sends a key to the terminal (terminal/input) until Leave.
func (t *terminalView) keyInput(msg tea.KeyPressMsg) tea.Cmd {
	if key.Matches(msg, t.keys.Terminal.Leave) {
		t.input = false
		return nil
	}
	data := keyBytes(msg)
	if data == "" {
		return nil
	}
	if _, err := t.client.Dispatch(t.channel, protocol.NewStateAction(protocol.TerminalInputAction{Data: data})); err != nil {
		return reportError(fmt.Errorf("could not type into the terminal: %w", err))
	}
	return nil
}

// paste types a bracketed paste into the terminal in one terminal/input,
// its line breaks as enter (\r), as a terminal sends a paste to a pty.
func (t *terminalView) paste(content string) tea.Cmd {
	if !t.input || content == "" {
		return nil
	}
	data := strings.NewReplacer("\r\n", "\r", "\n", "\r").Replace(content)
	if _, err := t.client.Dispatch(t.channel, protocol.NewStateAction(protocol.TerminalInputAction{Data: data})); err != nil {
		return reportError(fmt.Errorf("could not paste into the terminal: %w", err))
	}
	return nil
}

// keyBytes is what a key press sends to a pty.
func keyBytes(msg tea.KeyPressMsg) string {
	switch msg.Code {
	case tea.KeyEnter:
		return "\r"
	case tea.KeyBackspace:
		return "\x7f"
	case tea.KeyTab:
		return "\t"
	case tea.KeyUp:
		return "\x1b[A"
	case tea.KeyDown:
		return "\x1b[B"
	case tea.KeyRight:
		return "\x1b[C"
	case tea.KeyLeft:
		return "\x1b[D"
	}
	if msg.Mod == tea.ModCtrl && msg.Code >= 'a' && msg.Code <= 'z' {
		return string(rune(msg.Code - 'a' + 1))
	}
	return msg.Text
}

// hostLists reports whether the host lists the terminal uri.
func (t *terminalView) hostLists(uri string) bool {
	for _, ti := range t.root.Terminals {
		if ti.Resource == uri {
			return true
		}
	}
	return false
}
