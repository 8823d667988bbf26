package authserver

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// Token prefixes: every code and token this server issues starts with one,
// so a test can search logs and traces for any of them.
const (
	AccessTokenPrefix  = "ahpdemo_at_"
	RefreshTokenPrefix = "ahpdemo_rt_"
	CodePrefix         = "ahpdemo_ac_"
)

// sweepAbove is the size of the code and token maps above which each new
// issue first drops what has expired, so memory follows the live grants.
const sweepAbove = 1024

// oauthErr is an RFC 6749 error response.
type oauthErr struct {
	code   string
	desc   string
	status int
}

func (e *oauthErr) Error() string { return e.code + ": " + e.desc }

func errRequest(desc string) *oauthErr {
	return &oauthErr{code: "invalid_request", desc: desc, status: http.StatusBadRequest}
}

func errGrant(desc string) *oauthErr {
	return &oauthErr{code: "invalid_grant", desc: desc, status: http.StatusBadRequest}
}

// errTarget is RFC 8707's invalid_target.
func errTarget(desc string) *oauthErr {
	return &oauthErr{code: "invalid_target", desc: desc, status: http.StatusBadRequest}
}

func errClient(desc string) *oauthErr {
	return &oauthErr{code: "invalid_client", desc: desc, status: http.StatusUnauthorized}
}

func writeOAuthError(w http.ResponseWriter, e *oauthErr) {
	if e.status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Basic realm="oauth"`)
	}
	w.Header().Set("Pragma", "no-cache")
	writeJSON(w, e.status, oauthError{Error: e.code, ErrorDescription: e.desc})
}

// grant is one user approval: every token minted from its code or by
// refreshing its tokens belongs to it, and revoking it (a revocation
// request, a reused code or refresh token) ends them all.
type grant struct {
	clientID  string
	resources []string
	revoked   bool
}

type tokenKind uint8

const (
	accessToken tokenKind = iota + 1
	refreshToken
)

type tokenRec struct {
	kind    tokenKind
	grant   *grant
	scopes  []string
	issued  time.Time
	expires time.Time
	used    bool      // a refresh token that was rotated
	pair    *tokenRec // a refresh token's access token, revoked on rotation
	revoked bool
}

func (t *tokenRec) live(now time.Time) bool {
	return !t.revoked && !t.grant.revoked && now.Before(t.expires)
}

type authCode struct {
	req     *authzRequest
	expires time.Time
	used    bool
	grant   *grant // set when redeemed, so a replayed code revokes it
}

// grantStore holds codes and tokens by the SHA-256 of their value: the
// store never holds a usable secret.
type grantStore struct {
	mu     sync.Mutex
	codes  map[[32]byte]*authCode
	tokens map[[32]byte]*tokenRec
}

func newGrantStore() *grantStore {
	return &grantStore{codes: make(map[[32]byte]*authCode), tokens: make(map[[32]byte]*tokenRec)}
}

func key(secret string) [32]byte { return sha256.Sum256([]byte(secret)) }

func newSecret(prefix string) (string, error) {
	s, err := randomToken(32)
	if err != nil {
		return "", err
	}
	return prefix + s, nil
}

func (g *grantStore) newCode(ar *authzRequest, expires time.Time) (string, error) {
	code, err := newSecret(CodePrefix)
	if err != nil {
		return "", err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.codes) > sweepAbove {
		now := time.Now()
		for k, c := range g.codes {
			if now.After(c.expires) {
				delete(g.codes, k)
			}
		}
	}
	g.codes[key(code)] = &authCode{req: ar, expires: expires}
	return code, nil
}

// issue mints an access token and, when withRefresh, a refresh token for
// gr. The caller holds g.mu.
func (g *grantStore) issue(gr *grant, scopes []string, accessTTL, refreshTTL time.Duration, withRefresh bool) (access, refresh string, at *tokenRec, err error) {
	now := time.Now()
	if len(g.tokens) > sweepAbove {
		for k, t := range g.tokens {
			if !now.Before(t.expires) || t.grant.revoked {
				delete(g.tokens, k)
			}
		}
	}
	access, err = newSecret(AccessTokenPrefix)
	if err != nil {
		return "", "", nil, err
	}
	at = &tokenRec{kind: accessToken, grant: gr, scopes: scopes, issued: now, expires: now.Add(accessTTL)}
	if withRefresh {
		refresh, err = newSecret(RefreshTokenPrefix)
		if err != nil {
			return "", "", nil, err
		}
		g.tokens[key(refresh)] = &tokenRec{kind: refreshToken, grant: gr, scopes: scopes, issued: now, expires: now.Add(refreshTTL), pair: at}
	}
	g.tokens[key(access)] = at
	return access, refresh, at, nil
}

func (g *grantStore) introspect(token string, now time.Time) Introspection {
	if token == "" {
		return Introspection{}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	t, ok := g.tokens[key(token)]
	// A refresh token must never open the host.
	if !ok || t.kind != accessToken || !t.live(now) {
		return Introspection{}
	}
	return Introspection{
		Active:    true,
		Scopes:    slices.Clone(t.scopes),
		Audience:  slices.Clone(t.grant.resources),
		ClientID:  t.grant.clientID,
		Subject:   DemoSubject,
		ExpiresAt: t.expires,
		IssuedAt:  t.issued,
	}
}

// authenticateClient identifies the client of a token or revocation
// request: HTTP Basic (form-encoded, RFC 6749 §2.3.1) or client_id (and
// client_secret) in the body. A public client sends no secret.
func (s *Server) authenticateClient(r *http.Request) (*client, *oauthErr) {
	id, secret, basic := r.BasicAuth()
	if basic {
		var err1, err2 error
		id, err1 = url.QueryUnescape(id)
		secret, err2 = url.QueryUnescape(secret)
		if err1 != nil || err2 != nil {
			return nil, errClient("The HTTP Basic credentials are not form-encoded.")
		}
		if fid := r.PostForm.Get("client_id"); fid != "" && fid != id {
			return nil, errRequest("client_id in the body differs from the HTTP Basic user.")
		}
		if r.PostForm.Get("client_secret") != "" {
			return nil, errRequest("Send the client secret in one place only.")
		}
	} else {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	if id == "" {
		return nil, errClient("The request names no client: send client_id.")
	}
	cl, ok := s.store.get(id)
	if !ok || !cl.checkSecret(secret) {
		return nil, errClient("Client authentication failed.")
	}
	return cl, nil
}

// parsePost reads a form POST body (bounded by limitBody).
func parsePost(r *http.Request) *oauthErr {
	if err := r.ParseForm(); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return errRequest("The request body is too large.")
		}
		return errRequest("The request body could not be read as a form.")
	}
	return nil
}

type tokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int64  `json:"expires_in"`
	RefreshToken string `json:"refresh_token,omitempty"`
	Scope        string `json:"scope"`
}

func (s *Server) handleToken(w http.ResponseWriter, r *http.Request) {
	if e := parsePost(r); e != nil {
		writeOAuthError(w, e)
		return
	}
	cl, e := s.authenticateClient(r)
	if e != nil {
		writeOAuthError(w, e)
		return
	}
	gt := r.PostForm.Get("grant_type")
	if gt != "authorization_code" && gt != "refresh_token" {
		writeOAuthError(w, &oauthErr{code: "unsupported_grant_type", desc: "Use authorization_code or refresh_token.", status: http.StatusBadRequest})
		return
	}
	if !slices.Contains(cl.GrantTypes, gt) {
		writeOAuthError(w, &oauthErr{code: "unauthorized_client", desc: "This client may not use the " + gt + " grant.", status: http.StatusBadRequest})
		return
	}
	var resp tokenResponse
	if gt == "authorization_code" {
		resp, e = s.redeemCode(cl, r.PostForm)
	} else {
		resp, e = s.refresh(cl, r.PostForm)
	}
	if e != nil {
		writeOAuthError(w, e)
		return
	}
	w.Header().Set("Pragma", "no-cache")
	writeJSON(w, http.StatusOK, resp)
}

// checkTokenResources: RFC 8707 §2.2, a resource named at the token
// endpoint must be one the grant covers.
func checkTokenResources(form url.Values, gr *grant) *oauthErr {
	for _, res := range form["resource"] {
		if !slices.Contains(gr.resources, res) {
			return errTarget("The resource was not part of the authorization grant; start a new authorization for it.")
		}
	}
	return nil
}

func (s *Server) redeemCode(cl *client, form url.Values) (tokenResponse, *oauthErr) {
	code := form.Get("code")
	if code == "" {
		return tokenResponse{}, errRequest("The code parameter is missing.")
	}
	g := s.grants
	g.mu.Lock()
	defer g.mu.Unlock()
	ac, ok := g.codes[key(code)]
	if !ok {
		return tokenResponse{}, errGrant("The authorization code is unknown.")
	}
	if ac.used {
		// RFC 6749 §4.1.2: a code used twice revokes what it issued.
		if ac.grant != nil {
			ac.grant.revoked = true
		}
		return tokenResponse{}, errGrant("The authorization code was already used; its tokens are revoked.")
	}
	if !time.Now().Before(ac.expires) {
		return tokenResponse{}, errGrant("The authorization code has expired; start sign-in again.")
	}
	ar := ac.req
	if ar.client.ID != cl.ID {
		return tokenResponse{}, errGrant("The authorization code was issued to another client.")
	}
	if form.Get("redirect_uri") != ar.redirectURI {
		return tokenResponse{}, errGrant("The redirect_uri differs from the one of the authorization request.")
	}
	if e := checkVerifier(form.Get("code_verifier"), ar.challenge); e != nil {
		return tokenResponse{}, e
	}
	gr := &grant{clientID: cl.ID, resources: slices.Clone(ar.resources)}
	if e := checkTokenResources(form, gr); e != nil {
		return tokenResponse{}, e
	}
	access, refresh, _, err := g.issue(gr, slices.Clone(ar.scopes), s.cfg.AccessTokenLifespan, s.cfg.RefreshTokenLifespan, slices.Contains(cl.GrantTypes, "refresh_token"))
	if err != nil {
		return tokenResponse{}, &oauthErr{code: "server_error", desc: "Could not generate a token; try again.", status: http.StatusInternalServerError}
	}
	ac.used, ac.grant = true, gr
	return s.tokenResponse(access, refresh, ar.scopes), nil
}

// checkVerifier is RFC 7636 §4.6 for S256: the verifier is 43 to 128
// unreserved characters and hashes to the challenge.
func checkVerifier(verifier, challenge string) *oauthErr {
	if len(verifier) < 43 || len(verifier) > 128 {
		return errGrant("The PKCE code_verifier must be 43 to 128 characters.")
	}
	for _, c := range verifier {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.ContainsRune("-._~", c)) {
			return errGrant("The PKCE code_verifier has a character outside [A-Za-z0-9-._~].")
		}
	}
	sum := sha256.Sum256([]byte(verifier))
	got := base64.RawURLEncoding.EncodeToString(sum[:])
	if subtle.ConstantTimeCompare([]byte(got), []byte(challenge)) != 1 {
		return errGrant("The PKCE code_verifier does not match the code_challenge.")
	}
	return nil
}

func (s *Server) refresh(cl *client, form url.Values) (tokenResponse, *oauthErr) {
	token := form.Get("refresh_token")
	if token == "" {
		return tokenResponse{}, errRequest("The refresh_token parameter is missing.")
	}
	g := s.grants
	g.mu.Lock()
	defer g.mu.Unlock()
	rt, ok := g.tokens[key(token)]
	if !ok || rt.kind != refreshToken || rt.grant.clientID != cl.ID {
		return tokenResponse{}, errGrant("The refresh token is unknown.")
	}
	if rt.used {
		// Reuse of a rotated refresh token is treated as theft (OAuth 2.1
		// §4.3.1): the whole grant ends.
		rt.grant.revoked = true
		return tokenResponse{}, errGrant("The refresh token was already used; the grant is revoked.")
	}
	if !rt.live(time.Now()) {
		return tokenResponse{}, errGrant("The refresh token has expired or was revoked; sign in again.")
	}
	if e := checkTokenResources(form, rt.grant); e != nil {
		return tokenResponse{}, e
	}
	scopes := rt.scopes
	if sc := form.Get("scope"); sc != "" {
		scopes = uniq(strings.Fields(sc))
		for _, s := range scopes {
			if !slices.Contains(rt.scopes, s) {
				return tokenResponse{}, &oauthErr{code: "invalid_scope", desc: fmt.Sprintf("Scope %q was not granted.", s), status: http.StatusBadRequest}
			}
		}
	}
	access, refresh, _, err := g.issue(rt.grant, slices.Clone(scopes), s.cfg.AccessTokenLifespan, s.cfg.RefreshTokenLifespan, true)
	if err != nil {
		return tokenResponse{}, &oauthErr{code: "server_error", desc: "Could not generate a token; try again.", status: http.StatusInternalServerError}
	}
	rt.used = true
	if rt.pair != nil {
		rt.pair.revoked = true
	}
	return s.tokenResponse(access, refresh, scopes), nil
}

func (s *Server) tokenResponse(access, refresh string, scopes []string) tokenResponse {
	return tokenResponse{
		AccessToken:  access,
		TokenType:    "bearer",
		ExpiresIn:    int64(s.cfg.AccessTokenLifespan / time.Second),
		RefreshToken: refresh,
		Scope:        strings.Join(scopes, " "),
	}
}

// handleRevoke is RFC 7009: a client revokes its own access or refresh
// token, which ends the whole grant. An unknown token is not an error.
func (s *Server) handleRevoke(w http.ResponseWriter, r *http.Request) {
	if e := parsePost(r); e != nil {
		writeOAuthError(w, e)
		return
	}
	cl, e := s.authenticateClient(r)
	if e != nil {
		writeOAuthError(w, e)
		return
	}
	token := r.PostForm.Get("token")
	if token == "" {
		writeOAuthError(w, errRequest("The token parameter is missing."))
		return
	}
	g := s.grants
	g.mu.Lock()
	if t, ok := g.tokens[key(token)]; ok && t.grant.clientID == cl.ID {
		t.grant.revoked = true
	}
	g.mu.Unlock()
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
}
