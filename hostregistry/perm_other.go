//go:build !unix

package hostregistry

import (
	"fmt"
	"os"
)

// ownerOnlyDir refuses a symlinked or non-directory registry; owner-only
// ACLs are not checked on this platform.
func ownerOnlyDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if fi.Mode()&os.ModeSymlink != 0 || !fi.IsDir() {
		return fmt.Errorf("%s is a symlink or not a directory; the registry is ignored", dir)
	}
	return nil
}

// Alive says whether pid runs.
func Alive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	_ = p.Release()
	return true
}
