package e2e

import (
	"bufio"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ahptui/ahptui/internal/tmuxtest"
)

// TestCLIJSONSchemasHostsAndDemo: hosts add, list (bare hosts too) and
// rm, and demo serve's first line, run as the built binary, print what
// their schemas in docs/schemas describe (a member grown into any object
// refused), with a saved host that answers, one that does not and a
// host VS Code's registry lists; hosts rm of a host not saved is an
// error object of kind not-found. --json=FIELDS keeps only those
// members and --jq's JSON results are JSON lines, for these commands and
// sessions.
func TestCLIJSONSchemasHostsAndDemo(t *testing.T) {
	t.Parallel()
	skipShort(t)
	wireFree(t)
	schemas := cliSchemas(t)
	secret := newSecret(t)
	h, _ := registryDemo(t, secret)
	bin := tmuxtest.Build(t, "github.com/ahptui/ahptui")
	env := append(cliEnv(t), registryHome(t, tcpEntry(h, secret, "one"))...)
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

	add := run(0, "hosts", "add", "work", h.URL(), "--token-file", tokenFile, "--default", "--json").stdout
	validateJSON(t, schemas, "hosts-add", "hosts add", add)
	validateJSON(t, schemas, "hosts-add", "hosts add (not the default)", run(0, "hosts", "add", "down", "ws://127.0.0.1:1/", "--json").stdout)
	for _, args := range [][]string{{"hosts", "list", "--json"}, {"hosts", "--json"}} {
		out := run(0, args...).stdout
		validateJSON(t, schemas, "hosts-list", strings.Join(args, " "), out)
		var list struct {
			Saved []struct{ Name, Reach string }
			Local []struct{ Reach string }
		}
		if err := json.Unmarshal([]byte(out), &list); err != nil {
			t.Fatal(err)
		}
		// Every kind of row is in the output validated: a saved host that
		// answers, one that does not, a registry host.
		if len(list.Saved) != 2 || list.Saved[0].Reach == list.Saved[1].Reach || len(list.Local) != 1 || list.Local[0].Reach != "reachable" {
			t.Errorf("%v: not every kind of row to validate: %+v", args, list)
		}
	}

	// --json=FIELDS keeps only those members; --jq's JSON results are
	// one JSON text a line.
	for _, tc := range []struct {
		args   []string
		fields []string
	}{
		{[]string{"hosts", "list", "--json=file,default"}, []string{"default", "file"}},
		{[]string{"hosts", "add", "other", h.URL(), "--json=name,url"}, []string{"name", "url"}},
		{[]string{"sessions", "--host", "work", "--json=session,status"}, []string{"session", "status"}},
	} {
		out := run(0, tc.args...).stdout
		var v any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("%v: not JSON: %v\n%s", tc.args, err, out)
		}
		objs, _ := v.([]any)
		if len(objs) == 0 {
			objs = []any{v}
		}
		for _, o := range objs {
			m, _ := o.(map[string]any)
			if keys := slices.Sorted(func(yield func(string) bool) {
				for k := range m {
					if !yield(k) {
						return
					}
				}
			}); !slices.Equal(keys, tc.fields) {
				t.Errorf("%v: members %v, want %v\n%s", tc.args, keys, tc.fields, out)
			}
		}
	}
	for _, tc := range []struct {
		args []string
		n    int
	}{
		{[]string{"hosts", "list", "--jq", ".saved[]"}, 3}, // work, down, other
		{[]string{"sessions", "--host", "work", "--jq", ".[] | {session, title}"}, 2},
	} {
		args := tc.args
		lines := strings.Split(strings.TrimSpace(run(0, args...).stdout), "\n")
		if len(lines) != tc.n {
			t.Errorf("%v: %d lines, want %d", args, len(lines), tc.n)
		}
		for _, l := range lines {
			if !json.Valid([]byte(l)) || !strings.HasPrefix(l, "{") {
				t.Errorf("%v: a line that is not a JSON object: %q", args, l)
			}
		}
	}
	run(2, "hosts", "list", "--json=nosuch")

	validateJSON(t, schemas, "hosts-rm", "hosts rm", run(0, "hosts", "rm", "other", "--json").stdout)
	gone := run(8, "hosts", "rm", "other", "--json")
	validateLines(t, schemas, "error", "hosts rm of a host not saved", gone.stderr)
	if !strings.Contains(gone.stderr, `"exit":8`) || !strings.Contains(gone.stderr, `"kind":"not-found"`) {
		t.Errorf("hosts rm of a host not saved: %s", gone.stderr)
	}

	// demo serve --json: its first line, with and without a token file;
	// --jq .url is the bare URL; --json=url keeps url alone.
	demoTok := filepath.Join(privateDir(t), "demo.token")
	line := demoServeLine(t, bin, env, "--json", "--token-file", demoTok)
	validateJSON(t, schemas, "demo-serve", "demo serve --json --token-file", line)
	var served struct{ URL, ProtocolVersion, AuthIssuer, TokenFile string }
	if err := json.Unmarshal([]byte(line), &served); err != nil {
		t.Fatal(err)
	}
	if served.TokenFile != demoTok || served.ProtocolVersion != "1.0.0" || !strings.HasPrefix(served.AuthIssuer, "http://127.0.0.1:") {
		t.Errorf("demo serve --json: %s", line)
	}
	if _, err := os.Lstat(demoTok); !os.IsNotExist(err) {
		t.Errorf("demo serve left its token file: %v", err)
	}
	validateJSON(t, schemas, "demo-serve", "demo serve --json", demoServeLine(t, bin, env, "--json"))
	if url := demoServeLine(t, bin, env, "--jq", ".url"); !strings.HasPrefix(url, "ws://127.0.0.1:") || strings.Contains(url, `"`) {
		t.Errorf("demo serve --jq .url: %q", url)
	}
	if only := demoServeLine(t, bin, env, "--json=url"); !strings.HasPrefix(only, `{"url":"ws://127.0.0.1:`) || strings.Count(only, `":`) != 1 {
		t.Errorf("demo serve --json=url: %q", only)
	}
	if res := run(2, "demo", "serve", "--json=nosuch"); !strings.Contains(res.stderr, `has url, protocolVersion, authIssuer, tokenFile`) {
		t.Errorf("demo serve --json=nosuch: %s", res.stderr)
	}
}

// demoServeLine starts `ahptui demo serve` with args, returns the first
// line of its stdout, then stops it with SIGTERM (exit 0).
func demoServeLine(t *testing.T, bin string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"demo", "serve", "--config-dir", privateDir(t)}, args...)...)
	cmd.Env = env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	first := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(out).ReadString('\n')
		first <- l
	}()
	var line string
	select {
	case line = <-first:
	case <-time.After(startTimeout):
		_ = cmd.Process.Kill()
		t.Fatalf("demo serve %v printed nothing\n%s", args, stderr.String())
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	if code, _ := waitExit(t, cmd, stepTimeout); code != 0 {
		t.Errorf("demo serve %v: exit %d on SIGTERM, want 0\n%s", args, code, stderr.String())
	}
	if !strings.HasSuffix(line, "\n") || strings.Count(line, "\n") != 1 {
		t.Errorf("demo serve %v: the first line is not one whole line: %q", args, line)
	}
	return strings.TrimSuffix(line, "\n")
}

// TestCLIScriptsExitCodes: the scripts' commands end with the codes of
// docs/cli.md's table: inbox --wait past --timeout is 10 (timeout), not
// 3; demo serve given a host, a version it does not serve or a port out
// of range is 2 (usage), and a port in use 1 (a local failure).
func TestCLIScriptsExitCodes(t *testing.T) {
	t.Parallel()
	skipShort(t)
	wireFree(t)
	r, _ := newCLIRunner(t)
	if res := r.run(10, "", "inbox", "--wait", "--kind", "approval", "--timeout", "1s", "--json"); !strings.Contains(res.stderr, `"kind":"timeout"`) {
		t.Errorf("inbox --wait past --timeout: %s", res.stderr)
	}
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	port := strconv.Itoa(busy.Addr().(*net.TCPAddr).Port)
	for _, tc := range []struct {
		code   int
		stderr string
		args   []string
	}{
		{2, "demo serve is a host", []string{"--host", r.url}},
		{2, "the demo host serves", []string{"--version", "9.9.9"}},
		{2, "give 1 to 65535", []string{"--port", "70000"}},
		{1, "address already in use", []string{"--port", port}},
	} {
		res := runCLI(t, r.bin, r.env, "", append([]string{"demo", "serve", "--config-dir", privateDir(t)}, tc.args...)...)
		if res.code != tc.code || !strings.Contains(res.stderr, tc.stderr) {
			t.Errorf("demo serve %v: exit %d, want %d (%q)\n%s", tc.args, res.code, tc.code, tc.stderr, res.stderr)
		}
	}
}
