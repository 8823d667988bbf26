package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ahptui/ahptui/authpkce"
	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/demohost/authserver"
	"github.com/ahptui/ahptui/host/trace"
	"github.com/ahptui/ahptui/internal/badhost"
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
	t.Parallel()
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
				// The suite runs once per demo version (scripts/test.sh):
				// the version the host speaks is the one thing that differs.
				checkGolden(t, tc.name+ext, strings.ReplaceAll(normalized(r.stdout), suiteVersion, "VERSION"))
			}
		})
	}
}

// TestCLIExitCodes: each documented exit code from the binary, with its
// message on stderr (as a JSON object with --json).
func TestCLIExitCodes(t *testing.T) {
	t.Parallel()
	skipShort(t)
	h := cliHost(t)
	bin := tmuxtest.Build(t, "github.com/ahptui/ahptui")
	env := cliEnv(t)
	refusing := badhost.RefusingVersion(t)
	secret := newSecret(t)
	guarded, err := demohost.Start(t.Context(), demohost.Config{Version: suiteVersion, ConnectionToken: secret})
	if err != nil {
		t.Fatal(err)
	}
	defer guarded.Close()
	// The closed port is picked after the listeners above: picked
	// before, the kernel could give its freed port to one of them (the
	// refusing host was seen on it, making "unreachable" a version error).
	down := badhost.Closed(t)
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"unknown session", []string{"show", "nosuch", "--host", h.URL()}, 8, `no session "nosuch"`},
		{"ambiguous session", []string{"show", "", "--host", h.URL()}, 2, "no session given"},
		{"missing argument", []string{"show", "--host", h.URL()}, 2, "want SESSION"},
		{"unknown flag", []string{"sessions", "--bogus", "--host", h.URL()}, 2, "unknown flag: --bogus"},
		{"bad host", []string{"sessions", "--host", "http://x"}, 2, "is an http URL"},
		{"unreachable", []string{"status", "--host", down}, 3, "connection refused"},
		{"unreachable json", []string{"status", "--host", down, "--json"}, 3, `"kind":"unreachable"`},
		{"no host running", []string{"status"}, 3, "no agent host is running"},
		{"version refused", []string{"status", "--host", refusing}, 4, "2.0.0"},
		{"version refused json", []string{"sessions", "--host", refusing, "--json"}, 4, `"kind":"version"`},
		{"wrong connection token", []string{"status", "--host", guarded.URL() + "?tkn=wrong-one"}, 11, "403"},
		{"doctor version refused", []string{"doctor", "--host", refusing}, 4, "doctor found a problem"},
		{"unknown server", []string{"mcp", "start", "nosuch", "--session", "demo", "--host", h.URL()}, 8, `no MCP server "nosuch"`},
		{"several sessions", []string{"mcp", "start", "mcp-github", "--host", h.URL()}, 2, "name one with --session"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, bin, env, "", append(tc.args, "--config-dir", privateDir(t))...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d; stderr %q", r.code, tc.code, r.stderr)
			}
			if !strings.Contains(r.stderr, tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, r.stderr)
			}
			if strings.Contains(r.stderr, "wrong-one") || strings.Contains(r.stderr, secret) {
				t.Errorf("stderr shows a connection token:\n%s", r.stderr)
			}
			if r.stdout != "" && tc.args[0] != "doctor" {
				t.Errorf("stdout on failure: %q", r.stdout)
			}
		})
	}
}

// idRE matches the ids the commands and the demo mint (turns, sessions).
var idRE = regexp.MustCompile(`[0-9a-f]{32}`)

// stable is normalized output with minted ids made stable too.
func stable(s string) string { return idRE.ReplaceAllString(normalized(s), "ID") }

// privateDir is an owner-only directory, as a config dir must be.
func privateDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

// cliRunner runs commands against one host with a config dir of its own.
type cliRunner struct {
	t        *testing.T
	bin, url string
	env      []string
}

func newCLIRunner(t *testing.T) (*cliRunner, *demohost.Host) {
	h := cliHost(t)
	return &cliRunner{t: t, bin: tmuxtest.Build(t, "github.com/ahptui/ahptui"), url: h.URL(), env: cliEnv(t)}, h
}

// run runs one command (stdin from in) and checks its exit code.
func (r *cliRunner) run(code int, in string, args ...string) cliResult {
	r.t.Helper()
	res := runCLI(r.t, r.bin, r.env, in, append(args, "--host", r.url, "--config-dir", privateDir(r.t))...)
	if res.code != code {
		r.t.Fatalf("%v: exit %d, want %d\nstdout %s\nstderr %s", args, res.code, code, res.stdout, res.stderr)
	}
	return res
}

// waitIdle waits, as a client of h, until chat has no running turn.
func waitIdle(t *testing.T, h *demohost.Host, chat string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), stepTimeout)
	defer cancel()
	c, err := client.Dial(ctx, client.Options{URL: h.URL(), ClientID: "0123456789abcdef0123456789abcdee"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Subscribe(ctx, chat); err != nil {
		t.Fatal(err)
	}
	for {
		if ch, ok := c.Chat(chat); ok && ch.ActiveTurn == nil {
			return
		}
		if _, ok := client.ReceiveEvents(c.Events(), 256); !ok || ctx.Err() != nil {
			t.Fatalf("the turn in %s did not end", chat)
		}
	}
}

// TestCLISendApprove is the script, step by step: send a message
// whose tool call needs approval (exit 5, naming the command that
// answers), approve it with that command, and read the finished turn; a
// second with --approve all runs through; a streamed answer prints whole.
func TestCLISendApprove(t *testing.T) {
	t.Parallel()
	skipShort(t)
	r, h := newCLIRunner(t)
	res := r.run(5, "", "send", "demo", "write the changelog")
	checkGolden(t, "send_waiting.txt", stable(res.stdout))
	if !strings.Contains(res.stderr, "ahptui approve --host "+r.url+" ahp-session:/demo ") {
		t.Errorf("stderr does not name the command that answers:\n%s", res.stderr)
	}
	res = r.run(0, "", "show", "demo", "--json")
	checkGolden(t, "show_waiting.json", stable(res.stdout))
	if res = r.run(2, "", "approve", "demo", "--option", "1"); !strings.Contains(res.stderr, "no option 1: Write file offers 0") {
		t.Errorf("--option on a call without options: %s", res.stderr)
	}
	r.run(8, "", "approve", "demo", "nosuch-call")
	res = r.run(0, "", "approve", "demo")
	checkGolden(t, "approve.txt", stable(res.stdout))
	waitIdle(t, h, "ahp-chat://default/YWhwLXNlc3Npb246L2RlbW8")
	res = r.run(9, "", "approve", "demo")
	if !strings.Contains(res.stderr, "nothing waits for approval") {
		t.Errorf("a second approve: %s", res.stderr)
	}
	res = r.run(0, "", "send", "demo", "write the changelog", "--approve", "all", "--json")
	checkGolden(t, "send_approve_all.json", stable(res.stdout))
	res = r.run(0, "", "send", "demo", "stream")
	checkGolden(t, "send_stream.txt", stable(res.stdout))
	res = r.run(5, "", "send", "demo", "write it", "--json")
	checkGolden(t, "send_waiting.json", stable(res.stdout))
	if !strings.Contains(res.stderr, `"kind":"waiting"`) {
		t.Errorf("--json stderr: %s", res.stderr)
	}
	res = r.run(0, "", "deny", "demo", "--json")
	checkGolden(t, "deny.json", stable(res.stdout))
	r.run(2, "", "send", "demo", "x", "--approve", "some")

	// watch: the state as it is (waiting) and --until input at once; after
	// the approval, --until idle once the turn has run.
	r.run(5, "", "send", "demo", "write it again")
	res = r.run(0, "", "watch", "demo", "--until", "input")
	// Each line's time is the wall clock's; its seq is the golden's.
	checkGolden(t, "watch_input.ndjson", timeRE.ReplaceAllString(stable(res.stdout), "TIME"))
	res = r.run(0, "", "approve", "demo", "--json")
	checkGolden(t, "approve.json", stable(res.stdout))
	res = r.run(0, "", "watch", "demo", "--until", "idle")
	if !strings.Contains(res.stdout, `"type":"state"`) {
		t.Errorf("watch did not start with the state:\n%s", res.stdout)
	}
	res = r.run(0, "", "show", "demo", "--json")
	if n := strings.Count(res.stdout, `"state": "complete"`); n < 3 {
		t.Errorf("%d complete turns after watch --until idle, want 3 or more:\n%s", n, res.stdout)
	}
	r.run(2, "", "watch", "--until", "idle")
	r.run(2, "", "watch", "demo", "--until", "later")
	// --approve reads approves only tools the host marks read-only: the
	// demo's Write file is not one, so send stops on it as with none.
	res = r.run(5, "", "send", "demo", "write once more", "--approve", "reads", "--json")
	if !strings.Contains(res.stdout, `"Write file"`) || !strings.Contains(res.stdout, "approval") {
		t.Errorf("send --approve reads did not stop on the write:\n%s", res.stdout)
	}
}

// TestCLIExampleScript runs examples/approve.sh (README, Scripting) with
// the built binary against the demo host: it approves with --option 2
// ("Allow once"), the host's answer names the option its
// selectedOptionId picked, and the chat records it.
func TestCLIExampleScript(t *testing.T) {
	t.Parallel()
	skipShort(t)
	r, _ := newCLIRunner(t)
	ctx, cancel := context.WithTimeout(t.Context(), startTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", filepath.Join("..", "..", "examples", "approve.sh"), "--host", r.url, "--config-dir", t.TempDir())
	cmd.Env = append(r.env, "AHPTUI="+r.bin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("examples/approve.sh: %v\n%s", err, out)
	}
	for _, want := range []string{"Waiting on you:", "approved Write file", "Allow once", "> update the changelog, with options", "Write file", "completed", "You picked **Allow once**."} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the script's output lacks %q:\n%s", want, out)
		}
	}
}

// TestCLISessionLifecycle: new, sessions, cancel a waiting turn, and
// dispose (refused without a yes, done with --yes).
func TestCLISessionLifecycle(t *testing.T) {
	t.Parallel()
	skipShort(t)
	r, _ := newCLIRunner(t)
	res := r.run(0, "", "new", "--json")
	checkGolden(t, "new.json", stable(res.stdout))
	res = r.run(0, "", "new")
	checkGolden(t, "new.txt", stable(res.stdout))
	uri := strings.TrimSpace(res.stdout)
	if !strings.HasPrefix(uri, "ahp-session:/") {
		t.Fatalf("new printed %q", uri)
	}
	if res = r.run(0, "", "sessions"); !strings.Contains(res.stdout, uri) {
		t.Errorf("sessions does not list %s:\n%s", uri, res.stdout)
	}
	r.run(9, "", "cancel", uri)
	r.run(5, "", "send", uri, "write")
	res = r.run(0, "", "cancel", uri)
	checkGolden(t, "cancel.txt", stable(res.stdout))
	res = r.run(0, "", "show", uri, "--json")
	if !strings.Contains(res.stdout, `"state": "cancelled"`) {
		t.Errorf("the turn is not cancelled:\n%s", res.stdout)
	}
	r.run(5, "", "send", uri, "write")
	res = r.run(0, "", "cancel", uri, "--json")
	checkGolden(t, "cancel.json", stable(res.stdout))
	// Without a terminal nobody can answer its question: dispose fails at
	// once, naming --yes, whatever a script pipes in.
	if res = r.run(2, "y\n", "dispose", uri); !strings.Contains(res.stderr, "--yes") {
		t.Errorf("dispose without a terminal does not name --yes:\n%s", res.stderr)
	}
	res = r.run(0, "", "dispose", uri, "--yes")
	checkGolden(t, "dispose.txt", stable(res.stdout))
	res = r.run(0, "", "dispose", "history", "--yes", "--json")
	checkGolden(t, "dispose.json", stable(res.stdout))
	if res = r.run(0, "", "sessions"); strings.Contains(res.stdout, uri) || strings.Contains(res.stdout, "history") {
		t.Errorf("disposed sessions are listed:\n%s", res.stdout)
	}
	r.run(8, "", "new", "--agent", "nosuch")
	res = r.run(0, "", "send", "--new", "stream", "--agent", "demo")
	if !strings.Contains(res.stdout, "That is the end of the stream.") {
		t.Errorf("send --new:\n%s", res.stdout)
	}
	r.run(2, "", "send", "--new")
}

// TestCLIMCPVerbs: stop, start, disable and enable a server, each
// printing the state the host settled on; a start that ends in an error
// or needing sign-in exits 6 or 7 with that state printed. The starts
// are in the history session, which has run: in one that has not, a
// start the host echoed without acting on it yet is reported as
// requested (TestCLIMCPStartRequested).
func TestCLIMCPVerbs(t *testing.T) {
	t.Parallel()
	skipShort(t)
	r, _ := newCLIRunner(t)
	for _, step := range []struct {
		golden string
		code   int
		args   []string
	}{
		{"mcp_stop.txt", 0, []string{"mcp", "stop", "Filesystem", "--session", "history"}},
		{"mcp_start.json", 0, []string{"mcp", "start", "mcp-filesystem", "--session", "history", "--json"}},
		{"mcp_start_error.json", 6, []string{"mcp", "start", "mcp-flaky", "--session", "history", "--json"}},
		{"mcp_start_signin.txt", 7, []string{"mcp", "start", "mcp-github", "--session", "history"}},
	} {
		res := r.run(step.code, "", step.args...)
		checkGolden(t, step.golden, stable(res.stdout))
	}
	// Enablement is what disable and enable wait for; the server's state
	// may still be on its way (stopping, starting), so only it is checked.
	// The goldens keep everything but the state.
	stateRE := regexp.MustCompile(`"state": "[A-Za-z]+"`)
	for i, step := range []struct {
		verb string
		want bool
	}{{"disable", false}, {"enable", true}, {"enable", true}} {
		res := r.run(0, "", "mcp", step.verb, "Deploy", "--session", "demo", "--json")
		var got struct{ Enabled bool }
		if err := json.Unmarshal([]byte(res.stdout), &got); err != nil || got.Enabled != step.want {
			t.Errorf("mcp %s: enabled %v (%v), want %v:\n%s", step.verb, got.Enabled, err, step.want, res.stdout)
		}
		if i < 2 {
			checkGolden(t, "mcp_"+step.verb+".json", stateRE.ReplaceAllString(stable(res.stdout), `"state": "STATE"`))
		}
	}
}

// TestCLIAnswer: an input request answered from flags, from stdin, and
// declined; answers the request cannot take are usage errors.
func TestCLIAnswer(t *testing.T) {
	t.Parallel()
	skipShort(t)
	r, h := newCLIRunner(t)
	res := r.run(5, "", "send", "demo", "ask")
	checkGolden(t, "send_ask.txt", stable(res.stdout))
	res = r.run(0, "", "show", "demo", "--json")
	checkGolden(t, "show_ask.json", stable(res.stdout))
	r.run(2, "", "answer", "demo", "--answer", "nosuch=1")
	r.run(2, "", "answer", "demo", "--answer", "notes=only notes")
	r.run(2, "", "answer", "demo", "--answer", "target")
	res = r.run(0, "", "answer", "demo", "--answer", "target=Production", "--answer", "notes=ship it")
	checkGolden(t, "answer.txt", stable(res.stdout))
	waitIdle(t, h, "ahp-chat://default/YWhwLXNlc3Npb246L2RlbW8")
	res = r.run(0, "", "show", "demo")
	if !strings.Contains(res.stdout, "production") && !strings.Contains(res.stdout, "Production") {
		t.Errorf("the agent did not get the answer:\n%s", res.stdout)
	}
	r.run(5, "", "send", "demo", "ask")
	res = r.run(0, "# from a file\ntarget=staging\n", "answer", "demo", "--json")
	checkGolden(t, "answer_stdin.json", stable(res.stdout))
	waitIdle(t, h, "ahp-chat://default/YWhwLXNlc3Npb246L2RlbW8")
	r.run(5, "", "send", "demo", "ask")
	res = r.run(0, "", "answer", "demo", "--decline")
	checkGolden(t, "answer_decline.txt", stable(res.stdout))
	r.run(9, "", "answer", "demo")
}

// TestCLIDoctor: doctor against the demo host says every host check is
// ok and exits 0; against a closed port the reach check fails with how
// to fix it and exit 3; a config dir open to others fails (exit 1) and
// is left as it was.
func TestCLIDoctor(t *testing.T) {
	t.Parallel()
	skipShort(t)
	r, _ := newCLIRunner(t)
	type check struct{ Name, Status, Detail, Fix string }
	parse := func(out string) map[string]check {
		var doc struct{ Checks []check }
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("doctor --json: %v\n%s", err, out)
		}
		m := map[string]check{}
		for _, c := range doc.Checks {
			m[c.Name] = c
		}
		return m
	}
	res := r.run(0, "", "doctor", "--json")
	got := parse(res.stdout)
	for _, name := range []string{"host", "reach", "version", "registry", "config", "callback", "browser", "terminal"} {
		if c, ok := got[name]; !ok || c.Status == "fail" {
			t.Errorf("check %s: %+v", name, c)
		}
	}
	if !strings.Contains(got["version"].Detail, "AHP "+suiteVersion) {
		t.Errorf("version: %+v", got["version"])
	}
	res = runCLI(t, r.bin, r.env, "", "doctor", "--json", "--host", "ws://"+badhost.ClosedAddr(t)+"/", "--config-dir", privateDir(t))
	if got = parse(res.stdout); res.code != 3 || got["reach"].Status != "fail" || !strings.Contains(got["reach"].Detail, "connection refused") || got["reach"].Fix == "" {
		t.Errorf("doctor on a closed port: exit %d, %+v", res.code, got["reach"])
	}
	open := filepath.Join(t.TempDir(), "cfg")
	if err := os.Mkdir(open, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o755); err != nil {
		t.Fatal(err)
	}
	res = runCLI(t, r.bin, r.env, "", "doctor", "--host", r.url, "--config-dir", open)
	if res.code != 1 || !strings.Contains(res.stdout, "FAIL  config") || !strings.Contains(res.stdout, "chmod 700") {
		t.Errorf("doctor with an open config dir: exit %d\n%s", res.code, res.stdout)
	}
	if fi, err := os.Stat(open); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("doctor changed the config dir: %v %v", fi.Mode(), err)
	}
}

// githubResource is the GitHub MCP server's protected resource, as
// mcp list --json names it in the demo session; the test fails without.
func (r *cliRunner) githubResource() string {
	r.t.Helper()
	var servers []struct{ ID, Resource string }
	if err := json.Unmarshal([]byte(r.run(0, "", "mcp", "list", "--session", "demo", "--json").stdout), &servers); err != nil {
		r.t.Fatal(err)
	}
	for _, s := range servers {
		if s.ID == demohost.GitHubServerID && s.Resource != "" {
			return s.Resource
		}
	}
	r.t.Fatalf("mcp list names no resource for %s: %+v", demohost.GitHubServerID, servers)
	return ""
}

// TestCLISavedSignIn: a sign-in saved on this host (as the UI saves one)
// is pushed by a command, so starting the GitHub MCP server (in the
// history session, which has run), which needs sign-in without it (exit
// 7), comes up ready. The demo is plain ws:// given with --host, where the
// UI asks first: the command sends it with --allow-saved-tokens.
func TestCLISavedSignIn(t *testing.T) {
	t.Parallel()
	skipShort(t)
	r, h := newCLIRunner(t)
	resource := r.githubResource()
	dir := privateDir(t)
	saveDemoSignIn(t, h, dir, resource)
	res := runCLI(t, r.bin, r.env, "", "mcp", "start", demohost.GitHubServerID, "--session", "history", "--json", "--host", r.url, "--config-dir", dir, "--allow-saved-tokens")
	if res.code != 0 || !strings.Contains(res.stdout, `"state": "ready"`) {
		t.Errorf("mcp start with a saved sign-in: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
}

// saveDemoSignIn signs in to resource at h's authorization server as the
// UI does, and saves the grant in dir (bound to h).
func saveDemoSignIn(t *testing.T, h *demohost.Host, dir, resource string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), stepTimeout)
	defer cancel()
	urls := make(chan string, 1)
	a, err := authpkce.New(authpkce.Config{Dir: dir, TokenStore: authpkce.TokenStoreFile, OpenBrowser: func(u string) error { urls <- u; return nil }})
	if err != nil {
		t.Fatal(err)
	}
	g, err := a.Start(ctx, authpkce.GrantRequest{
		Requirement: authpkce.Requirement{Reason: authpkce.ReasonRequired, RequiredScopes: demohost.GitHubScopes,
			Resource:    authpkce.ProtectedResourceMetadata{Resource: resource, AuthorizationServers: []string{h.AuthIssuer()}},
			OAuthClient: &authpkce.Client{ClientID: h.Auth().PublicClientID()}},
		Advertised: []string{resource},
		Host:       h.URL(),
	})
	if err != nil {
		t.Fatal(err)
	}
	landed := approveWithoutRedirect(t, mustParse(t, <-urls))
	resp, err := http.Get(landed.String())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if _, err := g.Wait(ctx); err != nil {
		t.Fatalf("sign-in: %v", err)
	}
}

func mustParse(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestCLIAuthLogin: auth login for the GitHub MCP server's resource prints
// the sign-in URL (--no-browser), and once the browser's consent lands on
// its loopback listener, saves the grant and pushes it: auth list shows
// it. Its --trace is grepped for the code and the tokens.
func TestCLIAuthLogin(t *testing.T) {
	t.Parallel()
	skipShort(t)
	r, _ := newCLIRunner(t)
	resource := r.githubResource()
	dir := privateDir(t)
	ctx, cancel := context.WithTimeout(t.Context(), startTimeout)
	defer cancel()
	tracePath := filepath.Join(t.TempDir(), "trace.jsonl")
	cmd := exec.CommandContext(ctx, r.bin, "auth", "login", resource, "--session", "demo", "--no-browser", "--host", r.url, "--config-dir", dir, "--trace", tracePath)
	cmd.Env = r.env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	var authURL string
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); strings.HasPrefix(l, "http") {
			authURL = l
			break
		}
	}
	if authURL == "" {
		t.Fatal("auth login printed no sign-in URL")
	}
	go func() { _, _ = io.Copy(io.Discard, stderr) }()
	u := mustParse(t, authURL)
	if err := CheckAuthURL(u, demohost.GitHubResourcePath, demohost.GitHubScopes[0]); err != nil {
		t.Fatalf("%s: %v", authURL, err)
	}
	landed := approveWithoutRedirect(t, u)
	resp, err := http.Get(landed.String())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("auth login: %v\n%s", err, stdout.String())
	}
	checkGolden(t, "auth_login.txt", goldenStable(stdout.String(), dir))
	// The command's --trace of this full sign-in holds the authenticate
	// frame, redacted, and neither the code nor a token.
	text, _ := readTrace(t, tracePath)
	if !strings.Contains(text, `"method":"authenticate"`) || !strings.Contains(text, `"token":"`+trace.Redacted+`"`) {
		t.Errorf("the trace lacks a redacted authenticate:\n%s", text)
	}
	for _, secret := range []string{landed.Query().Get("code"), authserver.AccessTokenPrefix, authserver.RefreshTokenPrefix, authserver.CodePrefix} {
		if secret == "" || strings.Contains(text, secret) {
			t.Errorf("the trace holds %q", secret)
		}
	}
	if res := runCLI(t, r.bin, r.env, "", "auth", "list", "--config-dir", dir); res.code != 0 || !strings.Contains(res.stdout, resource) {
		t.Errorf("auth list after login: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	// That a later command pushes the saved grant is TestCLISavedSignIn's:
	// right after login the demo's server state still moves with the
	// login connection's close, which this test cannot wait on.
	if res := runCLI(t, r.bin, r.env, "", "auth", "login", "https://nosuch.example/", "--host", r.url, "--config-dir", dir); res.code != 8 {
		t.Errorf("login to a resource the host does not ask for: exit %d %s", res.code, res.stderr)
	}
}

// TestCLIWatchHost: watch with no session prints the host's session list
// changes as NDJSON: a session created and disposed by other commands.
func TestCLIWatchHost(t *testing.T) {
	t.Parallel()
	skipShort(t)
	r, _ := newCLIRunner(t)
	ctx, cancel := context.WithTimeout(t.Context(), startTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.bin, "watch", "--host", r.url, "--config-dir", privateDir(t))
	cmd.Env = r.env
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	lines := bufio.NewScanner(stdout)
	type event struct {
		Channel, Type, Session string
		Sessions               []struct{ Session string }
	}
	next := func(want string) event {
		for lines.Scan() {
			var ev event
			if err := json.Unmarshal(lines.Bytes(), &ev); err != nil {
				t.Fatalf("not NDJSON: %q", lines.Text())
			}
			if ev.Type == want {
				return ev
			}
		}
		t.Fatalf("watch ended before a %s event", want)
		return event{}
	}
	// The first line is the list as it is: the watch is connected.
	if ev := next("state"); ev.Channel != "ahp-root://" || len(ev.Sessions) != 2 {
		t.Errorf("first line: %+v", ev)
	}
	uri := strings.TrimSpace(r.run(0, "", "new").stdout)
	if ev := next("sessionAdded"); ev.Channel != "ahp-root://" || ev.Session != uri {
		t.Errorf("sessionAdded: %+v, want %s", ev, uri)
	}
	r.run(0, "", "dispose", uri, "--yes")
	if ev := next("sessionRemoved"); ev.Session != uri {
		t.Errorf("sessionRemoved: %+v, want %s", ev, uri)
	}
}

// pasteLogin is an `auth login --paste` running: stdin takes the pasted
// address, stdout is kept, url is the sign-in URL it printed on stderr,
// and stderr is what it writes after that line.
type pasteLogin struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr io.Reader
	stdout *bytes.Buffer
	url    string
}

// startPasteLogin starts the binary with args and reads its stderr up to
// the sign-in URL; the test fails if it prints none.
func (r *cliRunner) startPasteLogin(ctx context.Context, args ...string) *pasteLogin {
	r.t.Helper()
	cmd := exec.CommandContext(ctx, r.bin, args...)
	cmd.Env = r.env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		r.t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		r.t.Fatal(err)
	}
	pl := &pasteLogin{cmd: cmd, stdin: stdin, stderr: stderr, stdout: &bytes.Buffer{}}
	cmd.Stdout = pl.stdout
	if err := cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	for sc.Scan() && pl.url == "" {
		if l := strings.TrimSpace(sc.Text()); strings.HasPrefix(l, "http") {
			pl.url = l
		}
	}
	if pl.url == "" {
		r.t.Fatalf("%v printed no sign-in URL", args)
	}
	return pl
}

// TestCLIAuthLoginPaste: auth login --paste over SSH, as it were: the
// browser's redirect reaches nothing, so the address it landed on is
// pasted on stdin; a wrong one is refused without ending the sign-in.
func TestCLIAuthLoginPaste(t *testing.T) {
	t.Parallel()
	skipShort(t)
	r, h := newCLIRunner(t)
	resource := demoResource(h)
	ctx, cancel := context.WithTimeout(t.Context(), startTimeout)
	defer cancel()
	pl := r.startPasteLogin(ctx, "auth", "login", resource, "--session", "demo", "--paste", "--json", "--host", r.url, "--config-dir", privateDir(t))
	var rest bytes.Buffer
	done := make(chan struct{})
	go func() { _, _ = io.Copy(&rest, pl.stderr); close(done) }()
	landed := approveWithoutRedirect(t, mustParse(t, pl.url))
	fmt.Fprintf(pl.stdin, "http://127.0.0.1:1/elsewhere?code=x\n%s\n", landed)
	if err := pl.cmd.Wait(); err != nil {
		<-done
		t.Fatalf("auth login --paste: %v\n%s%s", err, pl.stdout.String(), rest.String())
	}
	<-done
	checkGolden(t, "auth_login.json", goldenStable(pl.stdout.String(), ""))
	if !strings.Contains(rest.String(), "not this sign-in's redirect address") {
		t.Errorf("stderr %q", rest.String())
	}
	if strings.Contains(rest.String(), landed.Query().Get("code")) {
		t.Errorf("stderr shows the code: %s", rest.String())
	}
}
