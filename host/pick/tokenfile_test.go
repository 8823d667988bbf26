//go:build unix

package pick

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlantedTokenFileRefused: a saved host whose connection_token_file
// is a symlink to another file of the user's, or a file others can
// read, is refused — its first line would go out as ?tkn= — and so is a
// 0644 --connection-token-file, naming the fix.
func TestPlantedTokenFileRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ahptui")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(t.TempDir(), "id_secret")
	if err := os.WriteFile(victim, []byte("VICTIM-LINE\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(dir, "link.token")); err != nil {
		t.Fatal(err)
	}
	open := filepath.Join(dir, "open.token")
	if err := os.WriteFile(open, []byte("OPEN-TOKEN\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(open, 0o644)
	yml := "hosts:\n  link:\n    url: ws://127.0.0.1:1/\n    connection_token_file: link.token\n" +
		"  open:\n    url: ws://127.0.0.1:1/\n    connection_token_file: open.token\n"
	if err := os.WriteFile(filepath.Join(dir, "hosts.yml"), []byte(yml), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"link": "symlink", "open": "chmod 600 " + open} {
		tg, err := SavedTarget(Spec{Saved: name, ConfigDir: dir})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("saved host %s: %v (token sent: %v); want an error saying %q", name, err, tg.HasToken(), want)
		}
		if err != nil && (strings.Contains(err.Error(), "VICTIM-LINE") || strings.Contains(err.Error(), "OPEN-TOKEN")) {
			t.Errorf("the error shows the file's text: %v", err)
		}
	}
	_, err := URLTarget(Spec{Host: "ws://127.0.0.1:1/", TokenFile: open}, func(string) string { return "" })
	if err == nil || !strings.Contains(err.Error(), "chmod 600 "+open) {
		t.Errorf("--connection-token-file 0644: %v", err)
	}
}
