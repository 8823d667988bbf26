package authpkce

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/zalando/go-keyring"
)

// TestKeyringStore covers both paths of --token-store=keyring through
// go-keyring's mock providers: this machine has no Secret Service, and a
// test must not write into a developer's real keychain. The mock with an
// error stands in for "no keyring here" (the file is used and the reason
// reported); the working mock for a real keyring (nothing secret reaches
// the directory, and a second Authenticator reads the grant back).
func TestKeyringStore(t *testing.T) {
	k := tokenKey{Host: "ws://127.0.0.1:4000", Issuer: "https://as.example", Resource: testResource, ClientID: "c"}

	t.Run("no keyring: file fallback", func(t *testing.T) {
		keyring.MockInitWithError(errors.New("no secret service on this bus"))
		dir := t.TempDir()
		a, err := New(Config{Dir: dir, TokenStore: TokenStoreKeyring, HTTPClient: offline})
		if err != nil {
			t.Fatal(err)
		}
		if kind, why := a.TokenStore(); kind != TokenStoreFile || why == nil {
			t.Fatalf("TokenStore() = %q, %v; want the file and a reason", kind, why)
		}
		if err := a.store.putToken(k, Token{AccessToken: "in-file"}, time.Now()); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, storeFileName)); err != nil {
			t.Fatalf("fallback wrote no file: %v", err)
		}
	})

	t.Run("keyring", func(t *testing.T) {
		keyring.MockInit()
		dir := t.TempDir()
		a, err := New(Config{Dir: dir, TokenStore: TokenStoreKeyring, HTTPClient: offline})
		if err != nil {
			t.Fatal(err)
		}
		if kind, why := a.TokenStore(); kind != TokenStoreKeyring || why != nil {
			t.Fatalf("TokenStore() = %q, %v; want the keyring", kind, why)
		}
		if err := a.store.putToken(k, Token{AccessToken: "in-keyring", RefreshToken: "r"}, time.Now()); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, storeFileName)); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("the keyring store wrote a token file: %v", err)
		}
		b, err := New(Config{Dir: dir, TokenStore: TokenStoreKeyring, HTTPClient: offline})
		if err != nil {
			t.Fatal(err)
		}
		if tok, ok := b.store.token(k); !ok || tok.AccessToken != "in-keyring" || tok.RefreshToken != "r" {
			t.Fatalf("second Authenticator read %v, %v from the keyring", tok, ok)
		}
		// Another config directory is another keyring entry.
		c, err := New(Config{Dir: t.TempDir(), TokenStore: TokenStoreKeyring, HTTPClient: offline})
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Grants()) != 0 {
			t.Fatal("another --config-dir saw this one's grants")
		}
	})

	if _, err := New(Config{Dir: t.TempDir(), TokenStore: "vault"}); !errors.Is(err, ErrStore) {
		t.Fatalf("unknown token store: %v", err)
	}
}
