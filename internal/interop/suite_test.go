// Package interop runs the real ahptui binary, in a real terminal (tmux),
// against VS Code's own agent host (the code-server package's VS Code
// server, installed by .ci/install-vscode-host.sh) on loopback. The one fake
// is the Copilot API behind the host (internal/capimock): the real one needs
// a GitHub account. Everything between ahptui and the host is real, and a
// loopback WebSocket proxy records the frames so a failed step prints what
// was said during it.
//
// Without the host installed the suite skips and says how to install it;
// under CI=true it fails instead.
package interop

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/key"

	"github.com/ahptui/ahptui/internal/capimock"
	"github.com/ahptui/ahptui/internal/e2e"
	"github.com/ahptui/ahptui/internal/tmuxtest"
	"github.com/ahptui/ahptui/keymap"
)

func TestMain(m *testing.M) {
	code := m.Run()
	tmuxtest.RemoveBuilds()
	os.Exit(code)
}

// Per-step limits: the host's Copilot runtime starts a process per
// session and the binary is built with -race; a healthy step takes a few
// seconds. The limits only bound how long a broken build hangs.
const (
	startTimeout = 90 * time.Second
	stepTimeout  = 45 * time.Second
)

// hostVersion is the AHP version VS Code 1.139's agent host speaks.
const hostVersion = "0.9.0"

var km = keymap.DefaultKeyMap()

var tmuxKeys = map[string]string{
	"enter": "Enter", "esc": "Escape", "tab": "Tab", "shift+tab": "BTab",
	"up": "Up", "down": "Down", "left": "Left", "right": "Right", "space": "Space", "ctrl+c": "C-c", "ctrl+s": "C-s", "ctrl+x": "C-x",
}

// user is a person at ahptui's terminal, with the recorder between ahptui
// and the host.
type user struct {
	t   *testing.T
	s   *tmuxtest.Session
	rec *recorder
}

func (u *user) hit(b key.Binding) {
	u.t.Helper()
	k := b.Keys()[0]
	if name, ok := tmuxKeys[k]; ok {
		u.s.SendKeys(name)
		return
	}
	if len([]rune(k)) != 1 {
		u.t.Fatalf("no tmux name for key %q", k)
	}
	u.s.SendText(k)
}

func hint(b key.Binding) string { return b.Help().Key + " " + b.Help().Desc }

func lines(screen string) []string { return strings.Split(strings.TrimRight(screen, "\n"), "\n") }

func statusLine(screen string) string { l := lines(screen); return l[len(l)-1] }

func helpLine(screen string) string {
	l := lines(screen)
	if len(l) < 2 {
		return ""
	}
	return l[len(l)-2]
}

// see waits until match accepts the screen; on timeout the step fails,
// printing its frames.
func (u *user) see(step string, match func(string) bool) string {
	u.t.Helper()
	screen, err := u.s.WaitForFunc(match, stepTimeout)
	if err != nil {
		u.rec.Dump()
		u.t.Fatalf("%s: %v", step, err)
	}
	return screen
}

func (u *user) seeText(step, want string) string {
	u.t.Helper()
	return u.see(step, func(s string) bool { return strings.Contains(s, want) })
}

// firstMessage is the suite's first message; the host titles the session
// (and ahptui the chat panel) with it.
const firstMessage = "hello there"

// chatText is the open chat panel's text, flattened: the panel titled with
// the session's title (the first message).
func chatText(screen string) string {
	if l, ok := e2e.Panel(screen, firstMessage); ok {
		return e2e.Flatten(l)
	}
	return ""
}

func chatMatches(re string) func(string) bool {
	r := regexp.MustCompile(re)
	return func(s string) bool { return r.MatchString(s) }
}

// suite is one host, one mock and one ahptui, shared by the steps in
// order.
type suite struct {
	t    *testing.T
	mock *capimock.Server
	host *vscodeHost
	rec  *recorder
	cwd  string
	bin  string
	dir  string // where the host is installed
}

func newSuite(t *testing.T) *suite {
	t.Helper()
	if testing.Short() {
		t.Skip("interop: starts VS Code's agent host and drives ahptui in tmux")
	}
	return newSuiteAt(t, hostDir(t))
}

// newSuiteAt is newSuite with the host installed at dir.
func newSuiteAt(t *testing.T, dir string) *suite {
	t.Helper()
	mock, err := capimock.Start(capimock.Config{Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = mock.Close() })
	s := &suite{t: t, mock: mock, cwd: t.TempDir(), dir: dir}
	s.writeMCPConfig()
	s.host = startHostAt(t, dir, mock)
	s.rec = startRecorder(t, s.host.URL())
	s.bin = tmuxtest.Build(t, "github.com/ahptui/ahptui")
	return s
}

// start runs ahptui in tmux against the recorder, in the working
// directory the sessions use.
// Each call gets a config directory of its own: the client id lives
// there, and VS Code's host sends a client id's frames to its newest
// connection only.
func (s *suite) start(t *testing.T, w, h int) *user {
	t.Helper()
	cfg := t.TempDir()
	ts := tmuxtest.Start(t, tmuxtest.Options{Width: w, Height: h, Dir: s.cwd,
		Cmd: []string{s.bin, "--no-browser", "--config-dir", cfg, "--cwd", s.cwd,
			"--log", filepath.Join(cfg, "ahptui.log"), "--host", s.rec.URL}})
	return &user{t: t, s: ts, rec: s.rec}
}

// writeMCPConfig declares a tiny stdio MCP server (a node script run by
// the host's node) in the working directory's .mcp.json.
func (s *suite) writeMCPConfig() {
	script := filepath.Join(s.cwd, "echo-mcp.js")
	if err := os.WriteFile(script, []byte(echoMCPServer), 0o600); err != nil {
		s.t.Fatal(err)
	}
	node := filepath.Join(s.dir, "node", "bin", "node")
	cfg := map[string]any{"mcpServers": map[string]any{
		"echo": map[string]any{"type": "stdio", "command": node, "args": []string{script}},
	}}
	b, _ := json.MarshalIndent(cfg, "", "  ")
	if err := os.WriteFile(filepath.Join(s.cwd, ".mcp.json"), b, 0o600); err != nil {
		s.t.Fatal(err)
	}
}

// echoMCPServer is a minimal MCP server over stdio: it answers
// initialize, lists one tool ("echo") and echoes its input.
const echoMCPServer = `'use strict';
const rl = require('readline').createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify(m) + '\n');
rl.on('line', (line) => {
  let m;
  try { m = JSON.parse(line); } catch { return; }
  if (m.id === undefined) return;
  switch (m.method) {
    case 'initialize':
      send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params && m.params.protocolVersion || '2025-06-18',
        capabilities: { tools: {} }, serverInfo: { name: 'echo', version: '1.0.0' } } });
      break;
    case 'tools/list':
      send({ jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'echo', description: 'Echo the text back',
        inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }] } });
      break;
    case 'tools/call':
      send({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: String(m.params.arguments.text) }] } });
      break;
    case 'ping':
      send({ jsonrpc: '2.0', id: m.id, result: {} });
      break;
    default:
      send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'no method ' + m.method } });
  }
});
`

// connected matches a screen whose status line says connected at the
// host's version.
func connected(s string) bool {
	st := statusLine(s)
	return strings.Contains(st, "● connected") && strings.Contains(st, "AHP "+hostVersion)
}

// sentMethods lists the methods and action types of the frames ahptui
// sent during the current step.
func (u *user) sent() []map[string]any {
	var out []map[string]any
	for _, f := range u.rec.Frames("→host") {
		var m map[string]any
		if json.Unmarshal([]byte(f), &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

// sentAction finds an action of type typ that ahptui dispatched during the
// current step.
func (u *user) sentAction(typ string) (map[string]any, bool) {
	for _, m := range u.sent() {
		if m["method"] != "dispatchAction" {
			continue
		}
		p, _ := m["params"].(map[string]any)
		a, _ := p["action"].(map[string]any)
		if a["type"] == typ {
			return a, true
		}
	}
	return nil, false
}

func fmtFrames(fs []string) string {
	return fmt.Sprintf("%d frames:\n%s", len(fs), strings.Join(fs, "\n"))
}

// flatSteps returns the step runner of a test whose steps share one
// screen: each is named in the recorder's log, and once one fails the
// rest are skipped (they would only fail for the same reason).
func (s *suite) flatSteps(t *testing.T) func(name string, f func()) {
	return func(name string, f func()) {
		t.Helper()
		if t.Failed() {
			return
		}
		s.rec.Step(name)
		f()
	}
}
