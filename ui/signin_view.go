package ui

import (
	"context"
	"errors"
	"net"
	"strings"
	"syscall"

	"github.com/ahptui/ahptui/authpkce"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

// grantView is what the prompt of challenge (challengeKey) for req shows,
// given the flow for its resource, if it runs or answered that challenge.
func (si *signIn) grantView(req protocol.McpAuthRequirement, challenge challengeKey) views.GrantView {
	scopes := req.RequiredScopes
	if len(scopes) == 0 {
		scopes = req.Resource.ScopesSupported
	}
	gv := views.GrantView{Resource: req.Resource.Resource, Reason: string(req.Reason), Scopes: scopes,
		Description: deref(req.Description)}
	if name := deref(req.Resource.ResourceName); name != "" {
		gv.Resource = name + " (" + req.Resource.Resource + ")"
	}
	if as := firstServer(req.Resource); as != "" {
		gv.Server = hostOf(as)
	}
	si.applyFlow(&gv, si.flowFor(req.Resource.Resource, challenge))
	return gv
}

func (si *signIn) applyFlow(gv *views.GrantView, g *grantFlow) {
	if g == nil {
		return
	}
	switch g.phase {
	case grantStarting, grantWaiting, grantPushing:
		gv.Phase = views.GrantWaiting
		gv.URL = g.url
		gv.BrowserOpened = g.browserSeen && g.browserErr == nil
		gv.BrowserDisabled = si.cfg.NoBrowser || browserDisabledErr(g.browserErr)
	case grantDone:
		gv.Phase = views.GrantSucceeded
	case grantFailed:
		gv.Phase = views.GrantFailed
		if g.err != nil {
			gv.Err = g.err.Error()
			gv.Advice = failureAdvice(g.err, g)
		}
	case grantCancelled:
		gv.Phase = views.GrantCancelled
	}
}

// browserDisabledErr recognises the error main's --no-browser opener
// returns, for a caller that does not set Config.NoBrowser: the flag is a
// choice, not a failure to report.
func browserDisabledErr(err error) bool {
	return err != nil && strings.Contains(err.Error(), "--no-browser")
}

func (si *signIn) agentGrantView(p agentPrompt) views.GrantView {
	req := si.agentRequirement(p)
	gv := views.GrantView{Resource: p.resource, Reason: p.reason, Scopes: req.Resource.ScopesSupported, Dismiss: true}
	if name := deref(req.Resource.ResourceName); name != "" {
		gv.Resource = name + " (" + p.resource + ")"
	}
	if as := req.Resource.AuthorizationServers; len(as) > 0 {
		gv.Server = hostOf(as[0])
	}
	si.applyFlow(&gv, si.flowFor(p.resource, agentChallenge(p.resource)))
	return gv
}

// overlayView is what the sign-in overlay shows of the waiting flow g.
func (si *signIn) overlayView(g *grantFlow) views.GrantView {
	gv := views.GrantView{Phase: views.GrantWaiting, Resource: g.resource}
	if name := deref(g.requirement.Resource.ResourceName); name != "" {
		gv.Resource = name + " (" + g.resource + ")"
	}
	si.applyFlow(&gv, g)
	si.overlayExtras(&gv, g)
	return gv
}

// failureAdvice is what to do about a failed sign-in, by its cause; ""
// for a failure in the browser (the account or the access it allowed),
// where the view's own advice fits.
func failureAdvice(err error, g *grantFlow) string {
	var dns *net.DNSError
	var op *net.OpError
	switch {
	case errors.Is(err, authpkce.ErrAccessDenied), errors.Is(err, authpkce.ErrStateMismatch):
		return ""
	case errors.As(err, &dns), errors.As(err, &op), errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ENETUNREACH):
		return "Could not reach " + signInServer(g) + ": check the network connection, then try again."
	case errors.Is(err, authpkce.ErrTimeout):
		return "No answer came back from the browser in time: start the sign-in again."
	case errors.Is(err, context.DeadlineExceeded):
		return signInServer(g) + " did not answer in time: check the network connection, then try again."
	}
	if a := advice(err); a != "" && a != connectAdvice {
		return strings.ToUpper(a[:1]) + a[1:] + "."
	}
	if g != nil && g.url == "" {
		// It failed before a browser was involved.
		return "The sign-in could not start: the error above says why."
	}
	return ""
}

// signInServer names the authorization server a flow signs in at, by
// host (github.com), or "the authorization server" when none is known.
func signInServer(g *grantFlow) string {
	if g != nil {
		if as := firstServer(g.requirement.Resource); as != "" {
			return hostOf(as)
		}
	}
	return "the authorization server"
}
