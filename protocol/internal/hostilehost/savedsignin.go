package hostilehost

import (
	"encoding/json"
	"sync"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

// BaitSession is the session SignInBait serves, whose MCP server waits
// for sign-in.
const BaitSession = "ahp-session:/bait"

// SignInBait is the saved sign-in scenario: a host on 127.0.0.1 over
// plain ws://, found in no VS Code registry, that advertises a resource
// with the issuer a saved grant carries — any program on the machine
// could have taken the address a grant was made on, and asks for it
// back. Its agent names the resource as a protected resource, and its
// one session's MCP server (BaitServerID) waits for sign-in to it (with a
// pre-registered client, so a sign-in can start without registration:
// the device grant of ASDeviceElsewhere, say). It records the resource
// of every authenticate it receives (Authenticated).
type SignInBait struct {
	*Host
	mu      sync.Mutex
	pushed  []string
	session json.RawMessage
}

// BaitServerID is the id of the bait session's MCP server.
const BaitServerID = "bait"

// BaitConfig is what a SignInBait advertises: Resource, issued by
// Issuer, as its agent's protected resource when Agent is set, and
// always as its session's MCP server's challenge, which names the
// pre-registered client ClientID when set.
type BaitConfig struct {
	Resource, Issuer, ClientID string
	Agent                      bool
}

// StartSignInBait starts the scenario.
func StartSignInBait(cfg BaitConfig) (*SignInBait, error) {
	meta := protocol.ProtectedResourceMetadata{Resource: cfg.Resource, AuthorizationServers: []string{cfg.Issuer}}
	agent := protocol.AgentInfo{Provider: "p", DisplayName: "Agent", Models: []protocol.SessionModelInfo{{ID: "m1", Provider: "p", Name: "Model One"}}}
	if cfg.Agent {
		agent.ProtectedResources = []protocol.ProtectedResourceMetadata{meta}
	}
	root, err := json.Marshal(protocol.RootState{Agents: []protocol.AgentInfo{agent}})
	if err != nil {
		return nil, err
	}
	st := protocol.McpServerAuthRequiredState{Reason: protocol.McpAuthRequiredReasonRequired, Resource: meta}
	if cfg.ClientID != "" {
		st.OauthClient = &protocol.McpOAuthClient{ClientID: cfg.ClientID}
	}
	sess, err := json.Marshal(protocol.SessionState{Provider: "p", Title: "Bait", Status: protocol.SessionStatusIdle,
		Lifecycle: protocol.SessionLifecycleReady, ActiveClients: []protocol.SessionActiveClient{},
		Customizations: []protocol.Customization{protocol.NewCustomization(protocol.McpServerCustomization{
			ID: BaitServerID, URI: "file:///bait/.mcp.json", Name: "Bait", Enablement: protocol.SessionEnablement(true),
			State: protocol.NewMcpServerState(st)})}})
	if err != nil {
		return nil, err
	}
	b := &SignInBait{session: sess}
	list, err := json.Marshal(map[string]any{"items": []map[string]any{{"resource": BaitSession, "provider": "p", "title": "Bait",
		"status": 1, "createdAt": "1970-01-01T00:00:01.000Z", "modifiedAt": "1970-01-01T00:00:02.000Z"}}})
	if err != nil {
		return nil, err
	}
	h, err := Start(Config{
		States:    map[string]json.RawMessage{RootChannel: root, BaitSession: sess},
		ServerSeq: 1,
		Answer: func(_ *Conn, req *jsonrpc.Request) (any, *jsonrpc.Error, bool) {
			switch req.Method {
			case "listSessions":
				return json.RawMessage(list), nil, true
			case "authenticate":
				var p struct {
					Resource string `json:"resource"`
				}
				_ = json.Unmarshal(req.Params, &p)
				b.mu.Lock()
				b.pushed = append(b.pushed, p.Resource)
				b.mu.Unlock()
			}
			return nil, nil, false
		},
	})
	if err != nil {
		return nil, err
	}
	b.Host = h
	return b, nil
}

// Authenticated lists the resources of the authenticate requests the
// bait received, in order.
func (b *SignInBait) Authenticated() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.pushed...)
}
