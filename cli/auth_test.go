package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ahptui/ahptui/demohost/authserver"
)

// savedGrant signs in for resource at a real authorization server (the
// demo's), the browser played headless, so dir's token store holds one
// grant, as the UI would have saved it.
func savedGrant(t *testing.T, dir, resource string) {
	t.Helper()
	as, err := authserver.Start(t.Context(), authserver.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { as.Close() })
	grantOn(t, dir, as, resource, "ws://127.0.0.1:1/")
}

// runIn runs a command with dir as the config dir.
func runIn(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb strings.Builder
	code := Run(append(args, "--config-dir", dir), Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }})
	return out.String(), errb.String(), code
}

// TestAuthListStatusLogout: a saved sign-in is listed (resource, host,
// issuer, scopes), its status says valid, until when and renewable, and
// logout forgets it and revokes it at the authorization server.
func TestAuthListStatusLogout(t *testing.T) {
	dir := t.TempDir()
	const resource = "https://mcp.example.com/github"
	savedGrant(t, dir, resource)

	out, errs, code := runIn(t, dir, "auth", "list")
	if code != 0 || !strings.Contains(out, resource) || !strings.Contains(out, "ws://127.0.0.1:1") || !strings.Contains(out, "mcp:read") {
		t.Fatalf("auth list: exit %d %s\n%s", code, errs, out)
	}
	out, _, code = runIn(t, dir, "auth", "status", "--json")
	var gs []grantJSON
	if err := json.Unmarshal([]byte(out), &gs); err != nil || code != 0 || len(gs) != 1 {
		t.Fatalf("auth status --json: exit %d, %v\n%s", code, err, out)
	}
	if g := gs[0]; !g.Valid || !g.Refreshable || g.Expiry == "" || g.Resource != resource {
		t.Errorf("status: %+v", g)
	}
	if out, _, _ = runIn(t, dir, "auth", "status"); !strings.Contains(out, "valid") || !strings.Contains(out, gs[0].Expiry) {
		t.Errorf("auth status:\n%s", out)
	}
	if _, errs, code = runIn(t, dir, "auth", "logout", "https://nosuch"); code != ExitNotFound {
		t.Errorf("logout of an unknown resource: exit %d %s", code, errs)
	}
	out, errs, code = runIn(t, dir, "auth", "logout", resource)
	if code != 0 || !strings.Contains(out, "signed out of "+resource+" (revoked)") {
		t.Fatalf("auth logout: exit %d %s\n%s", code, errs, out)
	}
	if out, _, _ = runIn(t, dir, "auth", "list"); !strings.Contains(out, "no saved sign-ins") {
		t.Errorf("the grant is still listed:\n%s", out)
	}
	if _, _, code = runIn(t, dir, "auth", "logout"); code != ExitUsage {
		t.Errorf("logout without a resource: exit %d", code)
	}
	if out, _, code = runIn(t, dir, "auth", "logout", "--all", "--json"); code != 0 || strings.TrimSpace(out) != "[]" {
		t.Errorf("logout --all of nothing: exit %d %s", code, out)
	}
}
