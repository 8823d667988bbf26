package authserver

import (
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// Stable names the headless approver (and any test) relies on.
const (
	ConsentFormID      = "consent"      // the Approve form
	DenyFormID         = "consent-deny" // the Deny form
	FieldRequestID     = "request_id"
	FieldCSRF          = "csrf_token"
	FieldDecision      = "decision"
	DecisionApprove    = "approve"
	DecisionDeny       = "deny"
	consentCookiePrefx = "ahptui_consent_"
)

// pendingConsent is an authorization request that passed checkAuthorize and
// waits for the user's decision. The query is checked again on submit, so
// nothing the browser posts can change what is being approved.
type pendingConsent struct {
	query   url.Values
	csrf    string
	expires time.Time
}

var scopeDescriptions = map[string]string{
	"mcp:read":     "read MCP server state and tool listings",
	"mcp:write":    "change MCP server state",
	"mcp:admin":    "administer MCP servers",
	"tools:deploy": "run deployment tools",
}

type consentView struct {
	ClientName string
	ClientID   string
	Resources  []string
	Scopes     []scopeView
	Action     string
	FormID     string
	DenyFormID string
	RequestID  string
	CSRF       string
	Approve    string
	Deny       string
	User       string
	FieldReqID string
	FieldCSRF  string
	FieldDec   string
}

type scopeView struct {
	Name, Description string
}

// consentTemplate is html/template: every value is contextually escaped, so a
// client_name like "<script>" renders as text. The templates are parsed when
// the demo first serves a page, not at every ahptui start-up (issue 32).
var consentTemplate = sync.OnceValue(func() *template.Template { return template.Must(template.New("consent").Parse(consentSource)) })

const consentSource = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Authorize {{.ClientName}} – ahptui demo</title>
<style>
body{font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#222}
code{background:#f2f2f2;padding:0 .25em;border-radius:3px}
ul{padding-left:1.2rem} li{margin:.3rem 0}
.buttons{display:flex;gap:1rem;margin-top:1.5rem}
button{font-size:1rem;padding:.5rem 1.4rem;border-radius:6px;border:1px solid #888;cursor:pointer}
button.approve{background:#1f6feb;color:#fff;border-color:#1f6feb}
.note{color:#666;font-size:.9rem;margin-top:2rem}
</style>
</head>
<body>
<h1>Authorize <span id="client-name">{{.ClientName}}</span>?</h1>
<p><strong>{{.ClientName}}</strong> (<code>{{.ClientID}}</code>) asks to act as <strong>{{.User}}</strong>
{{- if .Resources}} on{{range .Resources}} <code class="resource">{{.}}</code>{{end}}{{end}}.</p>
{{if .Scopes}}<p>It asks for:</p>
<ul>{{range .Scopes}}<li><code class="scope">{{.Name}}</code>{{if .Description}} – {{.Description}}{{end}}</li>{{end}}</ul>
{{else}}<p>It asks for no scopes.</p>{{end}}
<div class="buttons">
<form id="{{.FormID}}" method="post" action="{{.Action}}">
<input type="hidden" name="{{.FieldReqID}}" value="{{.RequestID}}">
<input type="hidden" name="{{.FieldCSRF}}" value="{{.CSRF}}">
<input type="hidden" name="{{.FieldDec}}" value="{{.Approve}}">
<button type="submit" class="approve" autofocus>Approve</button>
</form>
<form id="{{.DenyFormID}}" method="post" action="{{.Action}}">
<input type="hidden" name="{{.FieldReqID}}" value="{{.RequestID}}">
<input type="hidden" name="{{.FieldCSRF}}" value="{{.CSRF}}">
<input type="hidden" name="{{.FieldDec}}" value="{{.Deny}}">
<button type="submit" class="deny">Deny</button>
</form>
</div>
<p class="note">This is the ahptui demo authorization server on your own machine; nothing leaves 127.0.0.1.</p>
</body>
</html>
`

var messageTemplate = sync.OnceValue(func() *template.Template { return template.Must(template.New("message").Parse(messagePage)) })

const messagePage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title></head>
<body style="font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem">
<h1>{{.Title}}</h1><p>{{.Body}}</p></body></html>
`

func writeMessage(w http.ResponseWriter, status int, title, body string) {
	setPageHeaders(w)
	w.WriteHeader(status)
	_ = messageTemplate().Execute(w, struct{ Title, Body string }{title, body})
}

func setPageHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	// No scripts at all, and the page may not be framed (clickjacking the
	// Approve button). No form-action: browsers apply it to the redirect
	// after the POST, which goes to the client's loopback port.
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
}

// checkRequestTarget applies the checks that decide whether the redirect
// target can be trusted at all: an explicit loopback redirect_uri, no OIDC
// request objects, query response mode only. A non-empty problem means the
// error is shown on the page, never sent to the redirect URI.
func checkRequestTarget(form url.Values) (problem string) {
	ru := form.Get("redirect_uri")
	if ru == "" {
		return "The request has no redirect_uri; the client must send http://127.0.0.1:PORT/callback."
	}
	if len(form["redirect_uri"]) > 1 {
		return "The request has more than one redirect_uri."
	}
	if err := checkLoopbackRedirect(ru); err != nil {
		return "The redirect_uri is not acceptable: " + err.Error() + "."
	}
	if form.Get("request") != "" || form.Get("request_uri") != "" {
		return "Request objects (request, request_uri) are not supported."
	}
	if rm := form.Get("response_mode"); rm != "" && rm != "query" {
		return "Only response_mode=query is supported."
	}
	return ""
}

// minStateLen is the shortest state accepted: a shorter one carries too
// little entropy to protect the client against CSRF (RFC 6749 §10.12).
const minStateLen = 8

// authzRequest is a validated authorization request.
type authzRequest struct {
	client      *client
	redirectURI string
	state       string
	scopes      []string
	resources   []string // RFC 8707 resource indicators: the token audience
	challenge   string   // PKCE S256 code_challenge
}

// checkAuthorize validates an authorization request's parameters (from the
// browser's GET, or replayed from a pending consent). A non-empty problem is
// shown as a page; an OAuth error goes back to the validated redirect URI.
func (s *Server) checkAuthorize(form url.Values) (ar *authzRequest, problem string, oerr *oauthErr) {
	if problem := checkRequestTarget(form); problem != "" {
		return nil, problem, nil
	}
	cl, ok := s.store.get(form.Get("client_id"))
	if !ok {
		return nil, "The client_id is not registered with this authorization server; register the client first.", nil
	}
	ru := form.Get("redirect_uri")
	if !cl.redirectAllowed(ru) {
		return nil, "The redirect_uri is not one registered for this client.", nil
	}
	ar = &authzRequest{
		client:      cl,
		redirectURI: ru,
		state:       form.Get("state"),
		scopes:      uniq(strings.Fields(form.Get("scope"))),
		resources:   uniq(form["resource"]),
		challenge:   form.Get("code_challenge"),
	}
	switch {
	case form.Get("response_type") != "code":
		return ar, "", &oauthErr{code: "unsupported_response_type", desc: "Only response_type=code is supported.", status: http.StatusBadRequest}
	case !slices.Contains(cl.ResponseTypes, "code") || !slices.Contains(cl.GrantTypes, "authorization_code"):
		return ar, "", &oauthErr{code: "unauthorized_client", desc: "This client may not use the authorization code flow.", status: http.StatusBadRequest}
	case len(ar.state) < minStateLen:
		return ar, "", &oauthErr{code: "invalid_state", desc: fmt.Sprintf("The state must be at least %d characters long to carry enough entropy.", minStateLen), status: http.StatusBadRequest}
	}
	for _, sc := range ar.scopes {
		if !slices.Contains(cl.Scopes, sc) {
			return ar, "", &oauthErr{code: "invalid_scope", desc: fmt.Sprintf("The client may not ask for scope %q.", sc), status: http.StatusBadRequest}
		}
	}
	if err := s.checkResources(ar.resources); err != nil {
		return ar, "", err
	}
	// PKCE is checked here, before consent, not only when the code is
	// redeemed: the user must never approve a request that then fails.
	if ar.challenge == "" {
		return ar, "", errRequest("PKCE is required: send code_challenge with code_challenge_method=S256.")
	}
	if form.Get("code_challenge_method") != "S256" {
		return ar, "", errRequest("Clients must use code_challenge_method=S256; plain is not allowed.")
	}
	if !validChallenge(ar.challenge) {
		return ar, "", errRequest("The code_challenge must be a base64url SHA-256 digest (43 characters).")
	}
	return ar, "", nil
}

// validChallenge: an S256 challenge is BASE64URL(SHA-256(verifier)) without
// padding, 43 characters.
func validChallenge(c string) bool {
	b, err := base64.RawURLEncoding.DecodeString(c)
	return err == nil && len(b) == 32
}

// parseAuthorize validates form and writes the response itself when the
// request fails. ok false means the response was written.
func (s *Server) parseAuthorize(w http.ResponseWriter, r *http.Request, form url.Values) (*authzRequest, bool) {
	ar, problem, oerr := s.checkAuthorize(form)
	if problem != "" {
		writeMessage(w, http.StatusBadRequest, "Bad authorization request", problem)
		return nil, false
	}
	if oerr != nil {
		redirectError(w, r, ar, oerr)
		return nil, false
	}
	return ar, true
}

// redirectTo sends the browser to the client's redirect URI with params
// added to its query, 303 See Other (after the consent POST the browser
// must GET the callback).
func redirectTo(w http.ResponseWriter, r *http.Request, ar *authzRequest, params url.Values) {
	u, err := url.Parse(ar.redirectURI)
	if err != nil { // checked before any redirect is made; never happens
		writeMessage(w, http.StatusBadRequest, "Bad authorization request", "The redirect_uri is not a URL.")
		return
	}
	q := u.Query()
	for k, vs := range params {
		q[k] = vs
	}
	if ar.state != "" {
		q.Set("state", ar.state)
	}
	u.RawQuery = q.Encode()
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, u.String(), http.StatusSeeOther)
}

func redirectError(w http.ResponseWriter, r *http.Request, ar *authzRequest, e *oauthErr) {
	redirectTo(w, r, ar, url.Values{"error": {e.code}, "error_description": {e.desc}})
}

func (s *Server) handleAuthorize(w http.ResponseWriter, r *http.Request) {
	query := r.URL.Query()
	ar, ok := s.parseAuthorize(w, r, query)
	if !ok {
		return
	}
	id, err1 := randomToken(18)
	csrf, err2 := randomToken(32)
	if err1 != nil || err2 != nil {
		writeMessage(w, http.StatusInternalServerError, "Server error", "Could not generate a consent token; try again.")
		return
	}
	now := time.Now()
	s.consentMu.Lock()
	for k, p := range s.pending {
		if now.After(p.expires) {
			delete(s.pending, k)
		}
	}
	full := len(s.pending) >= maxPending
	if !full {
		// Store the query as received, so the replay goes through exactly
		// the same checks.
		s.pending[id] = &pendingConsent{query: query, csrf: csrf, expires: now.Add(s.cfg.ConsentLifespan)}
	}
	s.consentMu.Unlock()
	if full {
		writeMessage(w, http.StatusServiceUnavailable, "Too many pending requests", "Finish or abandon other sign-ins, then try again.")
		return
	}

	http.SetCookie(w, &http.Cookie{
		Name:     consentCookiePrefx + id,
		Value:    csrf,
		Path:     AuthorizePath,
		MaxAge:   int(s.cfg.ConsentLifespan / time.Second),
		HttpOnly: true,
		SameSite: http.SameSiteStrictMode,
	})

	name := ar.client.ID
	if ar.client.Name != "" {
		name = ar.client.Name
	}
	view := consentView{
		ClientName: name,
		ClientID:   ar.client.ID,
		Resources:  slices.Clone(ar.resources),
		Action:     AuthorizePath,
		FormID:     ConsentFormID,
		DenyFormID: DenyFormID,
		RequestID:  id,
		CSRF:       csrf,
		Approve:    DecisionApprove,
		Deny:       DecisionDeny,
		User:       DemoUsername,
		FieldReqID: FieldRequestID,
		FieldCSRF:  FieldCSRF,
		FieldDec:   FieldDecision,
	}
	for _, sc := range ar.scopes {
		view.Scopes = append(view.Scopes, scopeView{Name: sc, Description: scopeDescriptions[sc]})
	}
	setPageHeaders(w)
	w.WriteHeader(http.StatusOK)
	_ = consentTemplate().Execute(w, view)
}

func (s *Server) handleConsent(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		writeMessage(w, http.StatusBadRequest, "Bad consent submission", "The form could not be read; start sign-in again from ahptui.")
		return
	}
	id := r.PostForm.Get(FieldRequestID)
	csrf := r.PostForm.Get(FieldCSRF)
	decision := r.PostForm.Get(FieldDecision)

	s.consentMu.Lock()
	p := s.pending[id]
	// Single use: a replayed or double-clicked form finds nothing.
	delete(s.pending, id)
	s.consentMu.Unlock()

	cookie, cerr := r.Cookie(consentCookiePrefx + id)
	if id != "" {
		http.SetCookie(w, &http.Cookie{Name: consentCookiePrefx + id, Value: "", Path: AuthorizePath, MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	}
	if p == nil || time.Now().After(p.expires) {
		writeMessage(w, http.StatusBadRequest, "This request has expired", "The consent page was already used or is too old; start sign-in again from ahptui.")
		return
	}
	if csrf == "" || subtle.ConstantTimeCompare([]byte(csrf), []byte(p.csrf)) != 1 ||
		cerr != nil || subtle.ConstantTimeCompare([]byte(cookie.Value), []byte(p.csrf)) != 1 {
		writeMessage(w, http.StatusForbidden, "Consent check failed", "The form did not come from this consent page in this browser; start sign-in again from ahptui.")
		return
	}
	if decision != DecisionApprove && decision != DecisionDeny {
		writeMessage(w, http.StatusBadRequest, "Bad consent submission", "Choose Approve or Deny; start sign-in again from ahptui.")
		return
	}

	// Check the stored request again: the client may have gone, and
	// nothing the browser posts can change what is being approved.
	ar, ok := s.parseAuthorize(w, r, p.query)
	if !ok {
		return
	}
	if decision == DecisionDeny {
		redirectError(w, r, ar, &oauthErr{code: "access_denied", desc: "The user denied the request.", status: http.StatusForbidden})
		return
	}
	code, err := s.grants.newCode(ar, time.Now().Add(s.cfg.AuthorizeCodeLifespan))
	if err != nil {
		writeMessage(w, http.StatusInternalServerError, "Server error", "Could not generate an authorization code; try again.")
		return
	}
	redirectTo(w, r, ar, url.Values{"code": {code}, "scope": {strings.Join(ar.scopes, " ")}})
}
