package ui

import (
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/authpkce"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

// savedTokens is what *authpkce.Authenticator offers beyond Start: the
// decision whether a saved grant may go to this host (bound to the host it
// was obtained on and the issuer that issued it). An Authenticator without
// it (a test fake) just never pushes saved tokens.
type savedTokens interface {
	Lookup(host string, w authpkce.Want) authpkce.Match
}

// savedPushedMsg reports a saved token pushed without asking.
type savedPushedMsg struct {
	resource string
	err      error
}

// savedKey is one resource with the scopes a token for it must carry.
type savedKey struct{ resource, scopes string }

// tokenWant is a resource the host says needs a token, with the scopes a
// token must carry to serve it.
type tokenWant struct {
	resource string
	issuer   string // the authorization server the host names for it
	scopes   []string
}

// firstServer is the authorization server the host names for p: the one a
// sign-in would go to, and the issuer a saved grant must match.
func firstServer(p protocol.ProtectedResourceMetadata) string {
	if as := p.AuthorizationServers; len(as) > 0 {
		return as[0]
	}
	return ""
}

// tokenWants lists what the host asks tokens for right now: every agent's
// protectedResources (the spec: "Before interacting with a session backed
// by such an agent, the client SHOULD authenticate"), MCP servers in
// authRequired and auth-required tool calls in the running turn.
func (si *signIn) tokenWants() []tokenWant {
	var out []tokenWant
	for _, a := range si.root.Agents {
		for _, p := range a.ProtectedResources {
			out = append(out, tokenWant{resource: p.Resource, issuer: firstServer(p)})
		}
	}
	if si.hasSess {
		for _, r := range si.servers() {
			if r.StateKind == "authRequired" && r.Auth != nil {
				out = append(out, tokenWant{resource: r.Auth.Resource.Resource, issuer: firstServer(r.Auth.Resource), scopes: r.Auth.RequiredScopes})
			}
		}
	}
	if si.hasChat && si.chat.ActiveTurn != nil {
		for _, p := range si.chat.ActiveTurn.ResponseParts {
			if tc, ok := p.Variant.(protocol.ToolCallResponsePart); ok {
				if a := tc.ToolCall.AuthRequirement(); a != nil {
					out = append(out, tokenWant{resource: a.Resource.Resource, issuer: firstServer(a.Resource), scopes: a.RequiredScopes})
				}
			}
		}
	}
	return out
}

// stateChanged runs on every new snapshot of a watched channel and acts
// only when what the host asks tokens for changed: a streamed chunk of
// text (most snapshots) changes nothing that concerns sign-in.
func (si *signIn) stateChanged() tea.Cmd {
	wants := si.tokenWants()
	if slices.EqualFunc(wants, si.lastWants, func(a, b tokenWant) bool {
		return a.resource == b.resource && a.issuer == b.issuer && slices.Equal(a.scopes, b.scopes)
	}) {
		return nil
	}
	si.lastWants = wants
	return si.pushSavedTokens()
}

// pushSavedTokens pushes, once per connection and resource (and required
// scopes), a saved token authpkce.Lookup allows silently: obtained on this
// very host for the issuer the host names now. To a plain ws:// host not
// found in VS Code's registry it goes only after the user said yes once
// this run (askPlainHost). A grant from another host
// is never pushed here; the status line says a sign-in from elsewhere
// exists. Only resources this host advertised are considered.
func (si *signIn) pushSavedTokens() tea.Cmd {
	src, ok := si.cfg.Auth.(savedTokens)
	if !ok || si.client == nil {
		return nil
	}
	var todo []tokenWant
	for _, w := range si.tokenWants() {
		k := savedKey{w.resource, strings.Join(w.scopes, " ")}
		if w.resource == "" || si.savedTried[k] {
			continue
		}
		si.savedTried[k] = true
		if g := si.grants[w.resource]; g != nil && (g.phase == grantStarting || g.phase == grantWaiting || g.phase == grantPushing) {
			continue
		}
		todo = append(todo, w)
	}
	if len(todo) == 0 {
		return nil
	}
	advertised := si.advertised()
	c, ctx := si.client, si.ctx
	var cmds []tea.Cmd
	pushed := map[string]bool{}
	for _, w := range todo {
		if pushed[w.resource] || authpkce.CheckAdvertised(w.resource, advertised) != nil {
			continue
		}
		match := src.Lookup(si.cfg.Host, authpkce.Want{Resource: w.resource, Issuer: w.issuer, Scopes: w.scopes})
		si.log.Debug("saved token lookup", "resource", w.resource, "decision", match.Decision.String())
		switch match.Decision {
		case authpkce.DecisionSilent:
		case authpkce.DecisionAsk:
			if si.plainVerdict() != plainRefused {
				si.askUseHere(w, match)
			}
			continue
		default:
			continue
		}
		pushed[w.resource] = true
		res, tok, scopes, expiry := w.resource, match.Token.AccessToken, match.Token.Scopes, match.Token.Expiry
		push := savedPush{resource: res, cmd: func() tea.Msg {
			return savedPushedMsg{resource: res, err: c.Authenticate(ctx, res, tok, scopes, expiry)}
		}}
		switch si.plainVerdict() {
		case plainAsk:
			si.holdForPlain(push)
			continue
		case plainRefused:
			continue
		}
		si.hostHolds[w.resource] = true
		si.log.Debug("pushing a saved token", "resource", res)
		cmds = append(cmds, push.cmd)
	}
	return tea.Batch(cmds...)
}

func (si *signIn) onSavedPushed(msg savedPushedMsg) tea.Cmd {
	res := views.SanitizeLine(msg.resource)
	if msg.err != nil {
		delete(si.hostHolds, msg.resource)
		return reportError(fmt.Errorf("the host refused the saved token for %s: %w (sign in again from its prompt)", res, msg.err))
	}
	si.dropAgentPrompt(msg.resource)
	return si.afterSignIn("signed in to "+res+" with a saved token", msg.resource)
}

// memoryNote, when sign-ins are kept in memory only (--demo's token
// store), says so: a newcomer must know a sign-in will not be there next
// run, and a real host's sign-ins are saved.
func (si *signIn) memoryNote() string {
	ts, ok := si.cfg.Auth.(interface{ TokenStore() (string, error) })
	if !ok {
		return ""
	}
	if kind, _ := ts.TokenStore(); kind != "memory" {
		return ""
	}
	return "sign-ins are kept in memory only (the demo): forgotten when ahptui exits"
}

// listNote is the sign-ins sheet's note: what the last forget did, or
// where the sign-ins are kept when that is memory only.
func (si *signIn) listNote() string {
	if si.list.note != "" {
		return si.list.note
	}
	return si.memoryNote()
}
