package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/demohost"
)

// TestNewSessionFolder (issue 36 item 4): without --cwd the dialog
// offers the directory ahptui runs in, for a host on this machine, as
// its last row; e edits it (a folder that does not exist is refused with
// a message), and the session is created in the folder chosen.
func TestNewSessionFolder(t *testing.T) {
	start, other := t.TempDir(), t.TempDir()
	d := newDriver(t, nil)
	d.m.cfg.Folder = mustURI(t, start)
	newSessionSettings(d)
	if s := ansi.Strip(d.m.Render()); !strings.Contains(s, "Folder: "+start) {
		t.Fatalf("the dialog does not offer %s:\n%s", start, s)
	}
	step := d.m.sessions.cfgStep
	for range step.props {
		d.keys("down")
	}
	d.keys("e")
	if d.m.modal != modalInput {
		t.Fatalf("e on the Folder did not open the form (modal %v)", d.m.modal)
	}
	d.keys("ctrl+u")
	d.typeText(filepath.Join(other, "missing"))
	d.keys("ctrl+s")
	d.until("the missing folder is refused", func() bool { return strings.Contains(d.m.status.text, "no folder") })
	if got := string(step.dirs[0]); got != mustURI(t, start) {
		t.Fatalf("a refused folder replaced the folder: %s", got)
	}
	d.keys("e", "ctrl+u")
	d.typeText(other)
	d.keys("ctrl+s")
	d.until("the host's settings again", func() bool {
		return d.m.sessions.cfgStep == step && !step.loading && len(step.dirs) == 1 && string(step.dirs[0]) == mustURI(t, other)
	})
	d.keys("enter")
	d.until("the new session open in the folder", func() bool {
		return d.m.hasSess && d.m.openSession != demohost.DemoSessionURI && d.m.openSession != demohost.HistorySessionURI &&
			len(d.m.sess.WorkingDirectories) == 1
	})
	if got := string(d.m.sess.WorkingDirectories[0]); got != mustURI(t, other) {
		t.Fatalf("created in %s, want %s", got, mustURI(t, other))
	}
}

// TestNewSessionFolderNotOfferedToOtherMachines: a host elsewhere is not
// told a local path: the Folder starts empty.
func TestNewSessionFolderNotOfferedToOtherMachines(t *testing.T) {
	wd, _ := os.Getwd()
	m := fxModel(fxChatState())
	m.cfg.Folder = mustURI(t, wd)
	m.cfg.Host = "wss://agents.example.com/"
	if dirs := m.sessions.defaultDirs(newChoice{}); len(dirs) != 0 {
		t.Fatalf("a remote host is offered %v", dirs)
	}
	m.cfg.Host = "ws+unix:///run/agent.sock"
	if dirs := m.sessions.defaultDirs(newChoice{}); len(dirs) != 1 {
		t.Fatalf("a socket host is not offered the folder: %v", dirs)
	}
	m.cfg.WorkingDirectories = []string{"file:///srv/x"}
	if dirs := m.sessions.defaultDirs(newChoice{}); len(dirs) != 1 || dirs[0] != "file:///srv/x" {
		t.Fatalf("--cwd is not what is offered: %v", dirs)
	}
}

func mustURI(t *testing.T, dir string) string {
	t.Helper()
	u, err := FolderURI(dir)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
