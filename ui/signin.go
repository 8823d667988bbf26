package ui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/authpkce"
	"github.com/ahptui/ahptui/protocol"
)

// signIn is the sign-in manager: the OAuth flows by resource, the agent's
// sign-in prompts, and the saved tokens pushed without asking.
type signIn struct {
	*app
	chatPanel *chatPanel // the open chat: its items and selection
	grants    map[string]*grantFlow
	prompts   []agentPrompt
	// savedTried records, per resource and required scopes, that a saved
	// token was looked for (and pushed if found) on this connection.
	savedTried map[savedKey]bool
	// lastWants is what the host asked tokens for at the last snapshot.
	lastWants   []tokenWant
	serversMemo serversMemo
	// asks are yes/no questions waiting for the user, the first on screen.
	asks []signInAsk
	// list is the saved sign-ins sheet; paste the overlay's field for a
	// pasted redirect; note what the overlay's last key did.
	list  signInList
	paste pasteField
	note  string
	// advertisedSet caches advertised() for auth/required lookups, so a
	// flood of them costs a map lookup each; a state change or a closed
	// session drops it (forgetAdvertised).
	advertisedSet map[string]bool
	// hostHolds lists the resources whose token went to the host on this
	// connection (dropped again if it refused): forgetting one must reach
	// the host even when nothing advertises it any more (a server signed
	// in to is ready, not asking).
	hostHolds map[string]bool
	// agreed: per resource, the servers said yes to in one sign-in's
	// restarts (the issuer, then an endpoint it names: each asks once).
	agreed map[string][]string
	// agent is the agents' own sign-in: tokens pushed by hand and the
	// commands a -32007 held back (signin_agent.go).
	agent agentAuth
	// plain is the user's answer, for this run, to sending saved tokens
	// to a plain ws:// host (plainConsent).
	plain plainConsent
}

// grantPhase is where one "grant additional access" flow is.
type grantPhase int

const (
	grantPrompt    grantPhase = iota // asking: accept or decline
	grantStarting                    // discovery/registration before the URL exists
	grantWaiting                     // browser open (or URL shown), waiting for the callback
	grantPushing                     // token obtained, `authenticate` in flight
	grantDone                        // host accepted the token
	grantFailed                      // err says why; accept again retries
	grantCancelled                   // user pressed esc while waiting
)

// grantFlow is one OAuth flow, keyed by resource: a token serves every tool
// call and server asking for the same resource, so one flow answers them all.
type grantFlow struct {
	resource    string
	requirement authpkce.Requirement
	phase       grantPhase
	url         string
	browserErr  error
	browserSeen bool
	err         error
	cancel      context.CancelFunc
	grant       *authpkce.Grant
	confirmed   string // the private authorization server the user agreed to
	// asks are the challenges (challengeKey) this flow's outcome answers
	// (signin_fresh.go).
	asks map[challengeKey]bool
}

// agentPrompt is an auth/required notification (or AuthRequiredError) for
// an agent resource, shown until answered.
type agentPrompt struct {
	resource string
	channel  string
	reason   string
	meta     *protocol.ProtectedResourceMetadata // from an AuthRequiredError
}

type browserCheckMsg struct{ resource string }

// toRequirement is authpkce's, shared with the commands (auth login).
func toRequirement(r protocol.McpAuthRequirement) authpkce.Requirement {
	return authpkce.RequirementOf(r)
}

// advertised lists every protected resource the host declared on this
// connection; authpkce refuses a challenge for anything else.
// isAdvertised reports whether the host declared resource (see
// advertised), in O(1) once the set is built.
func (si *signIn) isAdvertised(resource string) bool {
	if si.advertisedSet == nil {
		si.advertisedSet = map[string]bool{}
		for _, r := range si.advertised() {
			si.advertisedSet[r] = true
		}
	}
	return si.advertisedSet[resource]
}

// forgetAdvertised drops the cached set: what the host declares changes
// with its state and with the open session.
func (si *signIn) forgetAdvertised() { si.advertisedSet = nil }

func (si *signIn) advertised() []string {
	seen := map[string]bool{}
	var out []string
	add := func(r string) {
		if r != "" && !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	for _, a := range si.root.Agents {
		for _, p := range a.ProtectedResources {
			add(p.Resource)
		}
	}
	for _, r := range si.servers() {
		if r.Auth != nil {
			add(r.Auth.Resource.Resource)
		}
	}
	if si.hasChat {
		for _, it := range si.chatPanel.items() {
			if a := it.Tool.AuthRequirement(); a != nil {
				add(a.Resource.Resource)
			}
		}
	}
	return out
}

func (si *signIn) startGrant(r protocol.McpAuthRequirement) tea.Cmd {
	return si.startGrantReq(toRequirement(r))
}

func (si *signIn) agentRequirement(p agentPrompt) authpkce.Requirement {
	req := authpkce.Requirement{Reason: authpkce.Reason(p.reason), Resource: authpkce.ProtectedResourceMetadata{Resource: p.resource}}
	if req.Reason == "" {
		req.Reason = authpkce.ReasonRequired
	}
	if p.meta != nil {
		req.Resource = *p.meta
		return req
	}
	for _, a := range si.root.Agents {
		for _, pr := range a.ProtectedResources {
			if pr.Resource == p.resource {
				req.Resource = pr
			}
		}
	}
	return req
}

func (si *signIn) startGrantReq(req authpkce.Requirement) tea.Cmd {
	return si.startGrantAt(req, "")
}

// startGrantAt starts a flow; confirmed is the authorization server host
// the user agreed to sign in at although it is on a private address.
func (si *signIn) startGrantAt(req authpkce.Requirement, confirmed string) tea.Cmd {
	return si.startFlow(req, confirmed, false)
}

// deviceStarter is what *authpkce.Authenticator offers for a browser on
// another device: the device authorization grant (RFC 8628).
type deviceStarter interface {
	StartDevice(ctx context.Context, req authpkce.GrantRequest) (*authpkce.Grant, error)
}

// startFlow starts a browser flow, or a device grant when device is set.
func (si *signIn) startFlow(req authpkce.Requirement, confirmed string, device bool) tea.Cmd {
	res := req.Resource.Resource
	if si.cfg.Auth == nil {
		return reportError(errors.New("sign-in is not available in this build: no authenticator configured"))
	}
	if g := si.grants[res]; g != nil {
		switch g.phase {
		case grantStarting, grantWaiting, grantPushing:
			return reportInfo("already signing in to " + res)
		}
	}
	ctx, cancel := context.WithCancel(si.ctx)
	g := &grantFlow{resource: res, requirement: req, phase: grantStarting, cancel: cancel, confirmed: confirmed}
	si.grants[res] = g
	si.noteChallenges(g)
	start := si.cfg.Auth.Start
	if ds, ok := si.cfg.Auth.(deviceStarter); ok && device {
		start = ds.StartDevice
	}
	gr := authpkce.GrantRequest{Requirement: req, Advertised: si.advertised(), Host: si.cfg.Host}
	if confirmed == "" {
		delete(si.agreed, res) // a fresh sign-in asks afresh
	} else if !slices.Contains(si.agreed[res], confirmed) {
		if si.agreed == nil {
			si.agreed = map[string][]string{}
		}
		si.agreed[res] = append(si.agreed[res], confirmed)
	}
	gr.ConfirmedServers = slices.Clone(si.agreed[res])
	si.log.Debug("grant start", "resource", res, "reason", string(req.Reason))
	return func() tea.Msg {
		grant, err := start(ctx, gr)
		return grantStartedMsg{resource: res, grant: grant, err: err}
	}
}

func (si *signIn) onGrantStarted(msg grantStartedMsg) tea.Cmd {
	g := si.grants[msg.resource]
	if g == nil {
		if msg.grant != nil {
			msg.grant.Cancel()
		}
		return nil
	}
	if msg.err != nil {
		if errors.Is(msg.err, authpkce.ErrCanceled) || errors.Is(msg.err, context.Canceled) {
			si.endFlow(g, grantCancelled, nil)
			return reportInfo("sign-in cancelled")
		}
		if sc := (*authpkce.ServerConfirmation)(nil); errors.As(msg.err, &sc) {
			si.endFlow(g, grantCancelled, nil)
			si.askPrivateServer(g, sc)
			return nil
		}
		si.endFlow(g, grantFailed, msg.err)
		return reportError(fmt.Errorf("sign-in to %s failed: %w%s", msg.resource, msg.err, signInAdvice(msg.err)))
	}
	g.grant, g.url, g.phase = msg.grant, msg.grant.URL(), grantWaiting
	if d := msg.grant.Device(); d != nil && g.url == "" {
		g.url = d.VerificationURI
	}
	si.note, si.paste = "", pasteField{}
	grant, res := msg.grant, msg.resource
	wait := func() tea.Msg {
		<-grant.Done()
		r, err := grant.Result()
		return grantDoneMsg{resource: res, grant: grant, result: r, err: err}
	}
	check := tea.Tick(300*time.Millisecond, func(time.Time) tea.Msg { return browserCheckMsg{res} })
	return tea.Batch(wait, check)
}

func (si *signIn) onBrowserCheck(msg browserCheckMsg) tea.Cmd {
	g := si.grants[msg.resource]
	if g == nil || g.grant == nil || g.phase != grantWaiting {
		return nil
	}
	if err := g.grant.BrowserErr(); err != nil {
		g.browserErr = err
	}
	g.browserSeen = true
	return nil
}

func (si *signIn) onGrantDone(msg grantDoneMsg) tea.Cmd {
	g := si.grants[msg.resource]
	if g == nil || (msg.grant != nil && g.grant != msg.grant) {
		return nil
	}
	if msg.err != nil {
		if errors.Is(msg.err, authpkce.ErrCanceled) && g.phase == grantCancelled {
			return nil // the esc that cancelled it said so (cancelFlow)
		}
		if errors.Is(msg.err, authpkce.ErrCanceled) {
			si.endFlow(g, grantCancelled, nil)
			return reportInfo("sign-in cancelled")
		}
		si.endFlow(g, grantFailed, msg.err)
		return reportError(fmt.Errorf("sign-in to %s failed: %w%s", msg.resource, msg.err, signInAdvice(msg.err)))
	}
	if si.client == nil {
		si.endFlow(g, grantFailed, errNoClient)
		return nil
	}
	g.phase = grantPushing
	c, ctx, res := si.client, si.ctx, msg.result
	resource := msg.resource
	if res.Resource != "" {
		resource = res.Resource
	}
	// From now the host may hold the token: a forget before its answer
	// must still tell it.
	si.hostHolds[resource] = true
	return func() tea.Msg {
		err := c.Authenticate(ctx, resource, res.AccessToken, res.Scopes, res.Expiry)
		return authenticatedMsg{resource: msg.resource, pushed: resource, err: err}
	}
}

// waitingGrant is the flow whose sign-in URL the overlay shows: one
// waiting on the browser with its URL known — the selected prompt's when
// several wait, else the first by resource so the choice is stable.
func (si *signIn) waitingGrant() *grantFlow {
	waiting := func(g *grantFlow) bool { return g != nil && g.phase == grantWaiting && g.url != "" }
	if g := si.chatPanel.selectedFlow(); waiting(g) {
		return g
	}
	var best *grantFlow
	for _, g := range si.grants {
		if waiting(g) && (best == nil || g.resource < best.resource) {
			best = g
		}
	}
	return best
}

func (si *signIn) cancelFlow(g *grantFlow) tea.Cmd {
	if g == nil || (g.phase != grantWaiting && g.phase != grantStarting) {
		return reportInfo("no sign-in is waiting")
	}
	if g.grant != nil {
		g.grant.Cancel()
	}
	if g.cancel != nil {
		g.cancel()
	}
	si.endFlow(g, grantCancelled, nil)
	return reportInfo("sign-in cancelled")
}

// onAuthenticated is the host's answer to a token a flow obtained.
func (si *signIn) onAuthenticated(msg authenticatedMsg) tea.Cmd {
	g := si.grants[msg.resource]
	if g == nil {
		return nil
	}
	if msg.err != nil {
		delete(si.hostHolds, msg.pushed)
		si.endFlow(g, grantFailed, msg.err)
		return reportError(fmt.Errorf("the host refused the token for %s: %w", msg.resource, msg.err))
	}
	si.endFlow(g, grantDone, nil)
	si.dropAgentPrompt(msg.resource)
	done := "access granted for " + msg.resource
	if n := si.memoryNote(); n != "" {
		done += " (" + n + ")"
	}
	return si.afterSignIn(done, msg.resource, msg.pushed)
}

func (si *signIn) cancelGrants() {
	for _, g := range si.grants {
		if g.grant != nil {
			g.grant.Cancel()
		}
		if g.cancel != nil {
			g.cancel()
		}
	}
}

// tick notices a browser that failed to open for a flow waiting on it,
// so the prompt can say to open the URL by hand.
func (si *signIn) tick() {
	for _, g := range si.grants {
		if g.phase == grantWaiting && g.grant != nil && !g.browserSeen {
			if err := g.grant.BrowserErr(); err != nil {
				g.browserErr, g.browserSeen = err, true
			}
		}
	}
}

// newConnection forgets which saved tokens were tried: tokens belong to
// the connection, so a new one is signed in afresh.
func (si *signIn) newConnection() {
	si.savedTried, si.lastWants = map[savedKey]bool{}, nil
	si.hostHolds = map[string]bool{}
	si.newAgentConnection()
}

// signInAdvice is what the user can do about a failed sign-in; authpkce's
// errors say what happened, the advice is the UI's.
func signInAdvice(err error) string {
	for _, a := range []struct {
		err    error
		advice string
	}{
		{authpkce.ErrTimeout, "start the sign-in again"},
		{authpkce.ErrAccessDenied, "sign in again and approve the request if you meant to"},
		{authpkce.ErrIssuerMismatch, "the response may be forged; start the sign-in again"},
		{authpkce.ErrCallbackPort, "free the port or pick another --callback-port"},
		{authpkce.ErrPKCE, "the server may not enforce PKCE; --allow-unadvertised-pkce overrides this if you trust it"},
		{authpkce.ErrInsecureServer, "only https (or http on a loopback address) is accepted"},
		{authpkce.ErrNoClientIdentity, "ask the host's administrator for a pre-registered OAuth client"},
		{authpkce.ErrRegistration, "ask the host's administrator for a pre-registered OAuth client"},
		{authpkce.ErrDiscovery, "check your network and the host's authorization server, then try again"},
		{authpkce.ErrTokenEndpoint, "start the sign-in again; tell the server's administrator if it persists"},
		{authpkce.ErrAuthorization, "start the sign-in again"},
		{authpkce.ErrInvalidRequirement, "the host's auth metadata is broken; tell its administrator"},
		{authpkce.ErrResourceNotAdvertised, "reconnect, or report the host"},
		{authpkce.ErrStore, "check the permissions of your config directory"},
	} {
		if errors.Is(err, a.err) {
			return " (" + a.advice + ")"
		}
	}
	return ""
}
