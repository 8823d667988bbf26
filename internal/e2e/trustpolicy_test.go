package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ahptui/ahptui/authpkce"
	"github.com/ahptui/ahptui/internal/tmuxtest"
)

// savedGrantOn writes a token store holding one grant for resource,
// issued by issuer, obtained on host, as an earlier run would have.
func savedGrantOn(t *testing.T, dir, host, resource, issuer string) {
	t.Helper()
	hid, err := authpkce.HostID(host)
	if err != nil {
		t.Fatal(err)
	}
	store := map[string]any{"version": 2, "tokens": []map[string]any{{
		"host": hid, "issuer": issuer, "resource": resource, "client_id": "e2e-client",
		"access_token": "e2e-token-made-here", "token_type": "Bearer", "updated_at": time.Now().UTC(),
	}}}
	b, err := json.Marshal(store)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "oauth-tokens.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestStatusKeepsSavedSignInFromPlainHost: the real binary's status
// against a host on plain ws://127.0.0.1 given with --host (not from VS
// Code's registry) that advertises a saved grant's resource and issuer,
// the grant made on that very address. Any program on the machine could
// have taken the port: no authenticate reaches the host, and stderr says
// why and names --allow-saved-tokens. With the flag the token is sent.
func TestStatusKeepsSavedSignInFromPlainHost(t *testing.T) {
	t.Parallel()
	skipShort(t)
	bin := tmuxtest.Build(t, "github.com/ahptui/ahptui")
	hostd := tmuxtest.Build(t, "github.com/ahptui/ahptui/protocol/internal/hostilehost/cmd/trustaskd")
	const resource, issuer = "https://mcp.example.com/api", "https://issuer.example.com"
	h := startTrustHost(t, hostd)
	if _, err := fmt.Fprintf(h.in, "advertise %s %s\n", resource, issuer); err != nil {
		t.Fatal(err)
	}
	if l := h.next(t, "advertise"); l != "advertised" {
		t.Fatalf("trustaskd answered %q to advertise", l)
	}
	dir := privateDir(t)
	savedGrantOn(t, dir, h.url, resource, issuer)
	env := cliEnv(t)

	res := runCLI(t, bin, env, "", "status", "--host", h.url, "--config-dir", dir)
	if res.code != 0 {
		t.Fatalf("status: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	time.Sleep(300 * time.Millisecond) // a late authenticate line would be printed by now
	if p := h.pushed(); len(p) != 0 {
		t.Fatalf("status sent the saved sign-in to a plain ws:// host not from the registry: %v", p)
	}
	want := "saved sign-in for " + resource + " not sent to " + h.url + ": "
	if !strings.Contains(res.stderr, want) || !strings.Contains(res.stderr, "run with --allow-saved-tokens to send it") {
		t.Errorf("stderr does not say why nothing was sent and name the flag:\n%s", res.stderr)
	}

	res = runCLI(t, bin, env, "", "status", "--host", h.url, "--config-dir", dir, "--allow-saved-tokens")
	if res.code != 0 {
		t.Fatalf("status --allow-saved-tokens: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if l := h.next(t, "authenticate with --allow-saved-tokens"); l != "authenticate "+resource {
		t.Errorf("with --allow-saved-tokens the host printed %q, want authenticate %s", l, resource)
	}
	if strings.Contains(res.stderr, "not sent") {
		t.Errorf("with the flag stderr still says not sent:\n%s", res.stderr)
	}
}
