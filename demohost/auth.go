package demohost

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

// authenticate verifies a pushed bearer token with the authorization
// server (introspection: active, audience includes the resource, scopes
// cover what the resource and any pending challenge on it need) and then
// unblocks whatever waited for it. The token is never logged or stored:
// only the scopes it proved are kept.
func (h *Host) authenticate(c *conn, raw json.RawMessage) (any, rpcError) {
	h.mu.Lock()
	ok := c.initialized
	h.mu.Unlock()
	if !ok {
		return nil, jsonrpc.NewError(jsonrpc.InvalidRequest, "send initialize (or reconnect) before authenticate")
	}
	var p protocol.AuthenticateParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if p.Resource == "" || p.Token == "" {
		return nil, invalidParams("authenticate needs a resource and a token")
	}
	h.mu.Lock()
	prm, known := h.resources[p.Resource]
	h.mu.Unlock()
	if !known {
		return nil, invalidParams("the demo host never advertised the resource %q; use the resource from an auth challenge", clip(p.Resource))
	}
	in, err := h.auth.Introspect(h.ctx, p.Token)
	if err != nil {
		h.log.Warn("demohost: token introspection failed", "resource", p.Resource, "err", err)
		return nil, jsonrpc.NewError(jsonrpc.InternalError, "the authorization server could not check the token; try again")
	}
	authRequired := func(msg string) rpcError {
		return jsonrpc.NewErrorData(jsonrpc.AuthRequired, msg, protocol.AuthRequiredErrorData{Resources: []protocol.ProtectedResourceMetadata{prm}})
	}
	if !in.Active {
		return nil, authRequired("the token is not active (expired, revoked or unknown); sign in again")
	}
	if !slices.Contains(in.Audience, p.Resource) {
		return nil, authRequired("the token was not issued for this resource; request it with resource=" + p.Resource)
	}

	h.mu.Lock()
	defer h.mu.Unlock()
	need := h.requiredScopesLocked(p.Resource)
	if !hasScopes(in.Scopes, need) {
		return nil, authRequired("the token lacks required scopes; sign in again granting them")
	}
	h.authorized[p.Resource] = append([]string(nil), in.Scopes...)
	h.grantGen[p.Resource]++
	h.log.Info("demohost: token accepted", "conn", c.id, "resource", p.Resource, "scopes", in.Scopes)
	h.resolveAuthLocked(p.Resource, in.Scopes)
	if !in.ExpiresAt.IsZero() {
		gen, resource := h.grantGen[p.Resource], p.Resource
		h.afterDuration(time.Until(in.ExpiresAt), func() {
			if h.grantGen[resource] == gen {
				h.expireGrantLocked(resource)
			}
		})
	}
	return protocol.AuthenticateResult{}, nil
}

// expireGrantLocked forgets an expired token: protected servers on the
// resource fall back to authRequired (reason expired) and root subscribers
// get auth/required, so clients refresh and push a new token.
func (h *Host) expireGrantLocked(resource string) {
	delete(h.authorized, resource)
	h.log.Info("demohost: token expired", "resource", resource)
	for _, s := range h.sessions {
		for _, id := range serverOrder {
			sp := h.servers[id]
			if sp.resource != resource || sp.outcome != outcomeProtected {
				continue
			}
			if m, enabled, ok := findServer(s.state, id); ok && enabled && m.State.Kind() == "ready" {
				h.setServerStateLocked(s, id, h.serverAuthRequired(sp, protocol.McpAuthRequiredReasonExpired))
			}
		}
	}
	reason := protocol.AuthRequiredReasonExpired
	h.notifyRootLocked("auth/required", protocol.AuthRequiredParams{Channel: rootURI, Resource: resource, Reason: &reason})
}

// requiredScopesLocked is what a token for resource must grant: the
// server's own scopes plus those of every open challenge on it.
func (h *Host) requiredScopesLocked(resource string) []string {
	var need []string
	add := func(ss []string) {
		for _, s := range ss {
			if !slices.Contains(need, s) {
				need = append(need, s)
			}
		}
	}
	for _, sp := range h.servers {
		if sp.resource == resource && sp.outcome == outcomeProtected {
			add(sp.scopes)
		}
	}
	for _, c := range h.chats {
		if c.run != nil && c.run.authResource == resource {
			add(c.run.authScopes)
		}
	}
	return need
}

// resolveAuthLocked moves servers waiting on resource to ready and resumes
// tool calls whose step-up challenge the new scopes satisfy.
func (h *Host) resolveAuthLocked(resource string, scopes []string) {
	for _, s := range h.sessions {
		for _, id := range serverOrder {
			sp := h.servers[id]
			if sp.resource != resource {
				continue
			}
			if m, enabled, ok := findServer(s.state, id); ok && enabled && m.State.Kind() == "authRequired" && hasScopes(scopes, sp.scopes) {
				h.setServerStateLocked(s, id, protocol.McpServerReadyState{})
			}
		}
	}
	for _, c := range h.chats {
		if r := c.run; r != nil && r.authResource == resource && hasScopes(scopes, r.authScopes) {
			r.authGranted = true
			r.wake()
		}
	}
}
