package saved

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeHosts(t *testing.T, text string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ahptui")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestLoad(t *testing.T) {
	dir := writeHosts(t, `# my hosts
hosts:
  work:
    url: wss://agents.example.com/alice
    connection_token_file: work.token
  box:
    url: ws://10.0.0.5:35893/
    insecure: true
`)
	hosts, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(hosts) != 2 || hosts[0].Name != "box" || !hosts[0].Insecure || hosts[1].Name != "work" {
		t.Fatalf("hosts %+v", hosts)
	}
	if hosts[1].TokenFile != filepath.Join(dir, "work.token") || hosts[1].URL != "wss://agents.example.com/alice" {
		t.Errorf("work: %+v", hosts[1])
	}
	if h, ok := Find(hosts, "work"); !ok || h.Name != "work" {
		t.Error("Find work")
	}
	if hosts, err := Load(t.TempDir()); err != nil || hosts != nil {
		t.Errorf("no file: %v, %v", hosts, err)
	}
}

func TestLoadRefuses(t *testing.T) {
	for name, tc := range map[string]struct {
		text, want string
		mode       os.FileMode
	}{
		"token in url":   {"hosts:\n  a:\n    url: ws://127.0.0.1:1/?tkn=SECRET\n", "connection_token_file", 0o600},
		"http url":       {"hosts:\n  a:\n    url: http://127.0.0.1:1/\n", "ws://", 0o600},
		"bad name":       {"hosts:\n  \"a b\":\n    url: ws://127.0.0.1:1/\n", "a name is", 0o600},
		"not yaml":       {"hosts: [\n", "fix the file", 0o600},
		"group writable": {"hosts: {}\n", "writable by other users", 0o620},
		"world writable": {"hosts: {}\n", "writable by other users", 0o602},
	} {
		t.Run(name, func(t *testing.T) {
			dir := writeHosts(t, tc.text)
			if err := os.Chmod(filepath.Join(dir, FileName), tc.mode); err != nil {
				t.Fatal(err)
			}
			_, err := Load(dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Load: %v, want an error saying %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "SECRET") {
				t.Errorf("the error shows the token: %v", err)
			}
		})
	}
	t.Run("symlink", func(t *testing.T) {
		dir := writeHosts(t, "hosts: {}\n")
		other := filepath.Join(t.TempDir(), "ahptui")
		if err := os.Mkdir(other, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(dir, FileName), filepath.Join(other, FileName)); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(other); err == nil || !strings.Contains(err.Error(), "symlink") {
			t.Fatalf("Load through a symlink: %v", err)
		}
	})
	t.Run("dir writable", func(t *testing.T) {
		dir := writeHosts(t, "hosts: {}\n")
		if err := os.Chmod(dir, 0o777); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(dir); err == nil {
			t.Fatal("a world-writable config dir was trusted")
		}
	})
}

func TestValidName(t *testing.T) {
	for s, want := range map[string]bool{"work": true, "my-box.2": true, "ws://h:1/": false, "": false, "-x": false, "a/b": false} {
		if ValidName(s) != want {
			t.Errorf("ValidName(%q) = %v", s, !want)
		}
	}
}

// TestLoadRefusesOthersFiles: hosts.yml, or the directory it is in,
// owned by another user is refused: its owner could point a saved host
// (and its token file) anywhere.
func TestLoadRefusesOthersFiles(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("giving a file to another user needs root")
	}
	t.Run("file", func(t *testing.T) {
		dir := writeHosts(t, "hosts: {}\n")
		if err := os.Chown(filepath.Join(dir, FileName), 65534, 65534); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "belongs to uid 65534") {
			t.Fatalf("Load of another user's hosts.yml: %v", err)
		}
	})
	t.Run("dir", func(t *testing.T) {
		dir := writeHosts(t, "hosts: {}\n")
		if err := os.Chown(dir, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "belongs to uid 65534") {
			t.Fatalf("Load from another user's directory: %v", err)
		}
	})
}

// TestLoadRefusesSymlinkedDir: a config directory reached through a
// symlink is not read.
func TestLoadRefusesSymlinkedDir(t *testing.T) {
	dir := writeHosts(t, "hosts: {}\n")
	link := filepath.Join(t.TempDir(), "cfg")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(link); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Fatalf("Load through a symlinked dir: %v", err)
	}
}
