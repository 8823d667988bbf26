package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/internal/tmuxtest"
)

// The commands for what the UI can do (issue 32): each runs the real
// binary against a real demo host, as a script would.

// only10 skips a test of what only AHP 1.0 serves (changesets,
// terminals, chat/turnResume, a blocking MCP start).
func only10(t *testing.T) {
	t.Helper()
	if suiteVersion != demohost.Version10 {
		t.Skip("AHP " + suiteVersion + " has no " + t.Name())
	}
}

func decodeJSON(t *testing.T, res cliResult, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(res.stdout), v); err != nil {
		t.Fatalf("%v:\n%s", err, res.stdout)
	}
}

// TestCLIMCPStartFailedAgain (item 10): in the demo session, which has
// not run, a start of the server whose start had failed is waited for
// and fails again: exit 6 with the server's error, not "start requested"
// with 0. A ready server is "already running".
func TestCLIMCPStartFailedAgain(t *testing.T) {
	t.Parallel()
	skipShort(t)
	r, _ := newCLIRunner(t)
	res := r.run(6, "", "mcp", "start", demohost.FlakyServerID, "--session", "demo", "--json")
	var j struct {
		State, Error   string
		StartRequested bool
	}
	decodeJSON(t, res, &j)
	if j.State != "error" || j.StartRequested || !strings.Contains(j.Error, "connection refused") {
		t.Errorf("mcp start of a failed server: %+v", j)
	}
	if !strings.Contains(res.stderr, "failed to start: flaky-mcp exited during start-up") {
		t.Errorf("stderr does not give the server's error:\n%s", res.stderr)
	}
	res = r.run(0, "", "mcp", "start", demohost.FilesystemServerID, "--session", "demo")
	if !strings.Contains(res.stdout, "already running") {
		t.Errorf("mcp start of a ready server:\n%s", res.stdout)
	}
}

// TestCLIApproveAllowsOnce: approve without --option takes the option
// that allows just this call ("Allow once"), not the first approving
// one ("Allow in this Session"), as the UI's approve key does.
func TestCLIApproveAllowsOnce(t *testing.T) {
	t.Parallel()
	skipShort(t)
	r, _ := newCLIRunner(t)
	r.run(5, "", "send", "demo", "option")
	res := r.run(0, "", "approve", "demo", "--json")
	var d struct {
		Approved bool
		Option   string
	}
	decodeJSON(t, res, &d)
	if !d.Approved || d.Option != "Allow once" {
		t.Errorf("approve picked %+v, want Allow once", d)
	}
}

// TestCLIResume: a turn stopped at a resumable error is resumed, as the
// UI's resume key does; with nothing to resume, a conflict (exit 9)
// saying why: the state refuses it, the command was right.
func TestCLIResume(t *testing.T) {
	t.Parallel()
	skipShort(t)
	only10(t)
	r, h := newCLIRunner(t)
	if res := r.run(9, "", "resume", "demo"); !strings.Contains(res.stderr, "nothing to resume") {
		t.Errorf("resume with no turn:\n%s", res.stderr)
	}
	send := runCLI(t, r.bin, r.env, "", "send", "demo", "resume", "--host", r.url, "--config-dir", privateDir(t))
	if send.code == 0 {
		t.Fatalf("send resume ended 0, want the turn stopped at its error:\n%s", send.stdout)
	}
	res := r.run(0, "", "resume", "demo", "--json")
	var j struct{ Session, Chat, Resumed string }
	decodeJSON(t, res, &j)
	if j.Session != demohost.DemoSessionURI || j.Chat != demohost.DemoChatURI || j.Resumed == "" {
		t.Errorf("resume printed %+v", j)
	}
	waitIdle(t, h, demohost.DemoChatURI)
	show := r.run(0, "", "show", "demo", "--json")
	var c struct{ Turns []struct{ ID, State string } }
	decodeJSON(t, show, &c)
	if n := len(c.Turns); n == 0 || c.Turns[n-1].ID != j.Resumed || c.Turns[n-1].State != "complete" {
		t.Errorf("the resumed turn did not complete: %+v", c.Turns)
	}
}

// TestCLIMCPBackground: a blocking start (the demo's indexer in a new
// session) moves to the background: it goes on starting but no longer
// holds the session's messages; a second time there is nothing to move
// (a conflict, exit 9).
func TestCLIMCPBackground(t *testing.T) {
	t.Parallel()
	skipShort(t)
	only10(t)
	h, err := demohost.Start(t.Context(), demohost.Config{Version: suiteVersion, Clock: cliClock, StepDelay: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	r := &cliRunner{t: t, bin: tmuxtest.Build(t, "github.com/ahptui/ahptui"), url: h.URL(), env: cliEnv(t)}
	session := strings.TrimSpace(r.run(0, "", "new").stdout)
	// The session has not run and the indexer takes 30 steps: the start
	// is reported as requested when --timeout ends, still starting.
	var j struct {
		State          string
		Blocking       bool
		StartRequested bool
	}
	decodeJSON(t, r.run(0, "", "mcp", "start", demohost.IndexerServerID, "--session", session, "--timeout", "600ms", "--json"), &j)
	if j.State != "starting" || !j.Blocking {
		t.Fatalf("the indexer's start: %+v, want starting and blocking", j)
	}
	j.Blocking, j.StartRequested = false, false
	decodeJSON(t, r.run(0, "", "mcp", "background", demohost.IndexerServerID, "--session", session, "--json"), &j)
	if j.State != "starting" || j.Blocking {
		t.Errorf("mcp background left the start blocking: %+v", j)
	}
	if res := r.run(9, "", "mcp", "background", demohost.IndexerServerID, "--session", session); !strings.Contains(res.stderr, "nothing to move to the background") {
		t.Errorf("a second mcp background:\n%s", res.stderr)
	}
}

// TestCLIChats: the session's chats, a new one and a fork, whose URIs
// take the host's default-chat shape (ahp-chat://ID/<base64 session>).
// A chat or turn the session lacks is not found (8); a fork of a chat
// with no finished turn is a conflict (9).
func TestCLIChats(t *testing.T) {
	t.Parallel()
	skipShort(t)
	r, _ := newCLIRunner(t)
	var list []struct {
		Chat    string
		Default bool
	}
	decodeJSON(t, r.run(0, "", "chats", "list", "history", "--json"), &list)
	if len(list) == 0 || list[0].Chat != demohost.HistoryChatURI || !list[0].Default {
		t.Fatalf("chats list: %+v", list)
	}
	shape := strings.TrimPrefix(demohost.HistoryChatURI, "ahp-chat://default")
	var made struct{ Chat, From, Turn string }
	decodeJSON(t, r.run(0, "", "chats", "new", "history", "--json"), &made)
	if !strings.HasPrefix(made.Chat, "ahp-chat://") || !strings.HasSuffix(made.Chat, shape) {
		t.Errorf("chats new minted %q, want the shape ahp-chat://ID%s", made.Chat, shape)
	}
	blank := made.Chat
	if res := r.run(9, "", "chats", "fork", "history", blank); !strings.Contains(res.stderr, "nothing to fork") {
		t.Errorf("fork of a chat with no turn:\n%s", res.stderr)
	}
	decodeJSON(t, r.run(0, "", "chats", "fork", "history", "default", "--json"), &made)
	if !strings.HasSuffix(made.Chat, shape) || made.From != demohost.HistoryChatURI || made.Turn == "" {
		t.Errorf("chats fork: %+v", made)
	}
	decodeJSON(t, r.run(0, "", "chats", "list", "history", "--json"), &list)
	found := false
	for _, c := range list {
		found = found || c.Chat == made.Chat
	}
	if !found {
		t.Errorf("the fork %s is not listed: %+v", made.Chat, list)
	}
	if res := r.run(8, "", "chats", "fork", "history", "nosuch"); !strings.Contains(res.stderr, `no chat "nosuch"`) {
		t.Errorf("fork of no chat:\n%s", res.stderr)
	}
	if res := r.run(8, "", "chats", "fork", "history", "default", "--turn", "nosuch"); !strings.Contains(res.stderr, `no turn "nosuch"`) {
		t.Errorf("fork at no turn:\n%s", res.stderr)
	}
	r.run(2, "", "chats", "fork", "history")
}

// TestCLIChanges: the history session's changesets and a file's diff; a
// file or changeset the session lacks is not found (8).
func TestCLIChanges(t *testing.T) {
	t.Parallel()
	skipShort(t)
	only10(t)
	r, _ := newCLIRunner(t)
	var sets []struct {
		Label string
		Files []struct{ Path, Change string }
	}
	decodeJSON(t, r.run(0, "", "changes", "list", "history", "--json"), &sets)
	created := false
	for _, s := range sets {
		for _, f := range s.Files {
			created = created || f.Path == "protocol/wait.go" && f.Change == "created"
		}
	}
	if !created {
		t.Fatalf("changes list lacks protocol/wait.go created: %+v", sets)
	}
	res := r.run(0, "", "changes", "diff", "history", "protocol/wait.go")
	if !strings.Contains(res.stdout, "+++ b/protocol/wait.go") || !strings.Contains(res.stdout, "+package protocol") {
		t.Errorf("changes diff:\n%s", res.stdout)
	}
	if res := r.run(8, "", "changes", "diff", "history", "nosuch.go"); !strings.Contains(res.stderr, "no changed file") {
		t.Errorf("diff of no file:\n%s", res.stderr)
	}
	if res := r.run(8, "", "changes", "diff", "history", "protocol/wait.go", "--changeset", "nosuch"); !strings.Contains(res.stderr, `no changeset "nosuch"`) {
		t.Errorf("diff in no changeset:\n%s", res.stderr)
	}
}

// TestCLISettings: a value that lets tool calls run without asking is
// refused without a terminal unless --yes, naming its effect; a plain
// value is set at once; a host setting needs the yes too. A key the
// session and host lack is not found (8), a setting the host keeps a
// conflict (9), a value of the wrong type a usage error (2).
func TestCLISettings(t *testing.T) {
	t.Parallel()
	skipShort(t)
	r, _ := newCLIRunner(t)
	value := func(id string) string {
		t.Helper()
		var all []struct {
			ID    string
			Value json.RawMessage
		}
		decodeJSON(t, r.run(0, "", "settings", "show", "demo", "--json"), &all)
		for _, s := range all {
			if s.ID == id {
				return string(s.Value)
			}
		}
		t.Fatalf("settings show lacks %s", id)
		return ""
	}
	res := r.run(2, "", "settings", "set", "demo", demohost.ConfigApprovals, "Allow all")
	for _, want := range []string{"without asking you first", "this session", "--yes"} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("the refusal does not say %q:\n%s", want, res.stderr)
		}
	}
	if v := value(demohost.ConfigApprovals); v != `"default"` {
		t.Fatalf("a refused Allow all set approvals to %s", v)
	}
	r.run(0, "", "settings", "set", "demo", demohost.ConfigMaxToolCalls, "30")
	if v := value(demohost.ConfigMaxToolCalls); v != "30" {
		t.Errorf("max tool calls is %s, want 30", v)
	}
	r.run(0, "", "settings", "set", "demo", "Approvals", "Allow all", "--yes")
	if v := value(demohost.ConfigApprovals); v != `"autoApprove"` {
		t.Errorf("approvals is %s after --yes, want autoApprove", v)
	}
	if res := r.run(2, "", "settings", "set", "demo", demohost.RootConfigGlobalAutoApprove, "true"); !strings.Contains(res.stderr, "every client of this host") {
		t.Errorf("the host setting's refusal:\n%s", res.stderr)
	}
	r.run(2, "", "settings", "set", "demo", demohost.ConfigMaxToolCalls, "many")
	if res := r.run(8, "", "settings", "set", "demo", "nosuch", "1"); !strings.Contains(res.stderr, `no setting "nosuch"`) {
		t.Errorf("an unknown key:\n%s", res.stderr)
	}
	if res := r.run(9, "", "settings", "set", "demo", demohost.RootConfigManaged, "true", "--yes"); !strings.Contains(res.stderr, "cannot be changed: set by the host") {
		t.Errorf("a setting the host keeps:\n%s", res.stderr)
	}
}

// TestCLITerminals: the history session's terminal, its output with the
// escapes stripped as text and kept in JSON; a terminal the host does not
// list is not found (8).
func TestCLITerminals(t *testing.T) {
	t.Parallel()
	skipShort(t)
	only10(t)
	r, _ := newCLIRunner(t)
	var list []struct{ Terminal, ToolCall string }
	decodeJSON(t, r.run(0, "", "terminals", "list", "history", "--json"), &list)
	if len(list) != 1 || list[0].Terminal != demohost.DemoTerminalURI || list[0].ToolCall == "" {
		t.Fatalf("terminals list: %+v", list)
	}
	res := r.run(0, "", "terminals", "show", demohost.DemoTerminalURI)
	if !strings.Contains(res.stdout, "--- FAIL: TestReconnect") || strings.ContainsAny(res.stdout, "\x1b\r") {
		t.Errorf("terminals show:\n%q", res.stdout)
	}
	var j struct{ Text string }
	decodeJSON(t, r.run(0, "", "terminals", "show", demohost.DemoTerminalURI, "--json"), &j)
	if !strings.Contains(j.Text, "\x1b[31m--- FAIL") {
		t.Errorf("the JSON lost the host's escapes: %q", j.Text)
	}
	if res := r.run(8, "", "terminals", "show", "agenthost-terminal://nosuch"); !strings.Contains(res.stderr, "no terminal") {
		t.Errorf("show of no terminal:\n%s", res.stderr)
	}
}

// TestCLIShowMarkdown: the transcript as Markdown, every chat, turn
// times, tool calls with inputs and results, no escapes.
func TestCLIShowMarkdown(t *testing.T) {
	t.Parallel()
	skipShort(t)
	r, _ := newCLIRunner(t)
	res := r.run(0, "", "show", "history", "--markdown")
	wants := []string{"# Earlier: why TestReconnect flakes", "## Flaky test",
		"### Turn 1 · 20", "#### Tool: Search files", `"query": "TestReconnect"`, "protocol/conn_test.go:88", "> Why does TestReconnect flake?"}
	if suiteVersion == demohost.Version10 {
		wants = append(wants, "## Flake hunter") // a session's second chat is AHP 1.0's
	}
	for _, want := range wants {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("the transcript lacks %q:\n%s", want, res.stdout)
		}
	}
	if strings.Contains(res.stdout, "\x1b") {
		t.Errorf("the transcript holds an escape")
	}
	r.run(2, "", "show", "history", "--markdown", "--json")
}
