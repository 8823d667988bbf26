package authpkce

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/oauth2"
)

// errRevocation is the kind of a failed RFC 7009 request.
var errRevocation = errors.New("revocation failed")

// Forgotten says what Forget did beyond dropping the grant.
type Forgotten struct {
	// Revoked: the authorization server accepted the RFC 7009 revocation.
	Revoked bool
	// RevokeErr is why revocation failed or was not possible; the grant is
	// forgotten locally either way.
	RevokeErr error
	// ClearOnHost: the host may still hold the token for Resource. On a
	// host that speaks AHP 1.0 the caller sends `authenticate` with an empty
	// token for Resource, which revokes it there; older hosts cannot be told.
	ClearOnHost bool
	Resource    string
}

// Forget drops a saved grant (sign-out) and revokes its tokens at the
// authorization server when the server advertises a revocation_endpoint.
// The grant is gone from the store even when revocation fails: the user
// asked to forget it, and a server that is down must not keep it here.
func (a *Authenticator) Forget(ctx context.Context, g StoredGrant) (Forgotten, error) {
	k := g.key()
	tok, ok := a.store.token(k)
	if !ok {
		return Forgotten{}, fmt.Errorf("%w: no saved grant for %s from %s", ErrStore, clean(g.Resource), clean(g.Host))
	}
	if err := a.store.dropToken(k); err != nil {
		return Forgotten{}, err
	}
	out := Forgotten{ClearOnHost: true, Resource: g.Resource}
	if k.ClientID == HandClient {
		return out, nil // no client of ours obtained it: nothing to revoke it with
	}
	out.Revoked, out.RevokeErr = a.revoke(ctx, k, tok)
	return out, nil
}

// revoke is RFC 7009: the refresh token first (revoking it ends the grant
// on most servers), then the access token, which a server may keep valid
// until it expires otherwise.
func (a *Authenticator) revoke(ctx context.Context, k tokenKey, tok Token) (bool, error) {
	// No one can be asked here (forgetting runs in the background), so a
	// server the policy would ask about is not contacted; the grant is
	// forgotten locally all the same.
	pol := policyFor(k.Issuer, k.Host, nil)
	ctx = withPolicy(ctx, pol)
	if err := a.checkServerAddress(ctx, k.Issuer, pol); err != nil {
		return false, fmt.Errorf("revoke: %w", err)
	}
	md, err := discover(ctx, a.hc, k.Issuer)
	if err != nil {
		return false, fmt.Errorf("revoke: %w", err)
	}
	if md.RevocationEndpoint == "" {
		return false, fmt.Errorf("revoke: %s advertises no revocation_endpoint", clean(k.Issuer))
	}
	if _, err := checkServerURL("revocation_endpoint", md.RevocationEndpoint); err != nil {
		return false, fmt.Errorf("revoke: %w", err)
	}
	if err := a.checkServerAddress(ctx, md.RevocationEndpoint, pol); err != nil {
		return false, fmt.Errorf("revoke: %w", err)
	}
	ci := a.identity(nil, md, k.Issuer)
	if ci.id != k.ClientID {
		// A host's pre-registered client: its id is the grant's, and a
		// public client needs no secret to revoke its own tokens.
		ci = clientIdentity{id: k.ClientID, style: oauth2.AuthStyleInParams}
	}
	for _, t := range []struct{ value, hint string }{{tok.RefreshToken, "refresh_token"}, {tok.AccessToken, "access_token"}} {
		if t.value == "" {
			continue
		}
		if err := a.revokeOne(ctx, md.RevocationEndpoint, ci, t.value, t.hint); err != nil {
			return false, err
		}
	}
	return true, nil
}

func (a *Authenticator) revokeOne(ctx context.Context, endpoint string, ci clientIdentity, token, hint string) error {
	form := url.Values{"token": {token}, "token_type_hint": {hint}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, nil)
	if err != nil {
		return fmt.Errorf("revoke: %w", err)
	}
	authorize(req, form, ci)
	resp, err := a.hc.Do(req)
	if err != nil {
		return fmt.Errorf("revoke: %w", failed(ctx, errRevocation, "revocation", "", unwrapNetErr(err), "while revoking"))
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxMetadataBytes))
	// RFC 7009 §2.2: 200 whether or not the token was still valid.
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("revoke: %w", failed(ctx, errRevocation, "revocation", "", fmt.Errorf("%s answered HTTP %d", endpoint, resp.StatusCode), "while revoking"))
	}
	return nil
}

// authorize puts form in req's body with the client's authentication at
// the token endpoint (or a sibling endpoint such as revocation): HTTP
// Basic, or client_id (and secret) in the form.
func authorize(req *http.Request, form url.Values, ci clientIdentity) {
	if ci.style == oauth2.AuthStyleInHeader {
		req.SetBasicAuth(url.QueryEscape(ci.id), url.QueryEscape(ci.secret))
	} else {
		form.Set("client_id", ci.id)
		if ci.secret != "" {
			form.Set("client_secret", ci.secret)
		}
	}
	body := form.Encode()
	req.Body = io.NopCloser(strings.NewReader(body))
	req.ContentLength = int64(len(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(body)), nil }
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
}
