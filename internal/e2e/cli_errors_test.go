package e2e

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/internal/badhost"
	"github.com/ahptui/ahptui/internal/tmuxtest"
	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

// redactedInWord finds REDACTED glued to a letter: a token removed from
// inside another word ("cREDACTEDnnect").
var redactedInWord = regexp.MustCompile(`[A-Za-z]REDACTED|REDACTED[A-Za-z]`)

// TestCLIRedactsOnlySecrets is issue 32's item 5: a one-letter and a
// common-word connection token are kept out of what the binary prints,
// and no word around them is cut up.
func TestCLIRedactsOnlySecrets(t *testing.T) {
	t.Parallel()
	skipShort(t)
	bin := tmuxtest.Build(t, "github.com/ahptui/ahptui")
	env := cliEnv(t)
	down := badhost.Closed(t)
	for _, token := range []string{"o", "connect"} {
		t.Run(token, func(t *testing.T) {
			guarded, err := demohost.Start(t.Context(), demohost.Config{Version: suiteVersion, ConnectionToken: token})
			if err != nil {
				t.Fatal(err)
			}
			defer guarded.Close()
			trace := filepath.Join(t.TempDir(), "trace.jsonl")
			for _, tc := range []struct {
				name string
				args []string
				code int
				want string
			}{
				{"refused", []string{"status", "--host", down + "?tkn=" + token}, 3,
					"ahptui: connect to " + down + ": connection refused (is the host running?)\n"},
				{"refused, traced", []string{"status", "--host", down + "?tkn=" + token, "--trace", trace}, 3,
					"ahptui: connect to " + down + ": connection refused (is the host running?)\nahptui: detail: "},
				{"wrong token", []string{"status", "--host", guarded.URL() + "?tkn=" + token + "x"}, 11,
					"ahptui: connect to " + guarded.URL() + ": HTTP 403: wrong or missing connection token"},
				{"right token", []string{"sessions", "--host", guarded.URL() + "?tkn=" + token}, 0, ""},
			} {
				t.Run(tc.name, func(t *testing.T) {
					r := runCLI(t, bin, env, "", append(tc.args, "--config-dir", privateDir(t))...)
					if r.code != tc.code || !strings.HasPrefix(r.stderr, tc.want) {
						t.Fatalf("exit %d, want %d; stderr %q, want it to start %q", r.code, tc.code, r.stderr, tc.want)
					}
					out := r.stdout + r.stderr
					if m := redactedInWord.FindString(out); m != "" {
						t.Errorf("a word was cut by the redaction (%q):\n%s", m, out)
					}
					if strings.Contains(out, "tkn="+token) {
						t.Errorf("the token is shown:\n%s", out)
					}
				})
			}
		})
	}
}

// muteHost takes the WebSocket upgrade and then says nothing: a host that
// never answers initialize.
func muteHost(t *testing.T) string {
	return badhost.WS(t, func(jsonrpc.Transport, []byte) { <-t.Context().Done() })
}

// TestCLIConnectErrorsKindFirst is item 6: a refused connection and a
// host that never answers initialize read kind first, in words, without
// the doubled prefix or the Go chain (which --trace adds).
func TestCLIConnectErrorsKindFirst(t *testing.T) {
	t.Parallel()
	skipShort(t)
	bin := tmuxtest.Build(t, "github.com/ahptui/ahptui")
	env := cliEnv(t)
	down := badhost.Closed(t)
	mute := muteHost(t)
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"refused", []string{"status", "--host", down}, 3,
			"ahptui: connect to " + down + ": connection refused (is the host running?)\n"},
		{"refused json", []string{"status", "--host", down, "--json"}, 3,
			`{"error":"connect to ` + down + `: connection refused (is the host running?)","exit":3,"kind":"unreachable"}` + "\n"},
		{"mute", []string{"status", "--host", mute}, 3,
			"ahptui: connect to " + mute + ": the host accepted the connection but did not answer within 10s\n"},
		{"mute within --timeout", []string{"sessions", "--host", mute, "--timeout", "2s"}, 10,
			"ahptui: connect to " + mute + ": the host accepted the connection but did not answer within 2s (--timeout)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, bin, env, "", append(tc.args, "--config-dir", privateDir(t))...)
			if r.code != tc.code || r.stderr != tc.stderr {
				t.Errorf("exit %d, want %d\nstderr %q\nwant   %q", r.code, tc.code, r.stderr, tc.stderr)
			}
		})
	}
	r := runCLI(t, bin, env, "", "status", "--host", down, "--trace", filepath.Join(t.TempDir(), "t.jsonl"), "--config-dir", privateDir(t))
	if lines := strings.Split(strings.TrimSpace(r.stderr), "\n"); r.code != 3 || len(lines) != 2 ||
		!strings.HasPrefix(lines[1], "ahptui: detail: ") || !strings.Contains(lines[1], "dial tcp") {
		t.Errorf("--trace: exit %d, want the chain on a second line:\n%s", r.code, r.stderr)
	}
}

// TestCLIExitCodesOwn is item 7: not-found, conflict, timeout, a refused
// token, a cancelled turn and an unsafe local file each exit with their
// own code, and the table is printed once (help exit-codes).
func TestCLIExitCodesOwn(t *testing.T) {
	t.Parallel()
	skipShort(t)
	r, h := newCLIRunner(t)
	for _, tc := range []struct {
		code   int
		stderr string
		args   []string
	}{
		{8, `no session "nosuch"`, []string{"show", "nosuch"}},
		{8, `no tool call "nosuch-call"`, []string{"approve", "demo", "nosuch-call"}},
		{8, `no MCP server "nosuch"`, []string{"mcp", "start", "nosuch", "--session", "demo"}},
		{8, `no agent "nosuch"`, []string{"new", "--agent", "nosuch"}},
		{9, "nothing waits for approval", []string{"approve", "demo"}},
		{9, "no turn is running", []string{"cancel", "demo"}},
		{9, "no input request waits", []string{"answer", "demo", "--answer", "target=staging"}},
		{2, "unknown flag", []string{"show", "demo", "--bogus"}},
	} {
		res := r.run(tc.code, "", tc.args...)
		if !strings.Contains(res.stderr, tc.stderr) {
			t.Errorf("%v: stderr lacks %q: %s", tc.args, tc.stderr, res.stderr)
		}
	}
	// A turn waiting on an answer is running: a second send conflicts,
	// and a watch for its end passes --timeout.
	r.run(5, "", "send", "demo", "ask")
	if res := r.run(9, "", "send", "demo", "hello"); !strings.Contains(res.stderr, "a turn is running") {
		t.Errorf("send during a turn: %s", res.stderr)
	}
	if res := r.run(10, "", "watch", "demo", "--until", "done", "--timeout", "1s", "--json"); !strings.Contains(res.stderr, `"kind":"timeout"`) {
		t.Errorf("watch past --timeout: %s", res.stderr)
	}
	r.run(0, "", "answer", "demo", "--decline")
	waitIdle(t, h, "ahp-chat://default/YWhwLXNlc3Npb246L2RlbW8")

	// help exit-codes is the one table; a command's help points at it.
	res := runCLI(t, r.bin, r.env, "", "help", "exit-codes")
	for _, want := range []string{" 8  not found", " 9  conflict", "10  timeout", "11  the host refused the connection token", "130  interrupted"} {
		if res.code != 0 || !strings.Contains(res.stdout, want) {
			t.Errorf("help exit-codes lacks %q: exit %d\n%s", want, res.code, res.stdout)
		}
	}
	res = runCLI(t, r.bin, r.env, "", "send", "--help")
	if !strings.Contains(res.stdout, "ahptui help exit-codes") || strings.Contains(res.stdout, "10  timeout") {
		t.Errorf("send --help repeats the table or does not point at it:\n%s", res.stdout)
	}
}

// TestCLICancelledTurnIs130: a turn cancelled (ahptui cancel, the UI)
// while send waits on it ends send with 130, as ctrl-c would, not 6.
func TestCLICancelledTurnIs130(t *testing.T) {
	t.Parallel()
	skipShort(t)
	h, err := demohost.Start(t.Context(), demohost.Config{Version: suiteVersion, Clock: cliClock, StepDelay: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	bin := tmuxtest.Build(t, "github.com/ahptui/ahptui")
	env := cliEnv(t)
	send := exec.Command(bin, "send", "demo", "stream", "--host", h.URL(), "--config-dir", privateDir(t))
	send.Env = env
	var stderr strings.Builder
	send.Stderr = &stderr
	if err := send.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(stepTimeout)
	for {
		res := runCLI(t, bin, env, "", "cancel", "demo", "--host", h.URL(), "--config-dir", privateDir(t))
		if res.code == 0 {
			break
		}
		if res.code != 9 || time.Now().After(deadline) {
			t.Fatalf("cancel: exit %d %s", res.code, res.stderr)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if code, _ := waitExit(t, send, stepTimeout); code != 130 || !strings.Contains(stderr.String(), "the turn was cancelled") {
		t.Errorf("send of a cancelled turn: exit %d, want 130; stderr %s", code, stderr.String())
	}
}

// TestCLIUnsafeLocalFiles: a hosts.yml others may write exits 1 whether
// one saved host or --all-hosts reads it, and a connection token file
// others may read is refused with exit 1, naming the mode, its content
// not printed.
func TestCLIUnsafeLocalFiles(t *testing.T) {
	t.Parallel()
	skipShort(t)
	bin := tmuxtest.Build(t, "github.com/ahptui/ahptui")
	env := cliEnv(t)
	dir := privateDir(t)
	yml := filepath.Join(dir, "hosts.yml")
	if err := os.WriteFile(yml, []byte("hosts:\n  one:\n    url: "+badhost.Closed(t)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(yml, 0o666); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"status", "--host", "one"}, {"status", "--all-hosts"}, {"inbox", "--all-hosts"}} {
		r := runCLI(t, bin, env, "", append(args, "--config-dir", dir)...)
		if r.code != 1 || !strings.Contains(r.stderr, "writable by other users") {
			t.Errorf("%v: exit %d, want 1: %s", args, r.code, r.stderr)
		}
	}
	const secret = "token-file-secret-1234"
	tokFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokFile, []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(tokFile, 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, bin, env, "", "status", "--host", badhost.Closed(t), "--connection-token-file", tokFile, "--config-dir", privateDir(t))
	if r.code != 1 || !strings.Contains(r.stderr, "open to other users (mode 0644)") || strings.Contains(r.stdout+r.stderr, secret) {
		t.Errorf("a 0644 token file: exit %d, want 1: %s", r.code, r.stderr)
	}
}

// TestCLIAnswerRefusesWhatItCannotSend is item 11 through the binary: an
// option the question lacks is named, two answers to a single-select are
// refused, and nothing is sent (the request still waits and takes a
// right answer).
func TestCLIAnswerRefusesWhatItCannotSend(t *testing.T) {
	t.Parallel()
	skipShort(t)
	r, _ := newCLIRunner(t)
	r.run(5, "", "send", "demo", "ask")
	if res := r.run(2, "", "answer", "demo", "--answer", "target=mars"); !strings.Contains(res.stderr, `"mars" is not an option of target (options: staging, production)`) {
		t.Errorf("target=mars: %s", res.stderr)
	}
	if res := r.run(2, "", "answer", "demo", "--answer", "target=staging", "--answer", "target=production"); !strings.Contains(res.stderr, `"target" takes one answer`) {
		t.Errorf("two answers: %s", res.stderr)
	}
	if res := r.run(2, "", "answer", "demo", "--answer", "target=staging,production"); !strings.Contains(res.stderr, "takes one option") {
		t.Errorf("a comma list: %s", res.stderr)
	}
	if res := r.run(0, "", "answer", "demo", "--answer", "target=production", "--json"); !strings.Contains(res.stdout, `"target": "production"`) {
		t.Errorf("the request no longer waits, or took another answer:\n%s", res.stdout)
	}
}

// commandPaths is every command the binary's help lists, its groups'
// subcommands too, as ahptui help prints them.
func commandPaths(t *testing.T, bin string, env []string, path ...string) [][]string {
	t.Helper()
	args := append(append([]string{}, path...), "--help")
	if len(path) == 0 {
		args = []string{"help"} // bare --help is the UI's
	}
	r := runCLI(t, bin, env, "", args...)
	_, list, ok := strings.Cut(r.stdout, "Available Commands:\n")
	if !ok {
		return nil
	}
	list, _, _ = strings.Cut(list, "\n\n")
	var out [][]string
	for _, line := range strings.Split(list, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || f[0] == "help" || f[0] == "completion" {
			continue
		}
		p := append(append([]string{}, path...), f[0])
		out = append(out, p)
		out = append(out, commandPaths(t, bin, env, p...)...)
	}
	return out
}

// TestCLIExamplesRun: every command's help has examples, and each runs
// as printed (through sh, ahptui being the binary aimed at a demo host of
// its own): none is a usage error, a local failure or names what the
// host lacks. Exits a live host gives (waiting 5, sign-in 7, nothing to
// act on 9, --timeout 10) are fine. Host work is saved (the demo host)
// and ~/.work.token, which hosts add's example names, exists. demo
// serve's examples run until their first line, the URL, then SIGTERM
// stops them: exit 0, their token file gone.
func TestCLIExamplesRun(t *testing.T) {
	t.Parallel()
	skipShort(t)
	bin := tmuxtest.Build(t, "github.com/ahptui/ahptui")
	env := cliEnv(t)
	for _, kv := range env {
		if home, ok := strings.CutPrefix(kv, "HOME="); ok {
			if err := os.WriteFile(filepath.Join(home, ".work.token"), []byte(newSecret(t)+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	_, jqErr := exec.LookPath("jq")
	paths := commandPaths(t, bin, env)
	if len(paths) < 20 {
		t.Fatalf("only %d commands found", len(paths))
	}
	for _, path := range paths {
		help := runCLI(t, bin, env, "", append(path, "--help")...).stdout
		_, ex, ok := strings.Cut(help, "\nExamples:\n")
		if !ok {
			t.Errorf("ahptui %s --help has no Examples", strings.Join(path, " "))
			continue
		}
		ex, _, _ = strings.Cut(ex, "\n\n")
		for _, line := range strings.Split(ex, "\n") {
			line = strings.TrimSpace(line)
			if !strings.HasPrefix(line, "ahptui ") {
				t.Errorf("%v: an example line that is no command: %q", path, line)
				continue
			}
			if strings.Contains(line, "| jq") && jqErr != nil {
				continue
			}
			if strings.HasPrefix(line, "ahptui demo serve") {
				t.Run(line, func(t *testing.T) { runServeExample(t, bin, env, line) })
				continue
			}
			if suiteVersion != demohost.Version10 && oneZeroOnly(line) {
				continue // what only AHP 1.0 hosts do: an older demo host cannot
			}
			t.Run(line, func(t *testing.T) {
				h := cliHost(t)
				dir := privateDir(t)
				if r := runCLI(t, bin, env, "", "hosts", "add", "work", h.URL(), "--config-dir", dir); r.code != 0 {
					t.Fatalf("save host work: exit %d\n%s", r.code, r.stderr)
				}
				script := `ahptui() { "$AHPTUI_BIN" "$@" --host "$AHPTUI_TEST_HOST" --config-dir "$AHPTUI_TEST_DIR" --timeout 5s; }` + "\n" + line
				cmd := exec.Command("sh", "-c", script)
				cmd.Env = append(env, "AHPTUI_BIN="+bin, "AHPTUI_TEST_HOST="+h.URL(), "AHPTUI_TEST_DIR="+dir)
				var out strings.Builder
				cmd.Stdout, cmd.Stderr = &out, &out
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				code, _ := waitExit(t, cmd, 20*time.Second)
				switch code {
				case 0, 5, 7, 9, 10:
				default:
					t.Errorf("exit %d:\n%s", code, out.String())
				}
			})
		}
	}
}

// runServeExample runs a demo serve example line as printed (in a
// directory of its own, ahptui exec'd so the signal reaches it), waits
// for its first line, the URL or its JSON, then stops it as a user does.
func runServeExample(t *testing.T, bin string, env []string, line string) {
	wd := t.TempDir()
	script := `ahptui() { exec "$AHPTUI_BIN" "$@" --config-dir "$AHPTUI_TEST_DIR"; }` + "\n" + line
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = wd
	cmd.Env = append(env, "AHPTUI_BIN="+bin, "AHPTUI_TEST_DIR="+privateDir(t))
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
	select {
	case l := <-first:
		if !strings.Contains(l, "ws://127.0.0.1:") {
			t.Errorf("the first line is not the URL: %q\n%s", l, stderr.String())
		}
	case <-time.After(startTimeout):
		_ = cmd.Process.Kill()
		t.Fatalf("printed no first line\n%s", stderr.String())
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	if code, _ := waitExit(t, cmd, stepTimeout); code != 0 {
		t.Errorf("exit %d on SIGTERM, want 0\n%s", code, stderr.String())
	}
	if left, _ := os.ReadDir(wd); len(left) != 0 {
		t.Errorf("left %s behind", left[0].Name())
	}
}

// oneZeroOnly reports whether an example line runs a command only an AHP
// 1.0 host serves (changesets, terminals, resume, backgrounding a start).
func oneZeroOnly(line string) bool {
	for _, p := range []string{"ahptui changes ", "ahptui terminals ", "ahptui resume ", "ahptui mcp background "} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
}
