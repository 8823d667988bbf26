//go:build !unix && !windows

package authpkce

import "errors"

// lockFile: this platform has no file lock we use, and a token store that
// two processes could overwrite unlocked would lose grants, so saving
// fails instead; MemoryOnly still works.
func lockFile(string) (func(), error) {
	return nil, errors.New("file locking is not supported on this platform")
}
