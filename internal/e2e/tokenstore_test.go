package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ahptui/ahptui/internal/badhost"
	"github.com/ahptui/ahptui/internal/tmuxtest"
)

// TestTokenStoreKeyringExplicitFails is issue 21's finding 6 with the
// binary: --token-store keyring on a machine with no OS keyring (this
// one: no Secret Service) stops before the UI with one line saying what
// to do, instead of keeping the tokens in a file unsaid.
func TestTokenStoreKeyringExplicitFails(t *testing.T) {
	t.Parallel()
	skipShort(t)
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") != "" {
		t.Skip("a session bus may offer a Secret Service here")
	}
	code, stdout, stderr := runBinary(t, "--host", "ws://"+badhost.ClosedAddr(t)+"/", "--token-store", "keyring", "--config-dir", t.TempDir())
	if code != 1 {
		t.Errorf("exit status %d, want 1", code)
	}
	if lines := strings.Split(strings.TrimSpace(stderr), "\n"); len(lines) != 1 || !strings.Contains(stderr, "--token-store keyring") || !strings.Contains(stderr, "--token-store file") {
		t.Errorf("stderr is not one line naming the flag and what to pass instead:\n%s", stderr)
	}
	if stdout != "" {
		t.Errorf("the UI started (stdout %q)", stdout)
	}
}

// TestConfigDirChecked is issue 21's finding 7 with the binary: a config
// directory that is a symbolic link is refused before the UI; one of
// ours others could write is restricted to 0700 and the screen says so.
func TestConfigDirChecked(t *testing.T) {
	t.Parallel()
	skipShort(t)
	t.Run("symbolic link refused", func(t *testing.T) {
		link := filepath.Join(t.TempDir(), "cfg")
		if err := os.Symlink(t.TempDir(), link); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := runBinary(t, "--host", "ws://"+badhost.ClosedAddr(t)+"/", "--config-dir", link)
		if code != 1 || !strings.Contains(stderr, "symbolic link") || stdout != "" {
			t.Errorf("exit %d, stdout %q, stderr %q; want 1 and the link refused before the UI", code, stdout, stderr)
		}
	})
	t.Run("open to others repaired and said", func(t *testing.T) {
		bin := tmuxtest.Build(t, "github.com/ahptui/ahptui")
		dir := filepath.Join(t.TempDir(), "cfg")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, 0o777); err != nil {
			t.Fatal(err)
		}
		s := tmuxtest.Start(t, tmuxtest.Options{Width: 160, Height: 30,
			Cmd: append([]string{bin, "--config-dir", dir}, demoArgs(suiteVersion)...)})
		u := &user{t: t, s: s}
		u.see("the repair said on screen", func(s string) bool { return strings.Contains(s, "writable by other users") })
		if fi, err := os.Lstat(dir); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("config dir mode %v (%v), want 0700", fi.Mode().Perm(), err)
		}
	})
}
