package authpkce

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/ahptui/ahptui/protocol"
)

// Reason says why the host wants a token. The values are AHP's
// McpAuthRequiredReason plus the auth/required notification's reasons.
type Reason string

const (
	// ReasonRequired: the client has not authenticated for the resource yet.
	// A cached token that covers the scopes is reused.
	ReasonRequired Reason = "required"
	// ReasonExpired: the host rejected the token it has. The cached access
	// token is not reused; a silent refresh is tried before the browser.
	ReasonExpired Reason = "expired"
	// ReasonInsufficientScope: step-up. The browser is always asked for the
	// requested scopes, whatever is cached.
	ReasonInsufficientScope Reason = "insufficientScope"
)

// ProtectedResourceMetadata is the RFC 9728 document the host advertises
// (AgentInfo.protectedResources, McpAuthRequirement.resource,
// AuthRequiredErrorData.resources). It is the protocol's own wire type, so a
// challenge reaches the flow as the host sent it, with no copy to keep in
// step; Required (AHP's extension) nil means true.
type ProtectedResourceMetadata = protocol.ProtectedResourceMetadata

// Client is a pre-registered OAuth client (AHP McpOAuthClient). Without a
// ClientSecret it is a public client and uses PKCE alone.
type Client struct {
	ClientID     string `json:"clientId"`
	ClientSecret string `json:"clientSecret,omitempty"`
}

// String keeps the secret out of logs and error messages.
func (c Client) String() string {
	if c.ClientSecret == "" {
		return fmt.Sprintf("authpkce.Client{ClientID: %q, public}", c.ClientID)
	}
	return fmt.Sprintf("authpkce.Client{ClientID: %q, ClientSecret: [redacted]}", c.ClientID)
}

// MarshalJSON keeps the secret out of JSON logs; decoding is unaffected.
func (c Client) MarshalJSON() ([]byte, error) {
	m := map[string]string{"clientId": c.ClientID}
	if c.ClientSecret != "" {
		m["clientSecret"] = redacted(c.ClientSecret)
	}
	return json.Marshal(m)
}

// GoString keeps the secret out of %#v.
func (c Client) GoString() string { return c.String() }

// LogValue keeps the secret out of slog output.
func (c Client) LogValue() slog.Value {
	return slog.GroupValue(slog.String("client_id", c.ClientID), slog.Bool("confidential", c.ClientSecret != ""))
}

// Requirement is one auth challenge from the host: an McpAuthRequirement, or
// an auth/required notification / AuthRequired error turned into one (with
// Reason and Resource only).
type Requirement struct {
	Reason   Reason
	Resource ProtectedResourceMetadata
	// RequiredScopes, when non-empty, is authoritative for the authorization
	// request; otherwise Resource.ScopesSupported is asked for.
	RequiredScopes []string
	// OAuthClient, when set, replaces dynamic client registration.
	OAuthClient *Client
	// Description is the host's human-readable hint (untrusted).
	Description string
}

// Token is what the authorization server issued. Its formatting methods
// redact the secrets so a token never reaches a log line or an error string.
type Token struct {
	AccessToken  string
	RefreshToken string
	TokenType    string
	Expiry       time.Time
	// Scopes are the granted scopes: the token response's scope, or the
	// requested scopes when the server did not say (RFC 6749 §5.1).
	Scopes []string
}

// MarshalJSON redacts too: slog's JSON handler and debug dumps marshal
// values they find inside slices and maps.
func (t Token) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]any{
		"access_token": redacted(t.AccessToken), "refresh_token": redacted(t.RefreshToken),
		"expiry": fmtExpiry(t.Expiry), "scopes": t.Scopes,
	})
}

func (t Token) String() string {
	return fmt.Sprintf("authpkce.Token{AccessToken: %s, RefreshToken: %s, Expiry: %s, Scopes: %q}",
		redacted(t.AccessToken), redacted(t.RefreshToken), fmtExpiry(t.Expiry), t.Scopes)
}

func (t Token) GoString() string { return t.String() }

func (t Token) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("access_token", redacted(t.AccessToken)),
		slog.String("refresh_token", redacted(t.RefreshToken)),
		slog.String("expiry", fmtExpiry(t.Expiry)),
		slog.Any("scopes", t.Scopes),
	)
}

// CachedToken is a token the store holds, as the UI needs it to push with
// `authenticate` (again after a reconnect).
type CachedToken struct {
	// Host is the AHP host the grant was obtained on (HostID form); empty
	// for a grant saved before hosts were recorded.
	Host                string
	Resource            string
	AccessToken         string
	Scopes              []string
	Expiry              time.Time
	AuthorizationServer string
	ClientID            string
}

func (c CachedToken) String() string {
	return fmt.Sprintf("authpkce.CachedToken{Host: %q, Resource: %q, AccessToken: %s, Scopes: %q, Expiry: %s, AuthorizationServer: %q}",
		c.Host, c.Resource, redacted(c.AccessToken), c.Scopes, fmtExpiry(c.Expiry), c.AuthorizationServer)
}

func (c CachedToken) GoString() string { return c.String() }

func (c CachedToken) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]any{
		"host": c.Host, "resource": c.Resource, "access_token": redacted(c.AccessToken), "scopes": c.Scopes,
		"expiry": fmtExpiry(c.Expiry), "authorization_server": c.AuthorizationServer,
	})
}

func (c CachedToken) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("host", c.Host),
		slog.String("resource", c.Resource),
		slog.String("access_token", redacted(c.AccessToken)),
		slog.Any("scopes", c.Scopes),
		slog.String("expiry", fmtExpiry(c.Expiry)),
		slog.String("authorization_server", c.AuthorizationServer),
	)
}

// Source says how a Result was obtained.
type Source int

const (
	// SourceCache: a stored token still covered the request; no network.
	SourceCache Source = iota + 1
	// SourceRefresh: a refresh token was exchanged silently.
	SourceRefresh
	// SourceBrowser: the user went through the authorization server.
	SourceBrowser
	// SourceDevice: the user approved a device code (RFC 8628).
	SourceDevice
)

func (s Source) String() string {
	switch s {
	case SourceCache:
		return "cache"
	case SourceRefresh:
		return "refresh"
	case SourceBrowser:
		return "browser"
	case SourceDevice:
		return "device"
	}
	return fmt.Sprintf("Source(%d)", int(s))
}

// Result is a finished grant: push Result.AccessToken for Result.Resource
// with `authenticate` (scopes: Result.Scopes).
type Result struct {
	CachedToken
	Source Source
}

// Errors a caller can test with errors.Is to pick what to tell the user.
// The wrapped message already says what happened and what to do.
var (
	ErrInvalidRequirement    = errors.New("invalid auth requirement")
	ErrResourceNotAdvertised = errors.New("resource not advertised by the host")
	ErrInsecureServer        = errors.New("authorization server is not https")
	ErrDiscovery             = errors.New("authorization server discovery failed")
	ErrNoClientIdentity      = errors.New("no OAuth client identity")
	ErrRegistration          = errors.New("dynamic client registration failed")
	ErrStateMismatch         = errors.New("callback state mismatch")
	ErrAccessDenied          = errors.New("access denied")
	ErrAuthorization         = errors.New("authorization failed")
	ErrTokenEndpoint         = errors.New("token request failed")
	ErrTimeout               = errors.New("sign-in timed out")
	ErrCanceled              = errors.New("sign-in canceled")
	ErrStore                 = errors.New("token store")
	ErrIssuerMismatch        = errors.New("authorization response from the wrong issuer")
	ErrPastedURL             = errors.New("pasted address is not this sign-in's redirect")
	ErrCallbackPort          = errors.New("callback port unavailable")
	ErrPKCE                  = errors.New("authorization server does not advertise PKCE S256")
	ErrNeedsConfirmation     = errors.New("authorization server on a private address needs confirmation")
)

func redacted(s string) string {
	if s == "" {
		return "<none>"
	}
	return "[redacted]"
}

func fmtExpiry(t time.Time) string {
	if t.IsZero() {
		return "<none>"
	}
	return t.UTC().Format(time.RFC3339)
}

// clean makes a server-provided string safe to put in an error message the
// terminal will show: control characters (escape sequences included) are
// dropped and the length is capped.
func clean(s string) string {
	const maxLen = 300
	var b strings.Builder
	for _, r := range s {
		if unicode.IsControl(r) || r == unicode.ReplacementChar || unicode.Is(unicode.Bidi_Control, r) {
			continue
		}
		if b.Len() >= maxLen {
			b.WriteString("…")
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}

// covers reports whether granted holds every scope in want.
func covers(granted, want []string) bool {
	for _, w := range want {
		if !slices.Contains(granted, w) {
			return false
		}
	}
	return true
}

func union(a []string, more ...[]string) []string {
	out := slices.Clone(a)
	for _, m := range more {
		for _, s := range m {
			if s != "" && !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

func (r Result) String() string {
	return fmt.Sprintf("authpkce.Result{%s, Source: %s}", r.CachedToken, r.Source)
}

func (r Result) GoString() string { return r.String() }

// RequirementOf is the requirement an MCP server's or a tool call's
// auth challenge states, as the UI and the commands start a grant for it.
func RequirementOf(r protocol.McpAuthRequirement) Requirement {
	req := Requirement{Reason: Reason(r.Reason), Resource: r.Resource, RequiredScopes: r.RequiredScopes}
	if r.Description != nil {
		req.Description = *r.Description
	}
	if r.OauthClient != nil {
		req.OAuthClient = &Client{ClientID: r.OauthClient.ClientID}
		if r.OauthClient.ClientSecret != nil {
			req.OAuthClient.ClientSecret = *r.OauthClient.ClientSecret
		}
	}
	return req
}
