package authpkce

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// serverMetadata is the part of RFC 8414 / OpenID Connect discovery the flow
// uses.
type serverMetadata struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	RegistrationEndpoint              string   `json:"registration_endpoint,omitempty"`
	ScopesSupported                   []string `json:"scopes_supported,omitempty"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported,omitempty"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported,omitempty"`
	GrantTypesSupported               []string `json:"grant_types_supported,omitempty"`
	RevocationEndpoint                string   `json:"revocation_endpoint,omitempty"`
	DeviceAuthorizationEndpoint       string   `json:"device_authorization_endpoint,omitempty"`
	// AuthorizationResponseIssParameterSupported (RFC 9207): the server
	// puts iss on its redirects, so one without it is forged.
	AuthorizationResponseIssParameterSupported bool `json:"authorization_response_iss_parameter_supported,omitempty"`
}

// maxMetadataBytes bounds what a hostile or broken server can make us read.
const maxMetadataBytes = 1 << 20

// checkServerURL enforces https, with plain http allowed only for loopback
// addresses (local development servers and the tests' hydra).
func checkServerURL(what, raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return nil, fmt.Errorf("%w: %s %q is not an absolute http(s) URL",
			ErrInvalidRequirement, what, clean(raw))
	}
	if u.Fragment != "" || u.RawQuery != "" {
		return nil, fmt.Errorf("%w: %s %q carries a query or fragment, which RFC 8414 forbids",
			ErrInvalidRequirement, what, clean(raw))
	}
	if u.User != nil {
		return nil, fmt.Errorf("%w: %s %q carries user credentials", ErrInvalidRequirement, what, clean(u.Redacted()))
	}
	if u.Scheme == "http" && !isLoopbackHost(u.Hostname()) {
		return nil, fmt.Errorf("%w: %s %q uses plain http off the loopback interface",
			ErrInsecureServer, what, clean(raw))
	}
	return u, nil
}

func isLoopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// metadataURLs lists where the metadata of issuer may live, in the order
// RFC 8414 §3.1 and OpenID Connect Discovery 1.0 §4 put them: the RFC 8414
// path-inserted well-known URI first, then OIDC's path-inserted and
// path-appended forms.
func metadataURLs(issuer *url.URL) []string {
	path := strings.TrimRight(issuer.EscapedPath(), "/")
	base := issuer.Scheme + "://" + issuer.Host
	urls := []string{base + "/.well-known/oauth-authorization-server" + path}
	urls = append(urls, base+"/.well-known/openid-configuration"+path)
	if path != "" {
		urls = append(urls, base+path+"/.well-known/openid-configuration")
	}
	return urls
}

// discover fetches and checks the metadata of the authorization server
// identified by issuer. A 404/4xx at one well-known URI moves on to the next;
// a server that is down, or answers with garbage, ends discovery at once
// because the other URIs live on the same server.
func discover(ctx context.Context, hc *http.Client, issuer string) (*serverMetadata, error) {
	u, err := checkServerURL("authorization server", issuer)
	if err != nil {
		return nil, err
	}
	for _, mu := range metadataURLs(u) {
		md, err := fetchMetadata(ctx, hc, mu)
		if err != nil {
			return nil, err
		}
		if md == nil {
			continue
		}
		// RFC 8414 §3.3: identical, character for character. A lenient
		// match (a trailing slash) would let one server's metadata stand
		// in for another issuer's, and grants are bound to the exact one.
		if md.Issuer != issuer {
			return nil, fmt.Errorf("%w: %s says its issuer is %q, not %q",
				ErrDiscovery, mu, clean(md.Issuer), clean(issuer))
		}
		if err := md.check(); err != nil {
			return nil, fmt.Errorf("%w: metadata at %s: %w", ErrDiscovery, mu, err)
		}
		return md, nil
	}
	return nil, fmt.Errorf("%w: %s publishes no OAuth or OpenID Connect metadata at the well-known addresses",
		ErrDiscovery, clean(issuer))
}

// fetchMetadata returns (nil, nil) when the document is not at mu, so the
// caller may try the next location. Its errors say which endpoint failed
// and no more (endpointError): the issuer is the host's choice.
func fetchMetadata(ctx context.Context, hc *http.Client, mu string) (*serverMetadata, error) {
	const during = "while discovering the authorization server"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, mu, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrDiscovery, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, failed(ctx, ErrDiscovery, "metadata", "", err, during)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadataBytes+1))
	if err != nil {
		return nil, failed(ctx, ErrDiscovery, "metadata", "", err, during)
	}
	switch {
	case resp.StatusCode >= 400 && resp.StatusCode < 500:
		return nil, nil
	case resp.StatusCode != http.StatusOK:
		return nil, failed(ctx, ErrDiscovery, "metadata", "", fmt.Errorf("%s answered HTTP %d", mu, resp.StatusCode), during)
	case len(body) > maxMetadataBytes:
		return nil, failed(ctx, ErrDiscovery, "metadata", "", fmt.Errorf("%s sent more than %d bytes", mu, maxMetadataBytes), during)
	}
	if ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); ct != "" && ct != "application/json" && !strings.HasSuffix(ct, "+json") {
		return nil, failed(ctx, ErrDiscovery, "metadata", "", fmt.Errorf("%s answered with %q", mu, ct), during)
	}
	var md serverMetadata
	if err := json.Unmarshal(body, &md); err != nil {
		return nil, failed(ctx, ErrDiscovery, "metadata", "", fmt.Errorf("%s: %w", mu, err), during)
	}
	return &md, nil
}

func (md *serverMetadata) check() error {
	if md.AuthorizationEndpoint == "" || md.TokenEndpoint == "" {
		return errors.New("it lacks authorization_endpoint or token_endpoint")
	}
	if _, err := checkServerURL("authorization_endpoint", md.AuthorizationEndpoint); err != nil {
		return err
	}
	// The browser and the clipboard get exactly what the screen shows.
	auth, err := reencodeURL("authorization_endpoint", md.AuthorizationEndpoint)
	if err != nil {
		return err
	}
	md.AuthorizationEndpoint = auth
	if _, err := checkServerURL("token_endpoint", md.TokenEndpoint); err != nil {
		return err
	}
	if md.RegistrationEndpoint != "" {
		if _, err := checkServerURL("registration_endpoint", md.RegistrationEndpoint); err != nil {
			return err
		}
	}
	return nil
}

// reencodeURL writes raw, a URL an authorization server gave for the
// user's browser, from its parsed form: path segments and query re-escaped
// so that nothing but printable ASCII is left, and the fragment dropped.
// The server's string as given could carry spaces, $(…), backticks or
// U+202E to an opener ($BROWSER, xdg-open) and to OSC 52 while the screen
// showed the sanitized form. A host that cannot be written that way (not
// an ASCII name or IP literal) is refused.
func reencodeURL(what, raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.User != nil || (u.Scheme != "https" && u.Scheme != "http") {
		return "", fmt.Errorf("%w: %s %q is not an absolute http(s) URL", ErrInvalidRequirement, what, clean(raw))
	}
	if strings.ContainsFunc(u.Host, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune(".-:[]", r))
	}) {
		return "", fmt.Errorf("%w: %s names a host that cannot be written in plain ASCII (%q); ask the host's operator for its punycode form",
			ErrDiscovery, what, clean(u.Host))
	}
	segs := strings.Split(u.EscapedPath(), "/")
	for i, seg := range segs {
		if p, err := url.PathUnescape(seg); err == nil {
			seg = p
		}
		segs[i] = url.PathEscape(seg)
	}
	out := u.Scheme + "://" + strings.ToLower(u.Host) + strings.Join(segs, "/")
	if u.RawQuery != "" {
		var q []string
		for _, kv := range strings.Split(u.RawQuery, "&") {
			k, v, hasV := strings.Cut(kv, "=")
			part := url.QueryEscape(queryUnescaped(k))
			if hasV {
				part += "=" + url.QueryEscape(queryUnescaped(v))
			}
			q = append(q, part)
		}
		out += "?" + strings.Join(q, "&")
	}
	if strings.ContainsFunc(out, func(r rune) bool { return r <= ' ' || r >= 0x7f }) {
		return "", fmt.Errorf("%w: %s %q cannot be encoded cleanly", ErrDiscovery, what, clean(raw))
	}
	return out, nil
}

// queryUnescaped is s unescaped, or s as it is when it is not a valid
// escape (its '%' is then escaped again, not lost).
func queryUnescaped(s string) string {
	if u, err := url.QueryUnescape(s); err == nil {
		return u
	}
	return s
}

// unwrapNetErr drops url.Error's method and URL (already in the message).
func unwrapNetErr(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

func ctxError(ctx context.Context, during string) error {
	if errors.Is(context.Cause(ctx), ErrTimeout) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%w %s", ErrTimeout, during)
	}
	return fmt.Errorf("%w %s", ErrCanceled, during)
}
