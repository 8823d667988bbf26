package authpkce

import (
	"errors"
	"fmt"

	"github.com/zalando/go-keyring"
)

// Where Config.TokenStore keeps grants.
const (
	// TokenStoreFile: a 0600 JSON file in a 0700 directory (the default).
	TokenStoreFile = "file"
	// TokenStoreKeyring: the OS keyring (macOS Keychain, Windows
	// Credential Manager, the Secret Service on Linux), falling back to the
	// file when there is none.
	TokenStoreKeyring = "keyring"
)

// keyringService names ahptui's entries in the OS keyring.
const keyringService = "ahptui"

// keyringBackend keeps the encoded store as one keyring secret. The entry
// is named after the config directory so two --config-dir profiles stay
// apart, as their files would.
type keyringBackend struct{ user string }

func (k keyringBackend) read() ([]byte, error) {
	s, err := keyring.Get(keyringService, k.user)
	if errors.Is(err, keyring.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: reading the OS keyring: %w", ErrStore, err)
	}
	return []byte(s), nil
}

func (k keyringBackend) write(b []byte) error {
	if err := keyring.Set(keyringService, k.user, string(b)); err != nil {
		return fmt.Errorf("%w: writing the OS keyring: %w", ErrStore, err)
	}
	return nil
}

// openBackend picks the backend for kind. The keyring is probed with a
// read: a machine without one (no Secret Service over SSH, a container)
// gets the file instead, and the reason is returned for the log.
func openBackend(kind, dir string, notes *[]string) (b backend, fallback error, err error) {
	switch kind {
	case "", TokenStoreFile:
		return fileBackend{dir: dir, notes: notes}, nil, nil
	case TokenStoreKeyring:
		kb := keyringBackend{user: "oauth-tokens:" + dir}
		if _, err := kb.read(); err != nil {
			return fileBackend{dir: dir, notes: notes}, err, nil
		}
		return kb, nil, nil
	}
	return nil, nil, fmt.Errorf("%w: unknown token store %q (want %q or %q)", ErrStore, clean(kind), TokenStoreFile, TokenStoreKeyring)
}
