package authserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"

	"golang.org/x/net/html"
)

// ApproveHeadless plays the browser for tests: it GETs authURL (the consent
// page), submits the consent form with decision=approve and returns the
// redirect Location — normally http://127.0.0.1:PORT/callback?code=…&state=…
// — without following it, so the caller's callback listener sees nothing
// unless the caller fetches the URL itself.
//
// client may be nil; its Jar is used when set (a fresh cookie jar otherwise),
// its CheckRedirect is ignored. If the server refuses the request before
// consent (invalid_scope, PKCE missing, …) and redirects straight away, that
// redirect is returned with a nil error: check it with RedirectError.
func ApproveHeadless(ctx context.Context, client *http.Client, authURL string) (*url.URL, error) {
	return submitConsent(ctx, client, authURL, DecisionApprove)
}

// DenyHeadless is ApproveHeadless pressing Deny; the returned redirect
// carries error=access_denied and the state.
func DenyHeadless(ctx context.Context, client *http.Client, authURL string) (*url.URL, error) {
	return submitConsent(ctx, client, authURL, DecisionDeny)
}

// RedirectError returns the OAuth error a redirect to the client carries
// ("access_denied: …"), or nil when it carries a code.
func RedirectError(u *url.URL) error {
	q := u.Query()
	if e := q.Get("error"); e != "" {
		if d := q.Get("error_description"); d != "" {
			return fmt.Errorf("authorization refused: %s: %s", e, d)
		}
		return fmt.Errorf("authorization refused: %s", e)
	}
	if q.Get("code") == "" {
		return errors.New("authorization redirect carries neither code nor error")
	}
	return nil
}

func submitConsent(ctx context.Context, client *http.Client, authURL, decision string) (*url.URL, error) {
	c := &http.Client{}
	if client != nil {
		*c = *client
	}
	if c.Jar == nil {
		jar, err := cookiejar.New(nil)
		if err != nil {
			return nil, fmt.Errorf("headless consent: cookie jar: %w", err)
		}
		c.Jar = jar
	}
	// Stop at the first redirect: the consent page is never a redirect, and
	// the one after the form is the loopback callback we must not follow.
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

	base, err := url.Parse(authURL)
	if err != nil {
		return nil, fmt.Errorf("headless consent: parse authorization URL: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return nil, fmt.Errorf("headless consent: %w", err)
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("headless consent: GET consent page: %w", err)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("headless consent: read consent page: %w", err)
	}
	if isRedirect(resp.StatusCode) {
		return location(resp, base)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("headless consent: consent page answered %s: %s", resp.Status, snippet(body))
	}

	formID := ConsentFormID
	if decision == DecisionDeny {
		formID = DenyFormID
	}
	action, fields, err := parseConsentForm(body, formID)
	if err != nil {
		return nil, fmt.Errorf("headless consent: %w", err)
	}
	if fields.Get(FieldDecision) != decision {
		return nil, fmt.Errorf("headless consent: form %q does not submit %s", formID, decision)
	}
	target, err := base.Parse(action)
	if err != nil {
		return nil, fmt.Errorf("headless consent: form action: %w", err)
	}
	post, err := http.NewRequestWithContext(ctx, http.MethodPost, target.String(), strings.NewReader(fields.Encode()))
	if err != nil {
		return nil, fmt.Errorf("headless consent: %w", err)
	}
	post.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err = c.Do(post)
	if err != nil {
		return nil, fmt.Errorf("headless consent: submit %s: %w", decision, err)
	}
	body, _ = io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if !isRedirect(resp.StatusCode) {
		return nil, fmt.Errorf("headless consent: submitting %s answered %s, not a redirect: %s", decision, resp.Status, snippet(body))
	}
	return location(resp, target)
}

func isRedirect(code int) bool {
	return code == http.StatusFound || code == http.StatusSeeOther ||
		code == http.StatusTemporaryRedirect || code == http.StatusMovedPermanently
}

func location(resp *http.Response, base *url.URL) (*url.URL, error) {
	loc := resp.Header.Get("Location")
	if loc == "" {
		return nil, fmt.Errorf("headless consent: %s without a Location header", resp.Status)
	}
	u, err := base.Parse(loc)
	if err != nil {
		return nil, fmt.Errorf("headless consent: bad Location: %w", err)
	}
	return u, nil
}

func snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// parseConsentForm finds <form id=formID> and returns its action and hidden
// inputs.
func parseConsentForm(page []byte, formID string) (string, url.Values, error) {
	z := html.NewTokenizer(strings.NewReader(string(page)))
	inForm := false
	action := ""
	found := false
	fields := url.Values{}
	for {
		switch z.Next() {
		case html.ErrorToken:
			if !found {
				return "", nil, fmt.Errorf("no <form id=%q> on the consent page", formID)
			}
			return action, fields, nil
		case html.StartTagToken, html.SelfClosingTagToken:
			t := z.Token()
			switch {
			case t.Data == "form" && attr(t, "id") == formID:
				inForm, found = true, true
				action = attr(t, "action")
			case inForm && t.Data == "input" && attr(t, "type") == "hidden":
				fields.Add(attr(t, "name"), attr(t, "value"))
			}
		case html.EndTagToken:
			if inForm && z.Token().Data == "form" {
				return action, fields, nil
			}
		}
	}
}

func attr(t html.Token, key string) string {
	for _, a := range t.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}
