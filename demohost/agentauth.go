package demohost

import (
	"crypto/subtle"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

// The demo agent's own sign-in (Config.AgentToken), as VS Code's copilotcli
// agent needs a GitHub token: the agent lists its resource in
// protectedResources with required set, never sends auth/required, and
// fails every turn with a resumable error until a token is pushed.
const (
	// AgentResourcePath is the agent's resource under the host's
	// http://127.0.0.1:PORT origin.
	AgentResourcePath = "/agent"
	// AgentAuthErrorType and AgentAuthMessage are the error a turn stops
	// at without the agent's token (VS Code's words, for the same case).
	AgentAuthErrorType = "AuthRequired"
	AgentAuthMessage   = "No GitHub OAuth token or Copilot HMAC key provided"
)

// agentResourceLocked is the agent's protected resource, "" when the
// agent needs no sign-in.
func (h *Host) agentResourceLocked() string {
	if h.cfg.AgentToken == "" || len(h.root.Agents) == 0 || len(h.root.Agents[0].ProtectedResources) == 0 {
		return ""
	}
	return h.root.Agents[0].ProtectedResources[0].Resource
}

// initAgentAuthLocked makes the demo agent require its own sign-in when
// Config.AgentToken is set. Its authorization server is the demo's, so the
// OAuth flow reaches it too.
func (h *Host) initAgentAuthLocked(base string) {
	if h.cfg.AgentToken == "" {
		return
	}
	name, required := "Demo agent", true
	prm := protocol.ProtectedResourceMetadata{
		Resource:               base + AgentResourcePath,
		ResourceName:           &name,
		AuthorizationServers:   []string{h.auth.Issuer()},
		ScopesSupported:        h.auth.Scopes(),
		BearerMethodsSupported: []string{"header"},
		Required:               &required,
	}
	if r := h.cfg.AgentResource; r != "" {
		name = "GitHub"
		prm.Resource, prm.AuthorizationServers, prm.ScopesSupported = r, []string{"https://github.com/login/oauth"}, nil
		if h.cfg.AgentIssuer != "" {
			prm.AuthorizationServers = []string{h.cfg.AgentIssuer}
		}
	}
	h.root.Agents[0].ProtectedResources = []protocol.ProtectedResourceMetadata{prm}
	h.resources[prm.Resource] = prm
}

// staticAgentToken reports whether token is the configured agent token
// pushed for the agent's resource (compared in constant time).
func (h *Host) staticAgentToken(resource, token string) bool {
	h.mu.Lock()
	res := h.agentResourceLocked()
	h.mu.Unlock()
	return res != "" && resource == res &&
		subtle.ConstantTimeCompare([]byte(token), []byte(h.cfg.AgentToken)) == 1
}

// agentAuthErrorLocked is -32007 for a command that uses the agent while
// c pushed no token for it; nil when it did or none is needed.
func (h *Host) agentAuthErrorLocked(c *conn) rpcError {
	res := h.agentResourceLocked()
	if res == "" {
		return nil
	}
	if _, ok := c.grants[res]; ok {
		return nil
	}
	return jsonrpc.NewErrorData(jsonrpc.AuthRequired, AgentAuthMessage,
		protocol.AuthRequiredErrorData{Resources: []protocol.ProtectedResourceMetadata{h.resources[res]}})
}

// needAgentToken runs rest when the turn's sender pushed the agent's
// token; otherwise the turn stops at a resumable error, and resuming it
// checks again.
func (h *Host) needAgentToken(rest []step) step {
	return func(r *turnRun) error {
		var ok bool
		if err := r.do(func() {
			res := h.agentResourceLocked()
			ok = res == "" || h.grantedLocked(r.owner, res, nil)
		}); err != nil {
			return err
		}
		if !ok {
			return resumableError(AgentAuthErrorType, AgentAuthMessage, h.needAgentToken(rest))(r)
		}
		for _, st := range rest {
			if err := st(r); err != nil {
				return err
			}
		}
		return nil
	}
}
