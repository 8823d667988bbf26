package authserver

import (
	"context"
	"crypto/rand"
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

	"github.com/go-jose/go-jose/v3"
	"github.com/ory/fosite"
	"github.com/ory/fosite/compose"
	"github.com/ory/fosite/storage"
	"golang.org/x/crypto/bcrypt"
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
	cfg      Config
	issuer   string
	provider fosite.OAuth2Provider
	store    *clientStore
	srv      *http.Server
	done     chan struct{}
	stopCtx  func() bool

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

	globalSecret := make([]byte, 32)
	if _, err := rand.Read(globalSecret); err != nil {
		ln.Close()
		return nil, fmt.Errorf("authserver: read randomness for the token HMAC key: %w", err)
	}
	fcfg := &fosite.Config{
		AccessTokenLifespan:   cfg.AccessTokenLifespan,
		RefreshTokenLifespan:  cfg.RefreshTokenLifespan,
		AuthorizeCodeLifespan: cfg.AuthorizeCodeLifespan,
		GlobalSecret:          globalSecret,
		// Host client secrets are random and high-entropy; bcrypt's work
		// factor protects weak passwords, which we do not have, and every
		// /introspect call pays it.
		HashCost:                       bcrypt.MinCost,
		EnforcePKCE:                    true,
		EnforcePKCEForPublicClients:    true,
		EnablePKCEPlainChallengeMethod: false,
		ScopeStrategy:                  fosite.ExactScopeStrategy,
		AudienceMatchingStrategy:       s.matchResource,
		// An empty (non-nil) list means: issue refresh tokens to every client
		// allowed the refresh_token grant, without an offline_access scope.
		RefreshTokenScopes:         []string{},
		TokenURL:                   s.issuer + TokenPath,
		AccessTokenIssuer:          s.issuer,
		SendDebugMessagesToClients: false,
	}
	// fosite fills these lazily on first use, which races between
	// concurrent requests; setting them up front avoids that. fosite's own
	// JWKS fetcher would start cache goroutines that never stop and fetch
	// remote URLs; no client here authenticates with keys, so refuse.
	fcfg.ClientSecretsHasher = &fosite.BCrypt{Config: fcfg}
	fcfg.JWKSFetcherStrategy = noJWKS{}

	s.store = newClientStore(storage.NewMemoryStore())
	if err := s.registerStaticClients(ctx, fcfg); err != nil {
		ln.Close()
		return nil, err
	}

	s.provider = compose.Compose(fcfg, s.store, compose.NewOAuth2HMACStrategy(fcfg),
		compose.OAuth2AuthorizeExplicitFactory,
		compose.OAuth2RefreshTokenGrantFactory,
		compose.OAuth2TokenIntrospectionFactory,
		compose.OAuth2TokenRevocationFactory,
		compose.OAuth2PKCEFactory,
	)

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

func (s *Server) registerStaticClients(ctx context.Context, fcfg *fosite.Config) error {
	s.store.put(&demoClient{
		DefaultClient: &fosite.DefaultClient{
			ID:            s.cfg.PublicClientID,
			Public:        true,
			RedirectURIs:  []string{"http://127.0.0.1/callback"},
			GrantTypes:    []string{"authorization_code", "refresh_token"},
			ResponseTypes: []string{"code"},
			Scopes:        slices.Clone(s.cfg.Scopes),
		},
		Name: s.cfg.PublicClientName,
	})
	if s.cfg.HostClientSecret == "" {
		return nil
	}
	hash, err := fcfg.GetSecretsHasher(ctx).Hash(ctx, []byte(s.cfg.HostClientSecret))
	if err != nil {
		return fmt.Errorf("authserver: hash the host client secret: %w", err)
	}
	// The host client only introspects: no grant types, no redirect URIs,
	// so it can never obtain a token of its own.
	s.store.put(&demoClient{
		DefaultClient: &fosite.DefaultClient{
			ID:     s.cfg.HostClientID,
			Secret: hash,
		},
		Name:        "demo host",
		introspects: true,
	})
	return nil
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
// expired tokens are inactive; only a storage failure returns an error.
func (s *Server) Introspect(ctx context.Context, token string) (Introspection, error) {
	if token == "" {
		return Introspection{}, nil
	}
	tu, ar, err := s.provider.IntrospectToken(ctx, token, fosite.AccessToken, newSession())
	if err != nil {
		if fosite.ErrorToRFC6749Error(err).ErrorField == fosite.ErrServerError.ErrorField {
			return Introspection{}, fmt.Errorf("authserver: introspect token: %w", err)
		}
		return Introspection{}, nil
	}
	// fosite falls back to refresh-token lookup; a refresh token must never
	// open the host.
	if tu != fosite.AccessToken {
		return Introspection{}, nil
	}
	return Introspection{
		Active:    true,
		Scopes:    slices.Clone([]string(ar.GetGrantedScopes())),
		Audience:  slices.Clone([]string(ar.GetGrantedAudience())),
		ClientID:  ar.GetClient().GetID(),
		Subject:   ar.GetSession().GetSubject(),
		ExpiresAt: ar.GetSession().GetExpiresAt(fosite.AccessToken),
	}, nil
}

type noJWKS struct{}

func (noJWKS) Resolve(context.Context, string, bool) (*jose.JSONWebKeySet, error) {
	return nil, fosite.ErrInvalidClient.WithHint("This server does not accept key-based client authentication.")
}

func newSession() *fosite.DefaultSession {
	return &fosite.DefaultSession{Subject: DemoSubject, Username: DemoUsername}
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

func (s *Server) handleToken(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	ar, err := s.provider.NewAccessRequest(ctx, r, newSession())
	if err != nil {
		s.provider.WriteAccessError(ctx, w, ar, err)
		return
	}
	// RFC 8707 §2.2: a resource named at the token endpoint must be one the
	// grant covers; fosite keeps the authorize-time audience, so we only
	// have to refuse anything outside it.
	for _, res := range r.PostForm["resource"] {
		if !slices.Contains(ar.GetRequestedAudience(), res) {
			s.provider.WriteAccessError(ctx, w, ar, errInvalidTarget.WithHint(
				"The resource was not part of the authorization grant; start a new authorization for it."))
			return
		}
	}
	resp, err := s.provider.NewAccessResponse(ctx, ar)
	if err != nil {
		s.provider.WriteAccessError(ctx, w, ar, err)
		return
	}
	s.provider.WriteAccessResponse(ctx, w, ar, resp)
}

func (s *Server) handleIntrospect(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	// Only the host client may introspect: fosite alone would also accept
	// any bearer access token or any confidential client.
	id, _, ok := r.BasicAuth()
	if !ok || s.cfg.HostClientSecret == "" || !s.isIntrospector(ctx, id) {
		w.Header().Set("WWW-Authenticate", `Basic realm="introspection"`)
		writeJSON(w, http.StatusUnauthorized, oauthError{
			Error:            "invalid_client",
			ErrorDescription: "Introspection needs HTTP Basic authentication as the host client.",
		})
		return
	}
	resp, err := s.provider.NewIntrospectionRequest(ctx, r, newSession())
	if err != nil {
		s.provider.WriteIntrospectionError(ctx, w, err)
		return
	}
	if resp.GetTokenUse() != fosite.AccessToken {
		resp = &fosite.IntrospectionResponse{Active: false}
	}
	s.provider.WriteIntrospectionResponse(ctx, w, resp)
}

func (s *Server) isIntrospector(ctx context.Context, rawID string) bool {
	id, err := url.QueryUnescape(rawID)
	if err != nil {
		return false
	}
	c, err := s.store.GetClient(ctx, id)
	if err != nil {
		return false
	}
	dc, ok := c.(*demoClient)
	return ok && dc.introspects
}

func (s *Server) handleRevoke(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	err := s.provider.NewRevocationRequest(ctx, r)
	s.provider.WriteRevocationResponse(ctx, w, err)
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

// errInvalidTarget is RFC 8707's error, which fosite does not define.
var errInvalidTarget = &fosite.RFC6749Error{
	ErrorField:       "invalid_target",
	DescriptionField: "The requested resource is invalid, unknown, or malformed.",
	CodeField:        http.StatusBadRequest,
}

// matchResource is fosite's audience strategy: audiences here are RFC 8707
// resource indicators, checked against Config.Resources instead of a
// per-client allow-list.
func (s *Server) matchResource(_ []string, needle []string) error {
	for _, n := range needle {
		if err := checkResourceSyntax(n); err != nil {
			return errInvalidTarget.WithHint(err.Error())
		}
		if len(s.cfg.Resources) > 0 && !slices.Contains(s.cfg.Resources, n) {
			return errInvalidTarget.WithHint("This authorization server does not issue tokens for that resource.")
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
