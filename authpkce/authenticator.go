package authpkce

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pkg/browser"
	"golang.org/x/oauth2"
)

// DefaultTimeout bounds how long a grant waits for the browser to come back.
const DefaultTimeout = 5 * time.Minute

// expiryLeeway treats a token that expires within it as already expired, so
// the host does not receive a token that dies in flight.
const expiryLeeway = 30 * time.Second

// Config sets up an Authenticator. The zero value is usable.
type Config struct {
	// Dir holds the token file (0600, directory 0700). Empty means
	// os.UserConfigDir()/ahptui. Tests point it at t.TempDir().
	Dir string
	// MemoryOnly keeps tokens and registrations in memory only (Dir is
	// ignored): for a session that must leave nothing on disk.
	MemoryOnly bool
	// HTTPClient talks to the authorization server. Nil: a client with a
	// transport of its own (never http.DefaultTransport) and a 30 s
	// timeout.
	HTTPClient *http.Client
	// OpenBrowser shows the authorization URL to the user. Nil: the system
	// browser via github.com/pkg/browser. Its failure is not fatal: the URL
	// is on the Grant for the UI to display.
	OpenBrowser func(authURL string) error
	// Timeout bounds the wait for the browser; zero means DefaultTimeout.
	Timeout time.Duration
	// ClientName is sent on dynamic client registration; default "ahptui".
	ClientName string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Authenticator obtains bearer tokens for AHP auth challenges and caches
// them. It is safe for concurrent use.
type Authenticator struct {
	hc      *http.Client
	open    func(string) error
	timeout time.Duration
	name    string
	now     func() time.Time
	store   *store
	regMu   sync.Mutex
}

// New opens the token store and returns an Authenticator.
func New(cfg Config) (*Authenticator, error) {
	a := &Authenticator{
		hc:      cfg.HTTPClient,
		open:    cfg.OpenBrowser,
		timeout: cfg.Timeout,
		name:    cfg.ClientName,
		now:     cfg.Now,
	}
	if a.hc == nil {
		a.hc = newHTTPClient()
	}
	if a.open == nil {
		a.open = OpenSystemBrowser
	}
	if a.timeout <= 0 {
		a.timeout = DefaultTimeout
	}
	if a.name == "" {
		a.name = "ahptui"
	}
	if a.now == nil {
		a.now = time.Now
	}
	dir := cfg.Dir
	if cfg.MemoryOnly {
		dir = ""
	} else if dir == "" {
		d, err := DefaultDir()
		if err != nil {
			return nil, err
		}
		dir = d
	}
	s, err := openStore(dir)
	if err != nil {
		return nil, err
	}
	a.store = s
	return a, nil
}

// DefaultDir is where tokens live unless Config.Dir says otherwise.
func DefaultDir() (string, error) {
	d, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("%w: no user config directory (%w); set $XDG_CONFIG_HOME or $HOME", ErrStore, err)
	}
	return filepath.Join(d, "ahptui"), nil
}

var silenceBrowser sync.Once

// OpenSystemBrowser opens url in the user's browser. The opener's own
// output is discarded because it would scribble over the terminal UI, and
// without a graphical display it does nothing: xdg-open would fall back to
// a text browser that fights the UI for the terminal.
func OpenSystemBrowser(authURL string) error {
	if runtime.GOOS != "darwin" && runtime.GOOS != "windows" &&
		os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return errors.New("no graphical display (DISPLAY and WAYLAND_DISPLAY are unset)")
	}
	silenceBrowser.Do(func() {
		browser.Stdout = io.Discard
		browser.Stderr = io.Discard
	})
	return browser.OpenURL(authURL)
}

// GrantRequest is one request for a token.
type GrantRequest struct {
	Requirement Requirement
	// Advertised lists the resource identifiers the host has advertised on
	// this connection (AgentInfo.protectedResources[].resource, a live
	// McpServerAuthRequiredState / ToolCallAuthRequiredState resource). A
	// requirement for any other resource is refused: a host must not be able
	// to make the client fetch tokens for resources it never declared.
	Advertised []string
}

// CheckAdvertised returns ErrResourceNotAdvertised unless resource is one
// of advertised.
func CheckAdvertised(resource string, advertised []string) error {
	if slices.Contains(advertised, resource) {
		return nil
	}
	return fmt.Errorf("%w: the host asked for a token for %q, which it never advertised; refusing to sign in for it (reconnect, or report the host)",
		ErrResourceNotAdvertised, clean(resource))
}

// clientIdentity is how we authenticate at the token endpoint.
type clientIdentity struct {
	id, secret string
	style      oauth2.AuthStyle
	dynamic    bool
}

// Start begins a grant for req. When a cached token still covers the
// request (or a silent refresh succeeds) the returned Grant is already done
// and has no URL. Otherwise Start discovers the authorization server,
// settles the client identity, opens the loopback listener and the browser,
// and returns while the user signs in: show Grant.URL, wait on Grant.Done.
//
// ctx bounds the whole grant, the wait for the browser included; so do
// Config.Timeout and Grant.Cancel.
func (a *Authenticator) Start(ctx context.Context, req GrantRequest) (*Grant, error) {
	r := req.Requirement
	resource := r.Resource.Resource
	if err := CheckAdvertised(resource, req.Advertised); err != nil {
		return nil, err
	}
	if err := checkResource(resource); err != nil {
		return nil, err
	}
	if len(r.Resource.AuthorizationServers) == 0 || r.Resource.AuthorizationServers[0] == "" {
		return nil, fmt.Errorf("%w: the host's metadata for %q names no authorization server, so there is nowhere to sign in; tell the host's administrator",
			ErrInvalidRequirement, clean(resource))
	}
	if r.OAuthClient != nil && r.OAuthClient.ClientID == "" {
		return nil, fmt.Errorf("%w: the host sent an oauthClient without a clientId for %q; tell the host's administrator",
			ErrInvalidRequirement, clean(resource))
	}
	issuer := r.Resource.AuthorizationServers[0]
	if _, err := checkServerURL("authorization server", issuer); err != nil {
		return nil, err
	}
	iss := issuerID(issuer)
	scopes := r.RequiredScopes
	if len(scopes) == 0 {
		scopes = r.Resource.ScopesSupported
	}
	scopes = union(nil, scopes)

	var cid string
	if r.OAuthClient != nil {
		cid = r.OAuthClient.ClientID
	} else if reg, ok := a.store.registration(iss, a.now()); ok {
		cid = reg.ClientID
	}

	var md *serverMetadata
	if cid != "" && r.Reason != ReasonInsufficientScope {
		key := tokenKey{Issuer: iss, Resource: resource, ClientID: cid}
		if tok, ok := a.store.token(key); ok && covers(tok.Scopes, scopes) {
			if r.Reason != ReasonExpired && !a.expired(tok) {
				return doneGrant(Result{CachedToken: cached(key, tok), Source: SourceCache}), nil
			}
			if tok.RefreshToken != "" {
				var err error
				if md, err = discover(ctx, a.hc, issuer); err != nil {
					return nil, err
				}
				ci := a.identity(r.OAuthClient, md, iss)
				nt, err := a.refresh(ctx, md, ci, tok, resource)
				switch {
				case err == nil:
					if err := a.store.putToken(key, nt, a.now()); err != nil {
						return nil, err
					}
					return doneGrant(Result{CachedToken: cached(key, nt), Source: SourceRefresh}), nil
				case errors.Is(err, ErrTokenEndpoint):
					// The refresh token is dead; only the browser can help.
					if err := a.store.dropToken(key); err != nil {
						return nil, err
					}
				default:
					return nil, err
				}
			}
		}
	}

	if md == nil {
		var err error
		if md, err = discover(ctx, a.hc, issuer); err != nil {
			return nil, err
		}
	}
	ci := a.identity(r.OAuthClient, md, iss)
	if ci.id == "" && md.RegistrationEndpoint == "" {
		return nil, fmt.Errorf("%w: the host sent no pre-registered OAuth client for %q and %s does not offer dynamic client registration; ask the host's administrator to configure an oauthClient for this server",
			ErrNoClientIdentity, clean(resource), clean(issuer))
	}

	// Never 0.0.0.0: the authorization code must not be reachable from the
	// network (RFC 8252 §8.3).
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("%w: cannot open a loopback port for the browser to return to (%v)", ErrAuthorization, err)
	}
	redirectURI := fmt.Sprintf("http://127.0.0.1:%d/callback", ln.Addr().(*net.TCPAddr).Port)

	if ci.id == "" {
		if ci, err = a.registerOnce(ctx, md, iss, redirectURI, union(scopes, r.Resource.ScopesSupported)); err != nil {
			ln.Close()
			return nil, err
		}
	}
	// A client we registered ourselves asks for offline_access where the
	// server knows it, so `expired` can later be answered without the
	// browser. A pre-registered client gets exactly what was asked: its
	// allowed scopes are not ours to guess.
	askScopes := scopes
	if ci.dynamic && slices.Contains(md.ScopesSupported, "offline_access") {
		askScopes = union(scopes, []string{"offline_access"})
	}

	conf := &oauth2.Config{
		ClientID:     ci.id,
		ClientSecret: ci.secret,
		Endpoint: oauth2.Endpoint{
			AuthURL:   md.AuthorizationEndpoint,
			TokenURL:  md.TokenEndpoint,
			AuthStyle: ci.style,
		},
		RedirectURL: redirectURI,
		Scopes:      askScopes,
	}
	fl := newFlow(ln, conf, resource, scopes, tokenKey{Issuer: iss, Resource: resource, ClientID: ci.id})
	g := &Grant{
		url:         fl.authURL,
		redirectURI: redirectURI,
		done:        make(chan struct{}),
	}
	gctx, cancel := context.WithCancelCause(ctx)
	gctx, cancelTimeout := context.WithTimeoutCause(gctx, a.timeout, ErrTimeout)
	g.cancel = func() { cancel(ErrCanceled) }
	go func() {
		defer cancel(nil)
		defer cancelTimeout()
		a.run(gctx, g, fl, ci)
	}()
	// The opener may block for as long as the browser runs (xdg-open
	// starting the first Firefox window), so it never holds up Start; the
	// URL is on the Grant either way.
	go func() {
		if err := a.open(g.url); err != nil {
			g.setBrowserErr(fmt.Errorf("could not open a browser (%v); open the sign-in URL yourself", err))
		}
	}()
	return g, nil
}

// registerOnce registers a client at md unless a concurrent grant for the
// same authorization server just did, so parallel challenges do not leave
// a trail of registrations behind.
func (a *Authenticator) registerOnce(ctx context.Context, md *serverMetadata, iss, redirectURI string, scopes []string) (clientIdentity, error) {
	a.regMu.Lock()
	defer a.regMu.Unlock()
	if reg, ok := a.store.registration(iss, a.now()); ok {
		return identityFromRegistration(reg, md), nil
	}
	if slices.Contains(md.ScopesSupported, "offline_access") {
		scopes = union(scopes, []string{"offline_access"})
	}
	reg, err := register(ctx, a.hc, md, a.name, redirectURI, scopes, a.now())
	if err != nil {
		return clientIdentity{}, err
	}
	if err := a.store.putRegistration(iss, reg); err != nil {
		return clientIdentity{}, err
	}
	return identityFromRegistration(reg, md), nil
}

// refuseInsecureRedirect keeps a redirect from downgrading a request to
// plain http off the loopback interface, where a code or a secret in the
// body would travel in the clear.
func refuseInsecureRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	if req.URL.Scheme != "https" && !(req.URL.Scheme == "http" && isLoopbackHost(req.URL.Hostname())) {
		return fmt.Errorf("refusing a redirect to %s: not https", req.URL.Redacted())
	}
	return nil
}

// Authenticate runs a whole grant and waits for it: Start then Grant.Wait.
// onURL, if not nil, receives the authorization URL before the wait.
func (a *Authenticator) Authenticate(ctx context.Context, req GrantRequest, onURL func(authURL string)) (Result, error) {
	g, err := a.Start(ctx, req)
	if err != nil {
		return Result{}, err
	}
	if onURL != nil && g.URL() != "" {
		onURL(g.URL())
	}
	return g.Wait(ctx)
}

// Tokens lists the cached tokens that have not expired, one per resource
// (the newest), for re-pushing with `authenticate` after a reconnect.
func (a *Authenticator) Tokens() []CachedToken {
	all := a.store.all()
	slices.SortStableFunc(all, func(x, y storedToken) int { return y.UpdatedAt.Compare(x.UpdatedAt) })
	var out []CachedToken
	for _, st := range all {
		if a.expired(st.Token) || slices.ContainsFunc(out, func(c CachedToken) bool { return c.Resource == st.Resource }) {
			continue
		}
		out = append(out, cached(st.tokenKey, st.Token))
	}
	slices.SortFunc(out, func(x, y CachedToken) int { return strings.Compare(x.Resource, y.Resource) })
	return out
}

// Forget drops every cached token for resource (sign-out).
func (a *Authenticator) Forget(resource string) error {
	for _, st := range a.store.all() {
		if st.Resource == resource {
			if err := a.store.dropToken(st.tokenKey); err != nil {
				return err
			}
		}
	}
	return nil
}

func (a *Authenticator) expired(t Token) bool {
	return !t.Expiry.IsZero() && !a.now().Add(expiryLeeway).Before(t.Expiry)
}

func cached(k tokenKey, t Token) CachedToken {
	return CachedToken{
		Resource:            k.Resource,
		AccessToken:         t.AccessToken,
		Scopes:              slices.Clone(t.Scopes),
		Expiry:              t.Expiry,
		AuthorizationServer: k.Issuer,
		ClientID:            k.ClientID,
	}
}

// checkResource: the resource is only an identifier sent to the
// authorization server (RFC 8707 §2: absolute URI, no fragment).
func checkResource(resource string) error {
	u, err := url.Parse(resource)
	if resource == "" || err != nil || !u.IsAbs() || u.Fragment != "" {
		return fmt.Errorf("%w: the resource %q is not an absolute URI without fragment (RFC 8707); tell the host's administrator",
			ErrInvalidRequirement, clean(resource))
	}
	return nil
}

// identity picks the token-endpoint authentication for the host's
// pre-registered client, else for our remembered registration (an empty id
// means: register first).
func (a *Authenticator) identity(oc *Client, md *serverMetadata, iss string) clientIdentity {
	if oc != nil {
		if oc.ClientSecret == "" {
			return clientIdentity{id: oc.ClientID, style: oauth2.AuthStyleInParams}
		}
		return clientIdentity{id: oc.ClientID, secret: oc.ClientSecret, style: secretStyle(md.TokenEndpointAuthMethodsSupported)}
	}
	if reg, ok := a.store.registration(iss, a.now()); ok {
		return identityFromRegistration(reg, md)
	}
	return clientIdentity{}
}

func identityFromRegistration(reg registration, md *serverMetadata) clientIdentity {
	ci := clientIdentity{id: reg.ClientID, secret: reg.ClientSecret, dynamic: true, style: oauth2.AuthStyleInParams}
	switch reg.TokenEndpointAuthMethod {
	case "none":
		ci.secret = ""
	case "client_secret_post":
	case "client_secret_basic":
		ci.style = oauth2.AuthStyleInHeader
	default:
		if ci.secret != "" {
			ci.style = secretStyle(md.TokenEndpointAuthMethodsSupported)
		}
	}
	return ci
}

// secretStyle follows the server's stated methods; RFC 8414 makes
// client_secret_basic the default when it states none.
func secretStyle(methods []string) oauth2.AuthStyle {
	if len(methods) == 0 || slices.Contains(methods, "client_secret_basic") {
		return oauth2.AuthStyleInHeader
	}
	if slices.Contains(methods, "client_secret_post") {
		return oauth2.AuthStyleInParams
	}
	return oauth2.AuthStyleInHeader
}
