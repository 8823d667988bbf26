package authpkce

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"
)

// registrationRequest is the RFC 7591 client metadata we send: a native
// public client using the loopback redirect (RFC 8252 §7.3 lets the port
// vary between flows, so one registration serves every later grant).
type registrationRequest struct {
	ClientName              string   `json:"client_name"`
	RedirectURIs            []string `json:"redirect_uris"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	ApplicationType         string   `json:"application_type,omitempty"`
	Scope                   string   `json:"scope,omitempty"`
}

type registrationResponse struct {
	ClientID                string `json:"client_id"`
	ClientSecret            string `json:"client_secret"`
	ClientSecretExpiresAt   int64  `json:"client_secret_expires_at"`
	TokenEndpointAuthMethod string `json:"token_endpoint_auth_method"`
}

type oauthError struct {
	Error            string `json:"error"`
	ErrorDescription string `json:"error_description"`
}

func (e oauthError) describe() string {
	s := clean(e.Error)
	if d := clean(e.ErrorDescription); d != "" {
		s += ": " + d
	}
	return s
}

// register performs RFC 7591 dynamic client registration.
func register(ctx context.Context, hc *http.Client, md *serverMetadata, clientName, redirectURI string, scopes []string, now time.Time) (registration, error) {
	grants := []string{"authorization_code", "refresh_token"}
	reqBody := registrationRequest{
		ClientName:              clientName,
		RedirectURIs:            []string{redirectURI},
		GrantTypes:              grants,
		ResponseTypes:           []string{"code"},
		TokenEndpointAuthMethod: "none",
		ApplicationType:         "native",
		Scope:                   strings.Join(scopes, " "),
	}
	// A server that cannot register public clients still lets us sign in
	// as a confidential one with the secret it hands back.
	if len(md.TokenEndpointAuthMethodsSupported) > 0 && !slices.Contains(md.TokenEndpointAuthMethodsSupported, "none") {
		reqBody.TokenEndpointAuthMethod = "client_secret_basic"
		if !slices.Contains(md.TokenEndpointAuthMethodsSupported, "client_secret_basic") &&
			slices.Contains(md.TokenEndpointAuthMethodsSupported, "client_secret_post") {
			reqBody.TokenEndpointAuthMethod = "client_secret_post"
		}
	}
	b, err := json.Marshal(reqBody)
	if err != nil {
		return registration{}, fmt.Errorf("%w: %w", ErrRegistration, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, md.RegistrationEndpoint, bytes.NewReader(b))
	if err != nil {
		return registration{}, fmt.Errorf("%w: %w", ErrRegistration, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	const during = "while registering the client"
	resp, err := hc.Do(req)
	if err != nil {
		return registration{}, failed(ctx, ErrRegistration, "registration", "", err, during)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadataBytes))
	if err != nil {
		return registration{}, failed(ctx, ErrRegistration, "registration", "", err, during)
	}
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		var oe oauthError
		_ = json.Unmarshal(body, &oe)
		return registration{}, failed(ctx, ErrRegistration, "registration", oe.Error,
			fmt.Errorf("%s answered HTTP %d %s", md.RegistrationEndpoint, resp.StatusCode, oe.describe()), during)
	}
	var rr registrationResponse
	if err := json.Unmarshal(body, &rr); err != nil || rr.ClientID == "" {
		return registration{}, failed(ctx, ErrRegistration, "registration", "",
			fmt.Errorf("%s answered without a usable client_id", md.RegistrationEndpoint), during)
	}
	method := rr.TokenEndpointAuthMethod
	if method == "" {
		method = reqBody.TokenEndpointAuthMethod
	}
	return registration{
		ClientID:                rr.ClientID,
		ClientSecret:            rr.ClientSecret,
		TokenEndpointAuthMethod: method,
		ClientSecretExpiresAt:   rr.ClientSecretExpiresAt,
		RegisteredAt:            now,
	}, nil
}
