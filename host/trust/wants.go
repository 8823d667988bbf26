package trust

import (
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

// Want is a token the host asks for: the resource, the authorization
// server it names for it (the issuer a saved grant must match) and the
// scopes a token must carry.
type Want struct {
	Resource string
	Issuer   string
	Scopes   []string
}

// FirstServer is the authorization server the host names for p: the one
// a sign-in would go to, and the issuer a saved grant must match.
func FirstServer(p protocol.ProtectedResourceMetadata) string {
	if as := p.AuthorizationServers; len(as) > 0 {
		return as[0]
	}
	return ""
}

// Wants lists what the host asks tokens for now: every agent's
// protectedResources (the spec: "Before interacting with a session
// backed by such an agent, the client SHOULD authenticate"), the
// session's MCP servers in authRequired, and the auth-required tool
// calls of the chat's active turn. sess and chat may be nil.
func Wants(root protocol.RootState, sess *protocol.SessionState, chat *protocol.ChatState) []Want {
	var rows []views.MCPServerRow
	if sess != nil {
		rows = views.MCPServerRows(views.SessionCustomizations(*sess))
	}
	return WantsOfRows(root, rows, chat)
}

// WantsOfRows is Wants with the session's MCP server rows already derived
// (views.MCPServerRows of views.SessionCustomizations), for a caller that
// keeps them per snapshot: the UI looks on every streamed chunk.
func WantsOfRows(root protocol.RootState, rows []views.MCPServerRow, chat *protocol.ChatState) []Want {
	var out []Want
	for _, a := range root.Agents {
		for _, p := range a.ProtectedResources {
			out = append(out, Want{Resource: p.Resource, Issuer: FirstServer(p)})
		}
	}
	for _, r := range rows {
		if r.StateKind == "authRequired" && r.Auth != nil {
			out = append(out, Want{Resource: r.Auth.Resource.Resource, Issuer: FirstServer(r.Auth.Resource), Scopes: r.Auth.RequiredScopes})
		}
	}
	if chat != nil && chat.ActiveTurn != nil {
		for _, p := range chat.ActiveTurn.ResponseParts {
			if tc, ok := p.Variant.(protocol.ToolCallResponsePart); ok {
				if a := tc.ToolCall.AuthRequirement(); a != nil {
					out = append(out, Want{Resource: a.Resource.Resource, Issuer: FirstServer(a.Resource), Scopes: a.RequiredScopes})
				}
			}
		}
	}
	return out
}
