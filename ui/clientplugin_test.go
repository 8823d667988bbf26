package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/protocol"
)

// An MCP server a client contributes (a child of its ClientPluginCustomization
// in activeClients) shows in the panel and names its tool calls' cards.
func TestClientPluginServerShown(t *testing.T) {
	browser := protocol.McpServerCustomization{ID: "mcp-browser", URI: "file:///client/plugin.json", Name: "Browser tools",
		State: protocol.NewMcpServerState(protocol.McpServerReadyState{})}
	m := fxModel(fxChatState(tcPart(protocol.ToolCallRunningState{ToolCallID: "tc-b", ToolName: "open_page", DisplayName: "Open page",
		Contributor: mcpBy("mcp-browser"), InvocationMessage: protocol.PlainString("Open the page"),
		Confirmed: protocol.ToolCallConfirmationReasonNotNeeded})))
	m.sess.ActiveClients = []protocol.SessionActiveClient{{ClientID: "vscode", Tools: []protocol.ToolDefinition{},
		Customizations: []protocol.ClientPluginCustomization{{ID: "client-plugin", URI: "file:///client/plugin.json",
			Name: "VS Code tools", Type: "plugin", Children: []protocol.ChildCustomization{protocol.NewChildCustomization(browser)}}}}}
	m.chatPanel.sel.item = "tc-b"
	m.resize(160, 60)
	out := ansi.Strip(m.Render())
	if !strings.Contains(out, "Open page · Browser tools") {
		t.Errorf("the card does not name the client's server:\n%s", out)
	}
	found := false
	for _, r := range mcpRows(m.sess) {
		found = found || r.ID == "mcp-browser"
	}
	if !found {
		t.Errorf("the MCP rows lack the client's server")
	}
	if panel := strings.Count(out, "Browser tools"); panel < 2 {
		t.Errorf("the MCP panel does not list the client's server:\n%s", out)
	}
}
