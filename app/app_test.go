package app

import (
	"bytes"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ahptui/ahptui/authpkce"
	"github.com/ahptui/ahptui/ui"
)

func TestRunFlags(t *testing.T) {
	// Bare ahptui reads VS Code's registry: point it at an empty home.
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", home)
	t.Setenv("VSCODE_PORTABLE", "")
	t.Setenv("VSCODE_APPDATA", "")
	for _, tc := range []struct {
		name     string
		args     []string
		code     int
		stdout   []string
		stderr   []string
		noStderr []string // must not be echoed (a password)
		noStdout bool
	}{
		// Issue 20: bare ahptui looks in VS Code's registry (empty here).
		{name: "neither mode", args: nil, code: 1, stderr: []string{"no agent host is running", "code agent host", "--host", "--demo"}, noStdout: true},
		{name: "both modes", args: []string{"--demo", "--host", "ws://127.0.0.1:1/"}, code: 2, stderr: []string{"one of --host", "not both"}, noStdout: true},
		{name: "stray argument", args: []string{"--demo", "extra"}, code: 2, stderr: []string{`unexpected argument "extra"`}},
		{name: "unknown flag", args: []string{"--bogus"}, code: 2, stderr: []string{"flag provided but not defined"}},
		{name: "help", args: []string{"--help"}, code: 0, stdout: []string{"ahptui --host ws://", "ahptui --demo", "--no-browser", "--config-dir", "--log FILE", "--version", "Examples:",
			// Issue 14 item 4: the demo's words are discoverable.
			`"hello" takes`, "deploy, write, review, fail, ask, stream"}},
		// Issue 14 item 10: not the placeholder "dev" but the build info's
		// version (a test binary is "(devel)", unstamped).
		{name: "version", args: []string{"--version"}, code: 0, stdout: []string{"ahptui (devel)"}},
		// Issue 14 item 5: a --host that cannot be a WebSocket URL is a
		// usage error before any UI, naming the accepted form.
		{name: "host garbage", args: []string{"--host", "garbage"}, code: 2, stderr: []string{`--host "garbage"`, "ws://", "wss://"}, noStdout: true},
		{name: "host http", args: []string{"--host", "http://x"}, code: 2, stderr: []string{`--host "http://x" is an http URL`, "WebSocket", "ws://", "wss://"}, noStdout: true},
		{name: "host https", args: []string{"--host", "https://x:8080/"}, code: 2, stderr: []string{"is an https URL", "wss://"}, noStdout: true},
		{name: "host no host", args: []string{"--host", "ws://"}, code: 2, stderr: []string{"names no host", "ws://"}, noStdout: true},
		{name: "host bad port", args: []string{"--host", "ws://127.0.0.1:99999/"}, code: 2, stderr: []string{`port "99999"`}, noStdout: true},
		{name: "host credentials", args: []string{"--host", "ws://me:secret@127.0.0.1:1/"}, code: 2, stderr: []string{"user name or password"}, noStderr: []string{"secret"}, noStdout: true},
		// Issue 20: the connection token never reaches an error.
		{name: "host token remote ws", args: []string{"--host", "ws://192.0.2.1:1/?tkn=SECRET-x"}, code: 2, stderr: []string{"ws://192.0.2.1:1/", "plain ws://"}, noStderr: []string{"SECRET"}, noStdout: true},
		{name: "host token bad port", args: []string{"--host", "ws://127.0.0.1:99999/?tkn=SECRET-x"}, code: 2, stderr: []string{`port "99999"`}, noStderr: []string{"SECRET"}, noStdout: true},
		{name: "host token http", args: []string{"--host", "http://127.0.0.1:1/?tkn=SECRET-x"}, code: 2, stderr: []string{"is an http URL"}, noStderr: []string{"SECRET"}, noStdout: true},
		{name: "token file missing", args: []string{"--host", "ws://127.0.0.1:1/", "--connection-token-file", "/nonexistent/tkn"}, code: 2, stderr: []string{"connection token file", "--connection-token-file"}, noStdout: true},
		{name: "token file with demo", args: []string{"--demo", "--connection-token-file", "/nonexistent/tkn"}, code: 2, stderr: []string{"applies to --host or a saved host"}, noStdout: true},
		{name: "token file alone", args: []string{"--connection-token-file", "/nonexistent/tkn"}, code: 2, stderr: []string{"applies to --host or a saved host"}, noStdout: true},
		{name: "saved name unknown", args: []string{"work"}, code: 2, stderr: []string{`no saved host "work"`, "hosts.yml", "--host"}, noStdout: true},
		{name: "saved name and demo", args: []string{"work", "--demo"}, code: 2, stderr: []string{"give one host"}, noStdout: true},
		{name: "url as a word", args: []string{"ws://127.0.0.1:1/?tkn=SECRET-x"}, code: 2, stderr: []string{"ws://127.0.0.1:1/"}, noStderr: []string{"SECRET"}, noStdout: true},
		{name: "help names the token file", args: []string{"--help"}, code: 0, stdout: []string{"--connection-token-file FILE", "AHPTUI_CONNECTION_TOKEN"}},
		{name: "host empty", args: []string{"--host", " "}, code: 2, stderr: []string{"--host is empty", "ws://"}, noStdout: true},
		// Issue 9 item 5: the demo serves 1.0 by default, 0.6 on request.
		{name: "demo version unknown", args: []string{"--demo", "--demo-version", "0.9.0"}, code: 2, stderr: []string{`--demo-version "0.9.0"`, "1.0.0 or 0.6.0"}, noStdout: true},
		{name: "demo version without demo", args: []string{"--host", "ws://127.0.0.1:1/", "--demo-version", "0.6.0"}, code: 2, stderr: []string{"--demo-version applies to --demo only"}, noStdout: true},
		{name: "default demo version without demo", args: []string{"--host", "ws://127.0.0.1:1/", "--demo-version", "1.0.0"}, code: 2, stderr: []string{"--demo-version applies to --demo only"}, noStdout: true},
		{name: "cwd empty", args: []string{"--demo", "--cwd", ""}, code: 2, stderr: []string{"-cwd", "empty directory"}, noStdout: true},
		{name: "help names cwd", args: []string{"--help"}, code: 0, stdout: []string{"--cwd DIR", "file:// URI"}},
		{name: "help names the demo versions", args: []string{"--help"}, code: 0, stdout: []string{"--demo-version VERSION", "1.0.0 (default) or 0.6.0", "AHP 1.0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := run(tc.args, &out, &errb); code != tc.code {
				t.Fatalf("exit code %d, want %d (stderr %q)", code, tc.code, errb.String())
			}
			for _, w := range tc.stdout {
				if !strings.Contains(out.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, out.String())
				}
			}
			for _, w := range tc.stderr {
				if !strings.Contains(errb.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, errb.String())
				}
			}
			for _, w := range tc.noStderr {
				if strings.Contains(errb.String(), w) {
					t.Errorf("stderr echoes %q:\n%s", w, errb.String())
				}
			}
			if tc.noStdout && out.Len() > 0 {
				t.Errorf("stdout should be empty, got %q", out.String())
			}
		})
	}
}

// TestCwdFlag: each --cwd becomes an absolute file:// URI, in order.
func TestCwdFlag(t *testing.T) {
	o, err := parseFlags([]string{"--demo", "--cwd", "/srv/repo", "--cwd", "/tmp/a b"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"file:///srv/repo", "file:///tmp/a%20b"}
	if !slices.Equal([]string(o.cwd), want) {
		t.Errorf("--cwd = %q, want %q", o.cwd, want)
	}
	o, err = parseFlags([]string{"--demo", "--cwd", "rel"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	if len(o.cwd) != 1 || o.cwd[0] != mustFolderURI(t, filepath.Join(wd, "rel")) {
		t.Errorf("relative --cwd = %q, want it made absolute against %s", o.cwd, wd)
	}
	if o, _ := parseFlags([]string{"--demo"}, io.Discard); len(o.cwd) != 0 {
		t.Errorf("no --cwd sends %q; want nothing", o.cwd)
	}
}

// TestCheckHostURLAccepts: the forms a user is told to type pass.
func TestCheckHostURLAccepts(t *testing.T) {
	for _, h := range []string{"ws://127.0.0.1:8080/", "ws://localhost:1", "wss://agents.example.com/ahp", "WSS://EXAMPLE.COM", "ws://[::1]:9000/"} {
		if err := checkHostURL(h); err != nil {
			t.Errorf("checkHostURL(%q) = %v, want nil", h, err)
		}
	}
}

// TestTokenStoreKeyringFallback is issue 21's finding 6: with no OS
// keyring here, --token-store keyring given on the command line fails the
// start with one line that says what to do; a keyring asked for some
// other way falls back to the file and says so on screen (a notice).
func TestTokenStoreKeyringFallback(t *testing.T) {
	probe, err := authpkce.New(authpkce.Config{Dir: t.TempDir(), TokenStore: authpkce.TokenStoreKeyring})
	if err != nil {
		t.Fatal(err)
	}
	if _, why := probe.TokenStore(); why == nil {
		t.Skip("this machine has an OS keyring")
	}
	quiet := slog.New(slog.DiscardHandler)
	acfg := authpkce.Config{Dir: t.TempDir(), TokenStore: authpkce.TokenStoreKeyring}
	_, _, err = openAuth(acfg, authOptions{tokenStore: authpkce.TokenStoreKeyring, tokenStoreSet: true}, quiet)
	if err == nil || !strings.Contains(err.Error(), "--token-store keyring") || !strings.Contains(err.Error(), "--token-store file") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("explicit --token-store keyring without a keyring: %v, want one line naming the flag and what to pass", err)
	}
	auth, notes, err := openAuth(acfg, authOptions{tokenStore: authpkce.TokenStoreKeyring}, quiet)
	if err != nil || auth == nil {
		t.Fatalf("keyring not asked for on the command line: %v, want the file", err)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "no OS keyring") {
		t.Fatalf("notes %q, want the fall-back said", notes)
	}
	o, err := parseFlags([]string{"--demo", "--token-store", "keyring"}, io.Discard)
	if err != nil || !o.auth.tokenStoreSet {
		t.Fatalf("parseFlags: %v, tokenStoreSet %v", err, o.auth.tokenStoreSet)
	}
	if o, _ := parseFlags([]string{"--demo"}, io.Discard); o.auth.tokenStoreSet {
		t.Fatal("tokenStoreSet without the flag")
	}
}

func mustFolderURI(t *testing.T, dir string) string {
	t.Helper()
	u, err := ui.FolderURI(dir)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
