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
// is ever drawn, logged or saved (see signin_agent.go).

// openToken opens the masked field for a token for resource.
func (si *signIn) openToken(resource string) tea.Cmd {
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
	si.agent.token = tokenField{open: true, resource: resource, in: in}
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
		return tokenPushedMsg{resource: resource}
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
	return si.afterSignIn("signed in to "+res+" with your token (kept for this run)", msg.resource)
}
