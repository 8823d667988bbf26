package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/internal/badhost"
	"github.com/ahptui/ahptui/internal/tmuxtest"
)

// What the auth and doctor goldens normalize, besides the ports
// (normalized) and the suite's AHP version:
//   - timeRE: a token's expiry, which the demo's authorization server
//     stamps from the wall clock (the host's fixed cliClock is not its);
//   - the config directory, a temp path per run (configSub);
//   - doctor's keyring check (keyringText, keyringJSON), which says
//     whether this machine runs an OS keyring: ok on a desktop, warn on
//     CI. The check's presence is kept; its verdict is not.
//
// The browser and terminal checks read the environment, which
// doctorEnv fixes.
var (
	timeRE      = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)`)
	keyringText = regexp.MustCompile(`(?m)^(ok  |warn|FAIL)  keyring: .*\n(      fix: .*\n)?`)
	keyringJSON = regexp.MustCompile(`(?s)\{\s*"name": "keyring",.*?\n    \}`)
	pidRE       = regexp.MustCompile(`pid \d+`)
)

// goldenStable is output made stable for the auth and doctor goldens.
func goldenStable(s, configDir string) string {
	if configDir != "" {
		s = strings.ReplaceAll(s, configDir, "CONFIG")
	}
	s = keyringText.ReplaceAllString(s, "KEYRING (this machine's)\n")
	s = keyringJSON.ReplaceAllString(s, `"KEYRING (this machine's)"`)
	s = timeRE.ReplaceAllString(s, "TIME")
	return strings.ReplaceAll(normalized(s), suiteVersion, "VERSION")
}

// demoResource is the GitHub MCP server's protected resource on h.
func demoResource(h *demohost.Host) string {
	return strings.TrimSuffix(strings.Replace(h.URL(), "ws://", "http://", 1), "/") + demohost.GitHubResourcePath
}

// TestCLIAuthGoldens: auth list, status and logout, as text and JSON,
// against their goldens and exit codes: with no saved sign-in, with one
// saved from the demo's authorization server (its host saved by name),
// and signing out of it by name and with --all (both revoked there).
func TestCLIAuthGoldens(t *testing.T) {
	t.Parallel()
	skipShort(t)
	r, h := newCLIRunner(t)
	resource := demoResource(h)
	dir := privateDir(t)
	auth := func(code int, golden string, args ...string) {
		t.Helper()
		res := runCLI(t, r.bin, r.env, "", append(append([]string{"auth"}, args...), "--config-dir", dir)...)
		if res.code != code {
			t.Fatalf("auth %v: exit %d, want %d\n%s%s", args, res.code, code, res.stdout, res.stderr)
		}
		if strings.Contains(res.stdout, "\x1b[") {
			t.Errorf("auth %v: colour on a pipe: %q", args, res.stdout)
		}
		out := res.stdout
		if code != 0 { // what failed is on stderr; stdout is empty
			if out != "" {
				t.Errorf("auth %v: exit %d with stdout %q", args, code, out)
			}
			out = res.stderr
		}
		checkGolden(t, golden, goldenStable(out, dir))
	}
	auth(0, "auth_list_empty.txt", "list")
	auth(0, "auth_status_empty.json", "status", "--json")
	saveDemoSignIn(t, h, dir, resource)
	// The host a grant was obtained on is named as every command names
	// a host: {name, url}, the name a saved host's.
	if res := runCLI(t, r.bin, r.env, "", "hosts", "add", "demo", h.URL(), "--config-dir", dir); res.code != 0 {
		t.Fatalf("hosts add: exit %d\n%s", res.code, res.stderr)
	}
	auth(0, "auth_list.txt", "list")
	auth(0, "auth_list.json", "list", "--json")
	auth(0, "auth_status.txt", "status")
	auth(0, "auth_status.json", "status", "--json")
	auth(8, "auth_logout_unknown.txt", "logout", "https://nosuch.example/")
	auth(0, "auth_logout.txt", "logout", resource)
	auth(0, "auth_list_empty.txt", "list")
	saveDemoSignIn(t, h, dir, resource)
	auth(0, "auth_logout_all.json", "logout", "--all", "--json")
	auth(0, "auth_status_empty.json", "status", "--json")
}

// doctorEnv is cliEnv with the browser and terminal doctor reads fixed
// (and not inside tmux or screen, whichever the test runs in).
func doctorEnv(t *testing.T) []string {
	var env []string
	for _, kv := range cliEnv(t) {
		if k, _, _ := strings.Cut(kv, "="); k == "BROWSER" || k == "TERM" || k == "COLORTERM" || k == "TMUX" || k == "STY" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "BROWSER=firefox", "TERM=xterm-256color", "COLORTERM=truecolor")
}

// TestCLIDoctorGoldens: doctor's text and JSON against the demo host
// (exit 0), against a closed port and against a host that answers the
// upgrade 403 (exit 11, as every command gives it; the reach check fails
// with its fix), with an owner-only config directory.
func TestCLIDoctorGoldens(t *testing.T) {
	t.Parallel()
	skipShort(t)
	r, _ := newCLIRunner(t)
	env := doctorEnv(t)
	down := badhost.Closed(t)
	guarded, err := demohost.Start(t.Context(), demohost.Config{Version: suiteVersion, ConnectionToken: newSecret(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer guarded.Close()
	for _, tc := range []struct {
		golden string
		host   string
		code   int
	}{
		{"doctor", r.url, 0},
		{"doctor_unreachable", down, 3},
		// The upgrade's HTTP status: 403 for a wrong connection token.
		{"doctor_forbidden", guarded.URL() + "?tkn=wrong-one", 11},
	} {
		for _, ext := range []string{".txt", ".json"} {
			dir := privateDir(t)
			args := []string{"doctor", "--host", tc.host, "--config-dir", dir}
			if ext == ".json" {
				args = append(args, "--json")
			}
			res := runCLI(t, r.bin, env, "", args...)
			if res.code != tc.code {
				t.Fatalf("%v: exit %d, want %d\n%s%s", args, res.code, tc.code, res.stdout, res.stderr)
			}
			checkGolden(t, tc.golden+ext, goldenStable(res.stdout, dir))
		}
	}
}

// TestCLIMCPStartRequested: on a demo host that holds a start until the
// session's first message, as VS Code's host does, mcp start in the
// seeded demo session (no turn yet) prints the server starting with the
// start requested, text and JSON, exit 0, as soon as the host echoes it;
// after a message has run there, the same start waits for ready.
func TestCLIMCPStartRequested(t *testing.T) {
	t.Parallel()
	skipShort(t)
	h, err := demohost.Start(t.Context(), demohost.Config{Version: suiteVersion, Clock: cliClock, StepDelay: -1, HoldStartsUntilRun: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	settleServers(t, h)
	r := &cliRunner{t: t, bin: tmuxtest.Build(t, "github.com/ahptui/ahptui"), url: h.URL(), env: cliEnv(t)}
	// A ready server is already running: nothing is sent (issue 32,
	// item 10). Stopped, its start is waited for (a failed one must say
	// so); held, it is still starting when --timeout ends.
	if res := r.run(0, "", "mcp", "start", "mcp-filesystem", "--session", "demo"); !strings.Contains(res.stdout, "already running") {
		t.Errorf("mcp start of a ready server:\n%s", res.stdout)
	}
	r.run(0, "", "mcp", "stop", "mcp-filesystem", "--session", "demo")
	began := time.Now()
	res := r.run(0, "", "mcp", "start", "mcp-filesystem", "--session", "demo", "--json", "--timeout", "1s")
	checkGolden(t, "mcp_start_requested.json", stable(res.stdout))
	// Already starting (held), a start is reported at its echo.
	res = r.run(0, "", "mcp", "start", "Filesystem", "--session", "demo")
	checkGolden(t, "mcp_start_requested.txt", stable(res.stdout))
	if took := time.Since(began); took > 8*time.Second {
		t.Errorf("two held starts took %v", took)
	}
	r.run(0, "", "send", "demo", "stream")
	res = r.run(0, "", "mcp", "start", "mcp-filesystem", "--session", "demo", "--json")
	var after struct {
		State          string
		StartRequested bool
	}
	if err := json.Unmarshal([]byte(res.stdout), &after); err != nil || after.State != "ready" || after.StartRequested {
		t.Errorf("mcp start after the session ran: %v\n%s", err, res.stdout)
	}
}

// TestCLIAuthLoginByHand: auth login for an agent whose resource names
// github.com, not the demo's authorization server (the demo playing VS
// Code's copilotcli), with the token on stdin (--with-token): text and
// JSON against their goldens, exit 0; a token the host refuses exits 7
// without echoing it.
func TestCLIAuthLoginByHand(t *testing.T) {
	t.Parallel()
	skipShort(t)
	const secret, resource = "gho_demo-agent-token", "https://api.github.com"
	h, err := demohost.Start(t.Context(), demohost.Config{Version: suiteVersion, StepDelay: -1, AgentToken: secret, AgentResource: resource})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	r := &cliRunner{t: t, bin: tmuxtest.Build(t, "github.com/ahptui/ahptui"), url: h.URL(), env: cliEnv(t)}
	res := r.run(0, secret+"\n", "auth", "login", resource, "--with-token")
	checkGolden(t, "auth_login_token.txt", res.stdout)
	res = r.run(0, secret+"\n", "auth", "login", resource, "--with-token", "--json")
	checkGolden(t, "auth_login_token.json", res.stdout)
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	res = r.run(7, "gho_wrong\n", "auth", "login", resource, "--with-token", "--trace", trace)
	if !strings.Contains(res.stderr, "refused the token") || strings.Contains(res.stderr, "gho_wrong") {
		t.Errorf("a refused token: %q", res.stderr)
	}
	if text, _ := readTrace(t, trace); strings.Contains(text, "gho_wrong") || !strings.Contains(text, `"method":"authenticate"`) {
		t.Errorf("the trace of a token given by hand:\n%s", text)
	}
}

// TestCLIDoctorRegistry: doctor with no --host finds the one live agent
// host VS Code's registry lists (over TCP, with its connection token),
// reaches it, and its registry check counts it and names the entry it
// ignored (a misnamed copy), how to fix that, and never the token.
func TestCLIDoctorRegistry(t *testing.T) {
	t.Parallel()
	skipShort(t)
	secret := newSecret(t)
	h, _ := registryDemo(t, secret)
	bin := tmuxtest.Build(t, "github.com/ahptui/ahptui")
	reg := registryHome(t, tcpEntry(h, secret, "one"))
	var home string
	env := doctorEnv(t)
	for _, kv := range reg {
		if k, v, _ := strings.Cut(kv, "="); k == "HOME" {
			home = v
		}
	}
	var kept []string
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); k != "HOME" && k != "XDG_CONFIG_HOME" {
			kept = append(kept, kv)
		}
	}
	env = append(kept, reg...)
	for _, ext := range []string{".txt", ".json"} {
		dir := privateDir(t)
		args := []string{"doctor", "--config-dir", dir}
		if ext == ".json" {
			args = append(args, "--json")
		}
		res := runCLI(t, bin, env, "", args...)
		if res.code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, res.code, res.stdout, res.stderr)
		}
		noSecret(t, "doctor", res.stdout+res.stderr, secret)
		// The dead entry's pid is this run's.
		out := pidRE.ReplaceAllString(strings.ReplaceAll(goldenStable(res.stdout, dir), home, "HOME"), "pid PID")
		checkGolden(t, "doctor_registry"+ext, out)
	}
}

// TestCLISignInMidToolCall: send stops (exit 5) on the demo's Deploy,
// whose tool call asks for a step-up sign-in, and names the command that
// answers it: auth login for the call's resource. Run (with --paste, the
// browser's consent done headless) from the same config directory, so
// the host knows it for the client whose message started the turn, it
// lets the deploy go on, and the turn completes.
func TestCLISignInMidToolCall(t *testing.T) {
	t.Parallel()
	skipShort(t)
	r, h := newCLIRunner(t)
	dir := privateDir(t)
	run := func(code int, in string, args ...string) cliResult {
		t.Helper()
		res := runCLI(t, r.bin, r.env, in, append(args, "--host", r.url, "--config-dir", dir)...)
		if res.code != code {
			t.Fatalf("%v: exit %d, want %d\n%s%s", args, res.code, code, res.stdout, res.stderr)
		}
		return res
	}
	res := run(5, "", "send", "demo", "deploy", "--json")
	var sent struct {
		Waiting []struct {
			Kind, Name, Answer string
			AnswerArgs         []string
		}
	}
	if err := json.Unmarshal([]byte(res.stdout), &sent); err != nil {
		t.Fatalf("send --json: %v\n%s", err, res.stdout)
	}
	// The answer names the host, so it signs in there.
	want := "ahptui auth login --host " + r.url + " --session ahp-session:/demo " + strings.TrimSuffix(strings.Replace(h.URL(), "ws://", "http://", 1), "/") + demohost.DeployResourcePath
	if len(sent.Waiting) != 1 || sent.Waiting[0].Kind != "sign-in" || sent.Waiting[0].Answer != want {
		t.Fatalf("send waits on %+v, want one sign-in answered by %q", sent.Waiting, want)
	}
	ctx, cancel := context.WithTimeout(t.Context(), startTimeout)
	defer cancel()
	args := append(slices.Clone(sent.Waiting[0].AnswerArgs[1:]), "--paste", "--config-dir", dir)
	pl := r.startPasteLogin(ctx, args...)
	go func() { _, _ = io.Copy(io.Discard, pl.stderr) }()
	fmt.Fprintf(pl.stdin, "%s\n", approveWithoutRedirect(t, mustParse(t, pl.url)))
	if err := pl.cmd.Wait(); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, pl.stdout.String())
	}
	run(0, "", "watch", "demo", "--until", "idle")
	res = run(0, "", "show", "demo")
	if !regexp.MustCompile(`tool Deploy +\S+ +completed`).MatchString(res.stdout) {
		t.Errorf("the deploy did not run after the sign-in:\n%s", res.stdout)
	}
}
