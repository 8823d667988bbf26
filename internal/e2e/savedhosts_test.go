package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ahptui/ahptui/internal/badhost"
	"github.com/ahptui/ahptui/internal/tmuxtest"
)

// savedConfig is a config dir whose hosts.yml names the demo as "work"
// (its token in a file beside it) and a host that is down as "gone".
func savedConfig(t *testing.T, url, secret, down string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ahptui")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "work.token"), []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	yml := "hosts:\n  work:\n    url: " + url + "\n    connection_token_file: work.token\n  gone:\n    url: " + down + "\n"
	if err := os.WriteFile(filepath.Join(dir, "hosts.yml"), []byte(yml), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestSavedHostByName is issue 20's saved hosts: `ahptui NAME` and
// `--host NAME` connect to the host hosts.yml names, with the token from
// its file, which is shown nowhere.
func TestSavedHostByName(t *testing.T) {
	t.Parallel()
	skipShort(t)
	secret := newSecret(t)
	h, _ := registryDemo(t, secret)
	dir := savedConfig(t, h.URL(), secret, "ws://"+badhost.ClosedAddr(t)+"/")
	bin := tmuxtest.Build(t, "github.com/ahptui/ahptui")
	for name, args := range map[string][]string{
		"positional": {bin, "work", "--config-dir", dir, "--no-browser"},
		"--host":     {bin, "--host", "work", "--config-dir", dir, "--no-browser"},
	} {
		t.Run(name, func(t *testing.T) {
			s := tmuxtest.Start(t, tmuxtest.Options{Width: 120, Height: 40, Cmd: args})
			u := &user{t: t, s: s}
			screen := u.see("connected to the saved host", connectedTo(suiteVersion))
			if !strings.Contains(statusLine(screen), h.URL()) {
				t.Errorf("the status line does not name %s:\n%s", h.URL(), statusLine(screen))
			}
			noSecret(t, "the screen", screen, secret)
		})
	}
}

// TestHostsLists: `ahptui hosts` lists saved and discovered hosts, each
// checked: the live ones answer, the one that is down says why.
func TestHostsLists(t *testing.T) {
	t.Parallel()
	skipShort(t)
	secret := newSecret(t)
	h, sock := registryDemo(t, secret)
	down := badhost.Closed(t)
	dir := savedConfig(t, h.URL(), secret, down)
	bin := tmuxtest.Build(t, "github.com/ahptui/ahptui")
	ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "hosts", "--config-dir", dir)
	cmd.Env = append(os.Environ(), registryHome(t, socketEntry(sock, secret, "a"))...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("ahptui hosts: %v\n%s", err, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{
		"work  " + h.URL() + "  — reachable",
		"gone  " + down + "  — connection refused",
		"editor  pid", "ws+unix://" + sock, "AHP 1.0.0  — reachable",
		"ignored: standalone pid", "not running", "not named after its entry's identity",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("ahptui hosts does not say %q:\n%s", want, out)
		}
	}
	noSecret(t, "ahptui hosts", out+stderr.String(), secret)
}
