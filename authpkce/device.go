package authpkce

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"golang.org/x/oauth2"
)

// DeviceCode is what the user needs for a device grant (RFC 8628 §3.2):
// open VerificationURI on any device and enter UserCode there.
type DeviceCode struct {
	UserCode        string
	VerificationURI string
	// VerificationURIComplete carries the code already; may be empty.
	VerificationURIComplete string
	Expiry                  time.Time
}

// ErrNoDeviceGrant: the authorization server does not offer RFC 8628.
var ErrNoDeviceGrant = errors.New("authorization server offers no device authorization grant")

// StartDevice begins a device authorization grant (RFC 8628) for req, for
// a user whose browser is on another machine: show Grant.Device (the user
// code and where to enter it), wait on Grant.Done while it polls. It needs
// a server that advertises device_authorization_endpoint and a client the
// server lets use the device grant (the host's oauthClient, or ours).
func (a *Authenticator) StartDevice(ctx context.Context, req GrantRequest) (*Grant, error) {
	p, err := a.plan(ctx, req)
	if err != nil {
		return nil, err
	}
	ctx = withPolicy(ctx, p.policy)
	md, err := discover(ctx, a.hc, p.issuer)
	if err != nil {
		return nil, err
	}
	if md.DeviceAuthorizationEndpoint == "" {
		return nil, fmt.Errorf("%w: %s", ErrNoDeviceGrant, clean(p.issuer))
	}
	if _, err := checkServerURL("device_authorization_endpoint", md.DeviceAuthorizationEndpoint); err != nil {
		return nil, err
	}
	if err := a.checkEndpoints(ctx, p, md.DeviceAuthorizationEndpoint, md.TokenEndpoint); err != nil {
		return nil, err
	}
	ci := a.identity(p.req.OAuthClient, md, p.issuer)
	if ci.id == "" {
		return nil, fmt.Errorf("%w: no OAuth client for %s that may use the device grant", ErrNoClientIdentity, clean(p.issuer))
	}
	conf := &oauth2.Config{
		ClientID:     ci.id,
		ClientSecret: ci.secret,
		Endpoint: oauth2.Endpoint{
			DeviceAuthURL: md.DeviceAuthorizationEndpoint,
			TokenURL:      md.TokenEndpoint,
			AuthStyle:     ci.style,
		},
		Scopes: p.scopes,
	}
	hctx := context.WithValue(ctx, oauth2.HTTPClient, a.httpFor(ctx))
	resource := oauth2.SetAuthURLParam("resource", p.resource)
	da, err := conf.DeviceAuth(hctx, resource)
	if err != nil {
		return nil, tokenError(hctx, "device authorization", err)
	}
	if da.DeviceCode == "" || da.UserCode == "" || da.VerificationURI == "" {
		return nil, fmt.Errorf("%w: the authorization server's device authorization endpoint answered without a device code, user code or verification URI", ErrAuthorization)
	}
	if _, err := checkServerURL("verification_uri", da.VerificationURI); err != nil {
		return nil, err
	}
	// Shown and copied exactly as re-encoded, like an authorization URL.
	verification, err := reencodeURL("verification_uri", da.VerificationURI)
	if err != nil {
		return nil, err
	}
	dc := &DeviceCode{
		UserCode:        clean(da.UserCode),
		VerificationURI: verification,
		Expiry:          da.Expiry,
	}
	if da.VerificationURIComplete != "" {
		if complete, err := reencodeURL("verification_uri_complete", da.VerificationURIComplete); err == nil && sameOrigin(complete, verification) {
			dc.VerificationURIComplete = complete
		}
	}
	gctx, cancel := context.WithCancelCause(ctx)
	gctx, cancelTimeout := context.WithTimeoutCause(gctx, a.timeout, ErrTimeout)
	g := &Grant{
		url:        verification,
		serverHost: hostOf(verification),
		issuer:     p.issuer,
		// RFC 8628 lets the verification page live anywhere; a page on
		// another origin than the issuer is shown with a warning naming
		// both (a relayed code from a real provider looks just like it).
		onIssuer: sameOrigin(verification, p.issuer),
		device:   dc,
		done:     make(chan struct{}),
		cancel:   func() { cancel(ErrCanceled) },
	}
	a.log.Info("device sign-in started", "resource", p.resource, "issuer", p.issuer, "verification_uri", verification)
	key := p.key(ci.id)
	go func() {
		defer cancel(nil)
		defer cancelTimeout()
		res, err := a.pollDevice(context.WithValue(gctx, oauth2.HTTPClient, a.httpFor(gctx)), conf, da, key, p.scopes, resource)
		g.res, g.err = res, err
		close(g.done)
	}()
	return g, nil
}

// pollDevice waits for the user to approve (x/oauth2 honours the server's
// interval and slow_down) and saves the token like a browser grant's.
func (a *Authenticator) pollDevice(ctx context.Context, conf *oauth2.Config, da *oauth2.DeviceAuthResponse, key tokenKey, scopes []string, opts ...oauth2.AuthCodeOption) (Result, error) {
	ot, err := conf.DeviceAccessToken(ctx, da, opts...)
	if err != nil {
		var re *oauth2.RetrieveError
		switch {
		case errors.As(err, &re) && re.ErrorCode == "access_denied":
			return Result{}, fmt.Errorf("%w: the device sign-in was refused", ErrAccessDenied)
		case errors.As(err, &re) && re.ErrorCode == "expired_token":
			return Result{}, fmt.Errorf("%w: the device code expired", ErrTimeout)
		case ctx.Err() != nil:
			return Result{}, ctxError(ctx, "waiting for the device sign-in")
		}
		return Result{}, tokenError(ctx, "token", err)
	}
	if err := checkBearer(ot.TokenType, conf.Endpoint.TokenURL); err != nil {
		return Result{}, err
	}
	t := Token{AccessToken: ot.AccessToken, RefreshToken: ot.RefreshToken, TokenType: ot.TokenType, Expiry: ot.Expiry, Scopes: scopes}
	if s, ok := ot.Extra("scope").(string); ok && s != "" {
		t.Scopes = strings.Fields(s)
	}
	if err := a.store.putToken(key, t, a.now()); err != nil {
		return Result{}, err
	}
	return Result{CachedToken: cached(key, t), Source: SourceDevice}, nil
}
