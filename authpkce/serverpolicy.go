package authpkce

import (
	"context"
	"fmt"
	"net/netip"
	"net/url"
	"slices"
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
// ErrNeedsConfirmation) for an authorization server on a private or
// link-local address: a host can point the user's browser and our
// requests at a machine on their own network. The UI asks "sign in at
// Host (Addr)?" and, on yes, starts again with Host added to
// GrantRequest.ConfirmedServers.
type ServerConfirmation struct {
	Host string     // the authorization server's host[:port], as in its issuer
	Addr netip.Addr // the private address it resolves to
}

func (e *ServerConfirmation) Error() string {
	return fmt.Sprintf("%v: %s is at %s", ErrNeedsConfirmation, clean(e.Host), e.Addr)
}

func (e *ServerConfirmation) Is(target error) bool { return target == ErrNeedsConfirmation }

// checkServerAddress asks for confirmation when rawURL's host is, or
// resolves to, a private (RFC 1918, RFC 4193) or link-local address.
// Loopback stays allowed without asking: it is this machine, where local
// development servers live. A name that does not resolve is left to
// discovery to report.
func (a *Authenticator) checkServerAddress(ctx context.Context, rawURL string, confirmed []string) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return fmt.Errorf("%w: %q: %w", ErrInvalidRequirement, clean(rawURL), err)
	}
	if slices.Contains(confirmed, u.Host) {
		return nil
	}
	var addrs []netip.Addr
	if ip, err := netip.ParseAddr(u.Hostname()); err == nil {
		addrs = []netip.Addr{ip}
	} else if addrs, err = a.lookupIP(ctx, u.Hostname()); err != nil {
		return nil // discovery reports a name that does not resolve
	}
	for _, ip := range addrs {
		ip = ip.Unmap()
		if !ip.IsLoopback() && (ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.IsUnspecified()) {
			return &ServerConfirmation{Host: u.Host, Addr: ip}
		}
	}
	return nil
}

// checkEndpoints: the metadata may send the browser, or our requests,
// somewhere else than the issuer's host; the same confirmation applies.
func (a *Authenticator) checkEndpoints(ctx context.Context, p grantPlan, endpoints ...string) error {
	for _, ep := range endpoints {
		if err := a.checkServerAddress(ctx, ep, p.confirmed); err != nil {
			return err
		}
	}
	return nil
}
