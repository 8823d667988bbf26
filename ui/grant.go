package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/authpkce"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

type browserCheckMsg struct{ resource string }

// itemGrantRequirement is the auth challenge a transcript item shows a grant
// prompt for: the tool call's own auth-required state, or, for a call
// running against an MCP server that flipped to authRequired, the server's.
func (m *Model) itemGrantRequirement(it chatItem) *protocol.McpAuthRequirement {
	if it.Kind != itemToolCall {
		return nil
	}
	switch it.Tool.Status {
	case "auth-required":
		return it.Tool.Auth
	case "running":
		if it.Tool.Server != "" {
			return serverAuth(mcpRows(m.sess), it.Tool.Server)
		}
	}
	return nil
}

func (m *Model) itemGrant(it chatItem) string {
	if r := m.itemGrantRequirement(it); r != nil {
		return r.Resource.Resource
	}
	return ""
}

// selectedFlow is the grant flow behind the selected prompt, if one started.
func (m *Model) selectedFlow() *grantFlow {
	if m.itemSel == agentPromptSel && len(m.agentPrompts) > 0 {
		return m.grants[m.agentPrompts[0].resource]
	}
	if it, ok := m.selectedItem(); ok {
		return m.grants[m.itemGrant(it)]
	}
	return nil
}

func toAuthMetadata(p protocol.ProtectedResourceMetadata) authpkce.ProtectedResourceMetadata {
	// The field names of both follow RFC 9728, so the wire JSON maps across.
	var out authpkce.ProtectedResourceMetadata
	if b, err := json.Marshal(p); err == nil {
		_ = json.Unmarshal(b, &out)
	}
	return out
}

func toRequirement(r protocol.McpAuthRequirement) authpkce.Requirement {
	req := authpkce.Requirement{
		Reason:         authpkce.Reason(r.Reason),
		Resource:       toAuthMetadata(r.Resource),
		RequiredScopes: r.RequiredScopes,
		Description:    deref(r.Description),
	}
	if r.OauthClient != nil {
		req.OAuthClient = &authpkce.Client{ClientID: r.OauthClient.ClientId, ClientSecret: deref(r.OauthClient.ClientSecret)}
	}
	return req
}

// advertised lists every protected resource the host declared on this
// connection; authpkce refuses a challenge for anything else.
func (m *Model) advertised() []string {
	seen := map[string]bool{}
	var out []string
	add := func(r string) {
		if r != "" && !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	for _, a := range m.root.Agents {
		for _, p := range a.ProtectedResources {
			add(p.Resource)
		}
	}
	for _, r := range mcpRows(m.sess) {
		if r.Auth != nil {
			add(r.Auth.Resource.Resource)
		}
	}
	if m.hasChat {
		for _, it := range m.items() {
			if it.Tool.Auth != nil {
				add(it.Tool.Auth.Resource.Resource)
			}
		}
	}
	return out
}

// isAdvertised reports whether the host declared resource, in O(1) for a
// run of auth/required events: the set is built once and dropped by
// Update on any other message.
func (m *Model) isAdvertised(resource string) bool {
	if m.advertisedSet == nil {
		m.advertisedSet = map[string]bool{}
		for _, r := range m.advertised() {
			m.advertisedSet[r] = true
		}
	}
	return m.advertisedSet[resource]
}

func isAuthRequired(ev eventMsg) bool {
	_, ok := ev.ev.(protocol.AuthRequiredEvent)
	return ok
}

func (m *Model) acceptGrant() tea.Cmd {
	if m.itemSel == agentPromptSel && len(m.agentPrompts) > 0 {
		return m.startGrantReq(m.agentRequirement(m.agentPrompts[0]))
	}
	it, ok := m.selectedItem()
	if !ok {
		return nil
	}
	if r := m.itemGrantRequirement(it); r != nil {
		return m.startGrant(*r)
	}
	return nil
}

func (m *Model) startGrant(r protocol.McpAuthRequirement) tea.Cmd {
	return m.startGrantReq(toRequirement(r))
}

func (m *Model) agentRequirement(p agentPrompt) authpkce.Requirement {
	req := authpkce.Requirement{Reason: authpkce.Reason(p.reason), Resource: authpkce.ProtectedResourceMetadata{Resource: p.resource}}
	if req.Reason == "" {
		req.Reason = authpkce.ReasonRequired
	}
	if p.meta != nil {
		req.Resource = toAuthMetadata(*p.meta)
		return req
	}
	for _, a := range m.root.Agents {
		for _, pr := range a.ProtectedResources {
			if pr.Resource == p.resource {
				req.Resource = toAuthMetadata(pr)
			}
		}
	}
	return req
}

func (m *Model) startGrantReq(req authpkce.Requirement) tea.Cmd {
	res := req.Resource.Resource
	if m.cfg.Auth == nil {
		m.setError(errors.New("sign-in is not available in this build: no authenticator configured"))
		return nil
	}
	if g := m.grants[res]; g != nil {
		switch g.phase {
		case grantStarting, grantWaiting, grantPushing:
			m.setStatus("already signing in to " + res)
			return nil
		}
	}
	ctx, cancel := context.WithCancel(m.ctx)
	g := &grantFlow{resource: res, requirement: req, phase: grantStarting, cancel: cancel}
	m.grants[res] = g
	auth := m.cfg.Auth
	gr := authpkce.GrantRequest{Requirement: req, Advertised: m.advertised()}
	m.log.Debug("grant start", "resource", res, "reason", string(req.Reason))
	return func() tea.Msg {
		grant, err := auth.Start(ctx, gr)
		return grantStartedMsg{resource: res, grant: grant, err: err}
	}
}

func (m *Model) onGrantStarted(msg grantStartedMsg) tea.Cmd {
	g := m.grants[msg.resource]
	if g == nil {
		if msg.grant != nil {
			msg.grant.Cancel()
		}
		return nil
	}
	if msg.err != nil {
		if errors.Is(msg.err, authpkce.ErrCanceled) || errors.Is(msg.err, context.Canceled) {
			g.phase, g.err = grantCancelled, nil
			m.setStatus("sign-in cancelled")
			return nil
		}
		g.phase, g.err = grantFailed, msg.err
		m.setError(fmt.Errorf("sign-in to %s failed: %w", msg.resource, msg.err))
		return nil
	}
	g.grant, g.url, g.phase = msg.grant, msg.grant.URL(), grantWaiting
	grant, res := msg.grant, msg.resource
	wait := func() tea.Msg {
		<-grant.Done()
		r, err := grant.Result()
		return grantDoneMsg{resource: res, result: r, err: err}
	}
	check := tea.Tick(300*time.Millisecond, func(time.Time) tea.Msg { return browserCheckMsg{res} })
	return tea.Batch(wait, check)
}

func (m *Model) onBrowserCheck(msg browserCheckMsg) tea.Cmd {
	g := m.grants[msg.resource]
	if g == nil || g.grant == nil || g.phase != grantWaiting {
		return nil
	}
	if err := g.grant.BrowserErr(); err != nil {
		g.browserErr = err
	}
	g.browserSeen = true
	return nil
}

func (m *Model) onGrantDone(msg grantDoneMsg) tea.Cmd {
	g := m.grants[msg.resource]
	if g == nil {
		return nil
	}
	if msg.err != nil {
		if errors.Is(msg.err, authpkce.ErrCanceled) {
			g.phase, g.err = grantCancelled, nil
			m.setStatus("sign-in cancelled")
			return nil
		}
		g.phase, g.err = grantFailed, msg.err
		m.setError(fmt.Errorf("sign-in to %s failed: %w", msg.resource, msg.err))
		return nil
	}
	if m.client == nil {
		g.phase, g.err = grantFailed, errNoClient
		return nil
	}
	g.phase = grantPushing
	c, ctx, res := m.client, m.ctx, msg.result
	resource := msg.resource
	if res.Resource != "" {
		resource = res.Resource
	}
	return func() tea.Msg {
		err := c.Authenticate(ctx, resource, res.AccessToken, res.Scopes)
		return authenticatedMsg{resource: msg.resource, err: err}
	}
}

// waitingGrant is the flow whose sign-in URL the overlay shows: one
// waiting on the browser with its URL known — the selected prompt's when
// several wait, else the first by resource so the choice is stable.
func (m *Model) waitingGrant() *grantFlow {
	waiting := func(g *grantFlow) bool { return g != nil && g.phase == grantWaiting && g.url != "" }
	if g := m.selectedFlow(); waiting(g) {
		return g
	}
	var best *grantFlow
	for _, g := range m.grants {
		if waiting(g) && (best == nil || g.resource < best.resource) {
			best = g
		}
	}
	return best
}

// keyGrantOverlay handles keys while the sign-in overlay is up. The overlay
// is modal: it covers the panels the other keys act on, so only cancel,
// copy, quit, help and reconnect do anything.
func (m *Model) keyGrantOverlay(msg tea.KeyPressMsg, g *grantFlow) tea.Cmd {
	k := m.keys.Grant
	switch {
	case key.Matches(msg, k.Cancel):
		m.cancelFlow(g)
	case key.Matches(msg, k.CopyURL):
		m.setStatus("sign-in URL copied to the clipboard")
		return tea.SetClipboard(g.url)
	case key.Matches(msg, m.keys.Global.Quit):
		return m.quit()
	case key.Matches(msg, m.keys.Global.Help):
		m.showAll = true
	case key.Matches(msg, m.keys.Global.Reconnect):
		return m.reconnect()
	}
	return nil
}

func (m *Model) cancelGrant() {
	m.cancelFlow(m.selectedFlow())
}

func (m *Model) cancelFlow(g *grantFlow) {
	if g == nil || (g.phase != grantWaiting && g.phase != grantStarting) {
		m.setStatus("no sign-in is waiting")
		return
	}
	if g.grant != nil {
		g.grant.Cancel()
	}
	if g.cancel != nil {
		g.cancel()
	}
	g.phase = grantCancelled
	m.setStatus("sign-in cancelled")
}

// declineGrant refuses the prompt. For a tool call that fails the call with
// error code "cancelled" so the agent stops waiting for a token that will
// not come; an agent-resource prompt is just dismissed.
func (m *Model) declineGrant() {
	if m.itemSel == agentPromptSel && len(m.agentPrompts) > 0 {
		m.dropAgentPrompt(m.agentPrompts[0].resource)
		m.itemSel = ""
		m.setStatus("sign-in declined")
		return
	}
	it, ok := m.selectedItem()
	if !ok || m.itemGrant(it) == "" {
		return
	}
	if g := m.grants[m.itemGrant(it)]; g != nil && (g.phase == grantWaiting || g.phase == grantStarting) {
		m.cancelGrant()
	}
	code := "cancelled"
	_, ok = m.dispatch(m.openChat, protocol.ChatToolCallCompleteAction{
		TurnId: it.TurnID, ToolCallId: it.ID,
		Result: protocol.ToolCallResult{
			Success:          false,
			PastTenseMessage: protocol.PlainString("Access was not granted"),
			Error:            &protocol.ToolCallResultError{Message: "The user declined to grant access", Code: &code},
		},
	})
	if ok {
		m.setStatus("access declined: " + it.Tool.Name + " cancelled")
	}
}

func (m *Model) addAgentPrompt(p agentPrompt) {
	for i, q := range m.agentPrompts {
		if q.resource == p.resource {
			m.agentPrompts[i] = p
			return
		}
	}
	m.agentPrompts = append(m.agentPrompts, p)
	if m.focus == focusChat && m.itemSel == "" {
		m.itemSel = agentPromptSel
	}
	m.setStatus("the host asks you to sign in to " + p.resource + ": focus the chat and press g")
}

func (m *Model) dropAgentPrompt(resource string) {
	out := m.agentPrompts[:0:0]
	for _, p := range m.agentPrompts {
		if p.resource != resource {
			out = append(out, p)
		}
	}
	m.agentPrompts = out
}

// maybeAuthError turns an AuthRequired error from a command into the same
// prompt an auth/required notification opens.
func (m *Model) maybeAuthError(err error, channel string) tea.Cmd {
	var ae *protocol.AuthRequiredError
	if !errors.As(err, &ae) {
		return nil
	}
	for _, r := range ae.Resources {
		meta := r
		m.addAgentPrompt(agentPrompt{resource: r.Resource, channel: channel, reason: "required", meta: &meta})
	}
	return nil
}

// savedTokens is what *authpkce.Authenticator offers beyond Start: the
// unexpired tokens it keeps on disk. An Authenticator without it (a test
// fake) just never pushes saved tokens.
type savedTokens interface {
	Tokens() []authpkce.CachedToken
}

// savedPushedMsg reports a saved token pushed without asking.
type savedPushedMsg struct {
	resource string
	err      error
}

// tokenWant is a resource the host says needs a token, with the scopes a
// token must carry to serve it.
type tokenWant struct {
	resource string
	scopes   []string
}

// tokenWants lists what the host asks tokens for right now: every agent's
// protectedResources (the spec: "Before interacting with a session backed
// by such an agent, the client SHOULD authenticate"), MCP servers in
// authRequired and auth-required tool calls in the running turn.
func (m *Model) tokenWants() []tokenWant {
	var out []tokenWant
	for _, a := range m.root.Agents {
		for _, p := range a.ProtectedResources {
			out = append(out, tokenWant{resource: p.Resource})
		}
	}
	if m.hasSess {
		for _, r := range mcpRows(m.sess) {
			if r.StateKind == "authRequired" && r.Auth != nil {
				out = append(out, tokenWant{resource: r.Auth.Resource.Resource, scopes: r.Auth.RequiredScopes})
			}
		}
	}
	if m.hasChat {
		for _, it := range m.items() {
			if it.Active && it.Kind == itemToolCall && it.Tool.Status == "auth-required" && it.Tool.Auth != nil {
				out = append(out, tokenWant{resource: it.Tool.Auth.Resource.Resource, scopes: it.Tool.Auth.RequiredScopes})
			}
		}
	}
	return out
}

// pushSavedTokens pushes, once per connection and resource (and required
// scopes), a saved unexpired token issued for exactly a resource the host
// asks for and covering its scopes, so a returning user is signed in
// without a prompt. Only resources this host advertised are considered:
// a token is never sent to a host that did not ask for that resource.
func (m *Model) pushSavedTokens() tea.Cmd {
	src, ok := m.cfg.Auth.(savedTokens)
	if !ok || m.client == nil {
		return nil
	}
	var todo []tokenWant
	for _, w := range m.tokenWants() {
		k := w.resource + "\x00" + strings.Join(w.scopes, " ")
		if w.resource == "" || m.savedTried[k] {
			continue
		}
		m.savedTried[k] = true
		if g := m.grants[w.resource]; g != nil && (g.phase == grantStarting || g.phase == grantWaiting || g.phase == grantPushing) {
			continue
		}
		todo = append(todo, w)
	}
	if len(todo) == 0 {
		return nil
	}
	advertised := m.advertised()
	tokens := src.Tokens()
	now := m.clock()
	c, ctx := m.client, m.ctx
	var cmds []tea.Cmd
	pushed := map[string]bool{}
	for _, w := range todo {
		if pushed[w.resource] || authpkce.CheckAdvertised(w.resource, advertised) != nil {
			continue
		}
		for _, t := range tokens {
			if t.Resource != w.resource || t.AccessToken == "" || (!t.Expiry.IsZero() && !t.Expiry.After(now)) || !coversScopes(t.Scopes, w.scopes) {
				continue
			}
			pushed[w.resource] = true
			res, tok, scopes := w.resource, t.AccessToken, t.Scopes
			m.log.Debug("pushing a saved token", "resource", res)
			cmds = append(cmds, func() tea.Msg {
				return savedPushedMsg{resource: res, err: c.Authenticate(ctx, res, tok, scopes)}
			})
			break
		}
	}
	return tea.Batch(cmds...)
}

func coversScopes(have, need []string) bool {
	for _, n := range need {
		if !slices.Contains(have, n) {
			return false
		}
	}
	return true
}

func (m *Model) onSavedPushed(msg savedPushedMsg) {
	res := views.SanitizeLine(msg.resource)
	if msg.err != nil {
		m.setError(fmt.Errorf("the host refused the saved token for %s: %w (sign in again from its prompt)", res, msg.err))
		return
	}
	m.dropAgentPrompt(msg.resource)
	m.setStatus("signed in to " + res + " with a saved token")
}
