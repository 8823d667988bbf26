package authserver

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// DefaultScopes are the scopes the demo host understands.
var DefaultScopes = []string{"mcp:read", "mcp:write", "mcp:admin", "tools:deploy"}

// Endpoint paths, relative to the issuer.
const (
	MetadataPath   = "/.well-known/oauth-authorization-server"
	AuthorizePath  = "/authorize"
	TokenPath      = "/token"
	RegisterPath   = "/register"
	IntrospectPath = "/introspect"
	RevokePath     = "/revoke"
)

// Defaults and the demo identity every approved grant belongs to.
const (
	DefaultPublicID = "ahptui-demo"
	DefaultHostID   = "ahptui-demo-host"
	DemoSubject     = "demo-user" // the token subject (sub)
	DemoUsername    = "demo"      // shown on the consent page
)

// Bounds on what a client can make the server hold or read.
const (
	maxBodyBytes     = 64 << 10
	maxPending       = 256
	maxDynamicClient = 1024
)

// Config configures Start. The zero value is usable: it gives the demo scopes,
// the public client "ahptui-demo", one-hour access tokens and no HTTP
// introspection (Server.Introspect still works in process).
type Config struct {
	// PublicClientID is the pre-registered public client (no secret,
	// redirect URI http://127.0.0.1:<any port>/callback). Default "ahptui-demo".
	PublicClientID string
	// PublicClientName is shown on the consent page. Default "ahptui".
	PublicClientName string

	// HostClientID and HostClientSecret authenticate the resource server at
	// the /introspect endpoint (HTTP Basic). An empty secret disables HTTP
	// introspection: every call answers 401. Default ID "ahptui-demo-host".
	HostClientID     string
	HostClientSecret string

	// Scopes the server knows; any other requested scope is invalid_scope.
	// Default DefaultScopes.
	Scopes []string

	// Resources, when non-empty, is the exact list of resource indicators
	// (RFC 8707) a client may ask for; anything else is invalid_target. When
	// empty any absolute URI without a fragment is accepted, because the demo
	// host may learn its own URL only after the server started.
	Resources []string

	// Lifespans; zero means 1h access tokens, 24h refresh tokens, 5m codes.
	// Tests shorten AccessTokenLifespan to watch tokens expire.
	AccessTokenLifespan   time.Duration
	RefreshTokenLifespan  time.Duration
	AuthorizeCodeLifespan time.Duration
	// ConsentLifespan bounds how long a consent page stays submittable.
	// Default 10m.
	ConsentLifespan time.Duration
}

// Server is a running authorization server. Create it with Start.
type Server struct {
	cfg     Config
	issuer  string
	store   *clientStore
	grants  *grantStore
	srv     *http.Server
	done    chan struct{}
	stopCtx func() bool

	consentMu sync.Mutex
	pending   map[string]*pendingConsent

	closeOnce sync.Once
	closeErr  error
}

// Introspection is what the in-process host learns about an access token.
// An inactive token has Active false and every other field zero.
type Introspection struct {
	Active    bool
	Scopes    []string
	Audience  []string // the resource indicators the token was issued for
	ClientID  string
	Subject   string
	ExpiresAt time.Time
	IssuedAt  time.Time
}

// Start listens on 127.0.0.1 with an ephemeral port and serves until Close
// is called or ctx is done.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("authserver: not starting: %w", err)
	}
	cfg = withDefaults(cfg)
	if err := validateConfig(cfg); err != nil {
		return nil, err
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("authserver: listen on 127.0.0.1: %w (is the loopback interface up?)", err)
	}
	s := &Server{
		cfg:     cfg,
		issuer:  "http://" + ln.Addr().String(),
		done:    make(chan struct{}),
		pending: make(map[string]*pendingConsent),
	}

	s.store = newClientStore()
	s.grants = newGrantStore()
	s.registerStaticClients()

	mux := http.NewServeMux()
	mux.HandleFunc("GET "+MetadataPath, s.handleMetadata)
	mux.HandleFunc("GET "+AuthorizePath, s.handleAuthorize)
	mux.HandleFunc("POST "+AuthorizePath, s.handleConsent)
	mux.HandleFunc("POST "+TokenPath, s.handleToken)
	mux.HandleFunc("POST "+RegisterPath, s.handleRegister)
	mux.HandleFunc("POST "+IntrospectPath, s.handleIntrospect)
	mux.HandleFunc("POST "+RevokePath, s.handleRevoke)

	s.srv = &http.Server{
		Handler:           limitBody(mux),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       60 * time.Second,
		MaxHeaderBytes:    32 << 10,
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	go func() {
		defer close(s.done)
		_ = s.srv.Serve(ln) // returns http.ErrServerClosed after Close
	}()
	s.stopCtx = context.AfterFunc(ctx, func() { _ = s.shutdown() })
	return s, nil
}

func withDefaults(cfg Config) Config {
	if cfg.PublicClientID == "" {
		cfg.PublicClientID = DefaultPublicID
	}
	if cfg.PublicClientName == "" {
		cfg.PublicClientName = "ahptui"
	}
	if cfg.HostClientID == "" {
		cfg.HostClientID = DefaultHostID
	}
	if len(cfg.Scopes) == 0 {
		cfg.Scopes = slices.Clone(DefaultScopes)
	} else {
		cfg.Scopes = slices.Clone(cfg.Scopes)
	}
	cfg.Resources = slices.Clone(cfg.Resources)
	if cfg.AccessTokenLifespan <= 0 {
		cfg.AccessTokenLifespan = time.Hour
	}
	if cfg.RefreshTokenLifespan <= 0 {
		cfg.RefreshTokenLifespan = 24 * time.Hour
	}
	if cfg.AuthorizeCodeLifespan <= 0 {
		cfg.AuthorizeCodeLifespan = 5 * time.Minute
	}
	if cfg.ConsentLifespan <= 0 {
		cfg.ConsentLifespan = 10 * time.Minute
	}
	return cfg
}

func validateConfig(cfg Config) error {
	if cfg.PublicClientID == cfg.HostClientID {
		return errors.New("authserver: PublicClientID and HostClientID must differ; pick another HostClientID")
	}
	for _, sc := range cfg.Scopes {
		if sc == "" || strings.ContainsAny(sc, " \t\r\n\"\\") {
			return fmt.Errorf("authserver: scope %q is not a valid OAuth scope token; remove spaces and quotes", sc)
		}
	}
	for _, r := range cfg.Resources {
		if err := checkResourceSyntax(r); err != nil {
			return fmt.Errorf("authserver: Config.Resources: %w", err)
		}
	}
	return nil
}

func (s *Server) registerStaticClients() {
	s.store.put(&client{
		ID:            s.cfg.PublicClientID,
		Name:          s.cfg.PublicClientName,
		Public:        true,
		RedirectURIs:  []string{"http://127.0.0.1/callback"},
		GrantTypes:    []string{"authorization_code", "refresh_token"},
		ResponseTypes: []string{"code"},
		Scopes:        slices.Clone(s.cfg.Scopes),
	})
	if s.cfg.HostClientSecret == "" {
		return
	}
	// The host client only introspects: no grant types, no redirect URIs,
	// so it can never obtain a token of its own.
	s.store.put(&client{
		ID:          s.cfg.HostClientID,
		Name:        "demo host",
		secretHash:  sha256.Sum256([]byte(s.cfg.HostClientSecret)),
		introspects: true,
	})
}

// Issuer is the server's base URL, http://127.0.0.1:PORT, without a trailing
// slash; metadata lives at Issuer()+MetadataPath.
func (s *Server) Issuer() string { return s.issuer }

// AuthorizationEndpoint is Issuer()+AuthorizePath.
func (s *Server) AuthorizationEndpoint() string { return s.issuer + AuthorizePath }

// TokenEndpoint is Issuer()+TokenPath.
func (s *Server) TokenEndpoint() string { return s.issuer + TokenPath }

// PublicClientID is the pre-registered public client's ID.
func (s *Server) PublicClientID() string { return s.cfg.PublicClientID }

// Scopes returns a copy of the scopes the server knows.
func (s *Server) Scopes() []string { return slices.Clone(s.cfg.Scopes) }

// Close stops the listener, drops open connections and waits for the serving
// goroutine to exit. It is safe to call more than once.
func (s *Server) Close() error {
	s.stopCtx()
	return s.shutdown()
}

// shutdown is Close without touching stopCtx, which the context callback
// may run before Start has even stored it.
func (s *Server) shutdown() error {
	s.closeOnce.Do(func() {
		err := s.srv.Close()
		<-s.done
		if err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.closeErr = fmt.Errorf("authserver: close: %w", err)
		}
	})
	return s.closeErr
}

// Introspect reports on an access token the way the /introspect endpoint
// would, for the in-process host. Refresh tokens, unknown, revoked and
// expired tokens are inactive. The error is always nil today; it stays in
// the signature for a store that can fail.
func (s *Server) Introspect(_ context.Context, token string) (Introspection, error) {
	return s.grants.introspect(token, time.Now()), nil
}

func limitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, maxBodyBytes)
		w.Header().Set("X-Content-Type-Options", "nosniff")
		next.ServeHTTP(w, r)
	})
}

// metadata is the RFC 8414 document.
type metadata struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	RegistrationEndpoint              string   `json:"registration_endpoint"`
	IntrospectionEndpoint             string   `json:"introspection_endpoint"`
	RevocationEndpoint                string   `json:"revocation_endpoint"`
	ScopesSupported                   []string `json:"scopes_supported"`
	ResponseTypesSupported            []string `json:"response_types_supported"`
	ResponseModesSupported            []string `json:"response_modes_supported"`
	GrantTypesSupported               []string `json:"grant_types_supported"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported"`
	IntrospectionAuthMethodsSupported []string `json:"introspection_endpoint_auth_methods_supported"`
	RevocationAuthMethodsSupported    []string `json:"revocation_endpoint_auth_methods_supported"`
	AuthorizationResponseIssParameter bool     `json:"authorization_response_iss_parameter_supported"`
}

func (s *Server) handleMetadata(w http.ResponseWriter, _ *http.Request) {
	authMethods := []string{"none", "client_secret_basic", "client_secret_post"}
	writeJSON(w, http.StatusOK, metadata{
		Issuer:                            s.issuer,
		AuthorizationEndpoint:             s.issuer + AuthorizePath,
		TokenEndpoint:                     s.issuer + TokenPath,
		RegistrationEndpoint:              s.issuer + RegisterPath,
		IntrospectionEndpoint:             s.issuer + IntrospectPath,
		RevocationEndpoint:                s.issuer + RevokePath,
		ScopesSupported:                   slices.Clone(s.cfg.Scopes),
		ResponseTypesSupported:            []string{"code"},
		ResponseModesSupported:            []string{"query"},
		GrantTypesSupported:               []string{"authorization_code", "refresh_token"},
		CodeChallengeMethodsSupported:     []string{"S256"},
		TokenEndpointAuthMethodsSupported: authMethods,
		IntrospectionAuthMethodsSupported: []string{"client_secret_basic"},
		RevocationAuthMethodsSupported:    authMethods,
		AuthorizationResponseIssParameter: false,
	})
}

func (s *Server) handleIntrospect(w http.ResponseWriter, r *http.Request) {
	// Only the host client may introspect: a bearer access token or any
	// other client learns nothing here.
	id, secret, ok := r.BasicAuth()
	if !ok || s.cfg.HostClientSecret == "" || !s.isIntrospector(id, secret) {
		w.Header().Set("WWW-Authenticate", `Basic realm="introspection"`)
		writeJSON(w, http.StatusUnauthorized, oauthError{
			Error:            "invalid_client",
			ErrorDescription: "Introspection needs HTTP Basic authentication as the host client.",
		})
		return
	}
	if err := r.ParseForm(); err != nil {
		writeOAuthError(w, errRequest("The request body could not be read as a form."))
		return
	}
	token := r.PostForm.Get("token")
	if token == "" {
		writeOAuthError(w, errRequest("The token parameter is missing."))
		return
	}
	in := s.grants.introspect(token, time.Now())
	if !in.Active {
		writeJSON(w, http.StatusOK, map[string]any{"active": false})
		return
	}
	resp := map[string]any{
		"active":     true,
		"scope":      strings.Join(in.Scopes, " "),
		"client_id":  in.ClientID,
		"sub":        in.Subject,
		"username":   DemoUsername,
		"exp":        in.ExpiresAt.Unix(),
		"iat":        in.IssuedAt.Unix(),
		"token_type": "Bearer",
	}
	if len(in.Audience) > 0 {
		resp["aud"] = in.Audience
	}
	writeJSON(w, http.StatusOK, resp)
}

// isIntrospector reports whether id and secret (as sent in HTTP Basic,
// form-encoded per RFC 6749 §2.3.1) authenticate the host client.
func (s *Server) isIntrospector(rawID, rawSecret string) bool {
	id, err1 := url.QueryUnescape(rawID)
	secret, err2 := url.QueryUnescape(rawSecret)
	if err1 != nil || err2 != nil {
		return false
	}
	c, ok := s.store.get(id)
	return ok && c.introspects && c.checkSecret(secret)
}

type oauthError struct {
	Error            string `json:"error"`
	ErrorDescription string `json:"error_description,omitempty"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// checkResources applies RFC 8707 to the resource indicators of an
// authorization request: each an absolute URI without a fragment and, when
// Config.Resources is set, one of those.
func (s *Server) checkResources(resources []string) *oauthErr {
	for _, n := range resources {
		if err := checkResourceSyntax(n); err != nil {
			return errTarget(err.Error() + ".")
		}
		if len(s.cfg.Resources) > 0 && !slices.Contains(s.cfg.Resources, n) {
			return errTarget("This authorization server does not issue tokens for that resource.")
		}
	}
	return nil
}

func checkResourceSyntax(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" {
		return errors.New("a resource must be an absolute URI")
	}
	if u.Fragment != "" || strings.Contains(raw, "#") {
		return errors.New("a resource must not contain a fragment")
	}
	return nil
}
