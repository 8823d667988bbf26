package saved

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAddRemoveDefault: hosts add writes hosts.yml 0600 keeping what the
// user wrote (comments too), a default names a saved host, rm forgets
// the host and a default that was it; a file others can write, or a
// symlink, is refused and left as it was.
func TestAddRemoveDefault(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ahptui")
	if def, err := Default(dir); def != "" || err != nil {
		t.Fatalf("no file: Default = %q, %v", def, err)
	}
	if _, err := Add(dir, Host{Name: "work", URL: "wss://agents.example.com/alice", TokenFile: "/tmp/work.token"}, false); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, FileName)
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("hosts.yml: %v, mode %v", err, fi.Mode())
	}
	b, _ := os.ReadFile(path)
	if err := os.WriteFile(path, append([]byte("# my hosts\n"), b...), 0o600); err != nil {
		t.Fatal(err)
	}
	replaced, err := Add(dir, Host{Name: "box", URL: "ws://10.0.0.5:35893/", Insecure: true}, true)
	if err != nil || replaced {
		t.Fatalf("add box: %v, replaced %v", err, replaced)
	}
	b, _ = os.ReadFile(path)
	if !strings.Contains(string(b), "# my hosts") {
		t.Errorf("the comment is gone:\n%s", b)
	}
	hosts, err := Load(dir)
	if err != nil || len(hosts) != 2 || hosts[0].Name != "box" || !hosts[0].Insecure || hosts[1].TokenFile != "/tmp/work.token" {
		t.Fatalf("Load: %v %+v", err, hosts)
	}
	if def, err := Default(dir); def != "box" || err != nil {
		t.Errorf("Default = %q, %v", def, err)
	}
	if replaced, err := Add(dir, Host{Name: "box", URL: "ws://10.0.0.6:1/", Insecure: true}, false); err != nil || !replaced {
		t.Errorf("re-add: %v, replaced %v", err, replaced)
	}
	if _, err := Add(dir, Host{Name: "bad", URL: "ws://h/?tkn=secret"}, false); err == nil {
		t.Error("a URL with its token was saved")
	}
	if err := Remove(dir, "box"); err != nil {
		t.Fatal(err)
	}
	if def, err := Default(dir); def != "" || err != nil {
		t.Errorf("after rm the default is %q, %v", def, err)
	}
	if err := Remove(dir, "box"); !errors.Is(err, ErrNotSaved) || !strings.Contains(err.Error(), `no saved host "box"`) {
		t.Errorf("rm twice: %v", err)
	}

	if err := os.Chmod(path, 0o666); err != nil {
		t.Fatal(err)
	}
	if _, err := Add(dir, Host{Name: "x", URL: "ws://127.0.0.1:1/"}, false); err == nil || !strings.Contains(err.Error(), "writable by other users") {
		t.Errorf("a 0666 hosts.yml was edited: %v", err)
	}
	if _, err := Default(dir); err == nil {
		t.Error("a 0666 hosts.yml gave a default")
	}
	os.Chmod(path, 0o600)
	real := filepath.Join(t.TempDir(), "real.yml")
	os.Rename(path, real)
	if err := os.Symlink(real, path); err != nil {
		t.Fatal(err)
	}
	if _, err := Add(dir, Host{Name: "x", URL: "ws://127.0.0.1:1/"}, false); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Errorf("hosts.yml through a symlink was edited: %v", err)
	}
}
