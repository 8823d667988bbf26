//go:build !unix

package dial

import (
	"fmt"
	"os"
)

// openPrivate opens a connection token file, refusing a symlink or
// anything but a regular file; file modes are not checked here.
func openPrivate(path string) (*os.File, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("the connection token file %s is a symlink or not a regular file: name the real file", path)
	}
	return os.Open(path)
}
