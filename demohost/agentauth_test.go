package demohost

import (
	"testing"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

// With AgentToken set the demo agent plays VS Code's copilotcli: its
// resource is listed as required, createSession answers -32007 naming
// it, a wrong token is refused, and the configured one lets the command
// through — on this connection only.
func TestAgentTokenRequired(t *testing.T) {
	const secret = "agent-secret-demohost"
	h, v := startHost(t, Config{AgentToken: secret, NoDemoSession: true})
	c := dial(t, h, v, "agent-client")
	res := c.initialize(protocol.RootChannel)
	var agent protocol.AgentInfo
	if root, ok := res.Snapshots[0].State.Variant.(protocol.RootState); ok && len(root.Agents) > 0 {
		agent = root.Agents[0]
	}
	if len(agent.ProtectedResources) != 1 || agent.ProtectedResources[0].Required == nil || !*agent.ProtectedResources[0].Required {
		t.Fatalf("the agent does not list a required resource: %+v", agent.ProtectedResources)
	}
	resource := agent.ProtectedResources[0].Resource
	if want := resourceURL(h, AgentResourcePath); resource != want {
		t.Fatalf("agent resource %q, want %q", resource, want)
	}
	create := protocol.CreateSessionParams{Channel: "ahp-session:/agent-auth"}
	e := c.wantError("createSession", create, jsonrpc.AuthRequired)
	if len(e.Data) == 0 {
		t.Fatal("-32007 without the resources it needs")
	}
	c.wantError("authenticate", protocol.AuthenticateParams{Resource: resource, Token: "not-the-token"}, jsonrpc.AuthRequired)
	c.mustCall("authenticate", protocol.AuthenticateParams{Resource: resource, Token: secret}, nil)
	c.mustCall("createSession", create, nil)

	other := dial(t, h, v, "other-client")
	other.initialize()
	other.wantError("createSession", protocol.CreateSessionParams{Channel: "ahp-session:/agent-auth-2"}, jsonrpc.AuthRequired)
}
