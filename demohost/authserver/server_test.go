package authserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"
)

func TestMetadata(t *testing.T) {
	ctx := testCtx(t)
	s := startServer(t, Config{})
	if !strings.HasPrefix(s.Issuer(), "http://127.0.0.1:") || strings.HasSuffix(s.Issuer(), ":0") {
		t.Fatalf("Issuer() = %q, want http://127.0.0.1:<ephemeral>", s.Issuer())
	}
	var md map[string]any
	resp := getJSON(t, ctx, s.Issuer()+MetadataPath, &md)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	wantStr := map[string]string{
		"issuer":                 s.Issuer(),
		"authorization_endpoint": s.Issuer() + "/authorize",
		"token_endpoint":         s.Issuer() + "/token",
		"registration_endpoint":  s.Issuer() + "/register",
		"introspection_endpoint": s.Issuer() + "/introspect",
	}
	for k, v := range wantStr {
		if md[k] != v {
			t.Errorf("%s = %v, want %q", k, md[k], v)
		}
	}
	wantList := map[string][]string{
		"scopes_supported":                      DefaultScopes,
		"response_types_supported":              {"code"},
		"grant_types_supported":                 {"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":      {"S256"},
		"token_endpoint_auth_methods_supported": {"none", "client_secret_basic", "client_secret_post"},
	}
	for k, want := range wantList {
		raw, _ := md[k].([]any)
		var got []string
		for _, v := range raw {
			got = append(got, v.(string))
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s = %v, want %v", k, got, want)
		}
	}
}

func TestPublicClientFullFlow(t *testing.T) {
	ctx := testCtx(t)
	s := startServer(t, Config{HostClientSecret: "host-secret-for-tests"})
	cb := startCallback(t)
	conf := oauthConf(s, s.PublicClientID(), cb.URL, "mcp:read", "tools:deploy")

	tok := fullFlow(t, ctx, s, conf, cb, testResource)
	if tok.AccessToken == "" || tok.RefreshToken == "" {
		t.Fatalf("want access and refresh token, got access=%t refresh=%t", tok.AccessToken != "", tok.RefreshToken != "")
	}
	if got := tok.Extra("scope"); got != "mcp:read tools:deploy" {
		t.Errorf("token scope = %v", got)
	}

	info, err := s.Introspect(ctx, tok.AccessToken)
	if err != nil {
		t.Fatal(err)
	}
	if !info.Active {
		t.Fatal("fresh token introspects inactive")
	}
	if !slices.Equal(info.Scopes, []string{"mcp:read", "tools:deploy"}) {
		t.Errorf("Scopes = %v", info.Scopes)
	}
	if !slices.Equal(info.Audience, []string{testResource}) {
		t.Errorf("Audience = %v, want [%s]", info.Audience, testResource)
	}
	if info.ClientID != s.PublicClientID() || info.Subject != DemoSubject {
		t.Errorf("ClientID=%q Subject=%q", info.ClientID, info.Subject)
	}
	if d := time.Until(info.ExpiresAt); d < 50*time.Minute || d > 61*time.Minute {
		t.Errorf("ExpiresAt in %v, want about 1h", d)
	}

	// The same over RFC 7662, as the host client.
	got := introspectHTTP(t, ctx, s, DefaultHostID, "host-secret-for-tests", tok.AccessToken)
	if got["active"] != true || got["scope"] != "mcp:read tools:deploy" || got["sub"] != DemoSubject || got["client_id"] != s.PublicClientID() {
		t.Errorf("introspection = %v", got)
	}
	if aud, _ := got["aud"].([]any); len(aud) != 1 || aud[0] != testResource {
		t.Errorf("introspection aud = %v", got["aud"])
	}

	// A refresh token must never pass as an access token.
	if info, err := s.Introspect(ctx, tok.RefreshToken); err != nil || info.Active {
		t.Errorf("refresh token introspects active=%t err=%v", info.Active, err)
	}
	if got := introspectHTTP(t, ctx, s, DefaultHostID, "host-secret-for-tests", tok.RefreshToken); got["active"] != false {
		t.Errorf("HTTP introspection of refresh token = %v", got)
	}
	if info, err := s.Introspect(ctx, "not-a-token"); err != nil || info.Active {
		t.Errorf("garbage introspects active=%t err=%v", info.Active, err)
	}
}

func introspectHTTP(t *testing.T, ctx context.Context, s *Server, id, secret, token string) map[string]any {
	t.Helper()
	resp := introspectRaw(t, ctx, s, id, secret, token)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("introspect status %d: %s", resp.StatusCode, b)
	}
	var m map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

func introspectRaw(t *testing.T, ctx context.Context, s *Server, id, secret, token string) *http.Response {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.Issuer()+IntrospectPath,
		strings.NewReader(url.Values{"token": {token}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if id != "" {
		req.SetBasicAuth(url.QueryEscape(id), url.QueryEscape(secret))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func TestIntrospectEndpointNeedsHostClient(t *testing.T) {
	ctx := testCtx(t)
	s := startServer(t, Config{HostClientSecret: "right"})
	cb := startCallback(t)
	tok := fullFlow(t, ctx, s, oauthConf(s, s.PublicClientID(), cb.URL, "mcp:read"), cb, testResource)

	for _, tc := range []struct{ name, id, secret string }{
		{"no auth", "", ""},
		{"wrong secret", DefaultHostID, "wrong"},
		{"public client", s.PublicClientID(), ""},
		{"unknown client", "nobody", "x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := introspectRaw(t, ctx, s, tc.id, tc.secret, tok.AccessToken)
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("status %d, want 401: %s", resp.StatusCode, body)
			}
			if bytes.Contains(body, []byte(`"active":true`)) {
				t.Fatalf("leaked token data: %s", body)
			}
		})
	}

	t.Run("bearer token instead of client auth", func(t *testing.T) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.Issuer()+IntrospectPath,
			strings.NewReader(url.Values{"token": {tok.AccessToken}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("status %d, want 401", resp.StatusCode)
		}
	})

	t.Run("disabled without a host secret", func(t *testing.T) {
		s2 := startServer(t, Config{})
		resp := introspectRaw(t, ctx, s2, DefaultHostID, "", "x")
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("status %d, want 401", resp.StatusCode)
		}
	})
}

func TestPKCEEnforced(t *testing.T) {
	ctx := testCtx(t)
	s := startServer(t, Config{})
	cb := startCallback(t)
	conf := oauthConf(s, s.PublicClientID(), cb.URL, "mcp:read")
	verifier := oauth2.GenerateVerifier()

	for _, tc := range []struct {
		name string
		opts []oauth2.AuthCodeOption
	}{
		{"missing", nil},
		{"plain", []oauth2.AuthCodeOption{
			oauth2.SetAuthURLParam("code_challenge", verifier),
			oauth2.SetAuthURLParam("code_challenge_method", "plain"),
		}},
		{"method omitted means plain", []oauth2.AuthCodeOption{
			oauth2.SetAuthURLParam("code_challenge", verifier),
		}},
		{"unknown method", []oauth2.AuthCodeOption{
			oauth2.SetAuthURLParam("code_challenge", verifier),
			oauth2.SetAuthURLParam("code_challenge_method", "S512"),
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			state := "state-pkce-" + strings.ReplaceAll(tc.name, " ", "-")
			redirect, err := ApproveHeadless(ctx, nil, conf.AuthCodeURL(state, tc.opts...))
			if err != nil {
				t.Fatal(err)
			}
			q := redirect.Query()
			if q.Get("error") != "invalid_request" || q.Get("code") != "" || q.Get("state") != state {
				t.Fatalf("redirect %s, want error=invalid_request with state and no code", redirect)
			}
		})
	}
}

func TestWrongVerifierRejected(t *testing.T) {
	ctx := testCtx(t)
	s := startServer(t, Config{})
	cb := startCallback(t)
	conf := oauthConf(s, s.PublicClientID(), cb.URL, "mcp:read")
	verifier := oauth2.GenerateVerifier()
	redirect, err := ApproveHeadless(ctx, nil, conf.AuthCodeURL("state-wrong-verifier", oauth2.S256ChallengeOption(verifier)))
	if err != nil || RedirectError(redirect) != nil {
		t.Fatalf("approve: %v %v", err, RedirectError(redirect))
	}
	code := cb.deliver(t, ctx, redirect).Get("code")

	_, err = conf.Exchange(ctx, code, oauth2.VerifierOption(oauth2.GenerateVerifier()))
	if oauthErrCode(err) != "invalid_grant" {
		t.Fatalf("wrong verifier: err = %v, want invalid_grant", err)
	}
	_, err = conf.Exchange(ctx, code)
	if err == nil {
		t.Fatal("exchange without verifier succeeded")
	}
}

func TestRefresh(t *testing.T) {
	ctx := testCtx(t)
	s := startServer(t, Config{})
	cb := startCallback(t)
	conf := oauthConf(s, s.PublicClientID(), cb.URL, "mcp:read", "mcp:write")
	tok := fullFlow(t, ctx, s, conf, cb, testResource)

	stale := *tok
	stale.Expiry = time.Now().Add(-time.Minute)
	fresh, err := conf.TokenSource(ctx, &stale).Token()
	if err != nil {
		t.Fatalf("refresh: %v", err)
	}
	if fresh.AccessToken == tok.AccessToken || fresh.RefreshToken == "" || fresh.RefreshToken == tok.RefreshToken {
		t.Fatal("refresh did not rotate the access and refresh tokens")
	}
	info, err := s.Introspect(ctx, fresh.AccessToken)
	if err != nil || !info.Active {
		t.Fatalf("refreshed token inactive: %v", err)
	}
	if !slices.Equal(info.Audience, []string{testResource}) || !slices.Equal(info.Scopes, []string{"mcp:read", "mcp:write"}) {
		t.Errorf("refreshed token aud=%v scopes=%v", info.Audience, info.Scopes)
	}

	// A refresh naming a resource outside the grant is invalid_target.
	_, err = conf.Exchange(ctx, "", oauth2.SetAuthURLParam("grant_type", "refresh_token"),
		oauth2.SetAuthURLParam("refresh_token", fresh.RefreshToken),
		oauth2.SetAuthURLParam("resource", "http://127.0.0.1:9/other"))
	if oauthErrCode(err) != "invalid_target" {
		t.Fatalf("foreign resource on refresh: err = %v, want invalid_target", err)
	}
	// Rotation: the used refresh token is spent.
	_, err = conf.TokenSource(ctx, &stale).Token()
	if err == nil {
		t.Fatal("reusing a rotated refresh token succeeded")
	}
	// Reuse is treated as theft: the whole grant is revoked.
	if info, err := s.Introspect(ctx, fresh.AccessToken); err != nil || info.Active {
		t.Errorf("access token survived refresh-token reuse: active=%t err=%v", info.Active, err)
	}
}

func TestDynamicRegistrationThenFlow(t *testing.T) {
	ctx := testCtx(t)
	s := startServer(t, Config{})
	cb := startCallback(t)

	status, reg := register(t, ctx, s, map[string]any{
		"redirect_uris":              []string{cb.URL},
		"client_name":                "Test <Client> & co",
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": "none",
		"scope":                      "mcp:read mcp:admin",
	})
	if status != http.StatusCreated {
		t.Fatalf("status %d: %v", status, reg)
	}
	id, _ := reg["client_id"].(string)
	if id == "" || id == s.PublicClientID() {
		t.Fatalf("client_id = %q", id)
	}
	if reg["token_endpoint_auth_method"] != "none" || reg["scope"] != "mcp:read mcp:admin" || reg["client_name"] != "Test <Client> & co" {
		t.Errorf("registered metadata = %v", reg)
	}
	if _, ok := reg["client_secret"]; ok {
		t.Error("public client got a secret")
	}

	// The consent page names the client, escaped.
	conf := oauthConf(s, id, cb.URL, "mcp:admin")
	page := consentPage(t, ctx, conf.AuthCodeURL("state-dyn-page", oauth2.S256ChallengeOption(oauth2.GenerateVerifier()),
		oauth2.SetAuthURLParam("resource", testResource)))
	for _, want := range []string{"Test &lt;Client&gt; &amp; co", "mcp:admin", testResource, `<form id="consent"`, `<input type="hidden" name="decision" value="approve">`, `<form id="consent-deny"`, `name="decision" value="deny"`} {
		if !strings.Contains(page, want) {
			t.Errorf("consent page lacks %q", want)
		}
	}
	if strings.Contains(page, "<Client>") {
		t.Error("client name not escaped")
	}

	tok := fullFlow(t, ctx, s, conf, cb, testResource)
	info, err := s.Introspect(ctx, tok.AccessToken)
	if err != nil || !info.Active || info.ClientID != id || !slices.Equal(info.Scopes, []string{"mcp:admin"}) {
		t.Fatalf("introspection %+v err %v", info, err)
	}

	// A registered client may not ask for scopes beyond its registration.
	redirect, err := ApproveHeadless(ctx, nil, oauthConf(s, id, cb.URL, "mcp:write").AuthCodeURL("state-dyn-scope",
		oauth2.S256ChallengeOption(oauth2.GenerateVerifier())))
	if err != nil || redirect.Query().Get("error") != "invalid_scope" {
		t.Fatalf("scope beyond registration: %v %v", redirect, err)
	}
}

func consentPage(t *testing.T, ctx context.Context, authURL string) string {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	resp, err := noFollow().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("consent page status %d: %s", resp.StatusCode, b)
	}
	return string(b)
}

func register(t *testing.T, ctx context.Context, s *Server, body any) (int, map[string]any) {
	t.Helper()
	var raw []byte
	switch b := body.(type) {
	case string:
		raw = []byte(b)
	default:
		raw, _ = json.Marshal(b)
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.Issuer()+RegisterPath, bytes.NewReader(raw))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatalf("decode registration response: %v", err)
	}
	return resp.StatusCode, m
}

func TestRegistrationRefused(t *testing.T) {
	ctx := testCtx(t)
	s := startServer(t, Config{})
	ok := []string{"http://127.0.0.1:4242/callback"}
	for _, tc := range []struct {
		name string
		body any
		want string
	}{
		{"non-loopback https", map[string]any{"redirect_uris": []string{"https://evil.example/callback"}}, "invalid_redirect_uri"},
		{"localhost name", map[string]any{"redirect_uris": []string{"http://localhost:4242/callback"}}, "invalid_redirect_uri"},
		{"ipv6 loopback", map[string]any{"redirect_uris": []string{"http://[::1]:4242/callback"}}, "invalid_redirect_uri"},
		{"other path", map[string]any{"redirect_uris": []string{"http://127.0.0.1:4242/cb"}}, "invalid_redirect_uri"},
		{"query", map[string]any{"redirect_uris": []string{"http://127.0.0.1:4242/callback?x=1"}}, "invalid_redirect_uri"},
		{"fragment", map[string]any{"redirect_uris": []string{"http://127.0.0.1:4242/callback#f"}}, "invalid_redirect_uri"},
		{"userinfo", map[string]any{"redirect_uris": []string{"http://me@127.0.0.1:4242/callback"}}, "invalid_redirect_uri"},
		{"one bad among good", map[string]any{"redirect_uris": []string{ok[0], "http://10.0.0.1/callback"}}, "invalid_redirect_uri"},
		{"no redirect uris", map[string]any{"client_name": "x"}, "invalid_redirect_uri"},
		{"confidential", map[string]any{"redirect_uris": ok, "token_endpoint_auth_method": "client_secret_basic"}, "invalid_client_metadata"},
		{"implicit grant", map[string]any{"redirect_uris": ok, "grant_types": []string{"implicit"}}, "invalid_client_metadata"},
		{"token response type", map[string]any{"redirect_uris": ok, "response_types": []string{"token"}}, "invalid_client_metadata"},
		{"unknown scope", map[string]any{"redirect_uris": ok, "scope": "mcp:read root"}, "invalid_client_metadata"},
		{"control chars in name", map[string]any{"redirect_uris": ok, "client_name": "a\x1b[31mb"}, "invalid_client_metadata"},
		{"not json", "redirect_uris=x", "invalid_client_metadata"},
		{"too large", `{"client_name":"` + strings.Repeat("a", 70<<10) + `"}`, "invalid_client_metadata"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, m := register(t, ctx, s, tc.body)
			if status != http.StatusBadRequest || m["error"] != tc.want || m["error_description"] == "" {
				t.Fatalf("status %d body %v, want 400 %s", status, m, tc.want)
			}
		})
	}

	t.Run("defaults", func(t *testing.T) {
		status, m := register(t, ctx, s, map[string]any{"redirect_uris": ok})
		if status != http.StatusCreated {
			t.Fatalf("status %d %v", status, m)
		}
		if m["scope"] != strings.Join(DefaultScopes, " ") || m["token_endpoint_auth_method"] != "none" {
			t.Errorf("defaults = %v", m)
		}
	})
}

func TestDeny(t *testing.T) {
	ctx := testCtx(t)
	s := startServer(t, Config{})
	cb := startCallback(t)
	conf := oauthConf(s, s.PublicClientID(), cb.URL, "mcp:read")
	redirect, err := DenyHeadless(ctx, nil, conf.AuthCodeURL("state-deny-1234",
		oauth2.S256ChallengeOption(oauth2.GenerateVerifier()), oauth2.SetAuthURLParam("resource", testResource)))
	if err != nil {
		t.Fatal(err)
	}
	q := cb.deliver(t, ctx, redirect)
	if q.Get("error") != "access_denied" || q.Get("state") != "state-deny-1234" || q.Get("code") != "" {
		t.Fatalf("deny delivered %v", q)
	}
	if RedirectError(redirect) == nil {
		t.Fatal("RedirectError(deny) = nil")
	}
}

func TestAuthorizeErrors(t *testing.T) {
	ctx := testCtx(t)
	s := startServer(t, Config{Resources: []string{testResource}})
	cb := startCallback(t)
	pkce := oauth2.S256ChallengeOption(oauth2.GenerateVerifier())

	t.Run("unknown scope redirects invalid_scope", func(t *testing.T) {
		conf := oauthConf(s, s.PublicClientID(), cb.URL, "mcp:read", "root")
		redirect, err := ApproveHeadless(ctx, nil, conf.AuthCodeURL("state-scope-1", pkce))
		if err != nil {
			t.Fatal(err)
		}
		if q := redirect.Query(); q.Get("error") != "invalid_scope" || q.Get("state") != "state-scope-1" {
			t.Fatalf("redirect %s", redirect)
		}
	})

	t.Run("short state refused", func(t *testing.T) {
		conf := oauthConf(s, s.PublicClientID(), cb.URL, "mcp:read")
		redirect, err := ApproveHeadless(ctx, nil, conf.AuthCodeURL("abc", pkce))
		if err != nil {
			t.Fatal(err)
		}
		if redirect.Query().Get("error") != "invalid_state" || redirect.Query().Get("code") != "" {
			t.Fatalf("redirect %s", redirect)
		}
	})

	t.Run("resource not served is invalid_target", func(t *testing.T) {
		conf := oauthConf(s, s.PublicClientID(), cb.URL, "mcp:read")
		redirect, err := ApproveHeadless(ctx, nil, conf.AuthCodeURL("state-target-1", pkce,
			oauth2.SetAuthURLParam("resource", "http://127.0.0.1:1/elsewhere")))
		if err != nil {
			t.Fatal(err)
		}
		if redirect.Query().Get("error") != "invalid_target" {
			t.Fatalf("redirect %s", redirect)
		}
	})

	t.Run("resource with fragment is invalid_target", func(t *testing.T) {
		s2 := startServer(t, Config{})
		conf := oauthConf(s2, s2.PublicClientID(), cb.URL, "mcp:read")
		redirect, err := ApproveHeadless(ctx, nil, conf.AuthCodeURL("state-target-2", pkce,
			oauth2.SetAuthURLParam("resource", "http://127.0.0.1:1/x#frag")))
		if err != nil {
			t.Fatal(err)
		}
		if redirect.Query().Get("error") != "invalid_target" {
			t.Fatalf("redirect %s", redirect)
		}
	})

	// A redirect_uri we refuse must never be redirected to.
	for _, tc := range []struct{ name, redirect string }{
		{"missing", ""},
		{"localhost", "http://localhost:5555/callback"},
		{"other path", "http://127.0.0.1:5555/evil"},
		{"https", "https://127.0.0.1:5555/callback"},
		{"remote", "http://attacker.example/callback"},
		{"userinfo", "http://x@127.0.0.1:5555/callback"},
	} {
		t.Run("redirect "+tc.name, func(t *testing.T) {
			conf := oauthConf(s, s.PublicClientID(), tc.redirect, "mcp:read")
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, conf.AuthCodeURL("state-redirect", pkce), nil)
			resp, err := noFollow().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Location") != "" {
				t.Fatalf("status %d Location %q, want 400 without redirect", resp.StatusCode, resp.Header.Get("Location"))
			}
		})
	}

	t.Run("unknown client", func(t *testing.T) {
		conf := oauthConf(s, "who", cb.URL, "mcp:read")
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, conf.AuthCodeURL("state-client", pkce), nil)
		resp, err := noFollow().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode < 400 || resp.Header.Get("Location") != "" {
			t.Fatalf("status %d Location %q", resp.StatusCode, resp.Header.Get("Location"))
		}
	})
}

func TestConsentCSRF(t *testing.T) {
	ctx := testCtx(t)
	s := startServer(t, Config{})
	cb := startCallback(t)
	conf := oauthConf(s, s.PublicClientID(), cb.URL, "mcp:read")
	authURL := conf.AuthCodeURL("state-csrf-1234", oauth2.S256ChallengeOption(oauth2.GenerateVerifier()))

	load := func(t *testing.T) (*http.Client, url.Values) {
		jar, _ := cookiejar.New(nil)
		c := noFollow()
		c.Jar = jar
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		_, fields, err := parseConsentForm(body, ConsentFormID)
		if err != nil {
			t.Fatal(err)
		}
		return c, fields
	}
	post := func(t *testing.T, c *http.Client, f url.Values) int {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.Issuer()+AuthorizePath, strings.NewReader(f.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}

	t.Run("wrong token", func(t *testing.T) {
		c, f := load(t)
		f.Set(FieldCSRF, "forged")
		if got := post(t, c, f); got != http.StatusForbidden {
			t.Fatalf("status %d, want 403", got)
		}
		f2 := f
		f2.Set(FieldCSRF, "forged")
		if got := post(t, c, f2); got != http.StatusBadRequest {
			t.Fatalf("pending request survived a failed attempt: %d", got)
		}
	})
	t.Run("other browser (no cookie)", func(t *testing.T) {
		_, f := load(t)
		if got := post(t, noFollow(), f); got != http.StatusForbidden {
			t.Fatalf("status %d, want 403", got)
		}
	})
	t.Run("replay", func(t *testing.T) {
		c, f := load(t)
		if got := post(t, c, f); got != http.StatusSeeOther {
			t.Fatalf("first submit %d, want 303", got)
		}
		if got := post(t, c, f); got != http.StatusBadRequest {
			t.Fatalf("replayed submit %d, want 400", got)
		}
	})
	t.Run("bad decision", func(t *testing.T) {
		c, f := load(t)
		f.Set(FieldDecision, "maybe")
		if got := post(t, c, f); got != http.StatusBadRequest {
			t.Fatalf("status %d, want 400", got)
		}
	})
}

func TestExpiredTokenInactive(t *testing.T) {
	ctx := testCtx(t)
	s := startServer(t, Config{AccessTokenLifespan: 2 * time.Second, HostClientSecret: "h"})
	cb := startCallback(t)
	tok := fullFlow(t, ctx, s, oauthConf(s, s.PublicClientID(), cb.URL, "mcp:read"), cb, testResource)

	info, err := s.Introspect(ctx, tok.AccessToken)
	if err != nil || !info.Active {
		t.Fatalf("fresh token inactive: %v", err)
	}
	// Expiry is a point in time, not an event: wait until just past it.
	select {
	case <-time.After(time.Until(info.ExpiresAt) + 20*time.Millisecond):
	case <-ctx.Done():
		t.Fatal(ctx.Err())
	}
	info, err = s.Introspect(ctx, tok.AccessToken)
	if err != nil || info.Active {
		t.Fatalf("expired token: active=%t err=%v", info.Active, err)
	}
	if got := introspectHTTP(t, ctx, s, DefaultHostID, "h", tok.AccessToken); got["active"] != false || len(got) != 1 {
		t.Fatalf("HTTP introspection of expired token = %v", got)
	}
}

func TestCloseStopsEverything(t *testing.T) {
	base := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	s, err := Start(ctx, Config{})
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{}
	c := &http.Client{Transport: tr}
	resp, err := c.Get(s.Issuer() + MetadataPath)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	tr.CloseIdleConnections()

	// Cancelling Start's context closes the server.
	cancel()
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := c.Get(s.Issuer() + MetadataPath); err == nil {
		t.Fatal("server still answers after Close")
	}
	tr.CloseIdleConnections()

	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > base {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("goroutines %d > %d after Close:\n%s", runtime.NumGoroutine(), base, buf[:runtime.Stack(buf, true)])
		}
		runtime.Gosched()
	}
}

func TestContextCancelCloses(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	s, err := Start(ctx, Config{})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		t.Fatal("server still serving after ctx cancel")
	}
}

func TestStartRejectsBadConfig(t *testing.T) {
	for _, cfg := range []Config{
		{PublicClientID: "same", HostClientID: "same"},
		{Scopes: []string{"has space"}},
		{Resources: []string{"relative/path"}},
	} {
		if s, err := Start(context.Background(), cfg); err == nil {
			s.Close()
			t.Errorf("Start(%+v) succeeded", cfg)
		}
	}
}

// Native clients differ in how a public client "authenticates" at the token
// endpoint; all of x/oauth2's styles must work with no secret.
func TestTokenEndpointAuthStyles(t *testing.T) {
	ctx := testCtx(t)
	s := startServer(t, Config{})
	for _, tc := range []struct {
		name  string
		style oauth2.AuthStyle
	}{
		{"params", oauth2.AuthStyleInParams},
		{"basic header", oauth2.AuthStyleInHeader},
		{"auto detect", oauth2.AuthStyleAutoDetect},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cb := startCallback(t)
			conf := oauthConf(s, s.PublicClientID(), cb.URL, "mcp:read")
			conf.Endpoint.AuthStyle = tc.style
			tok := fullFlow(t, ctx, s, conf, cb, "")
			info, err := s.Introspect(ctx, tok.AccessToken)
			if err != nil || !info.Active || len(info.Audience) != 0 {
				t.Fatalf("introspection %+v err %v", info, err)
			}
		})
	}
}

func TestStartWithDoneContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if s, err := Start(ctx, Config{}); err == nil {
		s.Close()
		t.Fatal("Start with a cancelled context succeeded")
	}
}

// The demo host may run several sign-ins at once (one per resource); the
// consent store and client registry must hold up under -race.
func TestConcurrentFlows(t *testing.T) {
	s := startServer(t, Config{})
	for i := range 8 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			ctx := testCtx(t)
			cb := startCallback(t)
			clientID := s.PublicClientID()
			if i%2 == 1 {
				status, reg := register(t, ctx, s, map[string]any{"redirect_uris": []string{cb.URL}})
				if status != http.StatusCreated {
					t.Fatalf("register: %d %v", status, reg)
				}
				clientID = reg["client_id"].(string)
			}
			res := fmt.Sprintf("http://127.0.0.1:%d/ahp", 7000+i)
			tok := fullFlow(t, ctx, s, oauthConf(s, clientID, cb.URL, "mcp:read"), cb, res)
			info, err := s.Introspect(ctx, tok.AccessToken)
			if err != nil || !info.Active || !slices.Equal(info.Audience, []string{res}) || info.ClientID != clientID {
				t.Fatalf("introspection %+v err %v", info, err)
			}
		})
	}
}

// A code redeemed twice is stolen or replayed (RFC 6749 §4.1.2): the
// second exchange fails and the tokens of the first are revoked.
func TestCodeReplayRevokesGrant(t *testing.T) {
	ctx := testCtx(t)
	s := startServer(t, Config{})
	cb := startCallback(t)
	conf := oauthConf(s, s.PublicClientID(), cb.URL, "mcp:read")
	verifier := oauth2.GenerateVerifier()
	redirect, err := ApproveHeadless(ctx, nil, conf.AuthCodeURL("state-replay-1", oauth2.S256ChallengeOption(verifier)))
	if err != nil || RedirectError(redirect) != nil {
		t.Fatalf("approve: %v %v", err, RedirectError(redirect))
	}
	code := cb.deliver(t, ctx, redirect).Get("code")
	if !strings.HasPrefix(code, CodePrefix) {
		t.Errorf("code %q lacks the prefix %q", code[:min(len(code), 12)], CodePrefix)
	}
	tok, err := conf.Exchange(ctx, code, oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(tok.AccessToken, AccessTokenPrefix) || !strings.HasPrefix(tok.RefreshToken, RefreshTokenPrefix) {
		t.Error("tokens lack their prefixes")
	}
	if _, err := conf.Exchange(ctx, code, oauth2.VerifierOption(verifier)); oauthErrCode(err) != "invalid_grant" {
		t.Fatalf("second exchange: %v, want invalid_grant", err)
	}
	if info, err := s.Introspect(ctx, tok.AccessToken); err != nil || info.Active {
		t.Errorf("access token survived the code's replay: active=%t err=%v", info.Active, err)
	}
	stale := *tok
	stale.Expiry = time.Now().Add(-time.Minute)
	if _, err := conf.TokenSource(ctx, &stale).Token(); err == nil {
		t.Error("refresh token survived the code's replay")
	}
}

// RFC 7009: a public client revokes its refresh token, and the grant's
// access token ends with it; someone else's client cannot.
func TestRevokeEndsGrant(t *testing.T) {
	ctx := testCtx(t)
	s := startServer(t, Config{})
	cb := startCallback(t)
	conf := oauthConf(s, s.PublicClientID(), cb.URL, "mcp:read")
	tok := fullFlow(t, ctx, s, conf, cb, testResource)

	revoke := func(clientID, token string) int {
		t.Helper()
		resp, err := http.PostForm(s.Issuer()+RevokePath, url.Values{"client_id": {clientID}, "token": {token}, "token_type_hint": {"refresh_token"}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	_, reg := register(t, ctx, s, map[string]any{"redirect_uris": []string{cb.URL}})
	other, _ := reg["client_id"].(string)
	if got := revoke(other, tok.RefreshToken); got != http.StatusOK {
		t.Fatalf("another client's revocation: %d, want 200 (RFC 7009 §2.2)", got)
	}
	if info, _ := s.Introspect(ctx, tok.AccessToken); !info.Active {
		t.Fatal("another client revoked the grant")
	}
	if got := revoke("nobody", tok.RefreshToken); got != http.StatusUnauthorized {
		t.Fatalf("unknown client: %d, want 401", got)
	}
	if got := revoke(s.PublicClientID(), tok.RefreshToken); got != http.StatusOK {
		t.Fatalf("revoke: %d", got)
	}
	if info, _ := s.Introspect(ctx, tok.AccessToken); info.Active {
		t.Error("access token active after its grant's refresh token was revoked")
	}
	if got := revoke(s.PublicClientID(), "not-a-token"); got != http.StatusOK {
		t.Errorf("unknown token: %d, want 200", got)
	}
}
