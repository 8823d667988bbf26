//go:build unix

package authpkce

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// PrivateDir makes sure dir is ahptui's own: created 0700 when missing,
// and otherwise checked with lstat, without following a symbolic link.
// A link, something other than a directory or a directory owned by
// another user is refused: whoever can write there can plant answers
// ("allow" for their host) and read tokens. A directory of ours that
// others may read or write is repaired to 0700; note says so when others
// could write it.
func PrivateDir(dir string) (note string, err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("%w: creating %s: %w", ErrStore, dir, err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrStore, err)
	}
	if err := ours(dir, fi, true); err != nil {
		return "", err
	}
	perm := fi.Mode().Perm()
	if perm&0o077 == 0 {
		return "", nil
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return "", fmt.Errorf("%w: %s is open to other users (%v) and could not be restricted to 0700: %w", ErrStore, dir, perm, err)
	}
	if perm&0o022 == 0 {
		// Others could list it, no more: its files are 0600 and nothing
		// could be planted, so the repair needs no word (a fresh mkdir
		// under the usual umask is 0755).
		return "", nil
	}
	return fmt.Sprintf("%s was writable by other users (%v); it is now 0700: check its files are yours", dir, perm), nil
}

// ours refuses what is not this user's own directory (dir) or regular
// file: a symbolic link, another kind of file, another owner.
func ours(path string, fi fs.FileInfo, dir bool) error {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%w: %s is a symbolic link, which ahptui does not follow for its tokens: use the real path (--config-dir)", ErrStore, path)
	case dir && !fi.IsDir():
		return fmt.Errorf("%w: %s is not a directory", ErrStore, path)
	case !dir && !fi.Mode().IsRegular():
		return fmt.Errorf("%w: %s is not a regular file: remove it", ErrStore, path)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("%w: %s belongs to user %d, not to you: remove it or pass another --config-dir", ErrStore, path, st.Uid)
	}
	return nil
}

// readPrivate reads the file at path if it exists, without following a
// symbolic link, and refuses one that is not this user's regular file.
// A file of ours others may read or write is restricted to 0600 (after
// the check, on the open file), and note says so.
func readPrivate(path string) (b []byte, note string, err error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", nil
	}
	if errors.Is(err, syscall.ELOOP) {
		return nil, "", fmt.Errorf("%w: %s is a symbolic link, which ahptui does not follow for its tokens: remove it", ErrStore, path)
	}
	if err != nil {
		return nil, "", fmt.Errorf("%w: reading %s: %w", ErrStore, path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, "", fmt.Errorf("%w: %w", ErrStore, err)
	}
	if err := ours(path, fi, false); err != nil {
		return nil, "", err
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		if err := f.Chmod(0o600); err != nil {
			return nil, "", fmt.Errorf("%w: %s is open to other users (%v) and could not be restricted to 0600: %w", ErrStore, path, perm, err)
		}
		note = fmt.Sprintf("%s was open to other users (%v); it is now 0600: forget (S, x) sign-ins others may have read", path, perm)
	}
	b, err = io.ReadAll(f)
	if err != nil {
		return nil, "", fmt.Errorf("%w: reading %s: %w", ErrStore, path, err)
	}
	return b, note, nil
}
