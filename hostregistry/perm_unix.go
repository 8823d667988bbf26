//go:build unix

package hostregistry

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
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		return fmt.Errorf("%s is a symlink; the registry is ignored", dir)
	case !fi.IsDir():
		return fmt.Errorf("%s is not a directory; the registry is ignored", dir)
	case fi.Mode().Perm()&0o077 != 0:
		return fmt.Errorf("%s is open to other users (mode %04o, want 0700); the registry is ignored", dir, fi.Mode().Perm())
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%s belongs to uid %d, not you; the registry is ignored", dir, st.Uid)
	}
	return nil
}

// Alive says whether pid runs: signal 0 reaches it, or it exists but is
// not ours to signal.
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
