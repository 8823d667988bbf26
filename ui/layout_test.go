package ui

import "testing"

// Render draws and changes nothing a key acts on: the MCP selection, the
// scroll, a pending pin and the settled layout stay as Update left them,
// and drawing twice draws the same screen.
func TestRenderChangesNoState(t *testing.T) {
	m := fxModel(fxChatState())
	m.resize(100, 30)
	m.focus = focusChat
	m.mcp.sel = 99 // out of range until the next Update settles it
	m.chatPanel.sel = chatSel{item: "tc4"}
	m.chatPanel.pin = true
	m.chatPanel.scroll = 7
	layout := m.layout
	first := m.Render()
	if m.mcp.sel != 99 || !m.chatPanel.pin || m.chatPanel.scroll != 7 || m.layout != layout {
		t.Fatalf("Render changed state: mcp.sel %d pin %v scroll %d layout changed %v",
			m.mcp.sel, m.chatPanel.pin, m.chatPanel.scroll, m.layout != layout)
	}
	if m.Render() != first {
		t.Fatal("two Renders of one state differ")
	}
	// Update settles what Render left alone.
	m.Update(press("k")) // scroll one line
	if m.mcp.sel >= len(m.signin.servers()) || m.chatPanel.pin {
		t.Fatalf("Update did not settle: mcp.sel %d of %d, pin %v", m.mcp.sel, len(m.signin.servers()), m.chatPanel.pin)
	}
}
