package cli

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/spf13/cobra"

	"github.com/ahptui/ahptui/authpkce"
	"github.com/ahptui/ahptui/host/trust"
	"github.com/ahptui/ahptui/protocol"
)

// allowSavedFlag is the flag that says yes, up front, to what the UI
// would ask before pushing a saved sign-in (trust.Ask): a command cannot
// ask, so without it such a sign-in is not sent and stderr says why.
const allowSavedFlag = "allow-saved-tokens"

// savedFlags registers the commands' flags about saved sign-ins.
func savedFlags(root *cobra.Command, a *app) {
	root.PersistentFlags().BoolVar(&a.allowSaved, allowSavedFlag, false, "send saved sign-ins the UI would ask about first: to a plain ws:// host or socket not proven yours (VS Code's registry), or one made on another host")
}

// savedPlan is what happens with one saved sign-in the host asks for.
type savedPlan struct {
	want    trust.Want
	verdict trust.Verdict
	match   authpkce.Match
}

// found is how the connection's host was found, for trust.Decide: a host
// from VS Code's registry is proven the user's own (the registry is
// owner-only, its pid live; host/dial checks the peer on dial).
func (c *conn) found() trust.Found {
	if c.source == 0 {
		return trust.CommandLine
	}
	return c.source
}

// foundOf is a fleet.Host's Source ("flag", "saved", "local") as how
// the host was found.
func foundOf(source string) trust.Found {
	switch source {
	case "local":
		return trust.Registry
	case "saved":
		return trust.Saved
	}
	return trust.CommandLine
}

// planSaved is trust.Decide for every token the host asks for (trust.Wants
// of root and sess), once per resource and connection: what pushSaved
// does with each. The host advertised what it asks for; authpkce.Lookup
// matches the saved grants to this host and issuer.
func (c *conn) planSaved(root protocol.RootState, sess *protocol.SessionState) []savedPlan {
	if c.auth == nil {
		return nil
	}
	wants := trust.Wants(root, sess, nil)
	advertised := map[string]bool{}
	for _, w := range wants {
		advertised[w.Resource] = true
	}
	found := c.found()
	var out []savedPlan
	seen := map[string]bool{}
	for _, w := range wants {
		if w.Resource == "" || c.pushed[w.Resource] || seen[w.Resource] {
			continue
		}
		seen[w.Resource] = true
		in := trust.Connected(c.host, found)
		in.Resource, in.Advertised, in.Allow = w.Resource, advertised[w.Resource], c.allowSaved
		in.Match = c.auth.Lookup(c.host, authpkce.Want{Resource: w.Resource, Issuer: w.Issuer, Scopes: w.Scopes})
		out = append(out, savedPlan{want: w, verdict: trust.Decide(in), match: in.Match})
	}
	return out
}

// warnMu keeps the lines of hosts served at once (status on several
// hosts) whole on stderr.
var warnMu sync.Mutex

// notSent is the line a command prints for a sign-in trust.Decide would
// ask about.
func notSent(w io.Writer, resource, host, reason string) {
	warnMu.Lock()
	defer warnMu.Unlock()
	fmt.Fprintf(w, "saved sign-in for %s not sent to %s: %s; run with --%s to send it\n", hostText(resource), hostText(host), hostText(reason), allowSavedFlag)
}

// pushSaved sends the host the saved sign-ins trust.Decide lets go, once
// per resource and connection, as the UI does on connect and on every
// snapshot. What the UI would ask about is not sent: stderr says why and
// names --allow-saved-tokens. pushed says whether the host took one, so
// a caller reads the state it changed again.
func (c *conn) pushSaved(ctx context.Context, sess *protocol.SessionState) (pushed bool) {
	if c.auth == nil {
		return false
	}
	root, _ := c.Root()
	for _, p := range c.planSaved(root, sess) {
		res := p.want.Resource
		switch p.verdict.Kind {
		case trust.Ask:
			c.pushed[res] = true // said once; nothing is sent
			if c.warn != nil {
				notSent(c.warn, res, c.host, p.verdict.Reason)
			}
			continue
		case trust.Refuse:
			continue
		}
		c.pushed[res] = true
		tok := p.match.Token
		if c.Authenticate(ctx, res, tok.AccessToken, tok.Scopes, tok.Expiry) == nil {
			pushed = true
		}
	}
	return pushed
}
