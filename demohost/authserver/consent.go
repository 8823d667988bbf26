package authserver

import (
	"crypto/subtle"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/ory/fosite"
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

// pendingConsent is an authorization request that passed fosite's checks and
// waits for the user's decision. The query is replayed through fosite on
// submit, so nothing the browser posts can change what is being approved.
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

// prepareAuthorizeForm applies our policy before fosite sees the request:
// RFC 8707 resource → fosite audience, an explicit loopback redirect_uri, no
// OIDC request objects, query response mode only. A non-empty problem means
// the redirect target is not trustworthy, so the error is shown, not sent.
func prepareAuthorizeForm(form url.Values) (problem string) {
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
	// The audience is exactly the resource indicators; a client-sent
	// "audience" would otherwise widen the token.
	form.Del("audience")
	if res := form["resource"]; len(res) > 0 {
		form["audience"] = slices.Clone(res)
	}
	return ""
}

// checkPKCEUpFront repeats fosite's PKCE rules before consent: fosite's PKCE
// handler only runs when the code is minted, which would let the user approve
// a request that then fails.
func checkPKCEUpFront(form url.Values) error {
	if form.Get("code_challenge") == "" {
		return fosite.ErrInvalidRequest.WithHint("PKCE is required: send code_challenge with code_challenge_method=S256.")
	}
	if form.Get("code_challenge_method") != "S256" {
		return fosite.ErrInvalidRequest.WithHint("Clients must use code_challenge_method=S256; plain is not allowed.")
	}
	return nil
}

// parseAuthorize runs our policy and fosite's validation over r (whose form
// may come from a pending consent). ok false means the response was written.
func (s *Server) parseAuthorize(w http.ResponseWriter, r *http.Request) (fosite.AuthorizeRequester, bool) {
	ctx := r.Context()
	if err := r.ParseForm(); err != nil {
		writeMessage(w, http.StatusBadRequest, "Bad authorization request", "The request could not be parsed; start sign-in again from ahptui.")
		return nil, false
	}
	if problem := prepareAuthorizeForm(r.Form); problem != "" {
		writeMessage(w, http.StatusBadRequest, "Bad authorization request", problem)
		return nil, false
	}
	ar, err := s.provider.NewAuthorizeRequest(ctx, r)
	if err != nil {
		s.provider.WriteAuthorizeError(ctx, w, ar, err)
		return nil, false
	}
	if err := checkPKCEUpFront(ar.GetRequestForm()); err != nil {
		s.provider.WriteAuthorizeError(ctx, w, ar, err)
		return nil, false
	}
	return ar, true
}

func (s *Server) handleAuthorize(w http.ResponseWriter, r *http.Request) {
	ar, ok := s.parseAuthorize(w, r)
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
		// Store the query as received (before our audience rewrite), so the
		// replay goes through exactly the same checks.
		s.pending[id] = &pendingConsent{query: r.URL.Query(), csrf: csrf, expires: now.Add(s.cfg.ConsentLifespan)}
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

	client := ar.GetClient()
	name := client.GetID()
	if dc, ok := client.(*demoClient); ok && dc.Name != "" {
		name = dc.Name
	}
	view := consentView{
		ClientName: name,
		ClientID:   client.GetID(),
		Resources:  slices.Clone([]string(ar.GetRequestedAudience())),
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
	for _, sc := range ar.GetRequestedScopes() {
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

	// Replay the stored authorization request through fosite as a GET.
	replay := r.Clone(r.Context())
	replay.Method = http.MethodGet
	u := *r.URL
	u.RawQuery = p.query.Encode()
	replay.URL = &u
	replay.Body = http.NoBody
	replay.ContentLength = 0
	replay.Header = r.Header.Clone()
	replay.Header.Del("Content-Type")
	replay.Form, replay.PostForm, replay.MultipartForm = nil, nil, nil

	ar, ok := s.parseAuthorize(w, replay)
	if !ok {
		return
	}
	ctx := replay.Context()
	if decision == DecisionDeny {
		s.provider.WriteAuthorizeError(ctx, w, ar, fosite.ErrAccessDenied.WithHint("The user denied the request."))
		return
	}
	for _, sc := range ar.GetRequestedScopes() {
		ar.GrantScope(sc)
	}
	for _, aud := range ar.GetRequestedAudience() {
		ar.GrantAudience(aud)
	}
	resp, err := s.provider.NewAuthorizeResponse(ctx, ar, newSession())
	if err != nil {
		s.provider.WriteAuthorizeError(ctx, w, ar, err)
		return
	}
	s.provider.WriteAuthorizeResponse(ctx, w, ar, resp)
}
