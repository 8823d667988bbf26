package ui

import (
	"strings"
	"testing"

	"github.com/ahptui/ahptui/keymap"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

// TestStartDisabledServerSaysEnableFirst (issue 36 item 8): s on a
// disabled server sends nothing and says how to start it, where it used
// to show "starting" forever.
func TestStartDisabledServerSaysEnableFirst(t *testing.T) {
	m := fxModel(fxChatState())
	stub := m.client.(*stubClient)
	stub.accept = true
	m.focus = focusMCP
	rows := m.signin.servers()
	for i, r := range rows {
		if r.ID == "off" {
			m.mcp.sel = i
		}
	}
	pressUntil(t, m, "s", "the status says to enable it", statusHas(m, "could not start Disabled one: it is disabled in this session; enable it before starting it (space, then s)"))
	if len(stub.sent) != 0 {
		t.Fatalf("s on a disabled server sent %v", stub.sent)
	}
}

// TestSameNamedServersSayTheirIDs: a host that lists one server twice
// under new ids (after a restart) gets two rows that differ.
func TestSameNamedServersSayTheirIDs(t *testing.T) {
	sess := fxSessionState()
	sess.Customizations = append(sess.Customizations,
		protocol.NewCustomization(fxServer("gh-2", "GitHub", protocol.McpServerReadyState{}, true)))
	rows := views.MCPServerRows(sess.Customizations)
	var names []string
	for _, r := range rows {
		if strings.HasPrefix(r.Name, "GitHub") {
			names = append(names, r.Name)
		}
	}
	if len(names) != 2 || names[0] == names[1] || names[0] != "GitHub (gh)" {
		t.Fatalf("same-named servers: %q", names)
	}
	for _, r := range rows {
		if r.Name == "Filesystem (fs)" {
			t.Fatal("a server with a name of its own got its id added")
		}
	}
}

// TestTokenFromTheMCPPanel (issue 36 item 8): t on a server that needs a
// sign-in opens the token field for that server's advertised resource
// with no browser flow first (GitHub's authorization server registers no
// clients, so g cannot work there); on a server that needs none it says
// so and opens nothing.
func TestTokenFromTheMCPPanel(t *testing.T) {
	m := fxModel(fxChatState())
	m.focus = focusMCP
	at := func(id string) {
		for i, r := range m.signin.servers() {
			if r.ID == id {
				m.mcp.sel = i
				return
			}
		}
		t.Fatalf("no server %q", id)
	}
	at("fs")
	pressUntil(t, m, "t", "the status says it needs no sign-in", statusHas(m, errNoSignIn.Error()))
	if m.signin.tokenOpen() {
		t.Fatal("t on a server that needs no sign-in opened the token field")
	}
	at("gh")
	m.Update(press("t"))
	if !m.signin.tokenOpen() || m.signin.agent.token.resource != fxGitHub {
		t.Fatalf("t on GitHub: field open %v for %q, want %q", m.signin.tokenOpen(), m.signin.agent.token.resource, fxGitHub)
	}
	if len(m.signin.grants) != 0 {
		t.Errorf("t started a browser flow: %v", m.signin.grants)
	}
	if m.context() != keymap.ContextPaste {
		t.Errorf("the token field does not have the keys: %v", m.context())
	}
}
