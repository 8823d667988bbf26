package authpkce

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
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
// was answered from the cache or by a refresh.
func (g *Grant) URL() string { return g.url }

// RedirectURI is the loopback callback: http://127.0.0.1:PORT/callback.
func (g *Grant) RedirectURI() string { return g.redirectURI }

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

// callback is what the loopback handler hands to the flow.
type callback struct {
	code  string
	err   error
	reply chan error // the flow's verdict, for the page the browser shows
}

// flow is one authorization-code exchange bound to one loopback listener.
type flow struct {
	ln       net.Listener
	conf     *oauth2.Config
	resource string
	scopes   []string
	key      tokenKey
	state    string
	verifier string
	authURL  string

	callbacks chan callback
	ctx       context.Context // set by run before serving

	mu       sync.Mutex
	received bool
}

func newFlow(ln net.Listener, conf *oauth2.Config, resource string, scopes []string, key tokenKey) *flow {
	f := &flow{
		ln:        ln,
		conf:      conf,
		resource:  resource,
		scopes:    scopes,
		key:       key,
		state:     rand.Text(),
		verifier:  oauth2.GenerateVerifier(),
		callbacks: make(chan callback),
	}
	opts := []oauth2.AuthCodeOption{oauth2.S256ChallengeOption(f.verifier)}
	// RFC 8707: the token is for this resource and nothing else.
	opts = append(opts, oauth2.SetAuthURLParam("resource", resource))
	f.authURL = conf.AuthCodeURL(f.state, opts...)
	return f
}

// run serves the loopback listener until one callback arrived or ctx ended,
// then closes everything before publishing the outcome.
func (a *Authenticator) run(ctx context.Context, g *Grant, f *flow, ci clientIdentity) {
	f.ctx = ctx
	srv := &http.Server{
		Handler:           loopbackOnly(f),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          log.New(io.Discard, "", 0),
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = srv.Serve(f.ln) // returns ErrServerClosed after Shutdown
	}()

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
		err = ctxError(ctx, "waiting for the browser to come back from the authorization server")
		if errors.Is(err, ErrTimeout) {
			err = fmt.Errorf("%w: nobody completed the sign-in at %s; open the URL again or start over",
				err, hostOf(f.conf.Endpoint.AuthURL))
		}
	}

	// Let the callback page finish rendering, but never wait long for it.
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	if srv.Shutdown(sctx) != nil {
		srv.Close()
	}
	cancel()
	<-served
	g.res, g.err = res, err
	close(g.done)
}

func hostOf(u string) string {
	if p, err := url.Parse(u); err == nil {
		return p.Host
	}
	return "the authorization server"
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

// ServeHTTP is the loopback redirect endpoint. Only the first request to
// /callback counts; everything it shows is escaped by html/template.
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
	f.mu.Lock()
	first := !f.received
	f.received = true
	f.mu.Unlock()
	if !first {
		writePage(w, http.StatusConflict, page{
			Title:  "Sign-in already handled",
			Detail: "This sign-in has already finished. You can close this tab and return to the terminal.",
		})
		return
	}

	q := r.URL.Query()
	cb := callback{reply: make(chan error, 1)}
	switch {
	case subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(f.state)) != 1:
		cb.err = fmt.Errorf("%w: the browser came back with a state that does not belong to this sign-in, so it was stopped (it may be a forged or stale link); start the sign-in again",
			ErrStateMismatch)
	case q.Get("error") == "access_denied":
		cb.err = fmt.Errorf("%w: the authorization server reports that access was denied%s; sign in again and approve the request if you meant to",
			ErrAccessDenied, detailSuffix(q.Get("error_description")))
	case q.Get("error") != "":
		cb.err = fmt.Errorf("%w: the authorization server answered %s%s; start the sign-in again, and tell the host's administrator if it persists",
			ErrAuthorization, clean(q.Get("error")), detailSuffix(q.Get("error_description")))
	case q.Get("code") == "":
		cb.err = fmt.Errorf("%w: the browser came back without an authorization code; start the sign-in again", ErrAuthorization)
	default:
		cb.code = q.Get("code")
	}

	var verdict error
	select {
	case f.callbacks <- cb:
		select {
		case verdict = <-cb.reply:
		case <-r.Context().Done():
			return
		}
	case <-f.ctx.Done():
		verdict = ctxError(f.ctx, "before the browser came back")
	}
	if verdict != nil {
		writePage(w, http.StatusBadRequest, page{
			Title:  "Sign-in failed",
			Detail: verdict.Error(),
			Footer: "Return to the terminal to try again.",
		})
		return
	}
	writePage(w, http.StatusOK, page{
		Title:  "Signed in",
		Detail: "ahptui has its token. You can close this tab and return to the terminal.",
	})
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
	ctx = context.WithValue(ctx, oauth2.HTTPClient, a.hc)
	ot, err := f.conf.Exchange(ctx, code,
		oauth2.VerifierOption(f.verifier),
		oauth2.SetAuthURLParam("resource", f.resource),
	)
	if err != nil {
		return Token{}, tokenError(ctx, f.conf.Endpoint.TokenURL, err)
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

// tokenError describes a failed token request without ever quoting the
// response body (oauth2.RetrieveError.Error does; it may hold secrets).
func tokenError(ctx context.Context, tokenURL string, err error) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		status := 0
		if re.Response != nil {
			status = re.Response.StatusCode
		}
		oe := oauthError{Error: re.ErrorCode, ErrorDescription: re.ErrorDescription}
		if oe.Error == "" {
			return fmt.Errorf("%w: %s answered HTTP %d; try again, and tell the authorization server's administrator if it persists",
				ErrTokenEndpoint, tokenURL, status)
		}
		return fmt.Errorf("%w: %s refused the token request (HTTP %d %s); start the sign-in again",
			ErrTokenEndpoint, tokenURL, status, oe.describe())
	}
	if ctx.Err() != nil {
		return ctxError(ctx, "while fetching the token")
	}
	return fmt.Errorf("%w: %s: %v; check your network and try again", ErrTokenEndpoint, tokenURL, unwrapNetErr(err))
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
	resp, err := a.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return Token{}, ctxError(ctx, "while refreshing the token")
		}
		// Not ErrTokenEndpoint: the refresh token may be fine, the server
		// is just unreachable, so the caller must not discard it.
		return Token{}, fmt.Errorf("%w: %s is unreachable (%v); check your network and try again",
			ErrDiscovery, md.TokenEndpoint, unwrapNetErr(err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadataBytes))
	if err != nil {
		return Token{}, fmt.Errorf("%w: reading the refresh answer: %v", ErrTokenEndpoint, err)
	}
	if resp.StatusCode != http.StatusOK {
		var oe oauthError
		_ = json.Unmarshal(body, &oe)
		return Token{}, fmt.Errorf("%w: %s refused the refresh (HTTP %d %s); sign in again",
			ErrTokenEndpoint, md.TokenEndpoint, resp.StatusCode, oe.describe())
	}
	var tr tokenResponse
	if err := json.Unmarshal(body, &tr); err != nil || tr.AccessToken == "" {
		return Token{}, fmt.Errorf("%w: %s answered the refresh without an access token; sign in again", ErrTokenEndpoint, md.TokenEndpoint)
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
	return fmt.Errorf("%w: %s issued a %q token, not a bearer token, which AHP cannot use; tell the authorization server's administrator",
		ErrTokenEndpoint, tokenURL, clean(tokenType))
}
