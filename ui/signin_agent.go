package ui

import (
	"errors"
	"os/exec"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/authpkce"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
	"github.com/ahptui/ahptui/views"
)

// An agent's own sign-in. A host such as VS Code's lists the agent's
// resource in protectedResources with required set and never sends
// auth/required: every turn then fails. So the need is read off the
// agent's declaration, said before the first message (session header and
// a prompt in the chat), and the prompt offers every way to a token: the
// OAuth flow where the resource names an authorization server, `gh auth
// token` for a GitHub resource (only when picked), or a pasted token.
// A token pushed by hand has no issuer, expiry or refresh token of its
// own: it is kept for this run, by the client, which pushes it again
// after a reconnect to the same host, for that resource; S lists it. The
// user is asked once whether to keep it (default no); kept, it is a saved
// grant bound to this host and the authorization server the host
// advertised (authpkce.KeepHandToken, offerKeep).

// agentAuth is the sign-in manager's state for tokens pushed by hand and
// for the commands a -32007 held back.
type agentAuth struct {
	// asked holds the resources prompted for on this connection, so a
	// dismissed prompt stays dismissed (the header still says it).
	asked map[string]bool
	// token is the masked field a token is pasted into.
	token tokenField
	// pushes is, per resource, the token pushed by hand and its answer.
	pushes map[string]*tokenPush
	// keepAsked holds the resources whose token the user was asked,
	// this run, whether to keep (asked once each; the answer no is the
	// default and is not saved).
	keepAsked map[string]bool
	// retries are commands that failed with -32007, run once more after
	// a sign-in to one of their resources.
	retries []authRetry
	// gh is where `gh` is (empty: not installed), looked up once (ghLooked).
	gh       string
	ghLooked bool
}

type tokenField struct {
	open     bool
	resource string
	// inChat: opened from the agent's sign-in prompt in the chat, which
	// draws the field under it (tokenInChat); from anywhere else (an MCP
	// server, a card's grant, the sign-in sheet) a sheet of its own does.
	inChat bool
	in     textinput.Model
}

// tokenInChat reports whether the open token field is drawn in the chat,
// under the first agent prompt, which is for its resource; else the
// overlay draws it as a sheet. One test for both, so the field is drawn
// in exactly one place.
func (si *signIn) tokenInChat() bool {
	f := si.agent.token
	return f.open && f.inChat && len(si.prompts) > 0 && si.prompts[0].resource == f.resource
}

type tokenPush struct {
	busy string // what runs now, "" when done
	err  error  // why the last token did not serve
	// held: the host accepted the token; the client pushes it again
	// after a reconnect until it is forgotten (S lists it).
	held bool
}

type authRetry struct {
	resources []string // empty: any sign-in
	cmd       tea.Cmd
}

// tokenPushedMsg is the answer to a token pushed by hand (pasted, or from
// gh): err says which step failed.
type tokenPushedMsg struct {
	resource string
	err      error
	// Tok is the token the host accepted, for keeping it when the user
	// asks to; exported so fmt uses its redacting String.
	Tok handSecret
}

// handSecret is a token given by hand on its way from the push to the
// keep question: never printed (String and GoString redact it).
type handSecret string

func (handSecret) String() string   { return "[token]" }
func (handSecret) GoString() string { return "[token]" }

// authRetryMsg wraps a command's answer that failed with -32007: the
// command is kept to run once more after the sign-in it asks for.
type authRetryMsg struct {
	inner     tea.Msg
	retry     tea.Cmd
	resources []string
}

// requiredResource says whether an agent cannot be used without a token
// for p (the spec: an absent `required` counts as true).
func requiredResource(p protocol.ProtectedResourceMetadata) bool {
	return p.Required == nil || *p.Required
}

// agentNeeds lists the required resources of the open session's agent
// that no token serves on this connection: none was pushed (by a flow, a
// saved grant allowed here, or by hand) or is being pushed.
func (si *signIn) agentNeeds() []protocol.ProtectedResourceMetadata {
	if !si.hasSess {
		return nil
	}
	var out []protocol.ProtectedResourceMetadata
	for _, a := range si.root.Agents {
		if a.Provider != si.sess.Provider {
			continue
		}
		for _, p := range a.ProtectedResources {
			if p.Resource != "" && requiredResource(p) && !si.hostHolds[p.Resource] {
				out = append(out, p)
			}
		}
	}
	return out
}

// syncAgentNeeds opens a sign-in prompt, once per resource and
// connection, for each required resource of the open session's agent no
// token serves. It runs after the saved tokens were pushed, so a saved
// grant this host may have silently is never asked for.
func (si *signIn) syncAgentNeeds() tea.Cmd {
	var report tea.Cmd
	for _, p := range si.agentNeeds() {
		if si.agent.asked[p.Resource] {
			continue
		}
		if si.agent.asked == nil {
			si.agent.asked = map[string]bool{}
		}
		si.agent.asked[p.Resource] = true
		si.ghBinary()
		si.addAgentPrompt(agentPrompt{resource: p.Resource, channel: si.openSession, reason: "required"})
		report = reportInfo(resourceName(p) + " needs a sign-in before your first message: the chat's prompt offers the ways")
	}
	return report
}

// reofferAgentSignIn opens again the prompts of the open session's
// agent's needs the user dismissed (t or h in the chat, as the header
// says); false when there are none.
func (si *signIn) reofferAgentSignIn() bool {
	needs := si.agentNeeds()
	for _, p := range needs {
		delete(si.agent.asked, p.Resource)
	}
	si.syncAgentNeeds()
	return len(needs) > 0
}

// newAgentConnection forgets what was asked on the previous connection.
func (si *signIn) newAgentConnection() {
	si.agent.asked = nil
	si.agent.pushes = nil
}

func resourceName(p protocol.ProtectedResourceMetadata) string {
	if n := views.SanitizeLine(deref(p.ResourceName)); n != "" {
		return n + " (" + views.SanitizeLine(p.Resource) + ")"
	}
	return views.SanitizeLine(p.Resource)
}

// agentNeedLine is the session header's "sign-in needed" line, "" when
// the open session's agent needs none.
func (si *signIn) agentNeedLine(w int) []string {
	needs := si.agentNeeds()
	if len(needs) == 0 {
		return nil
	}
	names := make([]string, 0, len(needs))
	for _, p := range needs {
		names = append(names, resourceName(p))
	}
	return []string{views.RenderAgentSignInNeeded(si.th, names, w)}
}

// resourceMeta is what the host declared for resource: a prompt's own
// metadata (from a -32007), else an agent's protectedResources entry.
func (si *signIn) resourceMeta(resource string) protocol.ProtectedResourceMetadata {
	for _, p := range si.prompts {
		if p.resource == resource && p.meta != nil {
			return *p.meta
		}
	}
	return si.agentRequirement(agentPrompt{resource: resource}).Resource
}

// isGitHub reports whether resource is GitHub's (authpkce's rule, shared
// with ahptui auth login --gh).
func isGitHub(p protocol.ProtectedResourceMetadata) bool {
	return authpkce.IsGitHubResource(p.Resource, p.AuthorizationServers)
}

// clientChecker is the Authenticator's knowledge of the client ids the
// user registered (authpkce.Authenticator.HasClient).
type clientChecker interface{ HasClient(issuer string) bool }

// browserWorks reports whether a browser sign-in to meta's resource can
// succeed: a sign-in is configured and the resource names its server;
// for GitHub, which registers no clients, only with a client id the user
// gave (--oauth-client).
func (si *signIn) browserWorks(meta protocol.ProtectedResourceMetadata) bool {
	if si.cfg.Auth == nil || len(meta.AuthorizationServers) == 0 {
		return false
	}
	if !isGitHub(meta) {
		return true
	}
	cc, ok := si.cfg.Auth.(clientChecker)
	if !ok {
		return false
	}
	for _, iss := range meta.AuthorizationServers {
		if cc.HasClient(iss) {
			return true
		}
	}
	return false
}

// firstOffer is what enter does on an agent's sign-in prompt: the first
// way that can work, in the prompt's order — gh's token, a browser
// sign-in, else the token field.
func (si *signIn) firstOffer(p agentPrompt) tea.Cmd {
	meta := si.resourceMeta(p.resource)
	switch {
	case si.ghBinary() != "" && isGitHub(meta):
		return si.useGh(p.resource)
	case si.browserWorks(meta):
		return si.startGrantReq(si.agentRequirement(p))
	}
	return si.openToken(p.resource, true)
}

// browserSignIn is g on an agent's sign-in prompt: the browser sign-in,
// or, where it cannot work, why and what does.
func (si *signIn) browserSignIn(p agentPrompt) tea.Cmd {
	meta := si.resourceMeta(p.resource)
	if si.browserWorks(meta) {
		return si.startGrantReq(si.agentRequirement(p))
	}
	switch {
	case si.cfg.Auth == nil:
		return reportInfo("browser sign-in is off in this run: paste a token (" + si.keys.Grant.Token.Help().Key + ")")
	case isGitHub(meta):
		iss := "ISSUER"
		if len(meta.AuthorizationServers) > 0 {
			iss = views.SanitizeLine(meta.AuthorizationServers[0])
		}
		return reportInfo("GitHub registers no OAuth clients, so a browser sign-in needs your own OAuth app: start ahptui with --oauth-client " +
			iss + "=CLIENT_ID, or paste a token (" + si.keys.Grant.Token.Help().Key + ")")
	}
	return reportInfo("the host names no authorization server for " + views.SanitizeLine(p.resource) + ": paste a token (" + si.keys.Grant.Token.Help().Key + ")")
}

// firstOfferWords says what firstOffer does, as the footer names it.
func (si *signIn) firstOfferWords(p agentPrompt) string {
	meta := si.resourceMeta(p.resource)
	switch {
	case si.ghBinary() != "" && isGitHub(meta):
		return "use gh auth token"
	case si.browserWorks(meta):
		return "sign in (browser)"
	}
	return "paste a token"
}

// ghBinary is where gh is, "" when it is not on PATH; looked up once.
func (si *signIn) ghBinary() string {
	if !si.agent.ghLooked {
		si.agent.ghLooked = true
		si.agent.gh, _ = exec.LookPath("gh")
	}
	return si.agent.gh
}

// agentOffers is the prompt's hint lines for resource.
func (si *signIn) agentOffers(resource string) []string {
	meta := si.resourceMeta(resource)
	a := views.AgentSignIn{
		OAuth: si.browserWorks(meta),
		Gh:    si.agent.gh != "" && isGitHub(meta),
	}
	if p := si.agent.pushes[resource]; p != nil {
		a.Busy = p.busy
		if p.err != nil {
			a.Err = p.err.Error()
		}
	}
	return views.RenderAgentSignInOffers(si.th, si.keys, a)
}

// grantResource is the resource of the selected grant prompt: the
// agent's sign-in prompt, or a card's.
func (cp *chatPanel) grantResource() string {
	if cp.sel.prompt && len(cp.signin.prompts) > 0 {
		return cp.signin.prompts[0].resource
	}
	if it, ok := cp.selectedItem(); ok {
		return cp.itemGrant(it)
	}
	return ""
}

// promptLines draws the agent sign-in prompts, inner cells wide: the
// first one, selected, with the token field when it is open.
func (cp *chatPanel) promptLines(inner int) []string {
	var out []string
	for i, p := range cp.signin.prompts {
		gv := cp.signin.agentGrantView(p)
		if gv.Phase == views.GrantOffered {
			gv.Offers = cp.signin.agentOffers(p.resource)
		}
		out = append(out, strings.Split(views.RenderGrant(cp.th, gv, inner), "\n")...)
		if i != 0 {
			continue
		}
		if cp.signin.tokenInChat() {
			out = append(out, views.RenderTokenField(cp.th, cp.keys, cp.signin.agent.token.in.View(), inner)...)
		} else if cp.sel.prompt && cp.focus == focusChat && gv.Offers == nil {
			out = append(out, views.KeyHints(cp.th, true, cp.keys.Grant.Accept, "sign in", cp.keys.Grant.Decline, "dismiss"))
		}
	}
	return out
}

func (si *signIn) addAgentPrompt(p agentPrompt) tea.Cmd {
	for i, q := range si.prompts {
		if q.resource == p.resource {
			si.prompts[i] = p
			return nil
		}
	}
	si.prompts = append(si.prompts, p)
	si.chatPanel.offerPrompt()
	return reportInfo("the host asks you to sign in to " + views.SanitizeLine(p.resource) + ": the prompt in the chat offers the ways")
}

func (si *signIn) dropAgentPrompt(resource string) {
	out := si.prompts[:0:0]
	for _, p := range si.prompts {
		if p.resource != resource {
			out = append(out, p)
		}
	}
	si.prompts = out
}

// maybeAuthError turns an AuthRequired error from a command into the same
// prompt an auth/required notification opens. It returns the report of
// the newest prompt it opened, which says more than the error does, or
// nil when it opened none.
func (si *signIn) maybeAuthError(err error, channel string) tea.Cmd {
	var ae *client.AuthRequiredError
	if !errors.As(err, &ae) {
		return nil
	}
	var report tea.Cmd
	for _, r := range ae.Resources {
		meta := r
		if cmd := si.addAgentPrompt(agentPrompt{resource: r.Resource, channel: channel, reason: "required", meta: &meta}); cmd != nil {
			report = cmd
		}
	}
	return report
}
