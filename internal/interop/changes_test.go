package interop

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ahptui/ahptui/internal/capimock"
	"github.com/ahptui/ahptui/internal/e2e"
)

// TestVSCodeChanges is issue 23's acceptance against the real host: in a
// git working directory, a file the agent creates shows under Uncommitted
// Changes and Session Changes, each with its diff; and the terminal a
// shell call ran in opens from its card with the command's output.
func TestVSCodeChanges(t *testing.T) {
	s := newSuite(t)
	s.gitInit()
	u := s.start(t, 140, 45)
	step := s.flatSteps(t)

	step("connect", func() { u.see("connected over AHP "+hostVersion, connected) })
	step("create a session", func() { u.createSession(s) })
	step("sign in to the agent's required resource", func() { u.signInByPaste(s) })

	step("the agent writes a file", func() {
		u.sendMessage(capimock.PromptWrite)
		approved := false
		u.see("the write ran and the turn finished", func(sc string) bool {
			if !approved && strings.Contains(helpLine(sc), hint(km.Chat.Approve)) {
				approved = true
				u.s.SendText("2") // allow once, if the host asks
			}
			return strings.Contains(sc, "tool finished")
		})
		// In a git repository the host gives the session a worktree of
		// its own beside the directory ("Created isolated worktree").
		written, _ := filepath.Glob(s.cwd + ".worktrees/*/" + capimock.WriteFile)
		if _, err := os.Stat(filepath.Join(s.cwd, capimock.WriteFile)); err == nil {
			written = append(written, s.cwd)
		}
		if len(written) == 0 {
			u.rec.Dump()
			t.Fatalf("the agent's write happened nowhere: no %s in %s or its worktrees", capimock.WriteFile, s.cwd)
		}
		u.leaveComposer()
	})

	for _, label := range []string{"Uncommitted Changes", "Session Changes"} {
		step(label+" lists the file with its diff", func() {
			u.hit(km.Global.Changes)
			u.see("the host's changesets", func(sc string) bool {
				p := e2e.PanelText(sc, "Changes")
				return strings.Contains(p, "Uncommitted Changes") && strings.Contains(p, "Session Changes")
			})
			u.selectRow("Changes", label, km.Changes.Down)
			u.hit(km.Changes.Open)
			files := "Changes · " + label
			u.see(label+": the new file", func(sc string) bool {
				return strings.Contains(e2e.PanelText(sc, files), "A "+capimock.WriteFile)
			})
			u.selectRow(files, "A "+capimock.WriteFile, km.Changes.Down)
			u.hit(km.Changes.Open)
			u.see(label+": the file's diff", func(sc string) bool {
				d := e2e.PanelText(sc, "Diff")
				return strings.Contains(d, "hello from the mock") && strings.Contains(d, "@@ ")
			})
			u.hit(km.Diff.Back)
			u.see("back to the files", func(sc string) bool { _, open := e2e.Panel(sc, "Diff"); return !open })
			u.hit(km.Changes.Back)
			u.see("back to the changesets", func(sc string) bool { _, open := e2e.Panel(sc, files); return !open })
			u.hit(km.Changes.Back)
			u.see("the view closed", func(sc string) bool { _, open := e2e.Panel(sc, "Changes"); return !open })
		})
	}

	step("a shell call's terminal opens from its card", func() {
		u.sendMessage(capimock.PromptLs) // ls: the host runs it unasked
		u.see("the ls call ran and the turn finished", func(sc string) bool {
			return strings.Count(sc, "tool finished") >= 2
		})
		u.leaveComposer()
		// The host names the terminal agenthost-terminal://shell/…; the
		// pane shows what ls printed in the session's worktree.
		pane := func(sc string) string { return e2e.PanelText(sc, "Terminal · ") }
		opened := func(sc string) bool { return strings.Contains(pane(sc), "echo-mcp.js") }
		for range 4 {
			u.hit(km.Chat.PrevToolCall)
			u.hit(km.Chat.Terminal)
			if _, err := u.s.WaitForFunc(opened, stepTimeout/4); err == nil {
				break
			}
		}
		u.see("the terminal pane with ls's output", opened)
		u.waitFrame("a subscribe to the host's terminal", "→host", `"method":"subscribe","params":{"channel":"agenthost-terminal://`)
		u.hit(km.Terminal.Back)
		u.see("the pane closed", func(sc string) bool { _, open := e2e.Panel(sc, "Terminal · "); return !open })
	})
}

// gitInit makes the working directory a git repository with what it
// holds committed, so only what the agent does is uncommitted.
func (s *suite) gitInit() {
	s.t.Helper()
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"add", "-A"},
		{"-c", "user.name=ahptui", "-c", "user.email=ahptui@example.invalid", "commit", "-q", "-m", "start"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = s.cwd
		if out, err := cmd.CombinedOutput(); err != nil {
			s.t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}
