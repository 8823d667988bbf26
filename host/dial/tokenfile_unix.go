//go:build unix

package dial

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// openPrivate opens a connection token file without following a
// symlink and refuses, on the open file, anything but the user's own
// regular file with no group or other bits.
func openPrivate(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("the connection token file %s is a symlink, which is not followed for a token: name the real file", path)
	}
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	switch st, _ := fi.Sys().(*syscall.Stat_t); {
	case !fi.Mode().IsRegular():
		err = fmt.Errorf("the connection token file %s is not a regular file", path)
	case st != nil && int(st.Uid) != os.Geteuid():
		err = fmt.Errorf("the connection token file %s belongs to uid %d, not to you: keep your own copy, chmod 600", path, st.Uid)
	case fi.Mode().Perm()&0o077 != 0:
		err = fmt.Errorf("the connection token file %s is open to other users (mode %04o), so the token may be known: chmod 600 %s", path, fi.Mode().Perm(), path)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
