package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ahptui/ahptui/internal/tmuxtest"
)

// TestCLIHostsCommands: hosts add, list and rm through the binary: the
// host saved 0600 with its token file's path (never the token), listed
// (text and --json) as reachable, made the default that a command with
// no host flag then uses, its answers naming it by --host NAME; a URL
// with its token, a bad name and a hosts.yml others can write are
// refused with a message; rm forgets it.
func TestCLIHostsCommands(t *testing.T) {
	t.Parallel()
	skipShort(t)
	wireFree(t)
	secret := newSecret(t)
	h, _ := registryDemo(t, secret)
	bin := tmuxtest.Build(t, "github.com/ahptui/ahptui")
	env := cliEnv(t)
	cfg := filepath.Join(privateDir(t), "ahptui")
	tokenFile := filepath.Join(privateDir(t), "work.token")
	if err := os.WriteFile(tokenFile, []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(code int, args ...string) cliResult {
		t.Helper()
		res := runCLI(t, bin, env, "", append(args, "--config-dir", cfg)...)
		if res.code != code {
			t.Fatalf("%v: exit %d, want %d\nstdout %s\nstderr %s", args, res.code, code, res.stdout, res.stderr)
		}
		noSecret(t, strings.Join(args, " "), res.stdout+res.stderr, secret)
		return res
	}

	// Before any host is saved, a command with no host reads VS Code's
	// registry (none here): exit 3, as before.
	run(3, "sessions")
	run(2, "hosts", "add", "work", h.URL()+"?tkn="+secret)
	run(2, "hosts", "add", "no/slash", h.URL())
	// A token file that cannot be read is a local failure (exit 1), as
	// --connection-token-file's is: docs/cli.md's Exit codes.
	if res := run(1, "hosts", "add", "work", h.URL(), "--token-file", filepath.Join(cfg, "missing.token")); !strings.Contains(res.stderr, "--token-file") {
		t.Errorf("hosts add with a missing token file: %s", res.stderr)
	}
	res := run(0, "hosts", "add", "work", h.URL(), "--token-file", tokenFile, "--default")
	if !strings.Contains(res.stdout, "saved work") {
		t.Errorf("hosts add: %s", res.stdout)
	}
	fi, err := os.Lstat(filepath.Join(cfg, "hosts.yml"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("hosts.yml: %v, mode %v", err, fi.Mode())
	}
	yml, _ := os.ReadFile(filepath.Join(cfg, "hosts.yml"))
	noSecret(t, "hosts.yml", string(yml), secret)

	res = run(0, "hosts", "list", "--json")
	var list struct {
		Default string
		Saved   []struct{ Name, URL, Reach string }
	}
	if err := json.Unmarshal([]byte(res.stdout), &list); err != nil {
		t.Fatalf("hosts list --json: %v\n%s", err, res.stdout)
	}
	if list.Default != "work" || len(list.Saved) != 1 || list.Saved[0].URL != h.URL() || list.Saved[0].Reach != "reachable" {
		t.Errorf("hosts list --json: %+v", list)
	}
	if res = run(0, "hosts"); !strings.Contains(res.stdout, "work  "+h.URL()+" (default)  — reachable") {
		t.Errorf("hosts (the list as before):\n%s", res.stdout)
	}

	// The default host: no host flag, its answers name it.
	run(0, "sessions")
	run(5, "send", "demo", "write the changelog")
	res = run(0, "inbox", "--kind", "approval", "--jq", ".items[0].answer")
	if !strings.HasPrefix(res.stdout, "ahptui approve --host work ahp-session:/demo ") {
		t.Errorf("the default host's answer: %q", res.stdout)
	}
	// AHPTUI_HOST over the default: a name that is no host is said.
	env = append(env, "AHPTUI_HOST=nosuch")
	if res = run(2, "sessions"); !strings.Contains(res.stderr, `AHPTUI_HOST="nosuch" is neither a URL nor a host saved`) {
		t.Errorf("AHPTUI_HOST=nosuch: %s", res.stderr)
	}
	env[len(env)-1] = "AHPTUI_HOST=work"
	run(0, "approve", "demo")

	if err := os.Chmod(filepath.Join(cfg, "hosts.yml"), 0o666); err != nil {
		t.Fatal(err)
	}
	if res = run(1, "hosts", "add", "other", h.URL()); !strings.Contains(res.stderr, "writable by other users") {
		t.Errorf("hosts add into a 0666 hosts.yml: %s", res.stderr)
	}
	env = env[:len(env)-1]
	if res = run(1, "sessions"); !strings.Contains(res.stderr, "writable by other users") {
		t.Errorf("a default read from a 0666 hosts.yml: %s", res.stderr)
	}
	if err := os.Chmod(filepath.Join(cfg, "hosts.yml"), 0o600); err != nil {
		t.Fatal(err)
	}
	run(0, "hosts", "rm", "work")
	// A name no saved host has is not found (8), not a usage error.
	if res := run(8, "hosts", "rm", "work", "--json"); !strings.Contains(res.stderr, `"kind":"not-found"`) || !strings.Contains(res.stderr, `no saved host \"work\"`) {
		t.Errorf("hosts rm of a host not saved: %s", res.stderr)
	}
	run(3, "sessions")
}

// TestUIUsesAHPTUIHost: bare ahptui in the terminal connects to the host
// AHPTUI_HOST names (host/pick's one rule, shared with the commands).
func TestUIUsesAHPTUIHost(t *testing.T) {
	t.Parallel()
	skipShort(t)
	secret := newSecret(t)
	h, _ := registryDemo(t, secret)
	dir := savedConfig(t, h.URL(), secret, "ws://127.0.0.1:1/")
	bin := tmuxtest.Build(t, "github.com/ahptui/ahptui")
	s := tmuxtest.Start(t, tmuxtest.Options{Width: 120, Height: 40, Env: []string{"AHPTUI_HOST=work"},
		Cmd: []string{bin, "--config-dir", dir, "--no-browser"}})
	u := &user{t: t, s: s}
	screen := u.see("connected to the host AHPTUI_HOST names", connectedTo(suiteVersion))
	if !strings.Contains(statusLine(screen), h.URL()) {
		t.Errorf("the status line does not name %s:\n%s", h.URL(), statusLine(screen))
	}
	noSecret(t, "the screen", screen, secret)
}
