package authpkce

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os/exec"
	"slices"
	"strings"
	"time"
	"unicode"
)

// Tokens given by hand, for a resource whose authorization server this
// client cannot run a flow with (VS Code's copilotcli agent: GitHub,
// which registers no clients): pasted, or taken from `gh auth token`.
// The UI's agent sign-in prompt and `ahptui auth login --with-token|--gh`
// share these. Such a token has no issuer, expiry or refresh token of
// its own: the UI saves one only when the user asks to, bound to the
// host and the authorization server it advertised (KeepHandToken).

// MaxHandTokenLen bounds a token given by hand.
const MaxHandTokenLen = 8 << 10

// CheckHandToken refuses what cannot be a bearer token (a stray paste of
// several lines or of control characters), without quoting it.
func CheckHandToken(tok string) error {
	if len(tok) > MaxHandTokenLen || strings.IndexFunc(tok, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }) >= 0 {
		return errors.New("that is not a token (it holds spaces, line breaks or control characters): paste the token alone")
	}
	return nil
}

// IsGitHubResource reports whether a protected resource is GitHub's: its
// identifier is github.com's API, or it names github.com as its
// authorization server. Only then is `gh auth token` offered.
func IsGitHubResource(resource string, authorizationServers []string) bool {
	hostIs := func(raw string, hosts ...string) bool {
		u, err := url.Parse(raw)
		return err == nil && u.Scheme == "https" && slices.Contains(hosts, strings.ToLower(u.Hostname()))
	}
	if hostIs(resource, "api.github.com", "github.com") {
		return true
	}
	return slices.ContainsFunc(authorizationServers, func(as string) bool { return hostIs(as, "github.com") })
}

// GhToken runs `gh auth token` with the gh at path. Its output is the
// token: it goes nowhere but the returned string (never a log, never an
// error text).
func GhToken(ctx context.Context, gh string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, gh, "auth", "token")
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		why, _, _ := strings.Cut(strings.TrimSpace(errOut.String()), "\n")
		if why = clean(why); why != "" {
			return "", fmt.Errorf("gh auth token failed: %s: %w (run gh auth login, or paste a token)", why, err)
		}
		return "", fmt.Errorf("gh auth token failed: %w (run gh auth login, or paste a token)", err)
	}
	tok := strings.TrimSpace(out.String())
	if tok == "" || CheckHandToken(tok) != nil {
		return "", errors.New("gh auth token printed no token: run gh auth login, or paste a token")
	}
	return tok, nil
}
