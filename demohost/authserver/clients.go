package authserver

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// client is a registered OAuth client and what the consent page shows.
type client struct {
	ID            string
	Name          string
	Public        bool     // no secret: authenticated by PKCE alone
	RedirectURIs  []string // loopback: any port matches (RFC 8252 §7.3)
	GrantTypes    []string
	ResponseTypes []string
	Scopes        []string // the scopes it may ask for

	secretHash  [32]byte // SHA-256 of a confidential client's secret
	introspects bool     // the host client, allowed at /introspect
}

// checkSecret reports whether secret authenticates c: empty for a public
// client, the registered one (compared in constant time) otherwise. The
// host client's secret is random and high-entropy, so a fast hash is
// enough; a password hash would only slow every /introspect call.
func (c *client) checkSecret(secret string) bool {
	if c.Public {
		return secret == ""
	}
	got := sha256.Sum256([]byte(secret))
	return subtle.ConstantTimeCompare(got[:], c.secretHash[:]) == 1
}

// redirectAllowed matches a request's redirect_uri against the client's
// registered ones; for these loopback URIs the port is the client's
// choice at run time (RFC 8252 §7.3), so only scheme, host and path count.
func (c *client) redirectAllowed(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	for _, reg := range c.RedirectURIs {
		r, err := url.Parse(reg)
		if err == nil && r.Scheme == u.Scheme && r.Hostname() == u.Hostname() && r.Path == u.Path && r.RawQuery == u.RawQuery {
			return true
		}
	}
	return false
}

// clientStore is the client registry: dynamic registration adds clients
// while requests are being served.
type clientStore struct {
	mu      sync.RWMutex
	clients map[string]*client
	dynamic int
}

func newClientStore() *clientStore {
	return &clientStore{clients: make(map[string]*client)}
}

func (c *clientStore) get(id string) (*client, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	cl, ok := c.clients[id]
	return cl, ok
}

func (c *clientStore) put(cl *client) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clients[cl.ID] = cl
}

// addDynamic registers cl unless the registry is full, so an endless stream
// of registrations cannot grow memory without bound.
func (c *clientStore) addDynamic(cl *client) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dynamic >= maxDynamicClient {
		return false
	}
	c.dynamic++
	c.clients[cl.ID] = cl
	return true
}

// checkLoopbackRedirect accepts exactly http://127.0.0.1[:port]/callback
// (RFC 8252 §7.3): the native-app loopback redirect and nothing broader, so
// a code can only ever be delivered to this machine.
func checkLoopbackRedirect(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return errors.New("redirect URI is not a URL")
	}
	switch {
	case u.Scheme != "http":
		return errors.New("redirect URI must use http on the loopback interface")
	case u.User != nil:
		return errors.New("redirect URI must not carry user information")
	case u.Hostname() != "127.0.0.1":
		return errors.New("redirect URI host must be the IP literal 127.0.0.1")
	case u.Path != "/callback" || u.RawPath != "":
		return errors.New("redirect URI path must be /callback")
	case u.RawQuery != "" || u.ForceQuery:
		return errors.New("redirect URI must not have a query")
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return errors.New("redirect URI must not have a fragment")
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return errors.New("redirect URI port must be 1-65535")
		}
	}
	return nil
}

// registrationRequest is the subset of RFC 7591 client metadata we honour;
// other members are ignored, as §2 allows.
type registrationRequest struct {
	RedirectURIs            []string `json:"redirect_uris"`
	ClientName              string   `json:"client_name"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	Scope                   string   `json:"scope"`
}

type registrationResponse struct {
	ClientID                string   `json:"client_id"`
	ClientIDIssuedAt        int64    `json:"client_id_issued_at"`
	RedirectURIs            []string `json:"redirect_uris"`
	ClientName              string   `json:"client_name,omitempty"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	Scope                   string   `json:"scope"`
}

func (s *Server) handleRegister(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeRegError(w, "invalid_client_metadata", "The registration request is too large.")
			return
		}
		writeRegError(w, "invalid_client_metadata", "The registration request body could not be read.")
		return
	}
	var req registrationRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeRegError(w, "invalid_client_metadata", "The registration request must be a JSON object of client metadata.")
		return
	}

	if len(req.RedirectURIs) == 0 {
		writeRegError(w, "invalid_redirect_uri", "At least one redirect_uri is required, e.g. http://127.0.0.1:PORT/callback.")
		return
	}
	if len(req.RedirectURIs) > 10 {
		writeRegError(w, "invalid_redirect_uri", "At most 10 redirect URIs may be registered.")
		return
	}
	for _, ru := range req.RedirectURIs {
		if err := checkLoopbackRedirect(ru); err != nil {
			writeRegError(w, "invalid_redirect_uri", err.Error()+"; use http://127.0.0.1:PORT/callback.")
			return
		}
	}

	switch req.TokenEndpointAuthMethod {
	case "", "none":
	default:
		writeRegError(w, "invalid_client_metadata", "Only public clients can register here: token_endpoint_auth_method must be \"none\".")
		return
	}

	// Defaults deviate from RFC 7591's (authorization_code only) on purpose:
	// a client that omits grant_types still gets refresh tokens, which is what
	// every native client wants; the response tells it what it got.
	grants := req.GrantTypes
	if len(grants) == 0 {
		grants = []string{"authorization_code", "refresh_token"}
	}
	for _, g := range grants {
		if g != "authorization_code" && g != "refresh_token" {
			writeRegError(w, "invalid_client_metadata", "Unsupported grant type; use authorization_code and refresh_token.")
			return
		}
	}
	if !slices.Contains(grants, "authorization_code") {
		writeRegError(w, "invalid_client_metadata", "grant_types must include authorization_code.")
		return
	}
	grants = uniq(grants)

	responses := req.ResponseTypes
	if len(responses) == 0 {
		responses = []string{"code"}
	}
	for _, rt := range responses {
		if rt != "code" {
			writeRegError(w, "invalid_client_metadata", "Only response_type \"code\" is supported.")
			return
		}
	}
	responses = uniq(responses)

	scopes := strings.Fields(req.Scope)
	if len(scopes) == 0 {
		scopes = slices.Clone(s.cfg.Scopes)
	}
	for _, sc := range scopes {
		if !slices.Contains(s.cfg.Scopes, sc) {
			writeRegError(w, "invalid_client_metadata", "Unknown scope; this server knows: "+strings.Join(s.cfg.Scopes, " ")+".")
			return
		}
	}
	scopes = uniq(scopes)

	if len(req.ClientName) > 200 || !utf8.ValidString(req.ClientName) ||
		strings.IndexFunc(req.ClientName, unicode.IsControl) >= 0 {
		writeRegError(w, "invalid_client_metadata", "client_name must be at most 200 bytes of printable UTF-8.")
		return
	}

	id, err := randomToken(18)
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, oauthError{Error: "server_error", ErrorDescription: "Could not generate a client ID; try again."})
		return
	}
	id = "dyn-" + id
	name := req.ClientName
	cl := &client{
		ID:            id,
		Name:          name,
		Public:        true,
		RedirectURIs:  slices.Clone(req.RedirectURIs),
		GrantTypes:    grants,
		ResponseTypes: responses,
		Scopes:        scopes,
	}
	if !s.store.addDynamic(cl) {
		writeJSON(w, http.StatusServiceUnavailable, oauthError{Error: "temporarily_unavailable", ErrorDescription: "Too many clients are registered; restart the demo host."})
		return
	}
	writeJSON(w, http.StatusCreated, registrationResponse{
		ClientID:                id,
		ClientIDIssuedAt:        time.Now().Unix(),
		RedirectURIs:            slices.Clone(req.RedirectURIs),
		ClientName:              name,
		GrantTypes:              grants,
		ResponseTypes:           responses,
		TokenEndpointAuthMethod: "none",
		Scope:                   strings.Join(scopes, " "),
	})
}

func writeRegError(w http.ResponseWriter, code, desc string) {
	writeJSON(w, http.StatusBadRequest, oauthError{Error: code, ErrorDescription: desc})
}

func uniq(in []string) []string {
	out := make([]string, 0, len(in))
	for _, v := range in {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

func randomToken(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("read randomness: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}
