package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/host/registry"
	"github.com/ahptui/ahptui/internal/badhost"
	"github.com/ahptui/ahptui/internal/demotest"
)

// hostsEnv is a multi-host run's environment: a config dir and a home of
// its own (no saved hosts, no VS Code registry unless a test makes them).
type hostsEnv struct {
	dir, home string
	env       map[string]string
}

func newHostsEnv(t *testing.T) *hostsEnv {
	return &hostsEnv{dir: t.TempDir(), home: t.TempDir(), env: map[string]string{}}
}

func (e *hostsEnv) getenv(k string) string {
	if k == "HOME" {
		return e.home
	}
	if k == "XDG_CONFIG_HOME" {
		return filepath.Join(e.home, ".config")
	}
	return e.env[k]
}

func (e *hostsEnv) run(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb strings.Builder
	code := Run(append(args, "--config-dir", e.dir), Env{Stdout: &out, Stderr: &errb, Getenv: e.getenv})
	return out.String(), errb.String(), code
}

// TestStatusSeveralHosts: status on five hosts at once — two demo hosts
// (one behind a connection token), one that never answers, one that
// refuses every version and one down — prints every host in the order
// given, each failing one a row with its reason and exit kind; the
// connected ones' sessions and waiting rows name their host (never the
// token), and a waiting row's answer reaches its host. The silent host
// holds the run no longer than its own timeout, and the exit code is the
// first failed host's.
func TestStatusSeveralHosts(t *testing.T) {
	const secret = "tkn-do-not-show-0042"
	a := demotest.Start(t, demohost.Config{ConnectionToken: secret})
	b := demotest.Start(t, demohost.Config{})
	silent, refusing, down := badhost.Silent(t), badhost.RefusingVersion(t), badhost.Closed(t)
	e := newHostsEnv(t)
	if _, errs, code := e.run(t, "send", "demo", "write the changelog", "--host", b.URL()); code != ExitWaiting {
		t.Fatalf("send on b: exit %d %s", code, errs)
	}
	began := time.Now()
	out, errs, code := e.run(t, "status", "--json", "--timeout", "3s",
		"--host", a.URL()+"?tkn="+secret, "--host", silent, "--host", b.URL(), "--host", refusing, "--host", down)
	took := time.Since(began)
	if took > 8*time.Second {
		t.Errorf("status took %v: a host held the others back", took)
	}
	if code != ExitUnreachable {
		t.Errorf("exit %d, want %d (the silent host, the first that failed)", code, ExitUnreachable)
	}
	if strings.Contains(out+errs, secret) {
		t.Errorf("the connection token is shown:\n%s\n%s", out, errs)
	}
	for _, h := range []string{silent, refusing, down} {
		if !strings.Contains(errs, h) {
			t.Errorf("stderr does not name failed host %s:\n%s", h, errs)
		}
	}
	var st statusJSON
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	rows := st.Hosts
	want := []struct{ host, state, kind, err string }{
		{a.URL(), "connected", "", ""},
		{silent, "failed", "unreachable", "deadline"},
		{b.URL(), "connected", "", ""},
		{refusing, "refused", "version", "2.0.0"},
		{down, "failed", "unreachable", "connection refused"},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d:\n%s", len(rows), len(want), out)
	}
	for i, w := range want {
		r := rows[i]
		if r.Host.URL != w.host || r.Host.Name != "" || r.State != w.state || r.Kind != w.kind || !strings.Contains(r.Error, w.err) {
			t.Errorf("row %d: %+v, want %+v", i, r.hostJSON, w)
		}
		sessions := onHost(st.Sessions, r.Host, func(s sessionJSON) *hostRef { return s.Host })
		if w.state != "connected" {
			if r.ProtocolVersion != "" || len(sessions) != 0 {
				t.Errorf("failed row %d has a status: %+v, %d sessions", i, r, len(sessions))
			}
			continue
		}
		if r.ProtocolVersion == "" || len(sessions) != 2 {
			t.Errorf("row %d: version %q, %d sessions", i, r.ProtocolVersion, len(sessions))
		}
	}
	for _, s := range st.Sessions {
		if s.Host == nil || (s.Host.URL != a.URL() && s.Host.URL != b.URL()) {
			t.Errorf("session %s names host %+v", s.Session, s.Host)
		}
	}
	// a waits on its MCP servers only (GitHub's sign-in, Flaky failed,
	// in each session); b on its approval too.
	var ws []waitJSON
	for _, w := range st.Waiting {
		switch {
		case w.Host == nil:
			t.Errorf("a waiting row names no host: %+v", w)
		case w.Host.URL == a.URL() && w.Kind != "sign-in" && w.Kind != "mcp-failed":
			t.Errorf("a waits on %+v", w)
		case w.Host.URL == b.URL() && w.Kind == "approval":
			ws = append(ws, w)
		}
	}
	wantAnswer := "ahptui approve --host " + b.URL() + " ahp-session:/demo "
	if len(ws) != 1 || ws[0].Host.URL != b.URL() || !strings.HasPrefix(ws[0].Answer, wantAnswer) || ws[0].AnswerArgs[3] != b.URL() {
		t.Fatalf("b's waiting: %+v", ws)
	}
	// The answer, run as printed, approves on b.
	if _, errs, code := e.run(t, ws[0].AnswerArgs[1:]...); code != ExitOK {
		t.Errorf("%s: exit %d %s", ws[0].Answer, code, errs)
	}

	// Text: grouped by host, each header with its state or reason.
	out, _, _ = e.run(t, "status", "--timeout", "3s", "--host", down, "--host", b.URL())
	downAt, bAt := strings.Index(out, down+"  failed: connection refused\n"), strings.Index(out, b.URL()+"  connected")
	if downAt < 0 || bAt < downAt || !strings.Contains(out[bAt:], "  Sessions:\n") {
		t.Errorf("text output:\n%s", out)
	}
}

// TestAllHostsSources: --all-hosts is every --host, then the saved hosts,
// then the hosts VS Code's registry lists, each once (a saved host that is
// also given by --host is one row); a saved host whose token file is gone
// is a failed row with why, and the others are read all the same; a host
// found in the registry is dialled with the token it publishes, which
// nothing prints.
func TestAllHostsSources(t *testing.T) {
	const localSecret = "registry-token-0099"
	a, b := demotest.Start(t, demohost.Config{}), demotest.Start(t, demohost.Config{})
	local := demotest.Start(t, demohost.Config{ConnectionToken: localSecret})
	e := newHostsEnv(t)
	hostsYML := fmt.Sprintf("hosts:\n  again:\n    url: %s\n  box:\n    url: %s\n  gone:\n    url: ws://127.0.0.1:9/\n    connection_token_file: nosuch.token\n",
		a.URL(), b.URL())
	if err := os.WriteFile(filepath.Join(e.dir, "hosts.yml"), []byte(hostsYML), 0o600); err != nil {
		t.Fatal(err)
	}
	// VS Code's registry (portable layout) lists the third host.
	portable := t.TempDir()
	e.env["VSCODE_PORTABLE"] = portable
	entries := filepath.Join(registry.RegistryDir(filepath.Join(portable, "user-data")), "entries")
	if err := os.MkdirAll(entries, 0o700); err != nil {
		t.Fatal(err)
	}
	for d := entries; d != portable; d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	u, _ := url.Parse(local.URL())
	port, _ := strconv.Atoi(u.Port())
	entry := registry.Entry{SchemaVersion: 2, Type: registry.TypeStandalone, PID: os.Getpid(), InstanceID: "i1",
		ProtocolVersion: "1.0.0", ConnectionToken: localSecret, Endpoint: registry.Endpoint{Type: "tcp", Host: "127.0.0.1", Port: port}}
	body, _ := json.Marshal(entry)
	if err := os.WriteFile(filepath.Join(entries, entry.Identity()+".json"), body, 0o600); err != nil {
		t.Fatal(err)
	}

	out, errs, code := e.run(t, "status", "--all-hosts", "--json", "--timeout", "5s", "--host", a.URL())
	if code != ExitUnreachable {
		t.Errorf("exit %d, want %d (the saved host whose token file is gone)\n%s", code, ExitUnreachable, errs)
	}
	if strings.Contains(out+errs, localSecret) {
		t.Errorf("the registry's token is shown:\n%s%s", out, errs)
	}
	var st statusJSON
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	rows := st.Hosts
	var got []string
	for _, r := range rows {
		got = append(got, r.Host.Name+"|"+r.Host.URL+" "+r.State)
	}
	want := []string{
		"|" + a.URL() + " connected",
		"box|" + b.URL() + " connected",
		"gone|ws://127.0.0.1:9/ failed",
		"local standalone pid " + strconv.Itoa(os.Getpid()) + "|" + local.URL() + " connected",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(rows[2].Error, "nosuch.token") || rows[2].Kind != "unreachable" {
		t.Errorf("the saved host without its token file: %+v", rows[2].hostJSON)
	}
	if ls := onHost(st.Sessions, rows[3].Host, func(s sessionJSON) *hostRef { return s.Host }); len(ls) != 2 || *ls[0].Host != rows[3].Host {
		t.Errorf("the local host's sessions: %+v", ls)
	}
}

// TestMultiHostUsage: several hosts only where a command takes them, and
// never with what names one host.
func TestMultiHostUsage(t *testing.T) {
	e := newHostsEnv(t)
	for _, args := range [][]string{
		{"sessions", "--host", "ws://127.0.0.1:1/", "--host", "ws://127.0.0.1:2/"},
		{"sessions", "--all-hosts"},
		{"status", "--all-hosts", "--demo"},
		{"watch", "demo", "--host", "ws://127.0.0.1:1/", "--host", "ws://127.0.0.1:2/"},
		{"inbox", "--host", "ws://127.0.0.1:1/", "--host", "ws://127.0.0.1:2/", "--connection-token-file", "/dev/null"},
		{"status", "--host", "ws://127.0.0.1:1/", "--host", "garbage"},
	} {
		if _, errs, code := e.run(t, args...); code != ExitUsage {
			t.Errorf("%v: exit %d, want %d\n%s", args, code, ExitUsage, errs)
		}
	}
	// Nothing configured: no hosts at all is said, not an empty list.
	if _, errs, code := e.run(t, "status", "--all-hosts"); code != ExitUnreachable || !strings.Contains(errs, "no hosts") {
		t.Errorf("--all-hosts with none: exit %d %s", code, errs)
	}
}

// TestInboxAcrossHosts: the inbox of three hosts — one idle, one with an
// approval waiting, one down — lists the approval with its host, session
// and the command that answers it there, and the host down as a row;
// text output groups items under their host.
func TestInboxAcrossHosts(t *testing.T) {
	idle, busy := demotest.Start(t, demohost.Config{}), demotest.Start(t, demohost.Config{})
	down := badhost.Closed(t)
	e := newHostsEnv(t)
	if _, errs, code := e.run(t, "send", "demo", "write the changelog", "--host", busy.URL()); code != ExitWaiting {
		t.Fatalf("send: exit %d %s", code, errs)
	}
	if _, errs, code := e.run(t, "send", "history", "write the notes", "--host", busy.URL()); code != ExitWaiting {
		t.Fatalf("send: exit %d %s", code, errs)
	}
	out, errs, code := e.run(t, "inbox", "--json", "--host", idle.URL(), "--host", busy.URL(), "--host", down)
	if code != ExitUnreachable {
		t.Errorf("exit %d, want %d: %s", code, ExitUnreachable, errs)
	}
	var in inboxJSON
	if err := json.Unmarshal([]byte(out), &in); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(in.Hosts) != 3 || in.Hosts[0].State != "connected" || in.Hosts[1].State != "connected" || in.Hosts[2].State != "failed" || in.Hosts[2].Error == "" {
		t.Errorf("hosts: %+v", in.Hosts)
	}
	// The approvals, and the demo's Flaky MCP server, failed in both.
	var got []string
	for _, it := range in.Items {
		if it.Since == "" || !strings.Contains(it.Answer, " --host "+it.Host.URL+" ") {
			t.Errorf("item: %+v", it)
		}
		if it.Host.URL == busy.URL() {
			got = append(got, it.Session+" "+it.Kind+" "+it.Name)
		}
	}
	// Every session's MCP servers wait too: GitHub's sign-in and Flaky.
	want := []string{"ahp-session:/demo approval Write file", "ahp-session:/demo sign-in GitHub", "ahp-session:/demo mcp-failed Flaky",
		"ahp-session:/history approval Write file", "ahp-session:/history sign-in GitHub", "ahp-session:/history mcp-failed Flaky"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("items, the longest waiting first:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	t0, _ := time.Parse(time.RFC3339Nano, in.Items[0].Since)
	t1, _ := time.Parse(time.RFC3339Nano, in.Items[2].Since)
	if t1.Before(t0) {
		t.Errorf("order: %s before %s", in.Items[0].Since, in.Items[2].Since)
	}

	out, _, _ = e.run(t, "inbox", "--host", idle.URL(), "--host", busy.URL())
	idleAt, busyAt := strings.Index(out, idle.URL()+"  connected\n  "), strings.Index(out, busy.URL()+"  connected\n  ")
	if idleAt != 0 || busyAt < 0 || !strings.Contains(out[busyAt:], "approval Write file\n      answer: ahptui approve --host "+busy.URL()+" ahp-session:/demo ") ||
		strings.Contains(out[:busyAt], "approval") {
		t.Errorf("text inbox:\n%s", out)
	}
	// One host: the same shape, its one row; its MCP servers wait.
	out, _, code = e.run(t, "inbox", "--json", "--host", idle.URL())
	if code != ExitOK || !strings.Contains(out, `"kind": "sign-in"`) || !strings.Contains(out, `"state": "connected"`) {
		t.Errorf("one host's inbox: exit %d\n%s", code, out)
	}
}

// TestWatchAllHosts: watch --all-hosts starts with each host's line (its
// sessions, or why it failed), then streams each host's session changes
// tagged with that host, and says when a host is lost.
func TestWatchAllHosts(t *testing.T) {
	a, b := demotest.Start(t, demohost.Config{}), demotest.Start(t, demohost.Config{})
	down := badhost.Closed(t)
	e := newHostsEnv(t)
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		var errb strings.Builder
		code := Run([]string{"watch", "--host", a.URL(), "--host", down, "--host", b.URL(), "--timeout", "20s", "--config-dir", e.dir},
			Env{Stdout: pw, Stderr: &errb, Getenv: e.getenv})
		pw.Close()
		done <- code
	}()
	lines := bufio.NewScanner(pr)
	next := func() watchEvent {
		t.Helper()
		if !lines.Scan() {
			t.Fatal("watch ended early")
		}
		var ev watchEvent
		if err := json.Unmarshal(lines.Bytes(), &ev); err != nil {
			t.Fatalf("not NDJSON: %q", lines.Text())
		}
		return ev
	}
	if ev := next(); ev.Host.URL != a.URL() || ev.Type != "state" || len(ev.Sessions) != 2 || ev.Seq != 1 {
		t.Errorf("first line: %+v", ev)
	}
	if ev := next(); ev.Host.URL != down || ev.Type != "host" || ev.HostState != "failed" || !strings.Contains(ev.Error, "connection refused") {
		t.Errorf("second line: %+v", ev)
	}
	if ev := next(); ev.Host.URL != b.URL() || ev.Type != "state" {
		t.Errorf("third line: %+v", ev)
	}
	out, errs, code := e.run(t, "new", "--host", b.URL())
	if code != ExitOK {
		t.Fatalf("new: exit %d %s", code, errs)
	}
	uri := strings.TrimSpace(out)
	for {
		ev := next()
		if ev.Type == "sessionAdded" {
			if ev.Host.URL != b.URL() || ev.Session != uri {
				t.Errorf("sessionAdded: %+v, want %s on %s", ev, uri, b.URL())
			}
			break
		}
	}
	a.Close()
	for {
		ev := next()
		if ev.Type == "host" {
			if ev.Host.URL != a.URL() || ev.HostState != "connecting" {
				t.Errorf("a lost: %+v", ev)
			}
			break
		}
	}
	pr.Close()
	<-done
}

// TestMultiHostDocumented: ahptui help names inbox and says which
// commands take several hosts; each of those commands' --help has
// --all-hosts; the README's Scripting section names every command and
// --all-hosts.
func TestMultiHostDocumented(t *testing.T) {
	e := newHostsEnv(t)
	out, _, _ := e.run(t, "help")
	if !strings.Contains(out, "  inbox ") || !strings.Contains(out, "--all-hosts") {
		t.Errorf("help:\n%s", out)
	}
	for _, cmd := range []string{"status", "watch", "inbox"} {
		if out, _, code := e.run(t, cmd, "--help"); code != 0 || !strings.Contains(out, "--all-hosts") || !strings.Contains(out, "--host URL") {
			t.Errorf("%s --help: exit %d\n%s", cmd, code, out)
		}
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(readme), "## Scripting")
	section, _, _ = strings.Cut(section, "\n## ")
	for _, c := range newRoot(&app{}).Commands() {
		if c.Hidden || c.Name() == "help" || !c.Runnable() && !c.HasSubCommands() {
			continue // a help topic (exit-codes), not a command
		}
		if !regexp.MustCompile("[`|]" + c.Name() + `\b`).MatchString(section) {
			t.Errorf("README's Scripting section does not name %s", c.Name())
		}
	}
	if !strings.Contains(section, "--all-hosts") {
		t.Error("README's Scripting section does not say --all-hosts")
	}
}

// TestHostRowsKeepTokens: a host that refuses a wrong connection token
// (HTTP 403) is a refused row, and a host down given with a token a
// failed one; neither row, nor stderr, shows either token.
func TestHostRowsKeepTokens(t *testing.T) {
	const right, wrong, other = "right-token-1234", "wrong-token-5678", "other-token-9012"
	guarded := demotest.Start(t, demohost.Config{ConnectionToken: right})
	down := badhost.Closed(t)
	e := newHostsEnv(t)
	out, errs, code := e.run(t, "status", "--json", "--host", guarded.URL()+"?tkn="+wrong, "--host", down+"?tkn="+other)
	// The first failed host's code: the wrong token's.
	if code != ExitForbidden {
		t.Errorf("exit %d: %s", code, errs)
	}
	for _, s := range []string{right, wrong, other} {
		if strings.Contains(out+errs, s) {
			t.Errorf("a token is shown:\n%s\n%s", out, errs)
		}
	}
	var st statusJSON
	if err := json.Unmarshal([]byte(out), &st); err != nil || len(st.Hosts) != 2 {
		t.Fatalf("%v\n%s", err, out)
	}
	rows := st.Hosts
	if r := rows[0]; r.Host.URL != guarded.URL() || r.State != "refused" || !strings.Contains(r.Error, "403") {
		t.Errorf("the wrong token: %+v", r.hostJSON)
	}
	if r := rows[1]; r.Host.URL != down || r.State != "failed" || !strings.Contains(r.Error, "connection refused") {
		t.Errorf("the host down: %+v", r.hostJSON)
	}
}
