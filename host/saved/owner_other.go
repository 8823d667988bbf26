//go:build !unix

package saved

import (
	"io/fs"
	"os"
)

// owner is unknown on this platform.
func owner(fs.FileInfo) (int, bool) { return 0, false }

// openNoFollow opens path (the caller refused a symlink by lstat).
func openNoFollow(path string) (*os.File, error) { return os.Open(path) }
