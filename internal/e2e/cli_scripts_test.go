package e2e

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/internal/faultproxy"
	"github.com/ahptui/ahptui/internal/tmuxtest"
)

// The CLI as scripts use it (issue 32): each test runs the real binary
// against a real demo host on 127.0.0.1, the way a shell script would.

// TestCLICompletionThroughBinary: the shells ask the binary itself for
// completions (cobra's __complete). They reached the UI's argument parser
// before, which refused the request, so completion offered nothing. Real
// bash (with Debian's bash-completion) and zsh source the generated
// scripts and complete commands, sessions, tool calls' flags and MCP
// servers from the live demo host.
func TestCLICompletionThroughBinary(t *testing.T) {
	t.Parallel()
	skipShort(t)
	wireFree(t)
	h := cliHost(t)
	bin := tmuxtest.Build(t, "github.com/ahptui/ahptui")
	// The scripts call the program by its name: put it on PATH as ahptui.
	dir := t.TempDir()
	if err := os.Symlink(bin, filepath.Join(dir, "ahptui")); err != nil {
		t.Fatal(err)
	}
	env := append(cliEnv(t), "PATH="+dir+":"+os.Getenv("PATH"))
	cfg := privateDir(t)

	// The request itself, as the scripts send it.
	res := runCLI(t, bin, env, "", "__complete", "--host", h.URL(), "--config-dir", cfg, "show", "")
	if res.code != 0 || !strings.Contains(res.stdout, "demo\t") || !strings.Contains(res.stdout, "history\t") {
		t.Fatalf("__complete show: exit %d\nstdout %s\nstderr %s", res.code, res.stdout, res.stderr)
	}

	bashCompletion := "/usr/share/bash-completion/bash_completion"
	if _, err := os.Stat(bashCompletion); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("bash-completion is not installed (%v): .ci/run installs it", err)
		}
		t.Skip("bash-completion is not installed")
	}
	bashComplete := func(words ...string) []string {
		t.Helper()
		line := strings.Join(words, " ")
		var quoted []string
		for _, w := range words {
			quoted = append(quoted, strconv.Quote(w))
		}
		script := "source " + bashCompletion + "\nsource <(ahptui completion bash)\n" +
			"COMP_WORDS=(" + strings.Join(quoted, " ") + ")\n" +
			"COMP_CWORD=" + strconv.Itoa(len(words)-1) + "\n" +
			"COMP_LINE=" + strconv.Quote(line) + "\nCOMP_POINT=${#COMP_LINE}\n" +
			"__start_ahptui ahptui " + strconv.Quote(words[len(words)-1]) + " " + strconv.Quote(words[len(words)-2]) + " 2>/dev/null\n" +
			`printf '%s\n' "${COMPREPLY[@]}"` + "\n"
		cmd := exec.Command("bash", "-c", script)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("bash completion of %q: %v\n%s", line, err, out)
		}
		return strings.Fields(string(out))
	}
	for _, tc := range []struct {
		words []string
		want  []string
	}{
		{[]string{"ahptui", "st"}, []string{"status"}},
		{[]string{"ahptui", "--host", h.URL(), "--config-dir", cfg, "show", ""}, []string{"demo", "history"}},
		{[]string{"ahptui", "watch", "demo", "--until", ""}, []string{"input", "idle", "done"}},
		{[]string{"ahptui", "--host", h.URL(), "--config-dir", cfg, "mcp", "start", "--session", "demo", ""}, []string{demohost.GitHubServerID}},
	} {
		got := bashComplete(tc.words...)
		for _, w := range tc.want {
			if !contains(got, w) {
				t.Errorf("bash completes %q to %q, want %q among them", strings.Join(tc.words, " "), got, w)
			}
		}
	}

	if _, err := exec.LookPath("zsh"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("zsh is not installed: .ci/run installs it")
		}
		t.Skip("zsh is not installed")
	}
	// zsh hands a completion's choices to its own _describe inside a
	// completion widget, which a script cannot open: this stand-in for
	// _describe prints the choices _ahptui computed, so the test reads what
	// the real generated function would offer.
	zsh := `autoload -U compinit; compinit -u -D
source <(ahptui completion zsh)
_describe() { print -rl -- "${(@P)2}"; }
words=(ahptui --host ` + h.URL() + ` --config-dir ` + cfg + ` show ""); CURRENT=7
_ahptui
`
	cmd := exec.Command("zsh", "-f", "-c", zsh)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "demo:") || !strings.Contains(string(out), "history:") {
		t.Errorf("zsh's _ahptui for show: %v\n%s", err, out)
	}
}

// wireFree skips, in the suite's pass over 0.6, a test of what the
// process does (shells, signals, pipes) that no AHP version changes: the
// pass would repeat the 1.0 run.
func wireFree(t *testing.T) {
	t.Helper()
	if suiteVersion != demohost.Version10 {
		t.Skipf("the command's process behaviour is the same over %s as over 1.0", suiteVersion)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestCLIArgumentsAsScriptsWriteThem: global flags before the command
// word, ahptui version, a typo named as a command, send reading its
// message from stdin, dispose without a terminal.
func TestCLIArgumentsAsScriptsWriteThem(t *testing.T) {
	t.Parallel()
	skipShort(t)
	r, _ := newCLIRunner(t)
	cfg := privateDir(t)
	res := runCLI(t, r.bin, r.env, "", "--host", r.url, "--config-dir", cfg, "--json", "status")
	if res.code != 0 || !strings.Contains(res.stdout, `"sessions"`) {
		t.Errorf("--host H --json status: exit %d\nstdout %s\nstderr %s", res.code, res.stdout, res.stderr)
	}
	res = runCLI(t, r.bin, r.env, "", "version")
	if res.code != 0 || !strings.HasPrefix(res.stdout, "ahptui ") {
		t.Errorf("version: exit %d, %q %q", res.code, res.stdout, res.stderr)
	}
	if v := runCLI(t, r.bin, r.env, "", "--version"); strings.TrimSpace(v.stdout) != strings.TrimSpace(res.stdout) {
		t.Errorf("version says %q, --version %q", res.stdout, v.stdout)
	}
	res = runCLI(t, r.bin, r.env, "", "stauts")
	if res.code != 2 || !strings.Contains(res.stderr, `did you mean the command "status"`) {
		t.Errorf("stauts: exit %d\n%s", res.code, res.stderr)
	}
	// send SESSION - reads the message from stdin, not a literal "-".
	res = runCLI(t, r.bin, r.env, "stream\n", "send", "demo", "-", "--host", r.url, "--config-dir", cfg, "--json")
	if res.code != 0 {
		t.Fatalf("send demo -: exit %d\n%s", res.code, res.stderr)
	}
	var sent struct {
		Turn struct{ Message string }
	}
	if err := json.Unmarshal([]byte(res.stdout), &sent); err != nil || sent.Turn.Message != "stream" {
		t.Errorf("send demo - sent %q (%v):\n%s", sent.Turn.Message, err, res.stdout)
	}
	// send --new prints the new session first, so a script keeps it.
	res = r.run(0, "", "send", "--new", "stream")
	first, _, _ := strings.Cut(res.stdout, "\n")
	if !strings.HasPrefix(first, "session: ahp-session:/") {
		t.Errorf("send --new's first line is %q", first)
	}
	// Nobody can answer dispose's question without a terminal.
	uri := strings.TrimPrefix(first, "session: ")
	if res = r.run(2, "y\n", "dispose", uri); !strings.Contains(res.stderr, "--yes") {
		t.Errorf("dispose without a terminal: %s", res.stderr)
	}
}

// TestCLIPipesAndFullDisks: a reader that goes away is how head ends a
// pipe, and under pipefail a command killed by SIGPIPE (141) fails the
// script; output that cannot be written must not pass for success.
func TestCLIPipesAndFullDisks(t *testing.T) {
	t.Parallel()
	skipShort(t)
	wireFree(t)
	r, _ := newCLIRunner(t)
	cfg := privateDir(t)
	cmd := exec.Command("bash", "-c", `set -o pipefail; "$0" sessions --host "$1" --config-dir "$2" | true`, r.bin, r.url, cfg)
	cmd.Env = r.env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("sessions | true under pipefail: %v\n%s", err, out)
	}
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full: %v", err)
	}
	defer full.Close()
	cmd = exec.Command(r.bin, "sessions", "--host", r.url, "--config-dir", cfg)
	cmd.Env, cmd.Stdout = r.env, full
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(stderr.String(), "no space left") {
		t.Errorf("sessions > /dev/full: %v\n%s", err, stderr.String())
	}
}

// TestCLIHostLost: a host that goes away for good ends send and watch
// with exit 3 after the reconnect window, instead of a silent hang; a
// watch that survives a restart prints the state afresh and names the
// sessions the new host lacks.
func TestCLIHostLost(t *testing.T) {
	t.Parallel()
	skipShort(t)
	bin := tmuxtest.Build(t, "github.com/ahptui/ahptui")
	env := cliEnv(t)
	start := func() *demohost.Host {
		h, err := demohost.Start(t.Context(), demohost.Config{Version: suiteVersion, StepDelay: 200 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { h.Close() })
		return h
	}
	upstream := func(h *demohost.Host) string { return strings.TrimSuffix(strings.TrimPrefix(h.URL(), "ws://"), "/") }
	a := start()
	p, err := faultproxy.Start(upstream(a))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	url := "ws://" + p.Addr() + "/"
	cfg := privateDir(t)
	common := []string{"--host", url, "--config-dir", cfg, "--reconnect-window", "3s"}

	t.Run("send", func(t *testing.T) {
		cmd := exec.Command(bin, append([]string{"send", "--new", "stream"}, common...)...)
		cmd.Env = env
		stdout, _ := cmd.StdoutPipe()
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReader(stdout)
		line, err := br.ReadString('\n')
		if err != nil || !strings.HasPrefix(line, "session: ") {
			t.Fatalf("send --new's first line %q: %v", line, err)
		}
		// The turn streams: the host goes away in the middle of it.
		if _, err := br.ReadString(' '); err != nil {
			t.Fatalf("send printed no answer: %v\n%s", err, stderr.String())
		}
		go io.Copy(io.Discard, br)
		p.Refuse(true)
		p.Drop()
		defer p.Refuse(false)
		code, waited := waitExit(t, cmd, 20*time.Second)
		if code != 3 || !strings.Contains(stderr.String(), "lost the host") {
			t.Errorf("send after the host went away: exit %d after %s\n%s", code, waited, stderr.String())
		}
	})

	t.Run("watch", func(t *testing.T) {
		p.Refuse(false)
		made := runCLI(t, bin, env, "", append([]string{"new"}, common...)...)
		if made.code != 0 {
			t.Fatalf("new: %d %s", made.code, made.stderr)
		}
		gone := strings.TrimSpace(made.stdout)
		cmd := exec.Command(bin, append([]string{"watch"}, common...)...)
		cmd.Env = env
		stdout, _ := cmd.StdoutPipe()
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string, 64)
		go func() {
			sc := bufio.NewScanner(stdout)
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		next := func(want string) string {
			t.Helper()
			timeout := time.After(stepTimeout)
			for {
				select {
				case l, ok := <-lines:
					if !ok {
						t.Fatalf("watch ended before %q:\n%s", want, stderr.String())
					}
					if strings.Contains(l, want) {
						return l
					}
				case <-timeout:
					t.Fatalf("watch printed no %q", want)
				}
			}
		}
		if l := next(`"type":"state"`); !strings.Contains(l, gone) {
			t.Fatalf("the first state lacks %s: %s", gone, l)
		}
		// A restart: another host (without the session made on the first)
		// at the same address.
		b := start()
		p.Refuse(true)
		p.Drop()
		p.SetUpstream(upstream(b))
		p.Refuse(false)
		// Every session the first host had and the second lacks (this one,
		// and send's) is removed, then the state is printed afresh.
		removed := ""
		for {
			l := next(`"type":"s`)
			if strings.Contains(l, `"type":"state"`) {
				if strings.Contains(l, gone) {
					t.Errorf("the state after the restart still lists %s: %s", gone, l)
				}
				break
			}
			if strings.Contains(l, `"type":"sessionRemoved"`) {
				removed += l + "\n"
			}
		}
		if !strings.Contains(removed, gone) {
			t.Errorf("no sessionRemoved for %s before the new state:\n%s", gone, removed)
		}
		// Gone for good: exit 3 once the window has passed.
		p.Refuse(true)
		p.Drop()
		code, waited := waitExit(t, cmd, 20*time.Second)
		if code != 3 || !strings.Contains(stderr.String(), "lost the host") {
			t.Errorf("watch after the host went away: exit %d after %s\n%s", code, waited, stderr.String())
		}
	})
}

// waitExit waits up to limit for cmd to end and returns its exit code
// (-1 when it had to be killed) and how long it took.
func waitExit(t *testing.T, cmd *exec.Cmd, limit time.Duration) (int, time.Duration) {
	t.Helper()
	began := time.Now()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode(), time.Since(began)
		}
		if err != nil {
			t.Fatalf("wait: %v", err)
		}
		return 0, time.Since(began)
	case <-time.After(limit):
		_ = cmd.Process.Kill()
		<-done
		return -1, time.Since(began)
	}
}

// TestCLIInterrupt: ctrl-c (SIGINT) stops a command with exit 130, also a
// watch a shell started in the background (which a shell starts with
// SIGINT ignored); an interrupted send asks the host to cancel its turn.
func TestCLIInterrupt(t *testing.T) {
	t.Parallel()
	skipShort(t)
	wireFree(t)
	h, err := demohost.Start(t.Context(), demohost.Config{Version: suiteVersion, StepDelay: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	bin := tmuxtest.Build(t, "github.com/ahptui/ahptui")
	env := cliEnv(t)
	cfg := privateDir(t)

	// sh starts a background job with SIGINT ignored; $! is its pid.
	cmd := exec.Command("sh", "-c", `"$0" watch --host "$1" --config-dir "$2" >/dev/null & echo $!; wait $!`, bin, h.URL(), cfg)
	cmd.Env = env
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	pid, perr := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || perr != nil {
		t.Fatalf("the job's pid: %q %v %v", line, err, perr)
	}
	time.Sleep(time.Second) // connected and watching
	if err := syscall.Kill(pid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code, waited := waitExit(t, cmd, 10*time.Second); code != 130 {
		t.Errorf("a backgrounded watch after kill -INT: exit %d after %s", code, waited)
	}

	// send, interrupted mid-turn, cancels the turn it started.
	send := exec.Command(bin, "send", "--new", "stream", "--host", h.URL(), "--config-dir", cfg)
	send.Env = env
	sout, _ := send.StdoutPipe()
	var serr strings.Builder
	send.Stderr = &serr
	if err := send.Start(); err != nil {
		t.Fatal(err)
	}
	first, err := bufio.NewReader(sout).ReadString('\n')
	if err != nil || !strings.HasPrefix(first, "session: ") {
		t.Fatalf("send --new's first line %q: %v", first, err)
	}
	go io.Copy(io.Discard, sout)
	time.Sleep(500 * time.Millisecond) // the turn runs
	if err := send.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	code, _ := waitExit(t, send, 10*time.Second)
	if code != 130 || !strings.Contains(serr.String(), "cancel the turn, and it did") {
		t.Errorf("send after ctrl-c: exit %d\n%s", code, serr.String())
	}
	uri := strings.TrimSpace(strings.TrimPrefix(first, "session: "))
	res := runCLI(t, bin, env, "", "show", uri, "--host", h.URL(), "--config-dir", cfg, "--json")
	if !strings.Contains(res.stdout, `"state": "cancelled"`) {
		t.Errorf("the interrupted turn is not cancelled on the host:\n%s", res.stdout)
	}
}
