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
// cover what the resource and any pending challenge of this client on it
// need) and then unblocks whatever waited for it. The token is never
// logged or stored: only the scopes it proved are kept, on the connection
// (authentication status is per connection, authentication.md).
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
	if p.Resource == "" {
		return nil, invalidParams("authenticate needs a resource")
	}
	if p.Token == "" && h.wire.older() {
		return nil, invalidParams("authenticate needs a token (revocation is AHP 1.0)")
	}
	if p.ExpiresIn != nil && *p.ExpiresIn < 1 {
		return nil, invalidParams("expiresIn must be a positive number of seconds; omit it when the lifetime is unknown")
	}
	h.mu.Lock()
	prm, known := h.resources[p.Resource]
	if known && p.Token == "" {
		// 1.0: an empty token revokes what this connection proved.
		defer h.mu.Unlock()
		h.revokeGrantLocked(c, p.Resource)
		return protocol.AuthenticateResult{}, nil
	}
	h.mu.Unlock()
	if !known {
		return nil, invalidParams("the demo host never advertised the resource %q; use the resource from an auth challenge", clip(p.Resource))
	}
	if h.staticAgentToken(p.Resource, p.Token) {
		h.mu.Lock()
		defer h.mu.Unlock()
		if c.dead {
			return nil, jsonrpc.NewError(jsonrpc.InternalError, "the connection closed while the token was checked; reconnect and push it again")
		}
		c.grants[p.Resource] = []string{}
		c.grantGen[p.Resource]++
		h.log.Info("demohost: agent token accepted", "conn", c.id, "resource", p.Resource)
		return protocol.AuthenticateResult{}, nil
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
	need := h.requiredScopesLocked(c, p.Resource)
	if !hasScopes(in.Scopes, need) {
		return nil, authRequired("the token lacks required scopes; sign in again granting them")
	}
	if c.dead {
		return nil, jsonrpc.NewError(jsonrpc.InternalError, "the connection closed while the token was checked; reconnect and push it again")
	}
	c.grants[p.Resource] = append([]string(nil), in.Scopes...)
	c.grantGen[p.Resource]++
	h.log.Info("demohost: token accepted", "conn", c.id, "resource", p.Resource, "scopes", in.Scopes)
	h.resolveAuthLocked(c, p.Resource, in.Scopes)
	if expiry := grantExpiry(in.ExpiresAt, p.ExpiresIn); !expiry.IsZero() {
		gen, resource := c.grantGen[p.Resource], p.Resource
		// Bounded by the connection: a token's grant dies with its
		// connection, and so must the goroutine waiting for its expiry (one
		// per authenticate would otherwise pile up across reconnects).
		h.afterDurationCtx(c.ctx, time.Until(expiry), func() {
			if !c.dead && c.grantGen[resource] == gen {
				h.expireGrantLocked(c, resource)
			}
		})
	}
	return protocol.AuthenticateResult{}, nil
}

// grantExpiry is when a pushed token stops counting: the authorization
// server's expiry, or sooner when the client says the token has less
// left (expiresIn, 1.0: the client subtracted the time since it got the
// token). Zero when neither knows.
func grantExpiry(introspected time.Time, expiresIn *int64) time.Time {
	if expiresIn == nil {
		return introspected
	}
	told := time.Now().Add(time.Duration(*expiresIn) * time.Second)
	if introspected.IsZero() || told.Before(introspected) {
		return told
	}
	return introspected
}

// grantedLocked reports whether a live connection of clientID (of any
// client when clientID is "") pushed a verified token for resource whose
// scopes cover need.
func (h *Host) grantedLocked(clientID, resource string, need []string) bool {
	for c := range h.conns {
		if c.dead || (clientID != "" && c.clientID != clientID) {
			continue
		}
		if g, ok := c.grants[resource]; ok && hasScopes(g, need) {
			return true
		}
	}
	return false
}

// challengedBy reports whether a token pushed by c may resolve r's
// step-up challenge: only the client whose message started the turn can
// (any client for a turn no client started).
func challengedBy(r *turnRun, c *conn) bool { return r.owner == "" || r.owner == c.clientID }

// expireGrantLocked forgets c's expired token: protected servers on the
// resource fall back to authRequired (reason expired) unless another
// connection still holds a token for them, and c — only c, since auth is
// per connection — gets auth/required if it watches the root channel, so
// it refreshes and pushes a new token.
func (h *Host) expireGrantLocked(c *conn, resource string) {
	h.log.Info("demohost: token expired", "conn", c.id, "resource", resource)
	h.dropGrantLocked(c, resource, protocol.McpAuthRequiredReasonExpired)
	if !c.subs[rootURI] {
		return
	}
	reason := protocol.AuthRequiredReasonExpired
	frame, err := h.encodeNotification("auth/required", protocol.AuthRequiredParams{Channel: rootURI, Resource: protocol.AuthRequiredResource{ProtectedResourceMetadata: h.resources[resource]}, Reason: &reason})
	if err != nil {
		h.log.Error("demohost: encode auth/required", "err", err)
		return
	}
	h.validateLocked(c.id, Outbound, frame)
	c.send(frame)
}

// revokeGrantLocked is the 1.0 empty-token authenticate: c's proof for
// resource is forgotten (its expiry timer stands down) and the protected
// servers it kept ready go back to authRequired, unless another
// connection's token still covers them. No auth/required follows: the
// client asked for this.
func (h *Host) revokeGrantLocked(c *conn, resource string) {
	h.log.Info("demohost: token revoked", "conn", c.id, "resource", resource)
	c.grantGen[resource]++
	h.dropGrantLocked(c, resource, protocol.McpAuthRequiredReasonRequired)
}

// dropGrantLocked forgets c's token for resource; the protected servers
// on it that no other connection's token covers fall back to authRequired
// with reason.
func (h *Host) dropGrantLocked(c *conn, resource string, reason protocol.McpAuthRequiredReason) {
	delete(c.grants, resource)
	for _, s := range h.sessions {
		for _, id := range serverOrder {
			sp := h.servers[id]
			if sp.resource != resource || sp.outcome != outcomeProtected || h.grantedLocked("", resource, sp.scopes) {
				continue
			}
			if m, enabled, ok := findServer(s.state, id); ok && enabled && m.State.Kind() == "ready" {
				h.setServerStateLocked(s, id, h.serverAuthRequired(sp, reason))
			}
		}
	}
}

// requiredScopesLocked is what a token pushed on c for resource must
// grant: the server's own scopes plus those of every open challenge on it
// that c may resolve.
func (h *Host) requiredScopesLocked(c *conn, resource string) []string {
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
	for _, ch := range h.chats {
		if r := ch.run; r != nil && r.authResource == resource && challengedBy(r, c) {
			add(r.authScopes)
		}
	}
	return need
}

// resolveAuthLocked moves servers waiting on resource to ready (MCP
// servers are session state shared by every client: the host uses
// whichever connection's token it has) and resumes the step-up challenges
// of c's client that the new scopes satisfy.
func (h *Host) resolveAuthLocked(c *conn, resource string, scopes []string) {
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
	for _, ch := range h.chats {
		if r := ch.run; r != nil && r.authResource == resource && challengedBy(r, c) && hasScopes(scopes, r.authScopes) {
			r.authGranted = true
			r.wake()
		}
	}
}
