package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/internal/badhost"
	"github.com/ahptui/ahptui/internal/tmuxtest"
)

// schemaDir holds the JSON Schema of each command's --json output
// (docs/cli.md): COMMAND.json, a subcommand's words joined by "-".
const schemaDir = "../../docs/schemas"

// cliSchemas compiles every schema in docs/schemas once per test.
func cliSchemas(t *testing.T) map[string]*jsonschema.Schema {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(schemaDir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no schemas in %s: %v", schemaDir, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	out := map[string]*jsonschema.Schema{}
	for _, f := range files {
		abs, err := filepath.Abs(f)
		if err != nil {
			t.Fatal(err)
		}
		sch, err := c.Compile(abs)
		if err != nil {
			t.Fatalf("compile %s: %v", f, err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".json")] = sch
	}
	return out
}

// validateJSON validates one JSON text against schema name, and checks
// the schema is strict about it: the text with a member no schema lists
// added to any one of its objects is refused.
func validateJSON(t *testing.T, schemas map[string]*jsonschema.Schema, name, what, text string) {
	t.Helper()
	sch := schemas[name]
	if sch == nil {
		t.Fatalf("%s: no schema docs/schemas/%s.json", what, name)
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
	if err != nil {
		t.Fatalf("%s: not JSON: %v\n%s", what, err, text)
	}
	if err := sch.Validate(doc); err != nil {
		t.Errorf("%s does not match docs/schemas/%s.json: %v\n%s", what, name, err, text)
		return
	}
	for i := range countObjects(doc) {
		grown, _ := jsonschema.UnmarshalJSON(strings.NewReader(text))
		addMember(grown, i)
		if sch.Validate(grown) == nil {
			t.Errorf("%s: docs/schemas/%s.json lets object %d grow a member it does not list", what, name, i)
		}
	}
}

// countObjects is how many JSON objects v holds, itself included.
func countObjects(v any) int {
	n := 0
	walkObjects(v, func(map[string]any) bool { n++; return false })
	return n
}

// addMember adds an unlisted member to v's i-th object (depth first),
// of a type no member has (a map's values, answer's answers, included).
func addMember(v any, i int) {
	walkObjects(v, func(o map[string]any) bool {
		if i == 0 {
			o["unlistedMember"] = []any{true}
			return true
		}
		i--
		return false
	})
}

// walkObjects calls f on each object of v depth first, in key order,
// until f returns true.
func walkObjects(v any, f func(map[string]any) bool) bool {
	switch x := v.(type) {
	case map[string]any:
		if f(x) {
			return true
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if walkObjects(x[k], f) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if walkObjects(e, f) {
				return true
			}
		}
	}
	return false
}

// validateLines validates each NDJSON line of text against schema name.
func validateLines(t *testing.T, schemas map[string]*jsonschema.Schema, name, what, text string) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(text), "\n")
	if len(lines) == 0 || lines[0] == "" {
		t.Fatalf("%s: no lines", what)
	}
	for i, l := range lines {
		validateJSON(t, schemas, name, fmt.Sprintf("%s line %d", what, i+1), l)
	}
}

// goldenSchema is the schema a golden's output follows: the longest
// schema name its file name starts with (auth_status_empty.json is
// auth-status's, mcp_start_requested.json mcp-start's).
func goldenSchema(schemas map[string]*jsonschema.Schema, file string) string {
	base := strings.ReplaceAll(strings.TrimSuffix(strings.TrimSuffix(file, ".json"), ".ndjson"), "_", "-")
	best := ""
	for name := range schemas {
		if (base == name || strings.HasPrefix(base, name+"-")) && len(name) > len(best) {
			best = name
		}
	}
	return best
}

// TestCLIJSONSchemasGoldens: every JSON golden in testdata/cli (the real
// output of a command against the demo host, made stable) matches its
// command's schema in docs/schemas, and each schema refuses that output
// grown by a member it does not list, in any object. A golden with no
// schema fails.
func TestCLIJSONSchemasGoldens(t *testing.T) {
	t.Parallel()
	schemas := cliSchemas(t)
	files, err := os.ReadDir(filepath.Join("testdata", "cli"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		name := f.Name()
		if !strings.HasSuffix(name, ".json") && !strings.HasSuffix(name, ".ndjson") {
			continue
		}
		b, err := os.ReadFile(filepath.Join("testdata", "cli", name))
		if err != nil {
			t.Fatal(err)
		}
		sch := goldenSchema(schemas, name)
		if sch == "" {
			t.Errorf("%s: no schema in docs/schemas names its command", name)
			continue
		}
		// The doctor goldens write the keyring check, which differs by
		// machine, as a placeholder: put a check back in its place.
		text := strings.ReplaceAll(string(b), `"KEYRING (this machine's)"`, `{"name": "keyring", "status": "ok", "detail": "the OS keyring"}`)
		if strings.HasSuffix(name, ".ndjson") {
			validateLines(t, schemas, sch, name, text)
		} else {
			validateJSON(t, schemas, sch, name, text)
		}
		n++
	}
	if n < 20 {
		t.Errorf("validated %d goldens", n)
	}
}

// TestCLIJSONSchemasLive: the commands that read one host or several
// (status, inbox, watch), run as the built binary against one demo host,
// two, and two with one down, print what their schemas describe, and
// the same shape whatever the number of hosts; so do doctor, version
// and an error object on stderr. A schema that lost a required member
// would let the output lose it: the schemas refuse output without
// status's rows, a row's host or a watch line's seq.
func TestCLIJSONSchemasLive(t *testing.T) {
	t.Parallel()
	skipShort(t)
	schemas := cliSchemas(t)
	a, b := cliHost(t), cliHost(t)
	down := badhost.Closed(t)
	bin := tmuxtest.Build(t, "github.com/ahptui/ahptui")
	env := cliEnv(t)
	run := func(code int, args ...string) cliResult {
		t.Helper()
		res := runCLI(t, bin, env, "", append(args, "--config-dir", privateDir(t))...)
		if res.code != code {
			t.Fatalf("%v: exit %d, want %d\n%s%s", args, res.code, code, res.stdout, res.stderr)
		}
		return res
	}
	// Something waits on b: an approval, with its answer.
	run(5, "send", "demo", "write the changelog", "--host", b.URL())
	one := []string{"--host", a.URL()}
	two := []string{"--host", a.URL(), "--host", b.URL()}
	withDown := []string{"--host", a.URL(), "--host", down, "--host", b.URL()}
	for _, cmd := range []string{"status", "inbox"} {
		keys := map[string]string{}
		for _, tc := range []struct {
			name  string
			hosts []string
			code  int
		}{{"one host", one, 0}, {"two hosts", two, 0}, {"a host down", withDown, 3}, {"all hosts", append([]string{"--all-hosts"}, two...), 0}} {
			res := run(tc.code, append([]string{cmd, "--json"}, tc.hosts...)...)
			what := cmd + " (" + tc.name + ")"
			validateJSON(t, schemas, cmd, what, res.stdout)
			var top map[string]json.RawMessage
			if err := json.Unmarshal([]byte(res.stdout), &top); err != nil {
				t.Fatalf("%s is not an object: %v\n%s", what, err, res.stdout)
			}
			keys[tc.name] = strings.Join(slices.Sorted(func(yield func(string) bool) {
				for k := range top {
					if !yield(k) {
						return
					}
				}
			}), ",")
			if tc.code != 0 {
				validateLines(t, schemas, "error", what+" stderr", res.stderr)
			}
		}
		if keys["one host"] != keys["two hosts"] || keys["one host"] != keys["a host down"] {
			t.Errorf("%s --json's shape depends on the number of hosts: %v", cmd, keys)
		}
	}
	status := run(0, "status", "--json", "--host", a.URL()).stdout
	for _, lose := range []struct{ from, what string }{
		{`"hosts": [`, `"hostsGone": [`},
		{`"state": "connected",`, ``},
	} {
		lost := strings.Replace(status, lose.from, lose.what, 1)
		doc, _ := jsonschema.UnmarshalJSON(strings.NewReader(lost))
		if schemas["status"].Validate(doc) == nil {
			t.Errorf("the status schema takes output without %s", lose.from)
		}
	}

	// watch: one host's session, one host's list, two hosts' lists.
	validateLines(t, schemas, "watch", "watch SESSION", run(0, "watch", "demo", "--until", "input", "--host", b.URL()).stdout)
	for _, hosts := range [][]string{one, two} {
		lines := firstLines(t, bin, env, len(hosts)/2, append([]string{"watch"}, hosts...)...)
		validateLines(t, schemas, "watch", fmt.Sprintf("watch (%d hosts)", len(hosts)/2), strings.Join(lines, "\n"))
		lost := strings.Replace(lines[0], `"seq":1,`, "", 1)
		doc, _ := jsonschema.UnmarshalJSON(strings.NewReader(lost))
		if schemas["watch"].Validate(doc) == nil {
			t.Errorf("the watch schema takes a line without seq: %s", lost)
		}
	}
	validateJSON(t, schemas, "doctor", "doctor", run(0, "doctor", "--json", "--host", a.URL()).stdout)
	validateJSON(t, schemas, "version", "version", run(0, "version", "--json").stdout)
	validateLines(t, schemas, "error", "an error", run(8, "show", "nosuch", "--json", "--host", a.URL()).stderr)
}

// TestCLIJSONSchemasVerbs: each of issue 32's new commands (resume,
// mcp background, chats, changes, settings, terminals), run as the built
// binary against a demo host, prints what its schema in docs/schemas
// describes, strictly (no member the schema does not list), and its
// errors are error objects naming the new kinds. Changesets, terminals,
// resume and a blocking MCP start are AHP 1.0's, so over 0.x those runs
// are left out.
func TestCLIJSONSchemasVerbs(t *testing.T) {
	t.Parallel()
	skipShort(t)
	schemas := cliSchemas(t)
	r, _ := newCLIRunner(t)
	v10 := suiteVersion == demohost.Version10
	check := func(schema string, code int, args ...string) cliResult {
		t.Helper()
		res := r.run(code, "", append(args, "--json")...)
		validateJSON(t, schemas, schema, strings.Join(args, " "), res.stdout)
		return res
	}
	checkErr := func(code int, kind string, args ...string) {
		t.Helper()
		res := r.run(code, "", append(args, "--json")...)
		validateLines(t, schemas, "error", strings.Join(args, " ")+" stderr", res.stderr)
		if !strings.Contains(res.stderr, `"kind":"`+kind+`"`) && !strings.Contains(res.stderr, `"kind": "`+kind+`"`) {
			t.Errorf("%v: the error object does not name %s:\n%s", args, kind, res.stderr)
		}
	}

	check("chats-list", 0, "chats", "list", "history")
	var made struct{ Chat string }
	if err := json.Unmarshal([]byte(check("chats-new", 0, "chats", "new", "history").stdout), &made); err != nil {
		t.Fatal(err)
	}
	check("chats-fork", 0, "chats", "fork", "history", "default")
	// The new chat and the fork are listed too, the fork with its origin.
	check("chats-list", 0, "chats", "list", "history")
	checkErr(9, "conflict", "chats", "fork", "history", made.Chat)
	checkErr(8, "not-found", "chats", "list", "nosuch")

	check("settings-show", 0, "settings", "show", "demo")
	check("settings-set", 0, "settings", "set", "demo", demohost.ConfigMaxToolCalls, "30")
	check("settings-set", 0, "settings", "set", "demo", demohost.ConfigApprovals, "Allow all", "--yes")
	checkErr(8, "not-found", "settings", "set", "demo", "nosuch", "1")
	checkErr(2, "usage", "settings", "set", "demo", demohost.ConfigMaxToolCalls, "many")

	if !v10 {
		// Resume and background are AHP 1.0's: an older host cannot
		// (exit 6, the host's refusal), whatever the state.
		checkErr(6, "host-error", "resume", "demo")
		return
	}
	checkErr(9, "conflict", "resume", "demo")
	checkErr(9, "conflict", "mcp", "background", demohost.FilesystemServerID, "--session", "demo")
	if !v10 {
		return
	}
	check("changes-list", 0, "changes", "list", "history")
	check("changes-diff", 0, "changes", "diff", "history", "protocol/wait.go")
	checkErr(8, "not-found", "changes", "diff", "history", "nosuch.go")
	check("terminals-list", 0, "terminals", "list", "history")
	check("terminals-show", 0, "terminals", "show", demohost.DemoTerminalURI)
	checkErr(8, "not-found", "terminals", "show", "agenthost-terminal://nosuch")

	// resume: a turn stopped at a resumable error.
	runCLI(t, r.bin, r.env, "", "send", "demo", "resume", "--host", r.url, "--config-dir", privateDir(t))
	check("resume", 0, "resume", "demo")

	// mcp background: a blocking start (the indexer, paced, in a session
	// that has not run) moved to the background.
	h, err := demohost.Start(t.Context(), demohost.Config{Version: suiteVersion, Clock: cliClock, StepDelay: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	slow := &cliRunner{t: t, bin: r.bin, url: h.URL(), env: r.env}
	session := strings.TrimSpace(slow.run(0, "", "new").stdout)
	start := slow.run(0, "", "mcp", "start", demohost.IndexerServerID, "--session", session, "--timeout", "600ms", "--json")
	validateJSON(t, schemas, "mcp-start", "mcp start (blocking)", start.stdout)
	if !strings.Contains(start.stdout, `"blocking": true`) {
		t.Fatalf("the indexer's start is not blocking:\n%s", start.stdout)
	}
	bg := slow.run(0, "", "mcp", "background", demohost.IndexerServerID, "--session", session, "--json")
	validateJSON(t, schemas, "mcp-background", "mcp background", bg.stdout)
}

// firstLines starts the binary with args and returns its first n lines
// of stdout, then stops it.
func firstLines(t *testing.T, bin string, env []string, n int, args ...string) []string {
	t.Helper()
	cmd := exec.Command(bin, append(args, "--config-dir", privateDir(t))...)
	cmd.Env = env
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	var out []string
	timeout := time.After(stepTimeout)
	for len(out) < n {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("%v ended after %d lines:\n%s", args, len(out), stderr.String())
			}
			out = append(out, l)
		case <-timeout:
			t.Fatalf("%v printed %d lines", args, len(out))
		}
	}
	return out
}

// watchLine is one line of watch as the tests read it.
type watchLine struct {
	Seq       int
	Time      string
	Host      struct{ Name, URL string }
	Type      string
	HostState string
	Session   string
	Sessions  []struct{ Session string }
}

// TestCLIWatchAllHostsReconnect: watch over two demo hosts, the first
// killed and restarted on its port. Every line has seq (1, 2, ... with
// no gap), an RFC 3339 time and its host as {name, url}. The start is
// each host's state and nothing more (no connecting/connected for a
// first connection); the loss is one "host" line, connecting; the return
// is a "host" line, connected, then a sessionRemoved for the session the
// restarted host lacks, then its state afresh; the other host's changes
// go on being printed. Its --trace names each frame's host.
func TestCLIWatchAllHostsReconnect(t *testing.T) {
	t.Parallel()
	skipShort(t)
	addr := badhost.ClosedAddr(t)
	start := func() *demohost.Host {
		h, err := demohost.Start(t.Context(), demohost.Config{Addr: addr, Version: suiteVersion, StepDelay: -1})
		if err != nil {
			t.Fatalf("start a demo host on %s: %v", addr, err)
		}
		t.Cleanup(func() { h.Close() })
		return h
	}
	a := start()
	b := cliHost(t)
	bin := tmuxtest.Build(t, "github.com/ahptui/ahptui")
	env := cliEnv(t)
	cfg := privateDir(t)
	made := runCLI(t, bin, env, "", "new", "--host", a.URL(), "--config-dir", cfg)
	if made.code != 0 {
		t.Fatalf("new: exit %d %s", made.code, made.stderr)
	}
	gone := strings.TrimSpace(made.stdout)
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	cmd := exec.Command(bin, "watch", "--host", a.URL(), "--host", b.URL(), "--config-dir", cfg, "--trace", trace)
	cmd.Env = env
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	lines := make(chan string, 64)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	var got []watchLine
	var text []string
	// next reads lines up to the first that satisfies want.
	next := func(what string, want func(watchLine) bool) watchLine {
		t.Helper()
		timeout := time.After(stepTimeout)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("watch ended before %s:\n%s\n%s", what, strings.Join(text, "\n"), stderr.String())
				}
				var w watchLine
				if err := json.Unmarshal([]byte(l), &w); err != nil {
					t.Fatalf("not NDJSON: %q", l)
				}
				got, text = append(got, w), append(text, l)
				if want(w) {
					return w
				}
			case <-timeout:
				t.Fatalf("watch printed no %s:\n%s", what, strings.Join(text, "\n"))
			}
		}
	}
	on := func(h *demohost.Host, typ string) func(watchLine) bool {
		return func(w watchLine) bool { return w.Host.URL == h.URL() && w.Type == typ }
	}
	next("a's state", on(a, "state"))
	next("b's state", on(b, "state"))
	// A session made on b is a fence: whatever watch printed of the
	// first connections is before its sessionAdded.
	if res := runCLI(t, bin, env, "", "new", "--host", b.URL(), "--config-dir", cfg); res.code != 0 {
		t.Fatalf("new on b: exit %d %s", res.code, res.stderr)
	}
	next("b's sessionAdded", on(b, "sessionAdded"))
	for i, w := range got[:len(got)-1] {
		if w.Type != "state" || len(w.Sessions) == 0 {
			t.Errorf("line %d before any change is %s, want each host's state only:\n%s", i+1, w.Type, text[i])
		}
	}
	if len(got) != 3 {
		t.Errorf("%d lines before b's sessionAdded, want 2 states:\n%s", len(got)-1, strings.Join(text, "\n"))
	}

	// a goes away, and comes back on the same port without the session.
	a.Close()
	lost := next("a lost", on(a, "host"))
	if lost.HostState != "connecting" {
		t.Errorf("a lost: %s", text[len(text)-1])
	}
	a = start()
	back := next("a back", on(a, "host"))
	if back.HostState != "connected" {
		t.Errorf("a back: %s", text[len(text)-1])
	}
	afresh := next("a's state afresh", on(a, "state"))
	removed := false
	for _, w := range got[len(got)-3:] {
		removed = removed || w.Type == "sessionRemoved" && w.Session == gone
	}
	if !removed {
		t.Errorf("no sessionRemoved for %s before a's new state:\n%s", gone, strings.Join(text, "\n"))
	}
	if len(afresh.Sessions) != 2 || slices.ContainsFunc(afresh.Sessions, func(s struct{ Session string }) bool { return s.Session == gone }) {
		t.Errorf("a's state afresh: %s", text[len(text)-1])
	}
	// Between a's loss and its return, only those lines: one connecting,
	// not one per attempt.
	hostLines := 0
	for _, w := range got {
		if w.Type == "host" {
			hostLines++
		}
	}
	if hostLines != 2 {
		t.Errorf("%d host lines, want a lost and a back:\n%s", hostLines, strings.Join(text, "\n"))
	}
	// b still watched.
	if res := runCLI(t, bin, env, "", "new", "--host", b.URL(), "--config-dir", cfg); res.code != 0 {
		t.Fatalf("new on b: exit %d %s", res.code, res.stderr)
	}
	next("b's second sessionAdded", on(b, "sessionAdded"))

	var last time.Time
	for i, w := range got {
		if w.Seq != i+1 {
			t.Errorf("line %d has seq %d:\n%s", i+1, w.Seq, text[i])
		}
		at, err := time.Parse(time.RFC3339Nano, w.Time)
		if err != nil || at.Before(last) || at.Location() != time.UTC {
			t.Errorf("line %d's time %q: %v (after %s)", i+1, w.Time, err, last)
		}
		last = at
		if w.Host.Name != "" || (w.Host.URL != a.URL() && w.Host.URL != b.URL()) {
			t.Errorf("line %d's host %+v", i+1, w.Host)
		}
	}

	// The trace: every frame names its host, both hosts are in it.
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	raw, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var tl struct {
			Connection int
			Host       *struct{ Name, URL string }
		}
		if err := json.Unmarshal([]byte(l), &tl); err != nil || tl.Host == nil {
			t.Fatalf("a trace line without its host: %q (%v)", l, err)
		}
		seen[tl.Host.URL] = true
	}
	if !seen[a.URL()] || !seen[b.URL()] || len(seen) != 2 {
		t.Errorf("the trace's hosts: %v", seen)
	}
}

// TestCLITraceNamesItsHost: one host's --trace names the host on every
// line too, as {name, url}, the URL without the connection token the
// command was given.
func TestCLITraceNamesItsHost(t *testing.T) {
	t.Parallel()
	skipShort(t)
	secret := newSecret(t)
	h, err := demohost.Start(t.Context(), demohost.Config{Version: suiteVersion, ConnectionToken: secret})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	bin := tmuxtest.Build(t, "github.com/ahptui/ahptui")
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	res := runCLI(t, bin, cliEnv(t), "", "sessions", "--host", h.URL()+"?tkn="+secret, "--trace", trace, "--config-dir", privateDir(t))
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	raw, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), secret) {
		t.Fatalf("the trace holds the connection token")
	}
	for _, l := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var tl struct{ Host *struct{ Name, URL string } }
		if err := json.Unmarshal([]byte(l), &tl); err != nil || tl.Host == nil || tl.Host.URL != h.URL() || tl.Host.Name != "" {
			t.Fatalf("a trace line that does not name %s: %q (%v)", h.URL(), l, err)
		}
	}
}

// TestCLIWatchAllHostsGiveUp: watch over two demo hosts keeps to
// --reconnect-window as one host's watch does. The first host gone for
// good is a "host" line, connecting, then, once the window has passed, a
// "host" line, failed, that names the window, while the other host is
// still watched; the second gone too, the watch ends with exit 3.
func TestCLIWatchAllHostsGiveUp(t *testing.T) {
	t.Parallel()
	skipShort(t)
	a, b := cliHost(t), cliHost(t)
	bin := tmuxtest.Build(t, "github.com/ahptui/ahptui")
	cmd := exec.Command(bin, "watch", "--host", a.URL(), "--host", b.URL(), "--config-dir", privateDir(t), "--reconnect-window", "2s")
	cmd.Env = cliEnv(t)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr lockedText
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	type line struct {
		watchLine
		Error string
		at    time.Time
	}
	lines := make(chan line, 64)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var l line
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				t.Errorf("not a JSON line: %q", sc.Text())
				continue
			}
			l.at = time.Now()
			lines <- l
		}
	}()
	next := func(what, url, typ string) line {
		t.Helper()
		timeout := time.After(stepTimeout)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("%s: the watch ended (stderr %s)", what, stderr.String())
				}
				if l.Host.URL == url && l.Type == typ {
					return l
				}
			case <-timeout:
				t.Fatalf("%s: no %s line for %s", what, typ, url)
			}
		}
	}
	next("a's state", a.URL(), "state")
	next("b's state", b.URL(), "state")

	a.Close()
	lost := next("a lost", a.URL(), "host")
	if lost.HostState != "connecting" {
		t.Errorf("a lost: %+v", lost)
	}
	gaveUp := next("a given up", a.URL(), "host")
	if gaveUp.HostState != "failed" || !strings.Contains(gaveUp.Error, "--reconnect-window") {
		t.Errorf("a given up: %+v", gaveUp)
	}
	if waited := gaveUp.at.Sub(lost.at); waited < 1500*time.Millisecond {
		t.Errorf("a was given up %v after it was lost, before its 2s window", waited)
	}
	// b is still watched: its loss is still reported, then the watch ends.
	b.Close()
	if l := next("b lost", b.URL(), "host"); l.HostState != "connecting" {
		t.Errorf("b lost: %+v", l)
	}
	code, waited := waitExit(t, cmd, stepTimeout)
	if code != 3 || !strings.Contains(stderr.String(), "lost every host") {
		t.Errorf("the watch after both hosts went: exit %d after %s\n%s", code, waited, stderr.String())
	}
}
