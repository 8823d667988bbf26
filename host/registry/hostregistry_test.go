package registry

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// deadPID is the pid of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("no `true` to run: %v", err)
	}
	return cmd.Process.Pid
}

// writeEntry writes v as name in dir (0600).
func writeEntry(t *testing.T, dir, name string, v any) {
	t.Helper()
	b, ok := v.([]byte)
	if !ok {
		var err error
		if b, err = json.Marshal(v); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// newRegistry makes an owner-only registry under a fresh user-data dir.
func newRegistry(t *testing.T) (userData, entries string) {
	t.Helper()
	userData = filepath.Join(t.TempDir(), "Code")
	entries = filepath.Join(RegistryDir(userData), "entries")
	if err := os.MkdirAll(entries, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{filepath.Join(userData, "agent-host"), RegistryDir(userData), entries} {
		if err := os.Chmod(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return userData, entries
}

func tcpEntry(pid int, instance string) Entry {
	return Entry{SchemaVersion: 2, Type: TypeStandalone, PID: pid, InstanceID: instance, ProtocolVersion: "0.10.0",
		ConnectionToken: "tok-" + instance, Endpoint: Endpoint{Type: "tcp", Host: "127.0.0.1", Port: 35893}, Quality: "stable"}
}

func socketEntry(pid int, instance string) Entry {
	return Entry{SchemaVersion: 2, Type: TypeEditor, PID: pid, InstanceID: instance, ProtocolVersion: "0.10.0",
		ConnectionToken: "tok-" + instance, Endpoint: Endpoint{Type: "socket", Path: "/tmp/vscode-ah-x/" + instance + ".sock"}}
}

func TestIdentityIsVSCodes(t *testing.T) {
	// python3: hashlib.sha256(b'standalone\x00123\x00abc').hexdigest()
	e := Entry{Type: TypeStandalone, PID: 123, InstanceID: "abc"}
	if got, want := e.Identity(), "537e0427f1e3cff19674af80b74599265ee20d64ebff97a89e4ce8dcea9568d4"; got != want {
		t.Fatalf("Identity = %q, want %q", got, want)
	}
}

func TestReadEveryKindOfEntry(t *testing.T) {
	me := os.Getpid()
	dead := deadPID(t)
	userData, entries := newRegistry(t)
	tcp := tcpEntry(me, "tcp1")
	sock := socketEntry(me, "sock1")
	writeEntry(t, entries, tcp.Identity()+".json", tcp)
	writeEntry(t, entries, sock.Identity()+".json", sock)
	gone := tcpEntry(dead, "dead1")
	writeEntry(t, entries, gone.Identity()+".json", gone)
	v3 := tcpEntry(me, "v3")
	v3.SchemaVersion = 3
	writeEntry(t, entries, v3.Identity()+".json", v3)
	misnamed := tcpEntry(me, "misnamed")
	writeEntry(t, entries, tcp.Identity()[:10]+"ffff.json", misnamed)
	writeEntry(t, entries, strings.Repeat("a", 64)+".json", []byte(`{"schemaVersion":2,"type":"standalone","pid":`))
	remote := tcpEntry(me, "remote")
	remote.Endpoint.Host = "192.0.2.1"
	writeEntry(t, entries, remote.Identity()+".json", remote)
	noToken := socketEntry(me, "notoken")
	noToken.ConnectionToken = ""
	writeEntry(t, entries, noToken.Identity()+".json", noToken)
	writeEntry(t, entries, "x.json.tmp", tcpEntry(me, "tmp"))
	// Legacy: one the entry files also hold (an older copy: loses) and
	// one of its own.
	old := tcp
	old.ProtocolVersion = "0.9.0"
	legacyOnly := socketEntry(me, "legacy1")
	writeEntry(t, RegistryDir(userData), "metadata.json", []Entry{old, legacyOnly})

	r := Read(RegistryDir(userData), Alive)
	var got []string
	for _, e := range r.Entries {
		got = append(got, e.InstanceID+"@"+e.ProtocolVersion)
	}
	want := []string{"tcp1@0.10.0", "legacy1@0.10.0", "sock1@0.10.0"}
	if !slices.Equal(got, want) {
		t.Errorf("entries %v, want %v", got, want)
	}
	skipped := strings.Join(r.Skipped, "\n")
	for _, why := range []string{"not running", "not named after its entry's identity", "malformed", "not this machine", "connectionToken"} {
		if !strings.Contains(skipped, why) {
			t.Errorf("no entry skipped for %q:\n%s", why, skipped)
		}
	}
	if strings.Contains(skipped, "tok-") {
		t.Errorf("a skip reason shows a token:\n%s", skipped)
	}
	for _, e := range r.Entries {
		if e.InstanceID == "sock1" && e.URL() != "ws+unix:///tmp/vscode-ah-x/sock1.sock" {
			t.Errorf("socket URL %q", e.URL())
		}
		if e.InstanceID == "tcp1" && e.URL() != "ws://127.0.0.1:35893/" {
			t.Errorf("tcp URL %q", e.URL())
		}
	}
}

func TestRefuseUnsafeRegistry(t *testing.T) {
	me := os.Getpid()
	t.Run("group readable", func(t *testing.T) {
		userData, entries := newRegistry(t)
		e := tcpEntry(me, "a")
		writeEntry(t, entries, e.Identity()+".json", e)
		if err := os.Chmod(RegistryDir(userData), 0o750); err != nil {
			t.Fatal(err)
		}
		r := Read(RegistryDir(userData), Alive)
		if len(r.Entries) != 0 || !strings.Contains(strings.Join(r.Skipped, "\n"), "open to other users") {
			t.Fatalf("a group-readable registry was read: %+v", r)
		}
	})
	t.Run("entries group writable", func(t *testing.T) {
		userData, entries := newRegistry(t)
		e := tcpEntry(me, "a")
		writeEntry(t, entries, e.Identity()+".json", e)
		if err := os.Chmod(entries, 0o770); err != nil {
			t.Fatal(err)
		}
		if r := Read(RegistryDir(userData), Alive); len(r.Entries) != 0 {
			t.Fatalf("a group-writable entries dir was read: %+v", r)
		}
	})
	t.Run("symlink", func(t *testing.T) {
		userData, entries := newRegistry(t)
		e := tcpEntry(me, "a")
		writeEntry(t, entries, e.Identity()+".json", e)
		other := filepath.Join(t.TempDir(), "Code")
		if err := os.MkdirAll(filepath.Join(other, "agent-host"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(RegistryDir(userData), RegistryDir(other)); err != nil {
			t.Fatal(err)
		}
		r := Read(RegistryDir(other), Alive)
		if len(r.Entries) != 0 || !strings.Contains(strings.Join(r.Skipped, "\n"), "symlink") {
			t.Fatalf("a symlinked registry was read: %+v", r)
		}
	})
	t.Run("symlinked entry", func(t *testing.T) {
		userData, entries := newRegistry(t)
		e := tcpEntry(me, "a")
		real := filepath.Join(t.TempDir(), "real.json")
		b, _ := json.Marshal(e)
		if err := os.WriteFile(real, b, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(real, filepath.Join(entries, e.Identity()+".json")); err != nil {
			t.Fatal(err)
		}
		if r := Read(RegistryDir(userData), Alive); len(r.Entries) != 0 {
			t.Fatalf("a symlinked entry was read: %+v", r)
		}
	})
}

func TestUserDataDirs(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, tc := range []struct {
		name string
		e    Env
		want string
	}{
		{"linux default", Env{GOOS: "linux", Getenv: env(), Home: "/h"}, "/h/.config/Code"},
		{"linux xdg", Env{GOOS: "linux", Getenv: env("XDG_CONFIG_HOME", "/x"), Home: "/h"}, "/x/Code"},
		{"darwin", Env{GOOS: "darwin", Getenv: env(), Home: "/h"}, "/h/Library/Application Support/Code"},
		{"windows", Env{GOOS: "windows", Getenv: env("APPDATA", "/w"), Home: "/h"}, filepath.Join("/w", "Code")},
		{"appdata", Env{GOOS: "linux", Getenv: env("VSCODE_APPDATA", "/a", "XDG_CONFIG_HOME", "/x"), Home: "/h"}, "/a/Code"},
		{"portable", Env{GOOS: "linux", Getenv: env("VSCODE_PORTABLE", "/p", "VSCODE_APPDATA", "/a"), Home: "/h"}, "/p/user-data"},
	} {
		dirs := tc.e.UserDataDirs()
		if len(dirs) == 0 || dirs[0] != tc.want {
			t.Errorf("%s: %v, want first %s", tc.name, dirs, tc.want)
		}
	}
	if got := (Env{GOOS: "linux", Getenv: env(), Home: "/h"}).UserDataDirs(); len(got) != 3 || got[1] != "/h/.config/Code - Insiders" || got[2] != "/h/.config/Code - OSS" {
		t.Errorf("products: %v", got)
	}
}
