package authpkce

import (
	"context"
	"fmt"
	"net/netip"
	"net/url"
	"slices"
	"strings"
)

// requireS256: PKCE with S256 is what keeps a stolen authorization code
// useless (OAuth 2.1). A server whose metadata does not list S256 may
// ignore the challenge silently, so it is refused, unless the user
// overrode that for a server that enforces PKCE without saying so.
func (a *Authenticator) requireS256(md *serverMetadata) error {
	methods := md.CodeChallengeMethodsSupported
	switch {
	case slices.Contains(methods, "S256"):
		return nil
	case len(methods) == 0 && a.trustPKCE:
		return nil
	case len(methods) == 0:
		return fmt.Errorf("%w: %s lists no code_challenge_methods_supported", ErrPKCE, clean(md.Issuer))
	}
	return fmt.Errorf("%w: %s supports only %q", ErrPKCE, clean(md.Issuer), methods)
}

// ServerConfirmation is the error Start returns (errors.Is
// ErrNeedsConfirmation) for an authorization server, or one of its
// endpoints, on a private, link-local or (named by a host elsewhere, or
// on another port than the issuer) loopback address: a host can point
// the user's browser and our requests at a machine on their own network,
// or at another service on this one. The UI asks "sign in at
// Host (Addr)?" and, on yes, starts again with Host added to
// GrantRequest.ConfirmedServers.
type ServerConfirmation struct {
	Host string     // the authorization server's host[:port], as in its issuer
	Addr netip.Addr // the address it resolves to
}

func (e *ServerConfirmation) Error() string {
	return fmt.Sprintf("%v: %s is at %s", ErrNeedsConfirmation, clean(e.Host), e.Addr)
}

func (e *ServerConfirmation) Is(target error) bool { return target == ErrNeedsConfirmation }

// checkServerAddress asks for confirmation, before anything is sent,
// when rawURL's host is, or resolves to, an address the policy does not
// let the grant reach without the user's yes (see addrpolicy.go). The
// dialer checks again on the address it connects to; this early check is
// what lets the UI ask before the browser opens. A name that does not
// resolve is left to the request to report.
func (a *Authenticator) checkServerAddress(ctx context.Context, rawURL string, pol *addrPolicy) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return fmt.Errorf("%w: %q: %w", ErrInvalidRequirement, clean(rawURL), err)
	}
	var addrs []netip.Addr
	if ip, err := netip.ParseAddr(strings.Trim(u.Hostname(), "[]")); err == nil {
		addrs = []netip.Addr{ip}
	} else if addrs, err = a.lookupIP(ctx, u.Hostname()); err != nil {
		return nil
	}
	for _, ip := range addrs {
		if err := pol.check(u.Host, ip); err != nil {
			return err
		}
	}
	return nil
}

// checkEndpoints: the metadata may send the browser, or our requests,
// somewhere else than the issuer's host; the same confirmation applies.
func (a *Authenticator) checkEndpoints(ctx context.Context, p grantPlan, endpoints ...string) error {
	for _, ep := range endpoints {
		if ep == "" {
			continue
		}
		if err := a.checkServerAddress(ctx, ep, p.policy); err != nil {
			return err
		}
	}
	return nil
}
