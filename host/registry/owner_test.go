//go:build linux

package registry

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// nobody is the uid (and gid) another user's processes and files run
// as in these tests.
const nobody = 65534

// otherUsersPID starts `sleep 60` as uid 65534 and returns its pid; the
// test is skipped when this process may not do that (not root).
func otherUsersPID(t *testing.T) int {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("starting a process as another user needs root")
	}
	cmd := exec.Command("sleep", "60")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start sleep as uid %d: %v", nobody, err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd.Process.Pid
}

// TestAliveIsOursOnly: a running process of another user is not a live
// host of ours, whatever signal 0 says (as root it reaches every pid).
func TestAliveIsOursOnly(t *testing.T) {
	if !Alive(os.Getpid()) {
		t.Fatal("this process is not alive")
	}
	pid := otherUsersPID(t)
	if Alive(pid) {
		t.Fatalf("pid %d of uid %d counts as alive", pid, nobody)
	}
	userData, entries := newRegistry(t)
	e := tcpEntry(pid, "theirs")
	writeEntry(t, entries, e.Identity()+".json", e)
	r := Read(RegistryDir(userData), Alive)
	if len(r.Entries) != 0 || !strings.Contains(strings.Join(r.Skipped, "\n"), "not running") {
		t.Fatalf("another user's host was listed: %+v", r)
	}
}

// TestEntryFileChecks: an entry file open to others, of another owner or
// with a second hard link is skipped with its reason, and so is a
// registry under an agent-host directory others may write.
func TestEntryFileChecks(t *testing.T) {
	me := os.Getpid()
	read := func(t *testing.T, userData string) Result {
		t.Helper()
		r := Read(RegistryDir(userData), Alive)
		if strings.Contains(strings.Join(r.Skipped, "\n"), "tok-") {
			t.Errorf("a skip reason shows a token: %v", r.Skipped)
		}
		return r
	}
	want := func(t *testing.T, r Result, why string) {
		t.Helper()
		if len(r.Entries) != 0 || !strings.Contains(strings.Join(r.Skipped, "\n"), why) {
			t.Fatalf("want no entries and a skip for %q, got %+v", why, r)
		}
	}
	t.Run("mode", func(t *testing.T) {
		userData, entries := newRegistry(t)
		e := tcpEntry(me, "a")
		writeEntry(t, entries, e.Identity()+".json", e)
		if err := os.Chmod(filepath.Join(entries, e.Identity()+".json"), 0o644); err != nil {
			t.Fatal(err)
		}
		want(t, read(t, userData), "open to other users")
	})
	t.Run("links", func(t *testing.T) {
		userData, entries := newRegistry(t)
		e := tcpEntry(me, "a")
		writeEntry(t, entries, e.Identity()+".json", e)
		if err := os.Link(filepath.Join(entries, e.Identity()+".json"), filepath.Join(t.TempDir(), "other")); err != nil {
			t.Skipf("no hard link across temp dirs: %v", err)
		}
		want(t, read(t, userData), "hard links")
	})
	t.Run("owner", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("giving a file to another user needs root")
		}
		userData, entries := newRegistry(t)
		e := tcpEntry(me, "a")
		writeEntry(t, entries, e.Identity()+".json", e)
		if err := os.Chown(filepath.Join(entries, e.Identity()+".json"), nobody, nobody); err != nil {
			t.Fatal(err)
		}
		want(t, read(t, userData), "belongs to uid")
	})
	t.Run("agent-host writable", func(t *testing.T) {
		userData, entries := newRegistry(t)
		e := tcpEntry(me, "a")
		writeEntry(t, entries, e.Identity()+".json", e)
		if err := os.Chmod(filepath.Join(userData, "agent-host"), 0o777); err != nil {
			t.Fatal(err)
		}
		want(t, read(t, userData), "writable by other users")
	})
	t.Run("agent-host readable is fine", func(t *testing.T) {
		userData, entries := newRegistry(t)
		e := tcpEntry(me, "a")
		writeEntry(t, entries, e.Identity()+".json", e)
		if err := os.Chmod(filepath.Join(userData, "agent-host"), 0o755); err != nil {
			t.Fatal(err)
		}
		if r := read(t, userData); len(r.Entries) != 1 {
			t.Fatalf("a 0755 agent-host directory hid the entry: %+v", r)
		}
	})
}
