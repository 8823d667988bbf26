package client

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

const clientIDFile = "client-id"

// LoadOrCreateClientID returns this installation's stable AHP clientId,
// stored in dir/client-id (dir is usually os.UserConfigDir()/ahptui). A host
// uses the id to recognise us on reconnect and to dedupe re-dispatched
// actions, so it must survive restarts; it is created (0600, random UUIDv4)
// on first use.
func LoadOrCreateClientID(dir string) (string, error) {
	path := filepath.Join(dir, clientIDFile)
	b, err := os.ReadFile(path)
	if err == nil {
		id := strings.TrimSpace(string(b))
		if validClientID(id) {
			return id, nil
		}
		// A corrupt file would make every connection fail; replace it.
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("read client id %s: %w (fix its permissions or delete it)", path, err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create config dir %s: %w", dir, err)
	}
	id := newUUID()
	tmp, err := os.CreateTemp(dir, clientIDFile+".*")
	if err != nil {
		return "", fmt.Errorf("write client id in %s: %w", dir, err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return "", fmt.Errorf("write client id: %w", err)
	}
	if _, err := tmp.WriteString(id + "\n"); err != nil {
		tmp.Close()
		return "", fmt.Errorf("write client id: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return "", fmt.Errorf("write client id: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", fmt.Errorf("write client id %s: %w", path, err)
	}
	return id, nil
}

// ClaimClientID is LoadOrCreateClientID for one running process: the
// installation's id while no other process of this user holds it, else
// a fresh id of this process's own, never saved. A host treats one
// clientId as one client: two ahptui processes sharing it (two terminals,
// one config directory) made VS Code's host send everything to the newer
// connection only, and the older one saw nothing. release ends the claim
// (the kernel ends it too when the process does).
func ClaimClientID(dir string) (id string, release func(), err error) {
	id, err = LoadOrCreateClientID(dir)
	if err != nil {
		return "", nil, err
	}
	release, held, err := tryClaim(dir)
	if err != nil {
		return "", nil, fmt.Errorf("claim client id in %s: %w", dir, err)
	}
	if held {
		return newUUID(), func() {}, nil
	}
	return id, release, nil
}

func validClientID(id string) bool {
	if id == "" || len(id) > 200 {
		return false
	}
	for _, r := range id {
		if r <= 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}

func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
