package ui

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ahptui/ahptui/cli"
	"github.com/ahptui/ahptui/demohost"
)

// waitWord is a UI wait kind as the CLI's JSON names it.
var waitWord = map[waitKind]string{waitApproval: "approval", waitInput: "input", waitSignIn: "sign-in",
	waitMCPFailed: "mcp-failed", waitTurnError: "turn-error", waitSession: "needs-input"}

// runCLI runs one ahptui command in this process against url, with a
// config directory and home of its own; it returns stdout.
func runCLI(t *testing.T, url string, args ...string) string {
	t.Helper()
	home := t.TempDir()
	dir := filepath.Join(home, "config")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	var out, errs bytes.Buffer
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config")}
	code := cli.Run(append(args, "--host", url, "--config-dir", dir), cli.Env{Stdout: &out, Stderr: &errs,
		Getenv: func(k string) string { return env[k] }})
	if code != 0 {
		t.Fatalf("ahptui %v: exit %d\n%s", args, code, errs.String())
	}
	return out.String()
}

// sameWaits checks that the UI's inbox and the CLI's (ahptui inbox
// --json) list the same items for the session the UI has open, and that
// every other session the UI lists as "needs input" has items in the
// CLI's. The CLI opens every session (the UI only the open one), so its
// items of the other sessions are more detailed, not different.
func sameWaits(t *testing.T, d *driver, what string) {
	t.Helper()
	var in struct {
		Items []struct {
			Session, Kind, ToolCall, Request, Server string
		}
	}
	raw := runCLI(t, d.host.URL(), "inbox", "--json")
	if err := json.Unmarshal([]byte(raw), &in); err != nil {
		t.Fatalf("%s: %v\n%s", what, err, raw)
	}
	open := d.m.openSession
	var fromCLI []string
	others := map[string]bool{}
	for _, it := range in.Items {
		if it.Session != open {
			others[it.Session] = true
			continue
		}
		kind := strings.TrimPrefix(it.Kind, "result-")
		fromCLI = append(fromCLI, it.Session+" "+kind+" "+it.ToolCall+it.Request+it.Server)
	}
	var fromUI []string
	for _, w := range d.m.waits.items {
		if w.session != open {
			if w.kind != waitSession || !others[w.session] {
				t.Errorf("%s: the UI's %v of %s has no match in the CLI's inbox", what, w.kind, w.session)
			}
			continue
		}
		fromUI = append(fromUI, w.session+" "+waitWord[w.kind]+" "+w.at.item+w.server)
	}
	slices.Sort(fromCLI)
	slices.Sort(fromUI)
	if !slices.Equal(fromCLI, fromUI) {
		t.Errorf("%s: the inbox differs\nUI:\n  %s\nCLI:\n  %s\n%s", what, strings.Join(fromUI, "\n  "), strings.Join(fromCLI, "\n  "), raw)
	}
}

// hasWait: the UI's inbox lists a wait of kind in the open session.
func hasWait(d *driver, kind waitKind) bool {
	return slices.ContainsFunc(d.m.waits.items, func(w waitItem) bool { return w.kind == kind && w.session == d.m.openSession })
}

// TestInboxSameInUIAndCLI: over the demo's scenarios — the GitHub MCP
// server waiting for sign-in and Flaky failed, an approval, an input
// request, a sign-in in the middle of a tool call, a turn stopped on an
// error — the UI's inbox and ahptui inbox, on the same real demo host
// over real WebSockets, list the same items: both read host/waits.
func TestInboxSameInUIAndCLI(t *testing.T) {
	d := newDriver(t, nil)
	d.openDemo()
	url := d.host.URL()
	idle := func() bool { return d.m.hasChat && d.m.chat.ActiveTurn == nil }
	d.until("the MCP servers' waits", func() bool {
		return hasWait(d, waitMCPFailed) && slices.ContainsFunc(d.m.waits.items, func(w waitItem) bool { return w.server == "mcp-github" })
	})
	sameWaits(t, d, "at the start")

	d.sendMessage("write the changelog")
	d.until("the approval", func() bool { return hasWait(d, waitApproval) })
	sameWaits(t, d, "an approval")
	runCLI(t, url, "approve", "demo")
	d.until("the turn after the approval", idle)

	d.sendMessage("ask me")
	d.until("the input request", func() bool { return hasWait(d, waitInput) })
	sameWaits(t, d, "an input request")
	runCLI(t, url, "answer", "demo", "--decline")
	d.until("the turn after the answer", idle)
	d.keys("esc")

	d.sendMessage("deploy")
	d.until("the sign-in of a tool call", func() bool {
		return slices.ContainsFunc(d.m.waits.items, func(w waitItem) bool { return w.kind == waitSignIn && w.at.item != "" })
	})
	sameWaits(t, d, "a tool call's sign-in")
	runCLI(t, url, "cancel", "demo")
	d.until("the turn cancelled", idle)

	d.sendMessage("resume")
	d.until("the stopped turn", func() bool { return hasWait(d, waitTurnError) })
	sameWaits(t, d, "a turn stopped on an error")
	if d.host.URL() != url || demohost.DemoSessionURI != d.m.openSession {
		t.Fatalf("the open session moved: %s", d.m.openSession)
	}
}
