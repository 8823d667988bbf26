//go:build !unix

package registry

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

// notOthersDir refuses a symlinked or non-directory agent-host
// directory.
func notOthersDir(dir string) error { return ownerOnlyDir(dir) }

// checkFile checks nothing more on this platform.
func checkFile(string, os.FileInfo, os.FileMode) error { return nil }

// openNoFollow opens path (the caller has refused a symlink by lstat).
func openNoFollow(path string) (*os.File, error) { return os.Open(path) }

// Alive says whether pid runs.
func Alive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	_ = p.Release()
	return true
}
