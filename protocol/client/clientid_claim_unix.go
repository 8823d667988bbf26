//go:build unix

package client

import (
	"os"
	"path/filepath"
	"syscall"
)

// tryClaim takes dir/client-id.lock without waiting; held reports
// whether another process holds it. The kernel drops the lock when the
// process ends, so a crashed ahptui leaves the id free.
func tryClaim(dir string) (release func(), held bool, err error) {
	f, err := os.OpenFile(filepath.Join(dir, clientIDFile+".lock"), os.O_CREATE|os.O_RDWR|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, false, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err != syscall.EINTR {
			break
		}
	}
	if err == syscall.EWOULDBLOCK {
		f.Close()
		return nil, true, nil
	}
	if err != nil {
		f.Close()
		return nil, false, err
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, false, nil
}
