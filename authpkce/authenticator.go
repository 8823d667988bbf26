package authpkce

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
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
	// TokenStore is TokenStoreFile (the default when empty) or
	// TokenStoreKeyring; the keyring falls back to the file where there is
	// none (see Authenticator.TokenStore). Dir still holds the lock file.
	TokenStore string
	// MemoryOnly keeps tokens and registrations in memory only (Dir is
	// ignored): for a session that must leave nothing on disk.
	MemoryOnly bool
	// HTTPClient talks to the authorization server. Nil: a client with a
	// transport of its own (never http.DefaultTransport), a 30 s timeout,
	// and the address policy enforced on every address it dials
	// (addrpolicy.go). A client given here keeps only the up-front checks:
	// it dials as it likes, so it is for tests and for callers that bring
	// their own policy.
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
	// CallbackPort fixes the loopback port the browser returns to, so one
	// `ssh -L PORT:127.0.0.1:PORT` serves every sign-in; 0 picks a free
	// port per sign-in. A busy port fails the sign-in with ErrCallbackPort.
	CallbackPort int
	// TrustUnadvertisedPKCE signs in at a server whose metadata does not
	// list code_challenge_methods_supported (S256 is sent regardless). Off,
	// such a server is refused with ErrPKCE: without the field nothing
	// says it enforces PKCE. The user's explicit override only.
	TrustUnadvertisedPKCE bool
	// Logger receives sign-in events (the sign-in URL, never a token or a
	// code); nil discards.
	Logger *slog.Logger
	// LookupIP resolves an authorization server's host names for the
	// address check made before a sign-in starts (so the UI can ask
	// first); nil means net.DefaultResolver. The default HTTP client
	// checks again on the address it dials, whatever this returned.
	LookupIP func(ctx context.Context, host string) ([]netip.Addr, error)
	// Clients are OAuth client ids the user registered at authorization
	// servers, by issuer (`--oauth-client ISSUER=ID`): public clients,
	// used where the host names no oauthClient, before any dynamic
	// registration. A server without registration (GitHub's) can only be
	// signed in to this way.
	Clients map[string]string
}

// HasClient reports whether the user registered an OAuth client id for
// issuer (--oauth-client): a server without dynamic registration
// (GitHub's) can only be signed in to through the browser with one.
func (a *Authenticator) HasClient(issuer string) bool {
	_, ok := a.clients[strings.TrimRight(issuer, "/")]
	return ok
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
	// storeFallback is why the keyring asked for is not used.
	storeFallback error
	// storeNotes are repairs made to the store's directory and file.
	storeNotes   []string
	regMu        sync.Mutex
	callbackPort int
	trustPKCE    bool
	log          *slog.Logger
	lookupIP     func(ctx context.Context, host string) ([]netip.Addr, error)
	clients      map[string]string // Config.Clients, issuers normalised

	lbMu   sync.Mutex
	shared *loopback // the fixed-port listener while flows use it
}

// New opens the token store and returns an Authenticator.
func New(cfg Config) (*Authenticator, error) {
	a := &Authenticator{
		hc:           cfg.HTTPClient,
		open:         cfg.OpenBrowser,
		timeout:      cfg.Timeout,
		name:         cfg.ClientName,
		now:          cfg.Now,
		callbackPort: cfg.CallbackPort,
		trustPKCE:    cfg.TrustUnadvertisedPKCE,
		log:          cfg.Logger,
		lookupIP:     cfg.LookupIP,
	}
	if a.log == nil {
		a.log = slog.New(slog.DiscardHandler)
	}
	if a.lookupIP == nil {
		a.lookupIP = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	for iss, id := range cfg.Clients {
		if id == "" || !isHTTPSOrLoopback(iss) {
			return nil, fmt.Errorf("%w: a configured OAuth client needs an https:// issuer and a client id (got %q=%q)",
				ErrInvalidRequirement, clean(iss), clean(id))
		}
		if a.clients == nil {
			a.clients = map[string]string{}
		}
		a.clients[strings.TrimRight(iss, "/")] = id
	}
	if a.callbackPort < 0 || a.callbackPort > 65535 {
		return nil, fmt.Errorf("%w: callback port %d is out of range", ErrCallbackPort, a.callbackPort)
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
	var b backend
	if dir != "" {
		note, err := PrivateDir(dir)
		if err != nil {
			return nil, err
		}
		if note != "" {
			a.storeNotes = append(a.storeNotes, note)
		}
		if b, a.storeFallback, err = openBackend(cfg.TokenStore, dir, &a.storeNotes); err != nil {
			return nil, err
		}
	}
	s, err := newStore(dir, b)
	if err != nil {
		return nil, err
	}
	a.store = s
	return a, nil
}

// TokenStore says where grants are kept: "file", "keyring" or "memory";
// fallback is why the keyring Config asked for is not used (nil when it
// is, or when the file was asked for), for the log or a sign-ins view.
func (a *Authenticator) TokenStore() (kind string, fallback error) {
	return a.store.kind(), a.storeFallback
}

// StoreNotes says what was repaired in the token store's directory or
// file (open to other users, now restricted), for the user to see.
func (a *Authenticator) StoreNotes() []string {
	a.store.mu.Lock()
	defer a.store.mu.Unlock()
	return slices.Clone(a.storeNotes)
}

// DefaultDir is where tokens live unless Config.Dir says otherwise.
func DefaultDir() (string, error) {
	d, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("%w: no user config directory: %w", ErrStore, err)
	}
	return filepath.Join(d, "ahptui"), nil
}

var silenceBrowser sync.Once

// OpenSystemBrowser opens url in the user's browser: the commands in
// $BROWSER when it is set (the convention of sensible-browser and git:
// colon-separated, %s replaced by the URL, else the URL appended), which
// is how a user over SSH points sign-ins at their own forwarding script;
// else the system opener. The opener's own output is discarded because it
// would scribble over the terminal UI, and without a graphical display
// the system opener is not tried: xdg-open would fall back to a text
// browser that fights the UI for the terminal.
func OpenSystemBrowser(authURL string) error {
	if env := os.Getenv("BROWSER"); strings.TrimSpace(env) != "" {
		return openWithBrowserEnv(env, authURL)
	}
	if runtime.GOOS != "darwin" && runtime.GOOS != "windows" &&
		os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return errors.New("no graphical display (DISPLAY and WAYLAND_DISPLAY are unset) and no $BROWSER")
	}
	silenceBrowser.Do(func() {
		browser.Stdout = io.Discard
		browser.Stderr = io.Discard
	})
	return browser.OpenURL(authURL)
}

// openWithBrowserEnv starts the first command of $BROWSER that starts. It
// runs without a shell, so a URL can never become shell syntax, and is
// not waited for beyond its start (a browser may run for hours).
func openWithBrowserEnv(env, authURL string) error {
	var errs []error
	for _, cmdline := range strings.Split(env, string(os.PathListSeparator)) {
		args := strings.Fields(cmdline)
		if len(args) == 0 {
			continue
		}
		replaced := false
		for i, a := range args[1:] {
			if strings.Contains(a, "%s") {
				args[i+1] = strings.ReplaceAll(a, "%s", authURL)
				replaced = true
			}
		}
		if !replaced {
			args = append(args, authURL)
		}
		cmd := exec.Command(args[0], args[1:]...)
		if err := cmd.Start(); err != nil {
			errs = append(errs, err)
			continue
		}
		go func() { _ = cmd.Wait() }()
		return nil
	}
	return fmt.Errorf("$BROWSER: %w", errors.Join(errs...))
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
	// Host is the URL of the AHP host that asked (the --host URL). The
	// grant is saved bound to it, and only a grant obtained on this host is
	// reused from the cache; see Lookup for pushing saved grants.
	Host string
	// ConfirmedServers are the hosts (host[:port]) the user agreed to sign
	// in at although they are on a private or link-local address (see
	// ServerConfirmation): the issuer's, or an endpoint's its metadata
	// names. Empty until they did.
	ConfirmedServers []string
}

// CheckAdvertised returns ErrResourceNotAdvertised unless resource is one
// of advertised.
func CheckAdvertised(resource string, advertised []string) error {
	if slices.Contains(advertised, resource) {
		return nil
	}
	return fmt.Errorf("%w: the host asked for a token for %q, which it never advertised",
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
// and returns while the user signs in: show Grant.URL, wait on Grant.Done
// (or finish with Grant.Complete and the address the browser landed on).
//
// ctx bounds the whole grant, the wait for the browser included; so do
// Config.Timeout and Grant.Cancel.
func (a *Authenticator) Start(ctx context.Context, req GrantRequest) (*Grant, error) {
	p, err := a.plan(ctx, req)
	if err != nil {
		return nil, err
	}
	ctx = withPolicy(ctx, p.policy)
	g, md, err := a.reuse(ctx, p)
	if g != nil || err != nil {
		return g, err
	}
	if md == nil {
		if md, err = discover(ctx, a.hc, p.issuer); err != nil {
			return nil, err
		}
	}
	if err := a.requireS256(md); err != nil {
		return nil, err
	}
	endpoints := []string{md.AuthorizationEndpoint, md.TokenEndpoint}
	if a.identity(p.req.OAuthClient, md, p.issuer).id == "" {
		endpoints = append(endpoints, md.RegistrationEndpoint) // it will register
	}
	if err := a.checkEndpoints(ctx, p, endpoints...); err != nil {
		return nil, err
	}
	lb, err := a.acquireLoopback()
	if err != nil {
		return nil, err
	}
	ci, err := a.clientFor(ctx, p, md, lb.redirectURI())
	if err != nil {
		a.releaseLoopback(lb, nil)
		return nil, err
	}
	return a.begin(ctx, p, md, ci, lb), nil
}

// grantPlan is a request checked and settled before any network call.
type grantPlan struct {
	req       Requirement
	resource  string
	issuer    string
	host      string // HostID of GrantRequest.Host; "" when none was given
	scopes    []string
	confirmed []string // GrantRequest.ConfirmedServers
	policy    *addrPolicy
}

func (p grantPlan) key(clientID string) tokenKey {
	return tokenKey{Host: p.host, Issuer: p.issuer, Resource: p.resource, ClientID: clientID}
}

// plan checks the requirement against what the host advertised, picks the
// issuer and the scopes to ask for, and asks for confirmation of an issuer
// on a private address.
func (a *Authenticator) plan(ctx context.Context, req GrantRequest) (grantPlan, error) {
	r := req.Requirement
	p := grantPlan{req: r, resource: r.Resource.Resource}
	if err := CheckAdvertised(p.resource, req.Advertised); err != nil {
		return p, err
	}
	if err := checkResource(p.resource); err != nil {
		return p, err
	}
	if len(r.Resource.AuthorizationServers) == 0 || r.Resource.AuthorizationServers[0] == "" {
		return p, fmt.Errorf("%w: the metadata for %q names no authorization server", ErrInvalidRequirement, clean(p.resource))
	}
	if r.OAuthClient != nil && r.OAuthClient.ClientID == "" {
		return p, fmt.Errorf("%w: an oauthClient without a clientId for %q", ErrInvalidRequirement, clean(p.resource))
	}
	p.issuer = r.Resource.AuthorizationServers[0]
	if _, err := checkServerURL("authorization server", p.issuer); err != nil {
		return p, err
	}
	if req.Host != "" {
		var err error
		if p.host, err = HostID(req.Host); err != nil {
			return p, err
		}
	}
	p.scopes = r.RequiredScopes
	if len(p.scopes) == 0 {
		p.scopes = r.Resource.ScopesSupported
	}
	p.scopes = union(nil, p.scopes)
	p.confirmed = req.ConfirmedServers
	p.policy = policyFor(p.issuer, req.Host, p.confirmed)
	return p, a.checkServerAddress(ctx, p.issuer, p.policy)
}

// knownClient is the client id a grant would be saved under before any
// registration: the host's pre-registered client, else ours.
func (a *Authenticator) knownClient(p grantPlan) string {
	if p.req.OAuthClient != nil {
		return p.req.OAuthClient.ClientID
	}
	if id := a.configuredClient(p.issuer); id != "" {
		return id
	}
	if reg, ok := a.store.registration(p.issuer, a.now()); ok {
		return reg.ClientID
	}
	return ""
}

// reuse answers from the grant saved for this very host when it covers the
// request: as it is, or refreshed silently. A nil Grant means the browser
// is needed; the metadata is returned when discovery already happened.
func (a *Authenticator) reuse(ctx context.Context, p grantPlan) (*Grant, *serverMetadata, error) {
	cid := a.knownClient(p)
	if cid == "" || p.req.Reason == ReasonInsufficientScope {
		return nil, nil, nil
	}
	key := p.key(cid)
	tok, ok := a.store.token(key)
	if !ok || !covers(tok.Scopes, p.scopes) {
		return nil, nil, nil
	}
	if p.req.Reason != ReasonExpired && !a.expired(tok) {
		return doneGrant(Result{CachedToken: cached(key, tok), Source: SourceCache}), nil, nil
	}
	if tok.RefreshToken == "" {
		return nil, nil, nil
	}
	md, err := discover(ctx, a.hc, p.issuer)
	if err != nil {
		return nil, nil, err
	}
	if err := a.checkEndpoints(ctx, p, md.TokenEndpoint); err != nil {
		return nil, nil, err
	}
	nt, err := a.refresh(ctx, md, a.identity(p.req.OAuthClient, md, p.issuer), tok, p.resource)
	switch {
	case err == nil:
		if err := a.store.putToken(key, nt, a.now()); err != nil {
			return nil, nil, err
		}
		return doneGrant(Result{CachedToken: cached(key, nt), Source: SourceRefresh}), md, nil
	case errors.Is(err, ErrTokenEndpoint):
		// The refresh token is dead; only the browser can help.
		if err := a.store.dropToken(key); err != nil {
			return nil, nil, err
		}
		return nil, md, nil
	}
	return nil, nil, err
}

// clientFor settles the client identity, registering one (RFC 7591) when
// the host sent none and we have none for this server.
func (a *Authenticator) clientFor(ctx context.Context, p grantPlan, md *serverMetadata, redirectURI string) (clientIdentity, error) {
	ci := a.identity(p.req.OAuthClient, md, p.issuer)
	if ci.id != "" {
		return ci, nil
	}
	if md.RegistrationEndpoint == "" {
		return ci, fmt.Errorf("%w: no pre-registered OAuth client for %q, and %s offers no dynamic client registration",
			ErrNoClientIdentity, clean(p.resource), clean(p.issuer))
	}
	return a.registerOnce(ctx, md, p.issuer, redirectURI, union(p.scopes, p.req.Resource.ScopesSupported))
}

// begin starts the browser flow on lb and returns its Grant.
func (a *Authenticator) begin(ctx context.Context, p grantPlan, md *serverMetadata, ci clientIdentity, lb *loopback) *Grant {
	// A client we registered ourselves asks for offline_access where the
	// server knows it, so `expired` can later be answered without the
	// browser. A pre-registered client gets exactly what was asked: its
	// allowed scopes are not ours to guess.
	askScopes := p.scopes
	if ci.dynamic && slices.Contains(md.ScopesSupported, "offline_access") {
		askScopes = union(p.scopes, []string{"offline_access"})
	}
	conf := &oauth2.Config{
		ClientID:     ci.id,
		ClientSecret: ci.secret,
		Endpoint: oauth2.Endpoint{
			AuthURL:   md.AuthorizationEndpoint,
			TokenURL:  md.TokenEndpoint,
			AuthStyle: ci.style,
		},
		RedirectURL: lb.redirectURI(),
		Scopes:      askScopes,
	}
	gctx, cancel := context.WithCancelCause(ctx)
	gctx, cancelTimeout := context.WithTimeoutCause(gctx, a.timeout, ErrTimeout)
	fl := newFlow(gctx, conf, p.resource, p.scopes, p.key(ci.id), md)
	lb.add(fl)
	g := &Grant{
		url:         fl.authURL,
		redirectURI: conf.RedirectURL,
		serverHost:  hostOf(md.AuthorizationEndpoint),
		issuer:      p.issuer,
		onIssuer:    sameOrigin(md.AuthorizationEndpoint, p.issuer),
		deviceOffer: md.DeviceAuthorizationEndpoint != "",
		flow:        fl,
		done:        make(chan struct{}),
		cancel:      func() { cancel(ErrCanceled) },
	}
	// The sign-in URL carries no secret (the PKCE verifier stays here), and
	// a user over SSH may need it from the log.
	a.log.Info("sign-in started", "resource", p.resource, "server", g.serverHost, "url", g.url, "redirect_uri", g.redirectURI)
	go func() {
		defer cancel(nil)
		defer cancelTimeout()
		a.run(gctx, g, fl, ci, lb)
	}()
	// The opener may block for as long as the browser runs (xdg-open
	// starting the first Firefox window), so it never holds up Start; the
	// URL is on the Grant either way.
	go func() {
		if err := a.open(g.url); err != nil {
			g.setBrowserErr(fmt.Errorf("opening a browser: %w", err))
		}
	}()
	return g
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

// Tokens lists the unexpired saved tokens, the newest per resource,
// whatever host they were obtained on. It is for tests and diagnostics: to
// push a saved token to a host, ask Lookup, which applies the host and
// issuer binding.
func (a *Authenticator) Tokens() []CachedToken {
	var out []CachedToken
	for _, st := range a.newestFirst() {
		if a.expired(st.Token) || slices.ContainsFunc(out, func(c CachedToken) bool { return c.Resource == st.Resource }) {
			continue
		}
		out = append(out, cached(st.tokenKey, st.Token))
	}
	slices.SortFunc(out, func(x, y CachedToken) int { return cmp.Compare(x.Resource, y.Resource) })
	return out
}

func (a *Authenticator) expired(t Token) bool {
	return !t.Expiry.IsZero() && !a.now().Add(expiryLeeway).Before(t.Expiry)
}

func cached(k tokenKey, t Token) CachedToken {
	return CachedToken{
		Host:                k.Host,
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
		return fmt.Errorf("%w: the resource %q is not an absolute URI without fragment (RFC 8707)",
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
	if id := a.configuredClient(iss); id != "" {
		return clientIdentity{id: id, style: oauth2.AuthStyleInParams}
	}
	if reg, ok := a.store.registration(iss, a.now()); ok {
		return identityFromRegistration(reg, md)
	}
	return clientIdentity{}
}

// configuredClient is the client id the user configured for issuer, ""
// when none.
func (a *Authenticator) configuredClient(issuer string) string {
	return a.clients[strings.TrimRight(issuer, "/")]
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

// isHTTPSOrLoopback reports whether issuer can name an authorization
// server: https, or http on a loopback address (a local test server).
func isHTTPSOrLoopback(issuer string) bool {
	u, err := url.Parse(issuer)
	if err != nil || u.Host == "" {
		return false
	}
	if u.Scheme == "https" {
		return true
	}
	ip, err := netip.ParseAddr(u.Hostname())
	return u.Scheme == "http" && (u.Hostname() == "localhost" || err == nil && ip.IsLoopback())
}
