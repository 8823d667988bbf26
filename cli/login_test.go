package cli

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ahptui/ahptui/authpkce"
	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/internal/demotest"
)

// runStdin runs a command with stdin and a config dir of its own.
func runStdin(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb strings.Builder
	code := Run(append(args, "--config-dir", t.TempDir()), Env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb,
		Getenv: func(string) string { return "" }})
	return out.String(), errb.String(), code
}

// TestAuthLoginByHand: an agent whose resource names an authorization
// server other than the host's (the demo playing VS Code's copilotcli:
// https://api.github.com, signed in at github.com) takes a token by hand,
// as the UI's agent prompt offers: from stdin (--with-token) or from gh
// auth token (--gh). The host's refusal is a sign-in failure (7), a
// token with spaces a usage error (2), --gh on a resource not GitHub's a
// usage error, and two flows at once a usage error.
func TestAuthLoginByHand(t *testing.T) {
	const secret, resource = "gho_demo-agent-token", "https://api.github.com"
	h := demotest.Start(t, demohost.Config{AgentToken: secret, AgentResource: resource})
	login := func(stdin string, code int, flags ...string) (string, string) {
		t.Helper()
		out, errs, got := runStdin(t, stdin, append([]string{"auth", "login", resource, "--host", h.URL()}, flags...)...)
		if got != code {
			t.Fatalf("auth login %v: exit %d, want %d\n%s%s", flags, got, code, out, errs)
		}
		return out, errs
	}
	_, errs := login("not-the-token\n", ExitSignIn, "--with-token")
	if !strings.Contains(errs, "refused the token") || strings.Contains(errs, "not-the-token") {
		t.Errorf("a refused token: %q", errs)
	}
	login("two words\n", ExitUsage, "--with-token")
	login("", ExitUsage, "--with-token")
	login(secret+"\n", ExitUsage, "--with-token", "--device")
	out, _ := login(secret+"\n", ExitOK, "--with-token", "--json")
	var j loginJSON
	if err := json.Unmarshal([]byte(out), &j); err != nil || j.Resource != resource || !j.ByHand {
		t.Fatalf("--with-token --json: %v\n%s", err, out)
	}
	if out, _ = login(secret, ExitOK, "--with-token"); out != "the host took the token for "+resource+" (not saved)\n" {
		t.Errorf("--with-token: %q", out)
	}

	// A gh on PATH that prints the token, as gh auth token does.
	bin := t.TempDir()
	gh := "#!/bin/sh\n[ \"$1 $2\" = \"auth token\" ] && echo " + secret + "\n"
	if err := os.WriteFile(filepath.Join(bin, "gh"), []byte(gh), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	if out, _ = login("", ExitOK, "--gh"); !strings.Contains(out, "took the token") {
		t.Errorf("--gh: %q", out)
	}

	// The demo's own agent resource is not GitHub's: gh is not offered.
	own := demotest.Start(t, demohost.Config{AgentToken: secret})
	agentRes := strings.TrimSuffix(strings.Replace(own.URL(), "ws://", "http://", 1), "/") + demohost.AgentResourcePath
	if _, errs, code := runStdin(t, "", "auth", "login", agentRes, "--gh", "--host", own.URL()); code != ExitUsage || !strings.Contains(errs, "not GitHub's") {
		t.Errorf("--gh for the demo's own resource: exit %d %s", code, errs)
	}
	if out, errs, code := runStdin(t, secret, "auth", "login", agentRes, "--with-token", "--host", own.URL()); code != ExitOK {
		t.Errorf("--with-token for the demo's own resource: exit %d %s%s", code, out, errs)
	}
}

// TestAuthLoginAllowServer: an authorization server whose endpoints are
// on another loopback port than its issuer needs the user's yes, as in
// the UI (which asks "sign in at HOST?"): without it auth login exits 7
// naming --allow-server HOST; with --allow-server HOST the sign-in
// starts and prints the URL on that server.
func TestAuthLoginAllowServer(t *testing.T) {
	other := httptest.NewServer(http.NotFoundHandler())
	defer other.Close()
	otherHost := strings.TrimPrefix(other.URL, "http://")
	var issuer string
	as := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/.well-known/") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"issuer": issuer,
			"authorization_endpoint": other.URL + "/authorize", "token_endpoint": other.URL + "/token",
			"response_types_supported": []string{"code"}, "code_challenge_methods_supported": []string{"S256"}})
	}))
	defer as.Close()
	issuer = as.URL
	const resource = "https://mcp.example.com/private"
	req := authpkce.Requirement{Reason: authpkce.ReasonRequired,
		Resource:    authpkce.ProtectedResourceMetadata{Resource: resource, AuthorizationServers: []string{issuer}},
		OAuthClient: &authpkce.Client{ClientID: "ahptui-test"}}
	login := func(allow []string, otherOrigin bool) (string, error) {
		t.Helper()
		var errb strings.Builder
		a := &app{Env: Env{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: &errb}}
		auth, err := authpkce.New(authpkce.Config{MemoryOnly: true, OpenBrowser: func(string) error { return errors.New("no browser") }})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
		defer cancel()
		err = a.login(ctx, &conn{host: "ws://127.0.0.1:1/"}, auth, loginRequest{req: req, advertised: []string{resource}, allow: allow, otherOrigin: otherOrigin}, false, false)
		return errb.String(), err
	}
	_, err := login(nil, true)
	if exitCode(err) != ExitSignIn || err == nil || !strings.Contains(err.Error(), "--allow-server "+otherHost) {
		t.Fatalf("without --allow-server: exit %d, %v", exitCode(err), err)
	}
	// The authorization page is on another origin than the issuer: as
	// in the UI's sheet, both are named, and without
	// --allow-other-origin the sign-in does not go on.
	stderr, err := login([]string{otherHost}, false)
	if exitCode(err) != ExitSignIn || err == nil || !strings.Contains(err.Error(), "--allow-other-origin") ||
		!strings.Contains(err.Error(), otherHost) || !strings.Contains(err.Error(), issuer) || strings.Contains(stderr, "/authorize?") {
		t.Fatalf("an authorization page off the issuer's origin: exit %d, %v\n%s", exitCode(err), err, stderr)
	}
	stderr, _ = login([]string{otherHost}, true)
	if !strings.Contains(stderr, other.URL+"/authorize?") || !strings.Contains(stderr, "not the authorization server the host names") {
		t.Errorf("with --allow-server %s --allow-other-origin the sign-in did not start with a warning:\n%s", otherHost, stderr)
	}
}

// TestAgentSignInNamesAuthLogin: an agent that needs a sign-in of its
// own (the demo playing VS Code's copilotcli) refuses new with -32007 and
// ends send's turn at an AuthRequired error; both exit 7 and name the
// command that signs in: auth login with the agent's resource.
func TestAgentSignInNamesAuthLogin(t *testing.T) {
	h := demotest.Start(t, demohost.Config{AgentToken: "agent-secret"})
	// The command names the host the run named (--host), so it signs in
	// there.
	want := "ahptui auth login --host " + h.URL() + " " + strings.TrimSuffix(strings.Replace(h.URL(), "ws://", "http://", 1), "/") + demohost.AgentResourcePath
	for _, args := range [][]string{{"new"}, {"send", "demo", "stream"}, {"send", "--new", "stream"}} {
		_, errs, code := run(t, false, nil, append(args, "--host", h.URL())...)
		if code != ExitSignIn || !strings.Contains(errs, want) {
			t.Errorf("%v: exit %d, want %d naming %q:\n%s", args, code, ExitSignIn, want, errs)
		}
	}
}
