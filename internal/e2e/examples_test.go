package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ahptui/ahptui/internal/tmuxtest"
)

// The scripts in examples/ (issue 32), each run with the built binary on
// PATH as ahptui against one `ahptui demo serve` they share, the way a
// user runs them: the host saved with its connection token file and made
// the default (hosts add --default), so no script is given a host flag
// and the commands the inbox prints (approve --host demo …) run as
// printed. Each test checks what the script did on the host, not only
// its exit code.

// demoServe is a running `ahptui demo serve --token-file`, for scripts.
type demoServe struct {
	t         *testing.T
	bin, url  string
	tokenFile string
	env       []string // PATH with ahptui, HOME and XDG_CONFIG_HOME of their own
	cmd       *exec.Cmd
	stderr    *lockedText // written by exec's copier while the test reads it
}

// startDemoServe starts `ahptui demo serve` with a token file, reads its
// URL from the first line of stdout and saves it as the default host
// "demo"; the cleanup stops it with SIGTERM, which is exit 0 and takes
// the token file away.
func startDemoServe(t *testing.T) *demoServe {
	t.Helper()
	bin := tmuxtest.Build(t, "github.com/ahptui/ahptui")
	path := t.TempDir()
	if err := os.Symlink(bin, filepath.Join(path, "ahptui")); err != nil {
		t.Fatal(err)
	}
	d := &demoServe{t: t, bin: bin, tokenFile: filepath.Join(privateDir(t), "demo.token"), stderr: &lockedText{}}
	d.env = append(cliEnv(t), "PATH="+path+":"+os.Getenv("PATH"))
	d.cmd = exec.Command(bin, "demo", "serve", "--token-file", d.tokenFile)
	d.cmd.Env = d.env
	d.cmd.Stderr = d.stderr
	out, err := d.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	first := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		first <- strings.TrimSpace(line)
		_, _ = io.Copy(io.Discard, out)
	}()
	select {
	case d.url = <-first:
	case <-time.After(startTimeout):
		_ = d.cmd.Process.Kill()
		t.Fatal("demo serve printed no URL")
	}
	t.Cleanup(d.stop)
	if !strings.HasPrefix(d.url, "ws://127.0.0.1:") || strings.Contains(d.url, "tkn") {
		t.Fatalf("demo serve's first line is %q, want its token-free ws://127.0.0.1 URL\nstderr %s", d.url, d.stderr)
	}
	fi, err := os.Lstat(d.tokenFile)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the token file: %v, mode %v; want 0600", err, fi.Mode())
	}
	token, _ := os.ReadFile(d.tokenFile)
	// The token is required: a command without it is turned away, exit
	// 11 (forbidden: docs/cli.md's Exit codes).
	if res := d.ahptui("", "sessions", "--host", d.url); res.code != 11 || !strings.Contains(res.stderr, "403") {
		t.Errorf("without the token: exit %d, want 11 (403)\n%s", res.code, res.stderr)
	}
	if res := d.ahptui("", "hosts", "add", "demo", d.url, "--token-file", d.tokenFile, "--default"); res.code != 0 {
		t.Fatalf("hosts add: exit %d\n%s", res.code, res.stderr)
	}
	if secret := strings.TrimSpace(string(token)); len(secret) < 16 || strings.Contains(d.stderr.String(), secret) {
		t.Errorf("the token %d bytes long, or printed by demo serve:\n%s", len(secret), d.stderr)
	}
	return d
}

// stop ends demo serve as a script would (SIGTERM): exit 0, the token
// file gone.
func (d *demoServe) stop() {
	_ = d.cmd.Process.Signal(syscall.SIGTERM)
	code, _ := waitExit(d.t, d.cmd, stepTimeout)
	if code != 0 {
		d.t.Errorf("demo serve ended with exit %d on SIGTERM, want 0\n%s", code, d.stderr)
	}
	if _, err := os.Lstat(d.tokenFile); err == nil {
		d.t.Errorf("demo serve left its token file %s", d.tokenFile)
	}
}

// ahptui runs one command against the default host (no host flag).
func (d *demoServe) ahptui(in string, args ...string) cliResult {
	d.t.Helper()
	return runCLI(d.t, d.bin, d.env, in, args...)
}

// must runs one command and checks its exit code.
func (d *demoServe) must(code int, args ...string) cliResult {
	d.t.Helper()
	res := d.ahptui("", args...)
	if res.code != code {
		d.t.Fatalf("ahptui %v: exit %d, want %d\nstdout %s\nstderr %s", args, res.code, code, res.stdout, res.stderr)
	}
	return res
}

// script runs examples/NAME with args, as sh runs it from a shell.
func (d *demoServe) script(ctx context.Context, name string, env []string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "sh", append([]string{filepath.Join("..", "..", "examples", name)}, args...)...)
	cmd.Env = append(append([]string{}, d.env...), env...)
	return cmd
}

// run runs a script to its end and returns its output.
func (d *demoServe) run(name string, args ...string) (string, string) {
	d.t.Helper()
	ctx, cancel := context.WithTimeout(d.t.Context(), startTimeout)
	defer cancel()
	cmd := d.script(ctx, name, nil, args...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		d.t.Fatalf("examples/%s: %v\nstdout %s\nstderr %s", name, err, stdout.String(), stderr.String())
	}
	return stdout.String(), stderr.String()
}

// approvalsWaiting is the tool calls waiting for approval on the host,
// by session.
func (d *demoServe) approvalsWaiting() map[string]int {
	d.t.Helper()
	res := d.must(0, "inbox", "--kind", "approval", "--jq", ".items[].session")
	out := map[string]int{}
	for _, s := range strings.Fields(res.stdout) {
		out[s]++
	}
	return out
}

// TestExampleApproveAll: examples/approve-all.sh approves what waits in
// every session (two sessions, a call waiting in each), and, started
// before anything waits, blocks until a call waits and approves it.
func TestExampleApproveAll(t *testing.T) {
	t.Parallel()
	skipShort(t)
	wireFree(t)
	d := startDemoServe(t)
	d.must(5, "send", "demo", "write the changelog")
	second := strings.TrimSpace(d.must(0, "new").stdout)
	d.must(5, "send", second, "write the changelog")
	if got := d.approvalsWaiting(); got["ahp-session:/demo"] != 1 || got[second] != 1 {
		t.Fatalf("before the script, approvals waiting: %v", got)
	}
	out, _ := d.run("approve-all.sh")
	if n := strings.Count(out, "approved Write file"); n != 2 {
		t.Errorf("approve-all.sh approved %d calls, want 2:\n%s", n, out)
	}
	if got := d.approvalsWaiting(); len(got) != 0 {
		t.Errorf("after the script, approvals still wait: %v", got)
	}
	for _, s := range []string{"ahp-session:/demo", second} {
		d.must(0, "watch", s, "--until", "idle")
		res := d.must(0, "show", s, "--json", "--jq", `[.turns[-1].state, (.turns[-1].parts[] | select(.toolCall) | .toolCall.status)] | join(" ")`)
		if got := strings.TrimSpace(res.stdout); got != "complete completed" {
			t.Errorf("%s after approve-all.sh: turn and call %q, want complete completed", s, got)
		}
	}

	// Started first, it waits for the approval to come.
	ctx, cancel := context.WithTimeout(t.Context(), startTimeout)
	defer cancel()
	cmd := d.script(ctx, "approve-all.sh", nil)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		t.Fatalf("approve-all.sh ended (%v) with nothing waiting:\n%s\n%s", err, stdout.String(), stderr.String())
	case <-time.After(1500 * time.Millisecond):
	}
	d.must(5, "send", "demo", "write it once more")
	select {
	case err := <-done:
		if err != nil || !strings.Contains(stdout.String(), "approved Write file") {
			t.Fatalf("approve-all.sh with an approval arriving: %v\nstdout %s\nstderr %s", err, stdout.String(), stderr.String())
		}
	case <-time.After(startTimeout):
		t.Fatal("approve-all.sh did not end after the approval came")
	}
	if got := d.approvalsWaiting(); len(got) != 0 {
		t.Errorf("after the waiting script, approvals still wait: %v", got)
	}
}

// TestExampleSend: examples/send.sh sends a message, waits for the turn
// and prints the agent's reply; the host's chat holds the finished turn
// with that reply. --new starts a session first and names it on stderr.
func TestExampleSend(t *testing.T) {
	t.Parallel()
	skipShort(t)
	wireFree(t)
	d := startDemoServe(t)
	out, _ := d.run("send.sh", "demo", "stream")
	if !strings.Contains(out, "## Streaming demo") || !strings.Contains(out, "That is the end of the stream.") {
		t.Errorf("send.sh printed no whole reply:\n%s", out)
	}
	var chat struct {
		Turns []struct {
			State, Message string
			Parts          []struct{ Kind, Text string }
		}
	}
	if err := json.Unmarshal([]byte(d.must(0, "show", "demo", "--json=turns").stdout), &chat); err != nil || len(chat.Turns) == 0 {
		t.Fatalf("show --json=turns: %v", err)
	}
	last := chat.Turns[len(chat.Turns)-1]
	if last.State != "complete" || last.Message != "stream" {
		t.Errorf("the last turn is %q %q, want the complete turn of \"stream\"", last.State, last.Message)
	}
	for _, p := range last.Parts {
		if p.Kind == "markdown" && !strings.Contains(out, p.Text) {
			t.Errorf("send.sh's output lacks the reply's part %q", p.Text)
		}
	}

	out, errs := d.run("send.sh", "--new", "stream")
	session := strings.TrimSpace(strings.TrimPrefix(errs, "session: "))
	if !strings.HasPrefix(session, "ahp-session:/") || !strings.Contains(out, "## Streaming demo") {
		t.Fatalf("send.sh --new: stderr %q, stdout %s", errs, out)
	}
	if res := d.must(0, "show", session, "--jq", ".turns[-1].state"); strings.TrimSpace(res.stdout) != "complete" {
		t.Errorf("the new session's turn: %q", res.stdout)
	}
}

// TestExampleStartServers: examples/start-servers.sh starts every MCP
// server that is stopped, in every session: two stopped in two sessions
// are ready after it, and none is left stopped.
func TestExampleStartServers(t *testing.T) {
	t.Parallel()
	skipShort(t)
	wireFree(t)
	d := startDemoServe(t)
	state := func() map[string]string {
		t.Helper()
		res := d.must(0, "mcp", "list", "--jq", `.[] | "\(.session) \(.id) \(.state)"`)
		out := map[string]string{}
		for _, line := range strings.Split(strings.TrimSpace(res.stdout), "\n") {
			if f := strings.Fields(line); len(f) == 3 {
				out[f[0]+" "+f[1]] = f[2]
			}
		}
		return out
	}
	stopped := []string{"ahp-session:/demo mcp-filesystem", "ahp-session:/history mcp-deploy"}
	for _, s := range stopped {
		session, id, _ := strings.Cut(s, " ")
		// Past starting first: a server is stopped once it has started.
		d.must(0, "mcp", "start", "--session", session, id)
		d.must(0, "mcp", "stop", "--session", session, id)
	}
	before := state()
	for _, s := range stopped {
		if before[s] != "stopped" {
			t.Fatalf("%s is %q before the script, want stopped: %v", s, before[s], before)
		}
	}
	out, _ := d.run("start-servers.sh")
	after := state()
	for _, s := range stopped {
		if after[s] != "ready" {
			t.Errorf("%s is %q after start-servers.sh, want ready\n%s", s, after[s], out)
		}
	}
	for s, st := range after {
		if st == "stopped" {
			t.Errorf("%s is still stopped after start-servers.sh", s)
		}
		if before[s] != "stopped" && st != before[s] {
			t.Errorf("start-servers.sh changed %s, which was not stopped: %s -> %s", s, before[s], st)
		}
	}
}

// TestExampleExportMarkdown: examples/export-markdown.sh writes each
// session's transcript to DIR/ID.md with `ahptui show SESSION
// --markdown`: the demo session's file holds the turn just run.
func TestExampleExportMarkdown(t *testing.T) {
	t.Parallel()
	skipShort(t)
	wireFree(t)
	d := startDemoServe(t)
	d.must(0, "send", "demo", "stream")
	dir := filepath.Join(t.TempDir(), "transcripts")
	out, _ := d.run("export-markdown.sh", dir)
	if !strings.Contains(out, filepath.Join(dir, "demo.md")) {
		t.Errorf("export-markdown.sh did not name demo.md:\n%s", out)
	}
	md, err := os.ReadFile(filepath.Join(dir, "demo.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"stream", "Streaming demo", "That is the end of the stream."} {
		if !strings.Contains(string(md), want) {
			t.Errorf("demo.md lacks %q:\n%s", want, md)
		}
	}
	// The history session's file is its transcript, as show prints it.
	hist, err := os.ReadFile(filepath.Join(dir, "history.md"))
	if err != nil {
		t.Fatalf("the history session was not exported: %v", err)
	}
	if want := d.must(0, "show", "history", "--markdown").stdout; string(hist) != want || !strings.HasPrefix(want, "# Earlier: why TestReconnect flakes\n") {
		t.Errorf("history.md is not the session's transcript:\n%s", hist)
	}
	if lines := strings.Fields(strings.TrimSpace(out)); len(lines) != 2 {
		t.Errorf("export-markdown.sh printed %d paths, want one a session (2):\n%s", len(lines), out)
	}
}

// TestExampleApproveScript: examples/approve.sh (README's) against the
// shared host, named by nothing but the saved default.
func TestExampleApproveScript(t *testing.T) {
	t.Parallel()
	skipShort(t)
	wireFree(t)
	d := startDemoServe(t)
	out, _ := d.run("approve.sh")
	for _, want := range []string{"approved Write file", "Allow once", "You picked **Allow once**."} {
		if !strings.Contains(out, want) {
			t.Errorf("approve.sh's output lacks %q:\n%s", want, out)
		}
	}
}

// lockedText is a process's output, written by exec's copying goroutine
// while the test reads it.
type lockedText struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedText) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedText) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
