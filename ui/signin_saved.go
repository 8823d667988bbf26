package ui

import (
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/authpkce"
	"github.com/ahptui/ahptui/host/trust"
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

// tokenWant is a resource the host says needs a token, with the issuer it
// names and the scopes a token must carry: trust.Want, the one reading
// the commands share.
type tokenWant = trust.Want

// firstServer is the authorization server the host names for p.
func firstServer(p protocol.ProtectedResourceMetadata) string { return trust.FirstServer(p) }

// tokenWants lists what the host asks tokens for right now (trust.Wants,
// with the MCP rows the panel keeps:
// agents' protectedResources, MCP servers in authRequired, auth-required
// tool calls in the running turn).
func (si *signIn) tokenWants() []tokenWant {
	var rows []mcpRow
	var chat *protocol.ChatState
	if si.hasSess {
		rows = si.servers() // trust.Wants's rows, kept per snapshot
	}
	if si.hasChat {
		chat = &si.chat
	}
	return trust.WantsOfRows(si.root, rows, chat)
}

// stateChanged runs on every new snapshot of a watched channel and acts
// only when what the host asks tokens for changed: a streamed chunk of
// text (most snapshots) changes nothing that concerns sign-in.
func (si *signIn) stateChanged() tea.Cmd {
	wants := si.tokenWants()
	if slices.EqualFunc(wants, si.lastWants, func(a, b tokenWant) bool {
		return a.Resource == b.Resource && a.Issuer == b.Issuer && slices.Equal(a.Scopes, b.Scopes)
	}) {
		return nil
	}
	si.lastWants = wants
	return si.pushSavedTokens()
}

// pushSavedTokens pushes, once per connection and resource (and required
// scopes), the saved tokens trust.Decide lets go, and asks the questions
// it asks: "use your sign-in from elsewhere here?" (askUseHere) for a
// grant obtained on another host, "send over ws://?" (askPlainHost, once
// per run) before the first token goes to a plain ws:// host not found in
// VS Code's registry. Only resources this host advertised are considered.
func (si *signIn) pushSavedTokens() tea.Cmd {
	src, ok := si.cfg.Auth.(savedTokens)
	if !ok || si.client == nil {
		return nil
	}
	var todo []tokenWant
	for _, w := range si.tokenWants() {
		k := savedKey{w.Resource, strings.Join(w.Scopes, " ")}
		if w.Resource == "" || si.savedTried[k] {
			continue
		}
		si.savedTried[k] = true
		if g := si.grants[w.Resource]; g != nil && (g.phase == grantStarting || g.phase == grantWaiting || g.phase == grantPushing) {
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
		if pushed[w.Resource] {
			continue
		}
		v, match := si.savedVerdict(src, w, advertised)
		si.log.Debug("saved token", "resource", w.Resource, "decision", match.Decision.String(), "verdict", v.Kind.String(), "question", v.Question.String())
		switch {
		case v.Kind == trust.Ask && v.Question == trust.UseHere:
			si.askUseHere(w, match, v.Plain)
			continue
		case v.Kind == trust.Refuse:
			continue
		}
		pushed[w.Resource] = true
		res, tok, scopes, expiry := w.Resource, match.Token.AccessToken, match.Token.Scopes, match.Token.Expiry
		push := savedPush{resource: res, cmd: func() tea.Msg {
			return savedPushedMsg{resource: res, err: c.Authenticate(ctx, res, tok, scopes, expiry)}
		}}
		if v.Kind == trust.Ask { // trust.SendPlain
			si.holdForPlain(push)
			continue
		}
		si.hostHolds[w.Resource] = true
		si.log.Debug("pushing a saved token", "resource", res)
		cmds = append(cmds, push.cmd)
	}
	return tea.Batch(cmds...)
}

// savedVerdict is trust.Decide for w on this host, with what the UI
// knows: the host's URL, whether it came from VS Code's registry with a
// live pid (Config.RegistryHost, which proves it the user's own), this
// run's answer to the plain ws:// question, and authpkce.Lookup's match
// (asked only for an advertised resource).
func (si *signIn) savedVerdict(src savedTokens, w tokenWant, advertised []string) (trust.Verdict, authpkce.Match) {
	found := trust.CommandLine
	if si.cfg.RegistryHost {
		found = trust.Registry
	}
	in := trust.Connected(si.cfg.Host, found)
	in.Resource, in.Advertised = w.Resource, authpkce.CheckAdvertised(w.Resource, advertised) == nil
	in.Plain = si.plainAnswer()
	if in.Advertised {
		in.Match = src.Lookup(si.cfg.Host, authpkce.Want{Resource: w.Resource, Issuer: w.Issuer, Scopes: w.Scopes})
	}
	return trust.Decide(in), in.Match
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
