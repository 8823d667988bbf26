package ui

import (
	"errors"
	"fmt"
	"net/url"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/authpkce"
	"github.com/ahptui/ahptui/views"
)

// savedAnswers is what *authpkce.Authenticator offers to remember the
// user's "use your sign-in here?" answer per host, so Lookup asks once.
type savedAnswers interface {
	Answer(host, resource, issuer string, allow bool) error
}

// signInAsk is a yes/no question about a sign-in, asked in a dialog over
// everything else: a sign-in from elsewhere to use here, or an
// authorization server on a private address to sign in at. The host
// decides when one appears, so typing never answers it: it waits behind
// a text field that has the keys (Model.askShown), drops the keys of its
// first second on screen (guard), and only y says yes. Nothing goes out,
// nor does a browser open, while it stands unanswered.
type signInAsk struct {
	key   string // one question per key at a time
	view  views.AskView
	yes   func() tea.Cmd
	no    func() tea.Cmd
	guard typingGuard // armed when first drawn (Model.settleGuards)
}

// ask queues a question unless one with the same key waits already.
func (si *signIn) ask(a signInAsk) {
	for _, q := range si.asks {
		if q.key == a.key {
			return
		}
	}
	si.asks = append(si.asks, a)
}

// pendingAsk is the question on screen, if any.
func (si *signIn) pendingAsk() (signInAsk, bool) {
	if len(si.asks) == 0 {
		return signInAsk{}, false
	}
	return si.asks[0], true
}

// keyAsk answers the question on screen: y yes, n, esc and enter no.
// Every other key, and every key in the guard's second, does nothing.
func (si *signIn) keyAsk(msg tea.KeyPressMsg, now time.Time) tea.Cmd {
	if len(si.asks) == 0 {
		return nil
	}
	if si.asks[0].guard.holds(now) {
		return nil
	}
	a := si.asks[0]
	var act func() tea.Cmd
	switch {
	case key.Matches(msg, si.keys.Confirm.Yes):
		act = a.yes
	case key.Matches(msg, si.keys.Confirm.No):
		act = a.no
	default:
		return nil
	}
	si.asks = si.asks[1:]
	return act()
}

// hostOf is the host[:port] of an issuer URL, the name a person checks.
func hostOf(issuer string) string {
	if u, err := url.Parse(issuer); err == nil && u.Host != "" {
		return u.Host
	}
	return issuer
}

// askUseHere asks "use your sign-in to X (issued by Y) on host Z?" for a
// saved grant obtained on another host (authpkce.DecisionAsk). Yes records
// the answer and pushes the token; no records it and pushes nothing. Either
// way Lookup does not ask again for this host. plain (trust.Verdict.Plain):
// the host is plain ws:// and not yet agreed to, so a yes agrees to that too.
func (si *signIn) askUseHere(w tokenWant, match authpkce.Match, plain bool) {
	src, _ := si.cfg.Auth.(savedAnswers)
	host, res, issuer := si.cfg.Host, w.Resource, w.Issuer
	tok := match.Token
	from := tok.Host
	if from == "" {
		from = "a host ahptui did not record"
	}
	lines := []string{
		"You signed in on " + from + ". Yes sends that token to this host too.",
		"Your answer is remembered for this host; forget the sign-in with " + si.keys.Global.SignIns.Help().Key + ".",
	}
	if plain {
		lines = append(lines, "This host is reached over plain ws://: any program on this machine could have taken its address.")
	}
	remember := func(allow bool) error {
		if src == nil {
			return nil
		}
		if err := src.Answer(host, res, issuer, allow); err != nil {
			return fmt.Errorf("remember the answer for %s: %w", views.SanitizeLine(host), err)
		}
		return nil
	}
	si.ask(signInAsk{
		key: "use|" + res,
		view: views.AskView{
			Title:    "Use a saved sign-in?",
			Question: fmt.Sprintf("Use your sign-in to %s (issued by %s) on host %s?", res, hostOf(issuer), host),
			Lines:    lines,
			Yes:      "use it here", No: "do not",
		},
		yes: func() tea.Cmd {
			err := remember(true)
			c, ctx := si.client, si.ctx
			if c == nil {
				return reportError(errors.Join(errNoClient, err))
			}
			si.hostHolds[res] = true
			push := func() tea.Msg {
				return savedPushedMsg{resource: res, err: c.Authenticate(ctx, res, tok.AccessToken, tok.Scopes, tok.Expiry)}
			}
			var more tea.Cmd
			if plain {
				more = si.allowPlain()
			}
			if err != nil {
				return tea.Batch(push, more, reportError(err))
			}
			return tea.Batch(push, more)
		},
		no: func() tea.Cmd {
			if err := remember(false); err != nil {
				return reportError(err)
			}
			return reportInfo("not using your sign-in to " + views.SanitizeLine(res) + " here; sign in from its prompt if you need it")
		},
	})
}

// askPrivateServer asks before signing in at an authorization server on a
// private or link-local address: a host could otherwise aim the user's
// browser, and our requests, at a machine on their own network. Yes starts
// the sign-in again with the server confirmed.
func (si *signIn) askPrivateServer(g *grantFlow, sc *authpkce.ServerConfirmation) {
	req := g.requirement
	si.ask(signInAsk{
		key: "server|" + g.resource,
		view: views.AskView{
			Title:    "Sign in on your network?",
			Question: fmt.Sprintf("Sign in to %s at %s (%s)?", g.resource, sc.Host, sc.Addr),
			Lines: []string{
				"The host names an authorization server on a private network address.",
				"Say yes only if you know this server.",
			},
			Yes: "sign in there", No: "do not",
		},
		yes: func() tea.Cmd {
			delete(si.grants, g.resource)
			return si.startGrantAt(req, sc.Host)
		},
		no: func() tea.Cmd {
			si.endFlow(g, grantCancelled, nil)
			return reportInfo("sign-in to " + views.SanitizeLine(g.resource) + " not started")
		},
	})
}
