// Package registrytest lays out VS Code's local agent-host registry for
// tests of the packages that read it (host/pick, the tmux tests): one
// home, Linux layout, every directory owner-only as registry.Read wants.
package registrytest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/ahptui/ahptui/host/registry"
)

// Home is a fresh home whose registry lists entries, each in the file
// its identity names. It returns the home, its XDG config directory and
// the registry's entries directory (for a test to add files beside them).
func Home(t testing.TB, entries ...registry.Entry) (home, cfg, dir string) {
	t.Helper()
	home = t.TempDir()
	cfg = filepath.Join(home, ".config")
	dir = filepath.Join(registry.RegistryDir(filepath.Join(cfg, "Code")), "entries")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for d := dir; d != cfg; d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range entries {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Identity()+".json"), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return home, cfg, dir
}

// Env is the registry.Env that reads home's registry (Home's cfg).
func Env(home, cfg string) registry.Env {
	return registry.Env{GOOS: "linux", Home: home, Getenv: func(k string) string {
		if k == "XDG_CONFIG_HOME" {
			return cfg
		}
		return ""
	}}
}
