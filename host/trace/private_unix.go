//go:build unix

package trace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// OpenPrivate opens path for appending a trace or a debug log (--trace,
// --log): a new file is created 0600 (O_EXCL, O_NOFOLLOW); an existing
// one is appended to only when it is our own regular file, 0600 or
// stricter, with one link, reached without a symlink. Anything else is
// refused with the reason and left as it was: a symlink would aim the
// output at a file of the user's, and a file others can read would show
// them every frame.
func OpenPrivate(path string) (*os.File, error) {
	const nofollow = syscall.O_NOFOLLOW
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|os.O_EXCL|nofollow, 0o600)
	if err == nil {
		// The umask can only have made it stricter; say 0600 exactly.
		if err := f.Chmod(0o600); err != nil {
			f.Close()
			return nil, err
		}
		return f, nil
	}
	if !errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	f, err = os.OpenFile(path, os.O_WRONLY|os.O_APPEND|nofollow|syscall.O_NONBLOCK, 0)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("%s is a symlink, which is not followed: name a new file", path)
	}
	if err != nil {
		if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return nil, fmt.Errorf("%s is a symlink, which is not followed: name a new file", path)
		}
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	st, _ := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.Mode().IsRegular():
		err = fmt.Errorf("%s is not a regular file: name a new file", path)
	case st != nil && int(st.Uid) != os.Geteuid():
		err = fmt.Errorf("%s belongs to uid %d, not to you: name a new file", path, st.Uid)
	case fi.Mode().Perm()&0o077 != 0:
		err = fmt.Errorf("%s exists and is open to other users (mode %04o): remove it, chmod 600 it, or name a new file", path, fi.Mode().Perm())
	case st != nil && st.Nlink != 1:
		err = fmt.Errorf("%s has %d hard links: name a new file", path, st.Nlink)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
