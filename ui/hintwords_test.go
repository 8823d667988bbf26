package ui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/keymap"
	"github.com/ahptui/ahptui/protocol"
)

// TestHintsSayWhatEnterDoes (issue 36 item 13): the new-session
// picker's enter goes on to the settings, so it says continue, not
// create; the settings step's says create; editing a pending message
// says save, not queue.
func TestHintsSayWhatEnterDoes(t *testing.T) {
	m := fxModel(fxChatState())
	m.resize(120, 40)
	m.focus = focusSessions
	m.Update(press("n"))
	if m.modal != modalNewSession {
		t.Fatalf("n did not open the new-session dialog (modal %v)", m.modal)
	}
	screen := ansi.Strip(m.Render())
	if hl := ansi.Strip(m.helpLine()); !strings.Contains(hl, "enter continue") || strings.Contains(hl, "create") {
		t.Errorf("the picker's footer: %q", hl)
	}
	if !strings.Contains(screen, "enter continue") || strings.Contains(screen, "enter create") {
		t.Errorf("the picker says enter creates:\n%s", screen)
	}
	m.sessions.cfgStep = &newConfig{choice: newChoice{agentName: "Demo agent"}}
	if hl := ansi.Strip(m.helpLine()); !strings.Contains(hl, "enter create") {
		t.Errorf("the settings step's footer: %q", hl)
	}

	m = fxModel(fxChatState()) // a turn is running: enter queues
	m.resize(120, 40)
	m.Update(press("i"))
	if hl := ansi.Strip(m.helpLine()); !strings.Contains(hl, "enter queue") {
		t.Fatalf("composer footer while a turn runs: %q", hl)
	}
	m.chatPanel.editing = &pendingEdit{chat: fxChat, kind: protocol.PendingMessageKindQueued, id: "q1"}
	if hl := ansi.Strip(m.helpLine()); !strings.Contains(hl, "enter save") || strings.Contains(hl, "queue") {
		t.Errorf("editing a queued message: %q", hl)
	}
}

// TestCtrlLRedraws (issue 36 item 12): ctrl+l clears and redraws the
// screen from the lists and from the composer, and types nothing.
func TestCtrlLRedraws(t *testing.T) {
	m := fxModel(fxChatState())
	want := fmt.Sprintf("%T", tea.ClearScreen())
	_, cmd := m.Update(press("ctrl+l"))
	if cmd == nil || fmt.Sprintf("%T", cmd()) != want {
		t.Fatal("ctrl+l in the chat did not redraw")
	}
	m.Update(press("i"))
	m.Update(press("x"))
	_, cmd = m.Update(press("ctrl+l"))
	if cmd == nil || fmt.Sprintf("%T", cmd()) != want {
		t.Fatal("ctrl+l in the composer did not redraw")
	}
	if v := m.chatPanel.composer.Value(); v != "x" {
		t.Fatalf("ctrl+l changed the draft to %q", v)
	}
}

// TestHelpShowsHereFirst (issue 36 item 14): ? opens on the keys of
// where the keyboard was, before the whole list.
func TestHelpShowsHereFirst(t *testing.T) {
	m := fxModel(fxChatState())
	m.resize(160, 60)
	m.focus = focusMCP
	m.Update(press("?"))
	if !m.showAll {
		t.Fatal("? did not open the help")
	}
	out := ansi.Strip(m.Render())
	here := strings.Index(out, "Here (mcp)")
	every := strings.Index(out, "Everywhere")
	if here < 0 || every < 0 || here > every {
		t.Fatalf("the help does not open on the MCP panel's keys first:\n%s", out)
	}
}

// TestEmptyAttachmentsOfferNoRead (issue 36 item 13): the empty A sheet's
// footer does not offer enter to read nothing.
func TestEmptyAttachmentsOfferNoRead(t *testing.T) {
	m := fxModel(fxChatState())
	m.resize(120, 40)
	m.Update(press("A"))
	if m.context() != keymap.ContextResources {
		t.Fatalf("A did not open the attachments sheet (context %v)", m.context())
	}
	if hl := ansi.Strip(m.helpLine()); strings.Contains(hl, "read it") {
		t.Fatalf("the empty sheet's footer offers to read: %q", hl)
	}
}

// TestHistoryLeavesStatusLineInView (issue 36 item 12): a long message
// history (L) at 120x40 no longer draws over the footer and the status
// line.
func TestHistoryLeavesStatusLineInView(t *testing.T) {
	m := fxModel(fxChatState())
	m.resize(120, 40)
	for i := range 60 {
		m.Update(statusMsg{text: fmt.Sprintf("message number %d", i)})
	}
	m.Update(statusMsg{text: "the last word"})
	m.Update(press("L"))
	if !m.showMsgs {
		t.Fatal("L did not open the history")
	}
	lines := strings.Split(ansi.Strip(m.Render()), "\n")
	foot, bar := lines[len(lines)-2], lines[len(lines)-1]
	if strings.Contains(foot, "│") || strings.Contains(foot, "┃") || !strings.Contains(bar, "the last word") {
		t.Fatalf("the history covers the footer or the status line:\n%s\n%s", foot, bar)
	}
}
