package authpkce

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"syscall"
)

// The address policy keeps a host from using ahptui to reach services the
// host itself cannot: every request authpkce makes (discovery,
// registration, token, refresh, revocation, device, and every redirect
// hop) is checked on the IP actually dialled, in the dialer's Control
// hook, so a name that resolves one way for a check and another way for
// the connection (DNS rebinding) gains nothing. A loopback or private
// target needs the user's yes (ServerConfirmation, the question the UI
// already asks for a private authorization server) unless it is the
// issuer's own host[:port] and the AHP host that named it is itself on
// this machine.

// specialAddr says why ip is not a public address: "loopback", or
// "private" for every other range a host could use to reach the user's
// own network (RFC 1918, RFC 4193 unique-local, RFC 6598 carrier-grade
// NAT, link-local, unspecified, "this network", multicast). IPv4-mapped
// IPv6 is judged as the IPv4 address it maps.
func specialAddr(ip netip.Addr) string {
	ip = ip.Unmap()
	switch {
	case !ip.IsValid():
		return "private"
	case ip.IsLoopback():
		return "loopback"
	case ip.IsPrivate(), ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast(), ip.IsInterfaceLocalMulticast(),
		ip.IsMulticast(), ip.IsUnspecified(), cgnat.Contains(ip), thisNetwork.Contains(ip),
		siteLocal6.Contains(ip), nat64.Contains(ip) && specialAddr(nat64IPv4(ip)) != "":
		return "private"
	}
	return ""
}

var (
	cgnat       = netip.MustParsePrefix("100.64.0.0/10")
	thisNetwork = netip.MustParsePrefix("0.0.0.0/8")
	siteLocal6  = netip.MustParsePrefix("fec0::/10")
	nat64       = netip.MustParsePrefix("64:ff9b::/96")
)

// nat64IPv4 is the IPv4 address a well-known-prefix NAT64 address embeds.
func nat64IPv4(ip netip.Addr) netip.Addr {
	b := ip.As16()
	return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
}

// addrPolicy is what a grant may reach: set by the code that makes the
// requests, read by the dialer through the request's context.
type addrPolicy struct {
	issuerHost string   // the issuer's host[:port], as in its URL
	localHost  bool     // the AHP host that named the issuer is on this machine
	confirmed  []string // host[:port]s the user agreed to (ConfirmedServers)
}

// policyFor is the policy of a grant for issuer named by the AHP host at
// hostURL (GrantRequest.Host, or a saved grant's HostID; empty when the
// caller named no host, as a library user signing in for itself does).
func policyFor(issuer, hostURL string, confirmed []string) *addrPolicy {
	p := &addrPolicy{localHost: isLocalHost(hostURL), confirmed: confirmed}
	if u, err := url.Parse(issuer); err == nil {
		p.issuerHost = u.Host
	}
	return p
}

// isLocalHost: the AHP host is on this machine (a loopback address or a
// Unix socket), or no host was named.
func isLocalHost(hostURL string) bool {
	if hostURL == "" {
		return true
	}
	u, err := url.Parse(hostURL)
	if err != nil {
		return false
	}
	return strings.EqualFold(u.Scheme, "ws+unix") || isLoopbackHost(u.Hostname())
}

// check says whether host (host[:port] as in a URL) may be reached at ip.
func (p *addrPolicy) check(host string, ip netip.Addr) error {
	kind := specialAddr(ip)
	if kind == "" || slices.ContainsFunc(p.confirmed, func(c string) bool { return sameHostPort(c, host) }) {
		return nil
	}
	if kind == "loopback" && p.localHost && sameHostPort(host, p.issuerHost) {
		return nil
	}
	return &ServerConfirmation{Host: host, Addr: ip.Unmap()}
}

// sameHostPort compares two host[:port]s, the port missing on one side
// matching any (a URL's default port is not spelled).
func sameHostPort(a, b string) bool {
	ha, pa := splitHostPort(a)
	hb, pb := splitHostPort(b)
	return strings.EqualFold(ha, hb) && (pa == pb || pa == "" || pb == "")
}

func splitHostPort(hp string) (string, string) {
	if h, p, err := net.SplitHostPort(hp); err == nil {
		return h, p
	}
	return strings.Trim(hp, "[]"), ""
}

type policyKey struct{}

// dialTarget is the host[:port] a request names, for the dialer: the
// transport dials by name and the Control hook sees only the IP.
type dialTarget struct {
	policy   *addrPolicy
	host     string
	viaProxy bool // the dial goes to the user's proxy, not to host
}

type targetKey struct{}

// withPolicy makes the requests under ctx follow p.
func withPolicy(ctx context.Context, p *addrPolicy) context.Context {
	return context.WithValue(ctx, policyKey{}, p)
}

// guardedTransport stamps every request (each redirect hop is one) with
// its target for the dialer, and refuses one that carries no policy: a
// request authpkce forgot to scope must fail, not go anywhere.
type guardedTransport struct {
	base *http.Transport
}

func (t *guardedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	p, _ := req.Context().Value(policyKey{}).(*addrPolicy)
	if p == nil {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, errors.New("authpkce: a request without an address policy (a bug in ahptui)")
	}
	target := &dialTarget{policy: p, host: req.URL.Host}
	if proxy, err := t.base.Proxy(req); err == nil && proxy != nil {
		// The proxy resolves the name; only a literal address can be
		// judged here. (Go never proxies loopback names.)
		target.viaProxy = true
		if ip, err := netip.ParseAddr(strings.Trim(req.URL.Hostname(), "[]")); err == nil {
			if err := p.check(req.URL.Host, ip); err != nil {
				if req.Body != nil {
					_ = req.Body.Close()
				}
				return nil, err
			}
		}
	}
	return t.base.RoundTrip(req.WithContext(context.WithValue(req.Context(), targetKey{}, target)))
}

// controlDial is the dialer's Control hook: the policy applied to the
// address the socket is about to connect to.
func controlDial(ctx context.Context, network, address string, _ syscall.RawConn) error {
	target, _ := ctx.Value(targetKey{}).(*dialTarget)
	if target == nil {
		return errors.New("authpkce: a connection without an address policy (a bug in ahptui)")
	}
	if target.viaProxy {
		return nil
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("authpkce: dialling %q: %w", address, err)
	}
	return target.policy.check(target.host, ap.Addr())
}

// sameOriginRedirect follows a redirect only within the origin of the
// first request (scheme, host and port), at most 5 times. An authorization
// server's endpoints have no reason to send ahptui elsewhere, and a hop to
// another origin is how a hostile one would reach a local admin URL.
func sameOriginRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 5 {
		return errors.New("stopped after 5 redirects")
	}
	if !sameOrigin(req.URL.String(), via[0].URL.String()) {
		return errRedirectElsewhere
	}
	return nil
}

var errRedirectElsewhere = errors.New("redirected to another origin")

// endpointError is a failed request to one of the authorization server's
// endpoints, as the user sees it: which endpoint, and the OAuth error code
// when the server's own error JSON gave a well-formed one. It never echoes
// a status, a body or a network error ("connection refused"): a host names
// the endpoints, and such detail would make ahptui its port scanner. The
// detail goes to the log (LogValue) for the user to read.
type endpointError struct {
	kind     error  // ErrDiscovery, ErrRegistration, ErrTokenEndpoint, ErrRevocation
	endpoint string // "metadata", "registration", "token", "revocation", "device authorization"
	code     string // RFC 6749 §5.2 error code, checked
	detail   error
}

func (e *endpointError) Error() string {
	s := fmt.Sprintf("%v: the authorization server's %s endpoint failed", e.kind, e.endpoint)
	if e.code != "" {
		s += " (" + e.code + ")"
	}
	return s + "; try again later, and see the --log file for details if it keeps failing"
}

func (e *endpointError) Unwrap() error { return e.kind }

// LogValue keeps the detail for the log the user reads.
func (e *endpointError) LogValue() slog.Value {
	if e.detail == nil {
		return slog.StringValue(e.Error())
	}
	return slog.StringValue(e.Error() + ": " + clean(e.detail.Error()))
}

// failed builds the error for a request to endpoint that failed with err
// (a transport error or a description of the answer): the user's
// ServerConfirmation and the context's end pass through as they are.
func failed(ctx context.Context, kind error, endpoint, code string, err error, during string) error {
	if sc := (*ServerConfirmation)(nil); errors.As(err, &sc) {
		return sc
	}
	if ctx.Err() != nil {
		return ctxError(ctx, during)
	}
	return &endpointError{kind: kind, endpoint: endpoint, code: oauthCode(code), detail: err}
}

// oauthCode is code when it is a well-formed RFC 6749 error code (printable
// ASCII without '"' or '\', short), else "".
func oauthCode(code string) string {
	if len(code) > 64 || strings.ContainsFunc(code, func(r rune) bool {
		return r < 0x20 || r > 0x7e || r == '"' || r == '\\'
	}) {
		return ""
	}
	return code
}

// httpFor is a.hc for requests made under ctx by code that drops the
// context from its requests (x/oauth2's DeviceAuth builds its request
// without one): the policy of ctx is put back on every request that lacks
// one.
func (a *Authenticator) httpFor(ctx context.Context) *http.Client {
	p, _ := ctx.Value(policyKey{}).(*addrPolicy)
	if p == nil {
		return a.hc
	}
	c := *a.hc
	next := c.Transport
	if next == nil {
		next = http.DefaultTransport // what a caller's client without a Transport uses anyway
	}
	c.Transport = &policyTransport{policy: p, next: next}
	return &c
}

type policyTransport struct {
	policy *addrPolicy
	next   http.RoundTripper
}

func (t *policyTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Context().Value(policyKey{}) == nil {
		req = req.WithContext(withPolicy(req.Context(), t.policy))
	}
	return t.next.RoundTrip(req)
}
