//go:build unix

package authpkce

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// $BROWSER is honoured, without a shell: %s takes the URL, a URL with
// shell syntax stays one argument, and a command that cannot start is
// skipped for the next one in the list.
func TestBrowserEnv(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "opened")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no fifo: %v", err)
	}
	script := filepath.Join(dir, "browser.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > \""+fifo+"\"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("BROWSER", filepath.Join(dir, "missing")+":"+script+" --new-tab %s")
	authURL := "https://as.example/authorize?a=1&b=$(touch x);echo"
	if err := OpenSystemBrowser(authURL); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(fifo) // blocks until the script wrote
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Split(strings.TrimSpace(string(b)), "\n"); len(got) != 2 || got[0] != "--new-tab" || got[1] != authURL {
		t.Fatalf("$BROWSER got %q", got)
	}
	t.Setenv("BROWSER", filepath.Join(dir, "missing"))
	if err := OpenSystemBrowser(authURL); err == nil || !strings.Contains(err.Error(), "$BROWSER") {
		t.Fatalf("a $BROWSER that cannot start: %v", err)
	}
}
