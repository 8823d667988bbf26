//go:build unix

package authpkce

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// savedStore writes a token file holding one grant into dir, as an
// earlier run would have, with the file mode given.
func savedStore(t *testing.T, dir string, mode os.FileMode) string {
	t.Helper()
	a, err := New(Config{Dir: dir, HTTPClient: offline})
	if err != nil {
		t.Fatal(err)
	}
	k := tokenKey{Host: "wss://h.example:443", Issuer: "https://as.example", Resource: "https://api.example/mcp", ClientID: "c"}
	if err := a.store.putToken(k, Token{AccessToken: "secret"}, time.Unix(2e9, 0)); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, storeFileName)
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestStorePermissions is issue 21's finding 7: the config directory and
// the token file are checked with lstat when the store opens. Ours but
// open to others: restricted, and StoreNotes says so. A symbolic link
// (to the directory or the file) or another user's file is refused, and
// nothing is read through it.
func TestStorePermissions(t *testing.T) {
	t.Run("world-writable dir is repaired and said", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "cfg")
		savedStore(t, dir, 0o600)
		if err := os.Chmod(dir, 0o777); err != nil {
			t.Fatal(err)
		}
		a, err := New(Config{Dir: dir, HTTPClient: offline})
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		if fi, _ := os.Lstat(dir); fi.Mode().Perm() != 0o700 {
			t.Errorf("dir mode %v after open, want 0700", fi.Mode().Perm())
		}
		if n := a.StoreNotes(); len(n) != 1 || !strings.Contains(n[0], "writable by other users") {
			t.Errorf("StoreNotes = %q, want the repair said", n)
		}
	})
	t.Run("dir others can list is restricted", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "cfg")
		savedStore(t, dir, 0o600)
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		a, err := New(Config{Dir: dir, HTTPClient: offline})
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		if fi, _ := os.Lstat(dir); fi.Mode().Perm() != 0o700 {
			t.Errorf("dir mode %v after open, want 0700", fi.Mode().Perm())
		}
		if n := a.StoreNotes(); len(n) != 0 {
			t.Errorf("StoreNotes = %q: nothing could be planted in a dir others could only list", n)
		}
	})
	t.Run("world-readable token file is repaired and said", func(t *testing.T) {
		dir := t.TempDir()
		p := savedStore(t, dir, 0o644)
		a, err := New(Config{Dir: dir, HTTPClient: offline})
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		if fi, _ := os.Lstat(p); fi.Mode().Perm() != 0o600 {
			t.Errorf("token file mode %v after open, want 0600", fi.Mode().Perm())
		}
		if n := a.StoreNotes(); len(n) != 1 || !strings.Contains(n[0], storeFileName) {
			t.Errorf("StoreNotes = %q, want the file's repair said", n)
		}
		if len(a.Tokens()) != 1 {
			t.Errorf("the repaired file's grant is not read")
		}
	})
	t.Run("dir is a symbolic link", func(t *testing.T) {
		real := t.TempDir()
		savedStore(t, real, 0o600)
		link := filepath.Join(t.TempDir(), "cfg")
		if err := os.Symlink(real, link); err != nil {
			t.Fatal(err)
		}
		if a, err := New(Config{Dir: link, HTTPClient: offline}); !errors.Is(err, ErrStore) || !strings.Contains(err.Error(), "symbolic link") {
			n := 0
			if a != nil {
				n = len(a.Tokens())
			}
			t.Fatalf("New through a linked dir: %v (%d tokens read), want a refusal naming the link", err, n)
		}
	})
	t.Run("token file is a symbolic link", func(t *testing.T) {
		elsewhere := t.TempDir()
		target := savedStore(t, elsewhere, 0o600)
		dir := t.TempDir()
		if err := os.Symlink(target, filepath.Join(dir, storeFileName)); err != nil {
			t.Fatal(err)
		}
		if a, err := New(Config{Dir: dir, HTTPClient: offline}); !errors.Is(err, ErrStore) || !strings.Contains(err.Error(), "symbolic link") {
			n := 0
			if a != nil {
				n = len(a.Tokens())
			}
			t.Fatalf("New with a linked token file: %v (%d tokens read), want a refusal naming the link", err, n)
		}
	})
	t.Run("another user's token file", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("giving a file to another user needs root")
		}
		dir := t.TempDir()
		p := savedStore(t, dir, 0o600)
		if err := os.Chown(p, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		if _, err := New(Config{Dir: dir, HTTPClient: offline}); !errors.Is(err, ErrStore) || !strings.Contains(err.Error(), "belongs to user 65534") {
			t.Fatalf("New with another user's token file: %v, want a refusal naming the owner", err)
		}
	})
	t.Run("another user's dir", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("giving a directory to another user needs root")
		}
		dir := filepath.Join(t.TempDir(), "cfg")
		savedStore(t, dir, 0o600)
		if err := os.Chown(dir, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		if _, err := New(Config{Dir: dir, HTTPClient: offline}); !errors.Is(err, ErrStore) || !strings.Contains(err.Error(), "belongs to user 65534") {
			t.Fatalf("New with another user's dir: %v, want a refusal naming the owner", err)
		}
	})
}
