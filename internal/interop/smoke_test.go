package interop

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ahptui/ahptui/internal/capimock"
	"github.com/ahptui/ahptui/internal/e2e"
)

// smokeVersions are the older code-server releases the smoke suite runs
// against (issue 26's version matrix), with the AHP version ahptui must
// negotiate with each and what the reason of a turn failed before sign-in
// must say (and the whole reason must be on screen).
var smokeVersions = []struct {
	codeServer string
	ahp        string
	reason     string
}{
	{"4.134.0", "0.8.0", noAuthReason},
	{"4.135.0", "1.0.0", noAuthReason},
	{"4.136.2", "0.9.0", noAuthReason},
}

// noAuthReason is how each of these hosts fails a turn in a session
// created before the agent's sign-in ("Execution failed: Error: Session
// was not created with authentication info or custom provider").
const noAuthReason = "Session was not created with authentication info"

// smokeHostDir is where the given code-server version is installed:
// AHPTUI_VSCODE_HOST_DIRS ("4.134.0=/dir,4.135.0=/dir", what
// scripts/test.sh exports), else .ci/install-vscode-host.sh's cache
// directory for that version. Missing, the subtest skips saying how to
// install it; under CI=true it fails.
func smokeHostDir(t *testing.T, version string) string {
	t.Helper()
	dir := ""
	for _, kv := range strings.Split(os.Getenv("AHPTUI_VSCODE_HOST_DIRS"), ",") {
		if v, d, ok := strings.Cut(strings.TrimSpace(kv), "="); ok && v == version {
			dir = d
		}
	}
	if dir == "" {
		cache := os.Getenv("XDG_CACHE_HOME")
		if cache == "" {
			home, _ := os.UserHomeDir()
			cache = filepath.Join(home, ".cache")
		}
		dir = filepath.Join(cache, "ahptui", "code-server-"+version)
	}
	if _, err := os.Stat(filepath.Join(dir, ".complete")); err != nil {
		msg := fmt.Sprintf("code-server %s is not installed at %s (%v); run .ci/install-vscode-host.sh %s (about 3 minutes) and name its directory in AHPTUI_VSCODE_HOST_DIRS=%s=DIR", version, dir, err, version, version)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return dir
}

// TestVSCodeSmoke is issue 26's smoke suite: against each older VS Code
// agent host, ahptui connects at the version it must, lists, creates a
// session, shows a failed turn's reason, signs in by pasting the mock's
// token, runs one turn through the Copilot API mock, and starts and
// stops an MCP server.
func TestVSCodeSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("smoke: starts VS Code's agent host and drives ahptui in tmux")
	}
	for _, v := range smokeVersions {
		t.Run("code-server-"+v.codeServer+"-AHP-"+v.ahp, func(t *testing.T) {
			s := newSuiteAt(t, smokeHostDir(t, v.codeServer))
			runSmoke(t, s, v.ahp, v.reason)
		})
	}
}

func runSmoke(t *testing.T, s *suite, ahp, reason string) {
	u := s.start(t, 140, 45)
	step := s.flatSteps(t)

	step("connect at AHP "+ahp, func() {
		u.see("connected over AHP "+ahp, func(sc string) bool {
			st := statusLine(sc)
			return strings.Contains(st, "● connected") && strings.Contains(st, "AHP "+ahp)
		})
		if got := negotiated(s.rec.AllFrames("←host")); got != ahp {
			s.rec.Dump()
			t.Fatalf("initialize: the host chose %q, want %q", got, ahp)
		}
	})

	step("list the sessions", func() {
		u.see("the (empty) session list", func(sc string) bool { return strings.Contains(sc, "Sessions (0)") })
		var listed bool
		for _, f := range s.rec.AllFrames("→host") {
			if strings.Contains(f, `"method":"listSessions"`) {
				listed = true
			}
		}
		if !listed {
			s.rec.Dump()
			t.Fatal("ahptui never sent listSessions")
		}
	})

	const failMessage = "before signing in"
	step("a turn before sign-in fails with its reason on screen", func() {
		u.newSession(1)
		u.sendMessage(failMessage)
		var msg string
		u.see("the host's reason for the failed turn", func(sc string) bool {
			msg = turnErrorMessage(s.rec.Frames("←host"))
			l, ok := e2e.Panel(sc, failMessage)
			return ok && msg != "" && strings.Contains(e2e.Flatten(l), oneLine(msg))
		})
		t.Logf("the failed turn's reason: %q", msg)
		if reason != "" && !strings.Contains(msg, reason) {
			s.rec.Dump()
			t.Fatalf("the failed turn's reason is %q, want it to say %q", msg, reason)
		}
	})

	step("create a session and sign in by pasting the token", func() {
		u.newSession(2)
		u.signInByPaste(s)
	})

	step("one turn through the Copilot API mock", func() {
		u.sendMessage(firstMessage)
		// Idle, not only answered: the help line changes as the turn
		// ends, and a Tab pressed while it does could be taken for one
		// that landed (focus presses Tab until the help line changes).
		u.see("the mock's answer streamed and the turn ended", func(sc string) bool {
			c := chatText(sc)
			return strings.Contains(c, capimock.Reply) && strings.Contains(c, "· idle")
		})
	})

	step("MCP server from .mcp.json: start and stop", func() {
		if _, ok := e2e.Panel(u.s.Capture(), "MCP servers ("); !ok {
			u.hit(km.Global.ToggleMCP)
		}
		u.see("the echo server from .mcp.json listed", func(sc string) bool {
			_, ok := e2e.MCPBadge(sc, "echo")
			return ok
		})
		u.focus("MCP", hint(km.MCP.Stop))
		if b, _ := e2e.MCPBadge(u.s.Capture(), "echo"); !strings.HasPrefix(b, "● ready") {
			u.press(km.MCP.Start)
			u.see("echo ready", badgeIs("echo", "● ready"))
		}
		u.press(km.MCP.Stop)
		u.see("echo stopped", badgeIs("echo", "○ stopped"))
		u.press(km.MCP.Start)
		u.see("echo ready again", badgeIs("echo", "● ready"))
	})
}

// newSession creates a session from the sessions panel and waits until it
// is the n-th listed and its chat has the keys.
func (u *user) newSession(n int) {
	u.t.Helper()
	u.focus("sessions", hint(km.Sessions.New))
	u.hit(km.Sessions.New)
	u.seeText("the new-session picker", "New session")
	u.hit(km.NewSession.Create)
	before := len(u.rec.Frames("←host"))
	u.settingsStep(nil)
	_, err := u.s.WaitForFunc(func(string) bool {
		for _, f := range u.rec.Frames("←host")[before:] {
			if strings.Contains(f, `"snapshot":{"resource":"ahp-chat://`) {
				return true
			}
		}
		return false
	}, stepTimeout)
	if err != nil {
		u.rec.Dump()
		u.t.Fatalf("the new chat's snapshot never came: %v", err)
	}
	u.seeText("the new session listed", fmt.Sprintf("Sessions (%d)", n))
	u.see("the chat has the keys", func(sc string) bool {
		return strings.Contains(helpLine(sc), hint(km.Chat.NextBlocker))
	})
}

// negotiated is the protocolVersion of the host's initialize result among
// frames.
func negotiated(frames []string) string {
	for _, f := range frames {
		var m struct {
			Result struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"result"`
		}
		if json.Unmarshal([]byte(f), &m) == nil && m.Result.ProtocolVersion != "" {
			return m.Result.ProtocolVersion
		}
	}
	return ""
}

// turnErrorMessage finds the message of a failed turn among the host's
// notifications, in whichever shape the host sends it: an action carrying
// error.message (chat/error, a turn completed with an error, or the
// older shapes with the error on the turn).
func turnErrorMessage(frames []string) string {
	for _, f := range frames {
		if !strings.Contains(f, `"error"`) || !strings.Contains(f, `"message"`) {
			continue
		}
		var m map[string]any
		if json.Unmarshal([]byte(f), &m) != nil || m["method"] == nil {
			continue // only the host's notifications carry actions
		}
		if msg := findErrorMessage(m); msg != "" {
			return msg
		}
	}
	return ""
}

func findErrorMessage(v any) string {
	switch x := v.(type) {
	case map[string]any:
		if e, ok := x["error"].(map[string]any); ok {
			if msg, ok := e["message"].(string); ok && msg != "" {
				return msg
			}
		}
		for _, c := range x {
			if msg := findErrorMessage(c); msg != "" {
				return msg
			}
		}
	case []any:
		for _, c := range x {
			if msg := findErrorMessage(c); msg != "" {
				return msg
			}
		}
	}
	return ""
}

var spaces = regexp.MustCompile(`\s+`)

// oneLine is a host's message as Flatten reads it off the screen: white
// space collapsed to single spaces.
func oneLine(msg string) string {
	return strings.TrimSpace(spaces.ReplaceAllString(msg, " "))
}
