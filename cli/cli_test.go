package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ahptui/ahptui/host/dial"
	"github.com/ahptui/ahptui/host/pick"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

// run runs a command in this process with getenv's environment.
func run(t *testing.T, tty bool, env map[string]string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	home := t.TempDir()
	code := Run(append(args, "--config-dir", t.TempDir()), Env{Stdout: &out, Stderr: &errb, StdoutTTY: tty,
		Getenv: func(k string) string {
			if k == "HOME" || k == "XDG_CONFIG_HOME" {
				return home
			}
			return env[k]
		}})
	return out.String(), errb.String(), code
}

// TestColourOnlyOnATerminal: human output is coloured on a terminal,
// plain on a pipe, with NO_COLOR, and always with --json.
func TestColourOnlyOnATerminal(t *testing.T) {
	for _, tc := range []struct {
		name   string
		tty    bool
		env    map[string]string
		json   bool
		colour bool
	}{
		{"terminal", true, nil, false, true},
		{"pipe", false, nil, false, false},
		{"NO_COLOR", true, map[string]string{"NO_COLOR": "1"}, false, false},
		{"json on a terminal", true, nil, true, false},
		{"CLICOLOR=0", true, map[string]string{"CLICOLOR": "0"}, false, false},
		{"CLICOLOR=1 on a pipe", false, map[string]string{"CLICOLOR": "1"}, false, false},
		{"CLICOLOR_FORCE on a pipe", false, map[string]string{"CLICOLOR_FORCE": "1"}, false, true},
		{"CLICOLOR_FORCE=0 on a pipe", false, map[string]string{"CLICOLOR_FORCE": "0"}, false, false},
		{"CLICOLOR_FORCE json", false, map[string]string{"CLICOLOR_FORCE": "1"}, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"sessions", "--demo"}
			if tc.json {
				args = append(args, "--json")
			}
			out, errs, code := run(t, tc.tty, tc.env, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			if got := strings.Contains(out, "\x1b["); got != tc.colour {
				t.Errorf("coloured %v, want %v:\n%q", got, tc.colour, out)
			}
		})
	}
}

// TestHelpNamesExitCodes: the exit codes are printed once, by ahptui
// help exit-codes; every command's help points there in one line, and
// the root lists the commands.
func TestHelpNamesExitCodes(t *testing.T) {
	out, _, code := run(t, false, nil, "help", "exit-codes")
	if code != 0 || strings.TrimSpace(out) != exitCodesHelp {
		t.Errorf("help exit-codes: exit %d\n%s", code, out)
	}
	for _, args := range [][]string{{"help"}, {"status", "--help"}, {"mcp", "start", "--help"}, {"show", "--help"}} {
		out, _, code := run(t, false, nil, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d", args, code)
		}
		if !strings.Contains(out, exitCodesPointer) || strings.Contains(out, "5  waiting on the user") {
			t.Errorf("%v: want the one pointer line, not the table:\n%s", args, out)
		}
	}
	out, _, _ = run(t, false, nil, "help")
	for _, cmd := range []string{"status", "sessions", "show", "mcp", "completion"} {
		if !strings.Contains(out, "  "+cmd+" ") {
			t.Errorf("help does not list %s:\n%s", cmd, out)
		}
	}
}

// TestExitCodeOf: what each kind of error exits with.
func TestExitCodeOf(t *testing.T) {
	for _, tc := range []struct {
		err  error
		code int
	}{
		{nil, ExitOK},
		{errors.New("disk full"), ExitFailure},
		{usagef("bad"), ExitUsage},
		{fmt.Errorf("connect: %w", &dial.DialError{}), ExitUnreachable},
		{fmt.Errorf("connect: %w", client.ErrNotConnected), ExitUnreachable},
		{&client.UnsupportedProtocolVersionError{}, ExitVersion},
		{&client.AuthRequiredError{}, ExitSignIn},
		{&client.HostError{Code: -32000}, ExitHostError},
		{fmt.Errorf("x: %w", jsonrpc.NewError(jsonrpc.SessionNotFound, "gone")), ExitNotFound},
		{fmt.Errorf("x: %w", jsonrpc.NewError(jsonrpc.TurnInProgress, "busy")), ExitConflict},
		{&client.HostError{Code: jsonrpc.ProviderNotFound}, ExitNotFound},
		{fmt.Errorf("x: %w", jsonrpc.NewError(jsonrpc.InternalError, "boom")), ExitHostError},
		{notFoundf("no session"), ExitNotFound},
		{conflictf("a turn is running"), ExitConflict},
		{fmt.Errorf("wait: %w", context.DeadlineExceeded), ExitTimeout},
		{fmt.Errorf("connect: %w", &dial.DialError{Kind: dial.ErrHTTPStatus, Status: 403}), ExitForbidden},
		{dial.NewDialError(dial.ErrHostKey, "ssh://u@b:22", "Host key verification failed."), ExitHostKey},
		{dial.NewDialError(dial.ErrSSHAuth, "ssh://u@b:22", "Permission denied (publickey)."), ExitSSHAuth},
		{dial.NewDialError(dial.ErrNoRemoteHost, "ssh://u@b:22", "none"), ExitNoRemote},
		{dial.NewDialError(dial.ErrRemoteRegistry, "ssh://u@b:22", "refused"), ExitRegistry},
		{dial.NewDialError(dial.ErrRelayMissing, "ssh://u@b:22", "old code"), ExitRelay},
		{dial.NewDialError(dial.ErrDropped, "ssh://u@b:22", "ssh ended"), ExitUnreachable},
		{fmt.Errorf("connect: %w", &dial.DialError{Kind: dial.ErrHTTPStatus, Status: 404}), ExitUnreachable},
		{fmt.Errorf("%w: %w", pick.ErrSavedHosts, errors.New("writable by others")), ExitFailure},
		{withCode(ExitWaiting, errors.New("approval")), ExitWaiting},
	} {
		if got := exitCode(tc.err); got != tc.code {
			t.Errorf("exitCode(%v) = %d, want %d", tc.err, got, tc.code)
		}
	}
}

// TestIsCommand: only a command word goes to the commands; bare ahptui,
// a saved host's name and the UI's flags stay the UI's.
func TestIsCommand(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{nil, false},
		{[]string{"--demo"}, false},
		{[]string{"work"}, false},
		// ahptui hosts lists hosts as the command hosts list does.
		{[]string{"hosts"}, true},
		{[]string{"status"}, true},
		{[]string{"mcp", "list"}, true},
		{[]string{"help"}, true},
		{[]string{"completion", "bash"}, true},
		// cobra's completion requests: a shell asks the binary itself.
		{[]string{"__complete", ""}, true},
		{[]string{"__completeNoDesc", "status", ""}, true},
		{[]string{"version"}, true},
		// Global flags before the command word.
		{[]string{"--host", "ws://h/", "status"}, true},
		{[]string{"--host=work", "--json", "sessions"}, true},
		{[]string{"--json", "status"}, true},
		{[]string{"--demo", "--timeout", "5s", "inbox"}, true},
		// A flag of the UI's only, or a saved host's name after flags.
		{[]string{"--cwd", "/tmp", "status"}, false},
		{[]string{"--host", "work"}, false},
		{[]string{"--demo", "work"}, false},
	} {
		if got := IsCommand(tc.args); got != tc.want {
			t.Errorf("IsCommand(%q) = %v, want %v", tc.args, got, tc.want)
		}
	}
}

// TestCompletions: cobra's completion scripts for bash, zsh and fish,
// each registering itself for ahptui in its shell's own way, and the
// completions they ask the binary for (cobra's __complete) naming the
// commands and the mcp verbs.
func TestCompletions(t *testing.T) {
	for sh, want := range map[string]string{
		"bash": "complete -o default -F __start_ahptui ahptui",
		"zsh":  "#compdef ahptui",
		"fish": "complete -c ahptui ",
	} {
		out, errs, code := run(t, false, nil, "completion", sh)
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("completion %s: exit %d, %s; want %q in\n%.300s", sh, code, errs, want, out)
		}
	}
	complete := func(args ...string) []string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := Run(append([]string{"__complete"}, args...), Env{Stdout: &out, Stderr: &errb}); code != 0 {
			t.Fatalf("__complete %q: exit %d %s", args, code, errb.String())
		}
		var names []string
		for _, l := range strings.Split(out.String(), "\n") {
			if l != "" && !strings.HasPrefix(l, ":") {
				name, _, _ := strings.Cut(l, "\t")
				names = append(names, name)
			}
		}
		return names
	}
	got := strings.Join(complete(""), " ")
	for _, cmd := range []string{"status", "sessions", "show", "mcp", "approve", "deny", "answer", "new", "dispose", "cancel", "send", "watch", "inbox", "auth", "doctor"} {
		if !strings.Contains(" "+got+" ", " "+cmd+" ") {
			t.Errorf("completing a command lacks %s: %s", cmd, got)
		}
	}
	if got := strings.Join(complete("mcp", ""), " "); got != "background disable enable list start stop" {
		t.Errorf("completing mcp: %q", got)
	}
}

// TestEveryCommandHelp: --help on every command and subcommand exits 0
// with its usage line and the exit codes.
func TestEveryCommandHelp(t *testing.T) {
	var walk func(c *cobra.Command)
	n := 0
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Hidden || !sub.Runnable() && !sub.HasSubCommands() {
				continue // a help topic: ahptui help exit-codes
			}
			path := strings.Fields(strings.TrimPrefix(sub.CommandPath(), "ahptui "))
			out, errs, code := run(t, false, nil, append(path, "--help")...)
			n++
			if code != 0 || !strings.Contains(out, "Usage:\n  "+sub.CommandPath()) || !strings.Contains(out, exitCodesPointer) {
				t.Errorf("%v --help: exit %d %s\n%s", path, code, errs, out)
			}
			walk(sub)
		}
	}
	walk(newRoot(&app{}))
	if n < 20 {
		t.Errorf("only %d commands walked", n)
	}
}

// TestDocsErrorKinds: docs/cli.md names every kind a --json error
// carries, and no other.
func TestDocsErrorKinds(t *testing.T) {
	doc, err := os.ReadFile("../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(doc), "## Errors")
	_, list, _ := strings.Cut(section, "`kind` being")
	list, _, _ = strings.Cut(list, "\n\n")
	var got []string
	for _, m := range regexp.MustCompile("`([a-z-]+)`").FindAllStringSubmatch(list, -1) {
		got = append(got, m[1])
	}
	var want []string
	for code := ExitFailure; code <= ExitRelay; code++ {
		want = append(want, exitKinds[code])
	}
	want = append(want, exitKinds[ExitInterrupted])
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("docs/cli.md kinds %v, exit.go %v", got, want)
	}
}

// TestDocsExitCodes keeps docs/cli.md's exit-code table, ahptui help
// exit-codes and the code's constants and kinds the same: every code
// once, with the same meaning and kind.
func TestDocsExitCodes(t *testing.T) {
	doc, err := os.ReadFile("../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "## Exit codes")
	if !ok {
		t.Fatal("docs/cli.md has no Exit codes section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	type row struct{ kind, meaning string }
	inDocs := map[int]row{}
	for _, m := range regexp.MustCompile("(?m)^\\| (\\d+) \\| `([a-z-]+)` \\| (.+) \\|$").FindAllStringSubmatch(section, -1) {
		code, _ := strconv.Atoi(m[1])
		if _, dup := inDocs[code]; dup {
			t.Errorf("docs/cli.md lists %d twice", code)
		}
		inDocs[code] = row{m[2], strings.ReplaceAll(m[3], "`", "")}
	}
	inHelp := map[int]string{}
	for _, m := range regexp.MustCompile(`(?m)^ *(\d+)  (.+)$`).FindAllStringSubmatch(exitCodesHelp, -1) {
		code, _ := strconv.Atoi(m[1])
		inHelp[code] = m[2]
	}
	codes := []int{ExitOK, ExitFailure, ExitUsage, ExitUnreachable, ExitVersion, ExitWaiting, ExitHostError, ExitSignIn,
		ExitNotFound, ExitConflict, ExitTimeout, ExitForbidden, ExitHostKey, ExitSSHAuth, ExitNoRemote, ExitRegistry,
		ExitRelay, ExitInterrupted}
	for _, code := range codes {
		d, ok := inDocs[code]
		switch {
		case !ok:
			t.Errorf("docs/cli.md does not list exit code %d", code)
		case d.kind != exitKinds[code]:
			t.Errorf("exit code %d: docs/cli.md names it %q, exitKinds %q", code, d.kind, exitKinds[code])
		case d.meaning != inHelp[code]:
			t.Errorf("exit code %d: docs/cli.md says %q, help exit-codes %q", code, d.meaning, inHelp[code])
		}
	}
	if len(inDocs) != len(codes) || len(inHelp) != len(codes) || len(exitKinds) != len(codes) {
		t.Errorf("%d codes in docs/cli.md, %d in help exit-codes, %d kinds, %d constants", len(inDocs), len(inHelp), len(exitKinds), len(codes))
	}
}

// TestIsSessionURI: only a whole URI is tried on the host when its list
// lacks it; an id or a prefix stays a usage error.
func TestIsSessionURI(t *testing.T) {
	for arg, want := range map[string]bool{
		"ahp-session:/5fff4216": true,
		"copilot:/abc":          true,
		"5fff4216":              false,
		"demo":                  false,
		":/x":                   false,
		"a b:/x":                false,
		"ahp-session:x":         false,
	} {
		if got := isSessionURI(arg); got != want {
			t.Errorf("isSessionURI(%q) = %v, want %v", arg, got, want)
		}
	}
}

// TestReadOnlyTool: what send --approve reads may approve: a tool the
// session's tools mark readOnlyHint true, and no other (false, absent,
// no annotations, an unknown name).
func TestReadOnlyTool(t *testing.T) {
	yes, no := true, false
	sess := protocol.SessionState{ServerTools: []protocol.ToolDefinition{
		{Name: "read", Annotations: &protocol.ToolAnnotations{ReadOnlyHint: &yes}},
		{Name: "write", Annotations: &protocol.ToolAnnotations{ReadOnlyHint: &no}},
		{Name: "vague", Annotations: &protocol.ToolAnnotations{}},
		{Name: "bare"},
	}}
	for name, want := range map[string]bool{"read": true, "write": false, "vague": false, "bare": false, "nosuch": false} {
		if got := readOnlyTool(sess, name); got != want {
			t.Errorf("readOnlyTool(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestDocsNameEveryJSONMember: docs/cli.md documents the JSON the
// commands print: every member of every output type is named there.
func TestDocsNameEveryJSONMember(t *testing.T) {
	doc, err := os.ReadFile("../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []any{decisionJSON{}, createdJSON{}, questionJSON{}, answeredJSON{}, grantJSON{}, loggedOutJSON{},
		checkJSON{}, loginJSON{}, mcpJSON{}, statusJSON{}, agentJSON{}, chatJSON{}, turnJSON{}, partJSON{}, toolCallJSON{},
		sentJSON{}, sessionJSON{}, waitJSON{}, optionJSON{}, hostJSON{}, hostStatusJSON{}, inboxJSON{}, inboxItemJSON{}, watchEvent{},
		resumedJSON{}, chatSummaryJSON{}, chatCreatedJSON{}, changesetJSON{}, changeFileJSON{}, changeDiffJSON{}, settingJSON{},
		choiceJSON{}, settingSetJSON{}, terminalJSON{}, terminalShowJSON{}, commandJSON{}} {
		typ := reflect.TypeOf(v)
		for i := range typ.NumField() {
			name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			if !regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\b`).Match(doc) {
				t.Errorf("docs/cli.md does not name %s.%s (%q)", typ.Name(), typ.Field(i).Name, name)
			}
		}
	}
}

// TestHelpReadsRight is issue 32's item 14: every flag's placeholder is
// a NAME in capitals (never a value that reads like the default, as
// --until input did), every line of every help fits 80 columns outside
// the examples (flags wrap under their own column), and every command
// has an example.
func TestHelpReadsRight(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Hidden || !sub.Runnable() && !sub.HasSubCommands() || sub.Name() == "help" || sub.Name() == "completion" {
				continue
			}
			sub.Flags().VisitAll(func(f *pflag.Flag) {
				name, _ := pflag.UnquoteUsage(f)
				if f.Value.Type() != "bool" && (name == "" || name != strings.ToUpper(name)) {
					t.Errorf("%s --%s: placeholder %q is not a NAME", sub.CommandPath(), f.Name, name)
				}
			})
			if sub.Example == "" {
				t.Errorf("%s has no example", sub.CommandPath())
			}
			path := strings.Fields(strings.TrimPrefix(sub.CommandPath(), "ahptui "))
			out, _, _ := run(t, false, nil, append(path, "--help")...)
			inExamples := false
			for _, line := range strings.Split(out, "\n") {
				switch {
				case line == "Examples:":
					inExamples = true
				case line == "" || !strings.HasPrefix(line, " "):
					inExamples = line == "Examples:"
				}
				if !inExamples && len([]rune(line)) > 80 {
					t.Errorf("%v --help: a line over 80 columns:\n%s", path, line)
				}
			}
			walk(sub)
		}
	}
	walk(newRoot(&app{}))
	// ahptui help: the command list, each Short after its name.
	out, _, _ := run(t, false, nil, "help")
	for _, line := range strings.Split(out, "\n") {
		if len([]rune(line)) > 80 {
			t.Errorf("ahptui help: a line over 80 columns:\n%s", line)
		}
	}
}
