package e2e

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/internal/tmuxtest"
	"github.com/ahptui/ahptui/protocol/client"
	"github.com/ahptui/ahptui/views"
)

// updateCLI rewrites the command goldens in testdata/cli:
// go test ./internal/e2e -run TestCLI -update-cli
var updateCLI = flag.Bool("update-cli", false, "rewrite testdata/cli/*.golden from this run")

// cliClock is the demo host's clock in the command tests, so timestamps in
// the goldens do not move.
func cliClock() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }

// cliResult is one run of a command: its output and exit code.
type cliResult struct {
	stdout, stderr string
	code           int
}

// cliEnv is a command's environment: an empty home (no registry, no
// saved hosts) and NO_COLOR unset, so only the TTY check decides colour.
func cliEnv(t *testing.T) []string {
	home := t.TempDir()
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k == "HOME" || k == "XDG_CONFIG_HOME" || k == "NO_COLOR" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))
}

// runCLI runs the binary with args (stdin from in) and returns what it
// printed and how it exited.
func runCLI(t *testing.T, bin string, env []string, in string, args ...string) cliResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	cmd.Stdin = strings.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	code := 0
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("run %v: %v", args, err)
	}
	return cliResult{stdout.String(), stderr.String(), code}
}

// cliHost is a demo host for the commands: the seeded sessions, a fixed
// clock, no pacing, and every MCP server past starting before it is used.
func cliHost(t *testing.T) *demohost.Host {
	t.Helper()
	h, err := demohost.Start(t.Context(), demohost.Config{Version: suiteVersion, Clock: cliClock, StepDelay: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	settleServers(t, h)
	return h
}

// settleServers waits, as a client of h, until no MCP server of the
// seeded sessions is starting.
func settleServers(t *testing.T, h *demohost.Host) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), stepTimeout)
	defer cancel()
	c, err := client.Dial(ctx, client.Options{URL: h.URL(), ClientID: "0123456789abcdef0123456789abcdef"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sessions := []string{demohost.DemoSessionURI, demohost.HistorySessionURI}
	for _, s := range sessions {
		if err := c.Subscribe(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	settled := func() bool {
		for _, s := range sessions {
			st, _ := c.Session(s)
			for _, r := range views.MCPServerRows(views.SessionCustomizations(st)) {
				if r.StateKind == "starting" {
					return false
				}
			}
		}
		return true
	}
	for !settled() {
		if _, ok := client.ReceiveEvents(c.Events(), 256); !ok || ctx.Err() != nil {
			t.Fatal("the demo's MCP servers did not settle")
		}
	}
}

var (
	portRE = regexp.MustCompile(`127\.0\.0\.1:\d+`)
)

// normalized is output with the host's ports made stable for a golden.
func normalized(s string) string { return portRE.ReplaceAllString(s, "127.0.0.1:PORT") }

// checkGolden compares got with testdata/cli/name, or rewrites it.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "cli", name)
	if *updateCLI {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update-cli to write it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from its golden:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// TestCLIRead is issue 24's read commands, run as the built binary
// against the demo host: each one's text and JSON against its golden,
// and its exit code.
func TestCLIRead(t *testing.T) {
	skipShort(t)
	h := cliHost(t)
	bin := tmuxtest.Build(t, "github.com/ahptui/ahptui")
	env := cliEnv(t)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"status", []string{"status"}},
		{"sessions", []string{"sessions"}},
		{"show_history", []string{"show", "history"}},
		{"show_demo", []string{"show", "ahp-session:/demo"}},
		{"mcp_list", []string{"mcp", "list"}},
		{"mcp_list_session", []string{"mcp", "list", "--session", "dem"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, asJSON := range []bool{false, true} {
				args := append(append([]string{}, tc.args...), "--host", h.URL(), "--config-dir", t.TempDir())
				ext := ".txt"
				if asJSON {
					args, ext = append(args, "--json"), ".json"
				}
				r := runCLI(t, bin, env, "", args...)
				if r.code != 0 {
					t.Fatalf("%v: exit %d, stderr %q", args, r.code, r.stderr)
				}
				if strings.Contains(r.stdout, "\x1b[") {
					t.Errorf("%v: colour on a pipe:\n%q", args, r.stdout)
				}
				checkGolden(t, tc.name+ext, normalized(r.stdout))
			}
		})
	}
}

// TestCLIExitCodes: each documented exit code from the binary, with its
// message on stderr (as a JSON object with --json).
func TestCLIExitCodes(t *testing.T) {
	skipShort(t)
	h := cliHost(t)
	bin := tmuxtest.Build(t, "github.com/ahptui/ahptui")
	env := cliEnv(t)
	down := "ws://" + closedPort(t) + "/"
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"unknown session", []string{"show", "nosuch", "--host", h.URL()}, 2, `no session "nosuch"`},
		{"ambiguous session", []string{"show", "", "--host", h.URL()}, 2, "no session given"},
		{"missing argument", []string{"show", "--host", h.URL()}, 2, "want SESSION"},
		{"unknown flag", []string{"sessions", "--bogus", "--host", h.URL()}, 2, "unknown flag: --bogus"},
		{"bad host", []string{"sessions", "--host", "http://x"}, 2, "is an http URL"},
		{"unreachable", []string{"status", "--host", down}, 3, "connection refused"},
		{"unreachable json", []string{"status", "--host", down, "--json"}, 3, `"kind":"unreachable"`},
		{"no host running", []string{"status"}, 3, "no agent host is running"},
		{"unknown server", []string{"mcp", "start", "nosuch", "--session", "demo", "--host", h.URL()}, 2, `no MCP server "nosuch"`},
		{"several sessions", []string{"mcp", "start", "mcp-github", "--host", h.URL()}, 2, "name one with --session"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, bin, env, "", append(tc.args, "--config-dir", t.TempDir())...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d; stderr %q", r.code, tc.code, r.stderr)
			}
			if !strings.Contains(r.stderr, tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, r.stderr)
			}
			if r.stdout != "" {
				t.Errorf("stdout on failure: %q", r.stdout)
			}
		})
	}
}
