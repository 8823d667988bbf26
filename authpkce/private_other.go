//go:build !unix

package authpkce

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// PrivateDir creates dir 0700 when missing. This platform's permissions
// are ACLs, which ahptui does not inspect; a symbolic link is refused.
func PrivateDir(dir string) (note string, err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("%w: creating %s: %w", ErrStore, dir, err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrStore, err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return "", fmt.Errorf("%w: %s is a symbolic link, which ahptui does not follow for its tokens: use the real path (--config-dir)", ErrStore, dir)
	}
	return "", nil
}

// readPrivate reads the file at path if it exists; a symbolic link is
// refused.
func readPrivate(path string) ([]byte, string, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("%w: reading %s: %w", ErrStore, path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, "", fmt.Errorf("%w: %s is not a regular file: remove it", ErrStore, path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, "", fmt.Errorf("%w: reading %s: %w", ErrStore, path, err)
	}
	return b, "", nil
}
