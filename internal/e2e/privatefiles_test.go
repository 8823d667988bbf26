package e2e

import (
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/internal/tmuxtest"
)

// TestTraceAndLogFilesArePrivate: --trace and --log create their file
// 0600, and refuse — saying why, before anything runs — a symlink (which
// would aim the output at another file of the user's) and an existing
// file others can read; neither is touched. The refusals come before the
// terminal UI starts, so the binary is run without a terminal.
func TestTraceAndLogFilesArePrivate(t *testing.T) {
	t.Parallel()
	skipShort(t)
	secret := newSecret(t)
	h, err := demohost.Start(t.Context(), demohost.Config{Version: suiteVersion, ConnectionToken: secret})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	bin := tmuxtest.Build(t, "github.com/ahptui/ahptui")
	dir := t.TempDir()
	victim := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(victim, []byte("keep\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "trace.jsonl")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	open := filepath.Join(dir, "open.log")
	if err := os.WriteFile(open, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(open, 0o644)

	res := runCLI(t, bin, cliEnv(t), "", "sessions", "--host", h.URL()+"?tkn="+secret, "--trace", link, "--config-dir", t.TempDir())
	if res.code == 0 || !strings.Contains(res.stderr, "--trace") || !strings.Contains(res.stderr, link+" is a symlink") {
		t.Errorf("--trace through a symlink: exit %d, stderr %q", res.code, res.stderr)
	}
	res = runCLI(t, bin, cliEnv(t), "", "--demo", "--log", open)
	if res.code == 0 || !strings.Contains(res.stderr, open+" exists and is open to other users (mode 0644)") {
		t.Errorf("--log to a 0644 file: exit %d, stderr %q", res.code, res.stderr)
	}
	for _, p := range []string{victim, open} {
		if b, _ := os.ReadFile(p); string(b) != "keep\n" {
			t.Errorf("%s was written: %q", p, b)
		}
	}

	fresh := filepath.Join(dir, "fresh.jsonl")
	res = runCLI(t, bin, cliEnv(t), "", "sessions", "--host", h.URL()+"?tkn="+secret, "--trace", fresh, "--config-dir", t.TempDir())
	if res.code != 0 {
		t.Fatalf("a new --trace file: exit %d: %s", res.code, res.stderr)
	}
	if fi, err := os.Stat(fresh); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the new trace file: %v, %v; want mode 0600", fi.Mode(), err)
	}
}

// recorder is a listener of ours that counts the bytes anything sends
// it: a host a refused token file must never reach.
func recorder(t *testing.T) (string, <-chan int) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	got := make(chan int, 8)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.SetReadDeadline(time.Now().Add(2 * time.Second))
			b, _ := io.ReadAll(c)
			c.Close()
			got <- len(b)
		}
	}()
	return "ws://" + l.Addr().String() + "/", got
}

// TestPlantedTokenFileRefused: a hosts.yml whose connection_token_file
// is a symlink to another file of the user's (whose first line would go
// out as ?tkn=) is refused, and so is a --connection-token-file others
// can read, naming the fix; the host is never dialled.
func TestPlantedTokenFileRefused(t *testing.T) {
	t.Parallel()
	skipShort(t)
	url, got := recorder(t)
	bin := tmuxtest.Build(t, "github.com/ahptui/ahptui")
	dir := filepath.Join(t.TempDir(), "ahptui")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(t.TempDir(), "id_secret")
	if err := os.WriteFile(victim, []byte("VICTIM-LINE\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(dir, "work.token")); err != nil {
		t.Fatal(err)
	}
	yml := "hosts:\n  work:\n    url: " + url + "\n    connection_token_file: work.token\n"
	if err := os.WriteFile(filepath.Join(dir, "hosts.yml"), []byte(yml), 0o600); err != nil {
		t.Fatal(err)
	}
	res := runCLI(t, bin, cliEnv(t), "", "sessions", "--host", "work", "--config-dir", dir)
	if res.code == 0 || !strings.Contains(res.stderr, "is a symlink") || strings.Contains(res.stderr+res.stdout, "VICTIM-LINE") {
		t.Errorf("a symlinked connection_token_file: exit %d, stderr %q", res.code, res.stderr)
	}

	open := filepath.Join(t.TempDir(), "tkn")
	if err := os.WriteFile(open, []byte("OPEN-TOKEN\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(open, 0o644)
	res = runCLI(t, bin, cliEnv(t), "", "sessions", "--host", url, "--connection-token-file", open, "--config-dir", t.TempDir())
	if res.code == 0 || !strings.Contains(res.stderr, "chmod 600 "+open) {
		t.Errorf("a 0644 --connection-token-file: exit %d, stderr %q", res.code, res.stderr)
	}
	select {
	case n := <-got:
		t.Errorf("the host was dialled (%d bytes)", n)
	case <-time.After(300 * time.Millisecond):
	}
}
