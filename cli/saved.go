package cli

import (
	"context"
	"net/url"
	"strings"

	"github.com/ahptui/ahptui/authpkce"
	"github.com/ahptui/ahptui/hostpick"
	"github.com/ahptui/ahptui/protocol"
)

// want is a token the host asks for: a resource, the issuer it names for
// it, and the scopes a token must carry.
type want struct {
	resource, issuer string
	scopes           []string
}

func issuerOf(p protocol.ProtectedResourceMetadata) string {
	if len(p.AuthorizationServers) > 0 {
		return p.AuthorizationServers[0]
	}
	return ""
}

// wantsOf lists what the host asks tokens for, as the UI reads it: every
// agent's protected resources and the session's MCP servers that wait for
// sign-in.
func wantsOf(root protocol.RootState, sess *protocol.SessionState) []want {
	var out []want
	for _, ag := range root.Agents {
		for _, p := range ag.ProtectedResources {
			out = append(out, want{resource: p.Resource, issuer: issuerOf(p)})
		}
	}
	if sess != nil {
		for _, r := range mcpRows(*sess) {
			if r.StateKind == "authRequired" && r.Auth != nil {
				out = append(out, want{resource: r.Auth.Resource.Resource, issuer: issuerOf(r.Auth.Resource), scopes: r.Auth.RequiredScopes})
			}
		}
	}
	return out
}

// privateTransport: tokens may go to the host without asking — wss://,
// or plain ws:// that never leaves this machine. (The UI asks before
// sending one over plain ws:// to another machine; a command cannot ask,
// so it sends none.)
func privateTransport(host string) bool {
	u, err := url.Parse(host)
	if err != nil {
		return false
	}
	switch strings.ToLower(u.Scheme) {
	case "wss", "ws+unix":
		return true
	case "ws":
		return hostpick.CheckTransport(host, false) == nil && hostpick.IsLoopback(u.Hostname())
	}
	return false
}

// pushSaved sends the host the saved sign-ins it may have without asking
// (authpkce.Lookup's DecisionSilent: obtained on this host, for the issuer
// it names), once per resource and connection, as the UI does on connect.
// A sign-in the UI would ask about is left alone. pushed says whether the
// host took one, so a caller reads the state it changed again.
func (c *conn) pushSaved(ctx context.Context, sess *protocol.SessionState) (pushed bool) {
	if c.auth == nil || !privateTransport(c.host) {
		return false
	}
	root, _ := c.Root()
	for _, w := range wantsOf(root, sess) {
		if w.resource == "" || c.pushed[w.resource] {
			continue
		}
		m := c.auth.Lookup(c.host, authpkce.Want{Resource: w.resource, Issuer: w.issuer, Scopes: w.scopes})
		if m.Decision != authpkce.DecisionSilent {
			continue
		}
		c.pushed[w.resource] = true
		if c.Authenticate(ctx, w.resource, m.Token.AccessToken, m.Token.Scopes, m.Token.Expiry) == nil {
			pushed = true
		}
	}
	return pushed
}
