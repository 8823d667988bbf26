//go:build !unix

package trace

import (
	"fmt"
	"io/fs"
	"os"
)

// OpenPrivate opens path for appending (created 0600), refusing a
// symlink or anything but a regular file; modes are not checked here.
func OpenPrivate(path string) (*os.File, error) {
	if fi, err := os.Lstat(path); err == nil && (fi.Mode()&fs.ModeSymlink != 0 || !fi.Mode().IsRegular()) {
		return nil, fmt.Errorf("%s is a symlink or not a regular file: name a new file", path)
	}
	return os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
}
