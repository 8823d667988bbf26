//go:build unix

package registry

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// ownerOnlyDir refuses a registry directory anyone else could have
// written: a symlink, not a directory, not ours, or open to group or
// others. What such a directory lists could send the user's sign-ins
// anywhere.
func ownerOnlyDir(dir string) error {
	return ourDir(dir, 0o077, "open to other users (mode %04o, want 0700)")
}

// notOthersDir refuses the directory above the registry (agent-host)
// when another user could swap what it holds: a symlink, not ours, or
// writable by group or others. Others may read it; the registry under it
// is owner-only.
func notOthersDir(dir string) error {
	return ourDir(dir, 0o022, "writable by other users (mode %04o)")
}

// ourDir refuses dir unless it is a directory of ours, reached without a
// symlink, with no bit of mask in its mode; openTo words a mode that has
// one (a %04o verb for the mode).
func ourDir(dir string, mask os.FileMode, openTo string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		return fmt.Errorf("%s is a symlink; the registry is ignored", dir)
	case !fi.IsDir():
		return fmt.Errorf("%s is not a directory; the registry is ignored", dir)
	case fi.Mode().Perm()&mask != 0:
		return fmt.Errorf("%s is "+openTo+"; the registry is ignored", dir, fi.Mode().Perm())
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%s belongs to uid %d, not you; the registry is ignored", dir, st.Uid)
	}
	return nil
}

// checkFile refuses a registry file (opened, fi its fstat) that is not
// ours, has another hard link (a name outside the registry another user
// could have made), or whose mode has any bit of mask (group and other
// bits). VS Code writes each entry 0600 and renames it into place.
func checkFile(path string, fi os.FileInfo, mask os.FileMode) error {
	if fi.Mode().Perm()&mask != 0 {
		return fmt.Errorf("%s: open to other users (mode %04o, want 0600); ignored", path, fi.Mode().Perm())
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%s: belongs to uid %d, not you; ignored", path, st.Uid)
	}
	if st.Nlink != 1 {
		return fmt.Errorf("%s: has %d hard links, want 1; ignored", path, st.Nlink)
	}
	return nil
}

// openNoFollow opens path for reading without following a symlink.
func openNoFollow(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("%s: a symlink; ignored", path)
	}
	return f, err
}

// Alive says whether pid is a running process of this user's: signal 0
// reaches it (EPERM means another user's: not ours), and, where /proc
// tells, the process belongs to this uid — root reaches every pid with
// signal 0, so that alone would count another user's listener as ours.
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	uid, ok := procOwner(pid)
	return !ok || uid == os.Getuid()
}

// procOwner is the owner of /proc/PID (the process's uid), when this
// system has /proc.
func procOwner(pid int) (int, bool) {
	fi, err := os.Stat(fmt.Sprintf("/proc/%d", pid))
	if err != nil {
		if _, err := os.Stat("/proc/self"); err == nil {
			// /proc works but has no such pid: it just exited.
			return -1, true
		}
		return 0, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
