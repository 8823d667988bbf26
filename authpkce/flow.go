package authpkce

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"
)

// Grant is one sign-in in progress (or already finished, for a cached or
// refreshed token). Show URL to the user, wait on Done, read Result.
type Grant struct {
	url         string
	redirectURI string
	serverHost  string
	issuer      string
	onIssuer    bool // the page the user signs in on is on the issuer's origin
	device      *DeviceCode
	deviceOffer bool
	flow        *flow // nil for a finished or device grant
	done        chan struct{}
	cancel      func()

	mu         sync.Mutex
	browserErr error

	// Written once by the flow before done is closed.
	res Result
	err error
}

func doneGrant(r Result) *Grant {
	g := &Grant{done: make(chan struct{}), cancel: func() {}, res: r}
	close(g.done)
	return g
}

// URL is the authorization URL the browser was sent to; the UI shows it so
// a user without a local browser (SSH) can copy it. Empty when the grant
// was answered from the cache or by a refresh. For a device grant it is
// the verification URL.
func (g *Grant) URL() string { return g.url }

// RedirectURI is the loopback callback: http://127.0.0.1:PORT/callback.
func (g *Grant) RedirectURI() string { return g.redirectURI }

// ServerHost is the host (and port, if not the default) of the page the
// user signs in on, for the prompt to name before they consent: the
// authorization endpoint's, or the device verification URL's.
func (g *Grant) ServerHost() string { return g.serverHost }

// Issuer is the authorization server the host named (its issuer URL): the
// party that receives what the user approves, whatever page they approve
// it on. The sign-in sheet always names it. Empty for a grant answered
// from the cache or by a refresh.
func (g *Grant) Issuer() string { return g.issuer }

// ServerIsIssuer reports that the page the user signs in on (ServerHost)
// is on the issuer's own origin. When it is not, the UI warns naming both:
// a hostile authorization server can relay a real provider's device code,
// and the user, seeing the real provider's page, approves a token for it.
func (g *Grant) ServerIsIssuer() bool { return g.onIssuer }

// Device is the user code and verification URL of a device grant
// (StartDevice); nil for a browser grant.
func (g *Grant) Device() *DeviceCode { return g.device }

// DeviceOffered reports that the authorization server also offers the
// device authorization grant (RFC 8628): the UI may offer StartDevice as
// the way to sign in from another machine.
func (g *Grant) DeviceOffered() bool { return g.deviceOffer }

// BrowserErr reports that the browser could not be opened, once that is
// known (opening runs in the background). It is advice, not failure: the
// flow keeps waiting for the URL to be opened by hand.
func (g *Grant) BrowserErr() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.browserErr
}

func (g *Grant) setBrowserErr(err error) {
	g.mu.Lock()
	g.browserErr = err
	g.mu.Unlock()
}

// Done is closed when the grant has finished and its listener is closed.
func (g *Grant) Done() <-chan struct{} { return g.done }

// Result blocks until the grant is done and returns its outcome.
func (g *Grant) Result() (Result, error) {
	<-g.done
	return g.res, g.err
}

// Wait is Result bounded by ctx; ctx ending does not cancel the grant.
func (g *Grant) Wait(ctx context.Context) (Result, error) {
	select {
	case <-g.done:
		return g.res, g.err
	case <-ctx.Done():
		return Result{}, ctxError(ctx, "while waiting for the sign-in")
	}
}

// Cancel abandons the grant; Result then reports ErrCanceled. Safe to call
// more than once and after the grant finished.
func (g *Grant) Cancel() { g.cancel() }

// Complete finishes the sign-in with the address the browser landed on,
// pasted by the user: for a browser on another machine, whose redirect to
// 127.0.0.1 reached nothing. The address must be exactly this grant's
// redirect URI (scheme, host, port, path) and passes the same checks as
// the loopback callback. A wrong address or state returns an error and
// leaves the sign-in waiting; any other outcome is the grant's, and also
// returned.
func (g *Grant) Complete(ctx context.Context, pasted string) error {
	if g.flow == nil {
		return fmt.Errorf("%w: this sign-in does not wait for a browser", ErrPastedURL)
	}
	// The errors never quote the address: a mistyped one still carries
	// the authorization code and state, and the UI shows errors on screen
	// and keeps them in its history (url.Parse's error quotes it whole).
	u, err := url.Parse(strings.TrimSpace(pasted))
	if err != nil {
		return fmt.Errorf("%w: %s is not a valid address; paste it again, exactly as the browser shows it", ErrPastedURL, RedactAddress(pasted))
	}
	want, _ := url.Parse(g.redirectURI)
	if u.Scheme != want.Scheme || u.Host != want.Host || u.Path != want.Path || u.User != nil {
		return fmt.Errorf("%w: %s is not this sign-in's redirect address %s", ErrPastedURL, RedactAddress(pasted), g.redirectURI)
	}
	return g.flow.submit(ctx, u.Query())
}

// RedactAddress is s, an address the user pasted, fit to show: its query
// and fragment keep their parameter names but every value is hidden, and
// user info is dropped, since a redirect carries the authorization code
// and state there. What cannot be parsed is cut at its first '?' or '#'.
// The result is cleaned of control characters.
func RedactAddress(s string) string {
	s = strings.TrimSpace(s)
	u, err := url.Parse(s)
	if err != nil || u.Opaque != "" {
		if i := strings.IndexAny(s, "?#"); i >= 0 {
			return clean(s[:i+1]) + "…"
		}
		if strings.ContainsAny(s, "=&") {
			return "…" // a bare query: all values
		}
		return clean(s)
	}
	hide := func(raw string) string {
		var parts []string
		for _, p := range strings.Split(raw, "&") {
			name, _, _ := strings.Cut(p, "=")
			if n, err := url.QueryUnescape(name); err == nil {
				name = n
			}
			parts = append(parts, url.QueryEscape(name)+"=…")
		}
		return strings.Join(parts, "&")
	}
	out := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path, RawPath: u.RawPath}
	r := out.String()
	if u.RawQuery != "" || u.ForceQuery {
		r += "?" + hide(u.RawQuery)
	}
	if u.Fragment != "" {
		r += "#" + hide(u.EscapedFragment())
	}
	return clean(r)
}

// callback is an authorization response handed to the flow.
type callback struct {
	code  string
	err   error
	reply chan error // the flow's verdict, for the page the browser shows
}

// flow is one authorization-code exchange waiting for its authorization
// response, from the loopback listener or a pasted address.
type flow struct {
	conf     *oauth2.Config
	resource string
	scopes   []string
	key      tokenKey
	state    string
	verifier string
	authURL  string
	// issuer and issRequired are the RFC 9207 check: a response naming
	// another issuer is a mix-up attack, and one without iss from a server
	// that always sends it is forged.
	issuer      string
	issRequired bool

	callbacks chan callback
	ctx       context.Context // ends with the grant

	mu       sync.Mutex
	received bool
}

func newFlow(ctx context.Context, conf *oauth2.Config, resource string, scopes []string, key tokenKey, md *serverMetadata) *flow {
	f := &flow{
		conf:        conf,
		resource:    resource,
		scopes:      scopes,
		key:         key,
		state:       rand.Text(),
		verifier:    oauth2.GenerateVerifier(),
		issuer:      md.Issuer,
		issRequired: md.AuthorizationResponseIssParameterSupported,
		callbacks:   make(chan callback),
		ctx:         ctx,
	}
	opts := []oauth2.AuthCodeOption{oauth2.S256ChallengeOption(f.verifier)}
	// RFC 8707: the token is for this resource and nothing else.
	opts = append(opts, oauth2.SetAuthURLParam("resource", resource))
	f.authURL = conf.AuthCodeURL(f.state, opts...)
	return f
}

// errAlreadyHandled: a second response for a flow that took one.
var errAlreadyHandled = errors.New("sign-in already handled")

// submit hands an authorization response (the callback's or a pasted
// address's query) to the flow and returns the flow's verdict. A response
// with another state is refused without ending the flow: a stray or
// forged request must not cancel the user's sign-in.
func (f *flow) submit(ctx context.Context, q url.Values) error {
	if subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(f.state)) != 1 {
		return fmt.Errorf("%w: the response does not belong to this sign-in; it was ignored", ErrStateMismatch)
	}
	f.mu.Lock()
	first := !f.received
	f.received = true
	f.mu.Unlock()
	if !first {
		return errAlreadyHandled
	}
	cb := f.check(q)
	select {
	case f.callbacks <- cb:
	case <-f.ctx.Done():
		return ctxError(f.ctx, "before the browser came back")
	}
	select {
	case err := <-cb.reply:
		return err
	case <-ctx.Done():
		return ctxError(ctx, "while finishing the sign-in")
	}
}

// check reads an authorization response whose state matched (RFC 6749
// §4.1.2, RFC 9207 §2.4).
func (f *flow) check(q url.Values) callback {
	cb := callback{reply: make(chan error, 1)}
	iss, hasIss := q["iss"]
	switch {
	case hasIss && (len(iss) != 1 || iss[0] != f.issuer):
		cb.err = fmt.Errorf("%w: the response names issuer %q, not %q (a mix-up attack?)", ErrIssuerMismatch, clean(q.Get("iss")), clean(f.issuer))
	case !hasIss && f.issRequired:
		cb.err = fmt.Errorf("%w: %s always names itself in its responses (RFC 9207), and this one does not", ErrIssuerMismatch, clean(f.issuer))
	case q.Get("error") == "access_denied":
		cb.err = fmt.Errorf("%w%s", ErrAccessDenied, detailSuffix(q.Get("error_description")))
	case q.Get("error") != "":
		cb.err = fmt.Errorf("%w: the authorization server answered %s%s", ErrAuthorization, clean(q.Get("error")), detailSuffix(q.Get("error_description")))
	case q.Get("code") == "":
		cb.err = fmt.Errorf("%w: the response carries no authorization code", ErrAuthorization)
	default:
		cb.code = q.Get("code")
	}
	return cb
}

// run waits for the flow's one authorization response or the end of ctx,
// exchanges the code, and publishes the outcome after the loopback is
// released.
func (a *Authenticator) run(ctx context.Context, g *Grant, f *flow, ci clientIdentity, lb *loopback) {
	var res Result
	var err error
	select {
	case cb := <-f.callbacks:
		if cb.err != nil {
			err = cb.err
			if ci.dynamic && errors.Is(err, ErrAuthorization) && strings.Contains(err.Error(), "invalid_scope") {
				// Our registration predates the scopes now asked for;
				// registering again on the next attempt can cover them.
				_ = a.store.dropRegistration(f.key.Issuer)
			}
		} else {
			var tok Token
			tok, err = a.exchange(ctx, f, cb.code)
			if err == nil {
				err = a.store.putToken(f.key, tok, a.now())
				res = Result{CachedToken: cached(f.key, tok), Source: SourceBrowser}
			}
			if err != nil && ci.dynamic && strings.Contains(err.Error(), "invalid_client") {
				// The server forgot our registration (a reset, an expiry):
				// register afresh next time instead of failing forever.
				_ = a.store.dropRegistration(f.key.Issuer)
			}
		}
		cb.reply <- err
	case <-ctx.Done():
		err = ctxError(ctx, "waiting for the browser")
	}
	a.releaseLoopback(lb, f)
	g.res, g.err = res, err
	close(g.done)
}

// sameOrigin: a and b have the same scheme, host and port (RFC 6454).
func sameOrigin(a, b string) bool {
	ua, err := url.Parse(a)
	if err != nil {
		return false
	}
	ub, err := url.Parse(b)
	if err != nil {
		return false
	}
	port := func(u *url.URL) string {
		if p := u.Port(); p != "" {
			return p
		}
		if strings.EqualFold(u.Scheme, "https") {
			return "443"
		}
		return "80"
	}
	return strings.EqualFold(ua.Scheme, ub.Scheme) && strings.EqualFold(ua.Hostname(), ub.Hostname()) && port(ua) == port(ub)
}

func hostOf(u string) string {
	if p, err := url.Parse(u); err == nil {
		return p.Host
	}
	return ""
}

// loopbackOnly refuses requests that did not come from this machine to a
// loopback name. The listener is bound to 127.0.0.1, but a web page can
// still reach it through DNS rebinding (a hostname it controls resolving to
// 127.0.0.1), which shows as a foreign Host header; such a request must
// neither see the page nor use up the flow's single callback.
func loopbackOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if hh, _, err := net.SplitHostPort(host); err == nil {
			host = hh
		}
		remote, _, err := net.SplitHostPort(r.RemoteAddr)
		ip := net.ParseIP(remote)
		if err != nil || ip == nil || !ip.IsLoopback() || !isLoopbackHost(host) {
			writePage(w, http.StatusForbidden, page{
				Title:  "Forbidden",
				Detail: "This address only receives the sign-in callback from this computer's browser.",
			})
			return
		}
		h.ServeHTTP(w, r)
	})
}

// ServeHTTP is the loopback redirect endpoint of one flow; everything it
// shows is escaped by html/template.
func (f *flow) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/callback" {
		writePage(w, http.StatusNotFound, page{
			Title:  "Not found",
			Detail: "This address only receives the sign-in callback.",
		})
		return
	}
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", http.MethodGet)
		writePage(w, http.StatusMethodNotAllowed, page{Title: "Method not allowed"})
		return
	}
	err := f.submit(r.Context(), r.URL.Query())
	switch {
	case err == nil:
		writePage(w, http.StatusOK, page{
			Title:  "Signed in",
			Detail: "ahptui has its token. You can close this tab and return to the terminal.",
		})
	case errors.Is(err, errAlreadyHandled):
		writePage(w, http.StatusConflict, page{
			Title:  "Sign-in already handled",
			Detail: "This sign-in has already finished. You can close this tab and return to the terminal.",
		})
	case errors.Is(err, ErrStateMismatch):
		writePage(w, http.StatusBadRequest, page{
			Title:  "Not this sign-in",
			Detail: "This response does not belong to the sign-in in progress (a stale or forged link), so it was ignored. The sign-in is still waiting.",
		})
	default:
		writePage(w, http.StatusBadRequest, page{
			Title:  "Sign-in failed",
			Detail: err.Error(),
			Footer: "Return to the terminal to try again.",
		})
	}
}

func detailSuffix(desc string) string {
	if d := clean(desc); d != "" {
		return " (" + d + ")"
	}
	return ""
}

// exchange trades the code for a token: PKCE verifier and RFC 8707
// resource on the token request too.
func (a *Authenticator) exchange(ctx context.Context, f *flow, code string) (Token, error) {
	ctx = context.WithValue(ctx, oauth2.HTTPClient, a.httpFor(ctx))
	ot, err := f.conf.Exchange(ctx, code,
		oauth2.VerifierOption(f.verifier),
		oauth2.SetAuthURLParam("resource", f.resource),
	)
	if err != nil {
		return Token{}, tokenError(ctx, "token", err)
	}
	if err := checkBearer(ot.TokenType, f.conf.Endpoint.TokenURL); err != nil {
		return Token{}, err
	}
	t := Token{
		AccessToken:  ot.AccessToken,
		RefreshToken: ot.RefreshToken,
		TokenType:    ot.TokenType,
		Expiry:       ot.Expiry,
		Scopes:       f.scopes,
	}
	if s, ok := ot.Extra("scope").(string); ok && s != "" {
		t.Scopes = strings.Fields(s)
	}
	return t, nil
}

// tokenError describes a failed request to endpoint ("token", "device
// authorization") with its OAuth error code only: never the response body
// (oauth2.RetrieveError.Error quotes it; it may hold secrets), nor a
// status or network error a host could use to scan ports.
func tokenError(ctx context.Context, endpoint string, err error) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		status := 0
		if re.Response != nil {
			status = re.Response.StatusCode
		}
		oe := oauthError{Error: re.ErrorCode, ErrorDescription: re.ErrorDescription}
		return failed(ctx, ErrTokenEndpoint, endpoint, re.ErrorCode,
			fmt.Errorf("HTTP %d %s", status, oe.describe()), "while fetching the token")
	}
	return failed(ctx, ErrTokenEndpoint, endpoint, "", unwrapNetErr(err), "while fetching the token")
}

// tokenResponse is RFC 6749 §5.1.
type tokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	RefreshToken string `json:"refresh_token"`
	ExpiresIn    int64  `json:"expires_in"`
	Scope        string `json:"scope"`
}

// refresh is RFC 6749 §6 with the RFC 8707 resource. It is written out
// rather than done through oauth2.TokenSource because that cannot carry
// the resource parameter.
func (a *Authenticator) refresh(ctx context.Context, md *serverMetadata, ci clientIdentity, old Token, resource string) (Token, error) {
	form := url.Values{
		"grant_type":    {"refresh_token"},
		"refresh_token": {old.RefreshToken},
		"resource":      {resource},
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, md.TokenEndpoint, nil)
	if err != nil {
		return Token{}, fmt.Errorf("%w: %v", ErrTokenEndpoint, err)
	}
	authorize(req, form, ci)
	const during = "while refreshing the token"
	resp, err := a.hc.Do(req)
	if err != nil {
		// Not ErrTokenEndpoint: the refresh token may be fine, the server
		// is just unreachable, so the caller must not discard it.
		return Token{}, failed(ctx, ErrDiscovery, "token", "", unwrapNetErr(err), during)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadataBytes))
	if err != nil {
		return Token{}, failed(ctx, ErrTokenEndpoint, "token", "", err, during)
	}
	if resp.StatusCode != http.StatusOK {
		var oe oauthError
		_ = json.Unmarshal(body, &oe)
		return Token{}, failed(ctx, ErrTokenEndpoint, "token", oe.Error,
			fmt.Errorf("the refresh: HTTP %d %s", resp.StatusCode, oe.describe()), during)
	}
	var tr tokenResponse
	if err := json.Unmarshal(body, &tr); err != nil || tr.AccessToken == "" {
		return Token{}, failed(ctx, ErrTokenEndpoint, "token", "", errors.New("the refresh answer has no access token"), during)
	}
	if err := checkBearer(tr.TokenType, md.TokenEndpoint); err != nil {
		return Token{}, err
	}
	t := Token{
		AccessToken:  tr.AccessToken,
		RefreshToken: tr.RefreshToken,
		TokenType:    tr.TokenType,
		Scopes:       old.Scopes,
	}
	if t.RefreshToken == "" {
		t.RefreshToken = old.RefreshToken // RFC 6749 §6: the old one stays valid
	}
	if tr.ExpiresIn > 0 {
		t.Expiry = a.now().Add(time.Duration(tr.ExpiresIn) * time.Second)
	}
	if tr.Scope != "" {
		t.Scopes = strings.Fields(tr.Scope)
	}
	return t, nil
}

// checkBearer: AHP's `authenticate` carries RFC 6750 bearer tokens; a
// sender-constrained token (DPoP, …) pushed as a bearer would fail later
// and more obscurely.
func checkBearer(tokenType, tokenURL string) error {
	if tokenType == "" || strings.EqualFold(tokenType, "bearer") {
		return nil
	}
	return fmt.Errorf("%w: %s issued a %q token, not a bearer token",
		ErrTokenEndpoint, tokenURL, clean(tokenType))
}
