package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/authpkce"
	"github.com/ahptui/ahptui/views"
)

// Tokens given by hand for an agent's sign-in: pasted into a masked
// field, or taken from `gh auth token` after the user picked it. Neither
// is ever drawn or logged, nor saved unless the user asks (offerKeep).

// openToken opens the masked field for a token for resource; inChat when
// the agent's prompt in the chat opened it (tokenField.inChat).
func (si *signIn) openToken(resource string, inChat bool) tea.Cmd {
	if resource == "" {
		return reportError(errNothingTo)
	}
	in := textinput.New()
	in.EchoMode = textinput.EchoPassword
	in.EchoCharacter = '•'
	in.Prompt = ""
	in.Placeholder = "paste the token here"
	in.CharLimit = maxTokenLen
	in.SetWidth(40)
	st := textinput.DefaultStyles(si.th.IsDark)
	st.Cursor.Blink = false
	if si.cfg.NoColor {
		st = textinput.Styles{Cursor: textinput.CursorStyle{Blink: false}}
	}
	in.SetStyles(st)
	si.agent.token = tokenField{open: true, resource: resource, inChat: inChat, in: in}
	return si.agent.token.in.Focus()
}

// maxTokenLen bounds a pasted token: real ones are well under a few KB.
const maxTokenLen = authpkce.MaxHandTokenLen

// tokenOpen reports whether the token field has the keyboard.
func (si *signIn) tokenOpen() bool { return si.agent.token.open }

// keyToken edits the token field: enter pushes the token, esc closes it.
func (si *signIn) keyToken(msg tea.KeyPressMsg) tea.Cmd {
	k := si.keys.Paste
	f := &si.agent.token
	switch {
	case key.Matches(msg, k.Cancel):
		si.agent.token = tokenField{}
		return nil
	case key.Matches(msg, k.Submit):
		tok := strings.TrimSpace(f.in.Value())
		if tok == "" {
			return reportInfo("paste the token first, or press esc")
		}
		res := f.resource
		si.agent.token = tokenField{} // the field forgets the token now
		if err := checkToken(tok); err != nil {
			return reportError(err)
		}
		return si.pushToken(res, "checking the token with the host…", func(context.Context) (string, error) { return tok, nil })
	}
	var cmd tea.Cmd
	f.in, cmd = f.in.Update(msg)
	return cmd
}

// pasteToken takes a bracketed paste into the open token field.
func (si *signIn) pasteToken(msg tea.PasteMsg) tea.Cmd {
	var cmd tea.Cmd
	si.agent.token.in, cmd = si.agent.token.in.Update(tea.PasteMsg{Content: strings.TrimSpace(msg.Content)})
	return cmd
}

// checkToken refuses what cannot be a bearer token (authpkce's rule,
// shared with ahptui auth login --with-token).
func checkToken(tok string) error { return authpkce.CheckHandToken(tok) }

// useGh gets a token for a GitHub resource from `gh auth token` — only
// here, after the user picked it — and pushes it.
func (si *signIn) useGh(resource string) tea.Cmd {
	if resource == "" {
		return reportError(errNothingTo)
	}
	if !isGitHub(si.resourceMeta(resource)) {
		return reportInfo("gh gives GitHub tokens, and " + views.SanitizeLine(resource) + " is not GitHub's: paste a token instead")
	}
	gh := si.ghBinary()
	if gh == "" {
		return reportError(errors.New("gh is not installed (not on PATH): install GitHub's CLI and run gh auth login, or paste a token"))
	}
	return si.pushToken(resource, "getting a token from gh…", func(ctx context.Context) (string, error) {
		return ghToken(ctx, gh)
	})
}

// ghToken runs `gh auth token` (authpkce's, shared with ahptui auth
// login --gh).
func ghToken(ctx context.Context, gh string) (string, error) { return authpkce.GhToken(ctx, gh) }

// errRefused marks the host refusing a pushed token (not getting one).
var errRefused = errors.New("the host refused the token")

// pushToken gets a token (get) and pushes it for resource with
// authenticate. It has no issuer or refresh token, so nothing is saved:
// the client keeps it for this run and pushes it again after a reconnect.
func (si *signIn) pushToken(resource, busy string, get func(context.Context) (string, error)) tea.Cmd {
	if si.client == nil {
		return reportError(errNoClient)
	}
	if si.agent.pushes == nil {
		si.agent.pushes = map[string]*tokenPush{}
	}
	if p := si.agent.pushes[resource]; p != nil && p.busy != "" {
		return reportInfo("a token for " + views.SanitizeLine(resource) + " is on its way")
	}
	if g := si.grants[resource]; g != nil && (g.phase == grantStarting || g.phase == grantWaiting) {
		si.cancelFlow(g)
	}
	si.agent.pushes[resource] = &tokenPush{busy: busy}
	si.hostHolds[resource] = true
	c, ctx := si.client, si.ctx
	si.log.Debug("pushing a token given by hand", "resource", resource)
	return func() tea.Msg {
		tok, err := get(ctx)
		if err != nil {
			return tokenPushedMsg{resource: resource, err: err}
		}
		if err := c.Authenticate(ctx, resource, tok, nil, time.Time{}); err != nil {
			return tokenPushedMsg{resource: resource, err: fmt.Errorf("%w: %w", errRefused, err)}
		}
		return tokenPushedMsg{resource: resource, Tok: handSecret(tok)}
	}
}

func (si *signIn) onTokenPushed(msg tokenPushedMsg) tea.Cmd {
	p := si.agent.pushes[msg.resource]
	if p == nil {
		p = &tokenPush{}
		if si.agent.pushes == nil {
			si.agent.pushes = map[string]*tokenPush{}
		}
		si.agent.pushes[msg.resource] = p
	}
	p.busy, p.err, p.held = "", msg.err, msg.err == nil
	res := views.SanitizeLine(msg.resource)
	if msg.err != nil {
		delete(si.hostHolds, msg.resource)
		si.log.Debug("token given by hand did not serve", "resource", msg.resource)
		if errors.Is(msg.err, errRefused) {
			return reportError(fmt.Errorf("sign-in to %s: %w (check the token and paste it again)", res, msg.err))
		}
		return reportError(fmt.Errorf("sign-in to %s: %w", res, msg.err))
	}
	si.dropAgentPrompt(msg.resource)
	si.offerKeep(msg.resource, msg.Tok)
	return si.afterSignIn("signed in to "+res+" with your token (kept for this run)", msg.resource)
}

// handKeeper is what *authpkce.Authenticator offers to save a token
// given by hand under the saved grants' binding rules.
type handKeeper interface {
	KeepHandToken(host string, w authpkce.Want, token string) error
	TokenStore() (kind string, fallback error)
}

// offerKeep asks, once per resource and run, whether to keep the token
// the host just accepted: no, the default (enter, esc, n), keeps it for
// this run only; y saves it in the token store, bound to this host and
// the authorization server the host advertised for the resource, so it
// is pushed again only where that binding holds (authpkce.Lookup). A
// resource the host names no authorization server for is not asked
// about: nothing would bind the token.
func (si *signIn) offerKeep(res string, tok handSecret) {
	hk, ok := si.cfg.Auth.(handKeeper)
	if !ok || tok == "" || si.agent.keepAsked[res] {
		return
	}
	kind, _ := hk.TokenStore()
	where := map[string]string{"keyring": "the system keyring", "file": "ahptui's token file"}[kind]
	if where == "" {
		return // an in-memory store keeps nothing past the run anyway
	}
	w := authpkce.Want{Resource: res, Issuer: firstServer(si.resourceMeta(res))}
	for _, tw := range si.tokenWants() {
		if tw.Resource == res && tw.Issuer != "" {
			w.Issuer, w.Scopes = tw.Issuer, tw.Scopes
		}
	}
	if w.Issuer == "" {
		return
	}
	if si.agent.keepAsked == nil {
		si.agent.keepAsked = map[string]bool{}
	}
	si.agent.keepAsked[res] = true
	host, name := si.cfg.Host, views.SanitizeLine(res)
	si.ask(signInAsk{
		key: "keep|" + res,
		view: views.AskView{
			Title:    "Keep this token?",
			Question: fmt.Sprintf("Keep the token you gave for %s, for host %s?", res, host),
			Lines: []string{
				"Yes saves it in " + where + " and pushes it again when this host asks for " + res + " with " + hostOf(w.Issuer) + " as its sign-in server; another host is asked about first.",
				"No (the default) keeps it for this run only. Either way " + si.keys.Global.SignIns.Help().Key + " lists it, with forget.",
			},
			Yes: "keep it", No: "this run only",
		},
		yes: func() tea.Cmd {
			if err := hk.KeepHandToken(host, w, string(tok)); err != nil {
				return reportError(fmt.Errorf("could not keep the token for %s: %w", name, err))
			}
			return reportInfo("the token for " + name + " is kept in " + where + "; forget it with " + si.keys.Global.SignIns.Help().Key)
		},
		no: func() tea.Cmd { return reportInfo("the token for " + name + " lasts this run only") },
	})
}
