package authpkce

import (
	"errors"
	"net/url"
	"strings"
	"testing"
)

// TestPastedRedirectKeepsSecretsOut: a mistyped pasted redirect carries the
// authorization code and state; the error Complete returns (which the UI
// shows in the paste field, on the status line and in its history) names
// neither (issue 21, finding 8), and RedactAddress hides them for the
// field that echoes what the user pasted.
func TestPastedRedirectKeepsSecretsOut(t *testing.T) {
	env := newMisuseEnv(t)
	ctx := misuseCtx(t)
	g, authURL := env.start(t, ctx, env.request(misuseResource, ReasonRequired))
	loc := approve(t, ctx, authURL)
	code, state := loc.Query().Get("code"), loc.Query().Get("state")
	if code == "" || state == "" {
		t.Fatalf("the redirect %s carries no code or state", loc.Redacted())
	}
	tamper := func(f func(u *url.URL)) string {
		u := *loc
		f(&u)
		return u.String()
	}
	port := portOf(t, g.RedirectURI())
	for _, c := range []struct{ name, pasted string }{
		{"another port", tamper(func(u *url.URL) { u.Host = "127.0.0.1:1" })},
		{"another path", tamper(func(u *url.URL) { u.Path = "/callbak" })},
		{"a space in the host", "http://127.0.0.1 :" + port + "/callback?" + loc.RawQuery},
		{"a control character", loc.String() + "\x01"},
		{"a fragment instead of a query", "http://127.0.0.1:" + port + "/callbak#" + loc.RawQuery},
	} {
		err := g.Complete(ctx, c.pasted)
		if !errors.Is(err, ErrPastedURL) {
			t.Errorf("%s: Complete = %v, want ErrPastedURL", c.name, err)
			continue
		}
		for what, secret := range map[string]string{"code": code, "state": state} {
			if strings.Contains(err.Error(), secret) {
				t.Errorf("%s: the error shows the %s: %q", c.name, what, err)
			}
			if r := RedactAddress(c.pasted); strings.Contains(r, secret) {
				t.Errorf("%s: RedactAddress shows the %s: %q", c.name, what, r)
			}
		}
	}
	if got := RedactAddress(loc.String()); !strings.HasPrefix(got, g.RedirectURI()+"?") || !strings.Contains(got, "code=") {
		t.Errorf("RedactAddress(%s) = %q: want the address with its parameters named and their values hidden", loc.Redacted(), got)
	}
}
