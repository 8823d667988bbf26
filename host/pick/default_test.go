package pick

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ahptui/ahptui/host/saved"
)

// TestUseDefault: one rule picks the host when none is named, for the UI
// and the commands: AHPTUI_HOST, else hosts.yml's default, else VS
// Code's registry; a named host, the demo or an unreadable hosts.yml
// are never overridden by a default.
func TestUseDefault(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cfg")
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	pick := func(s Spec) (Spec, error) {
		s.ConfigDir = dir
		err := s.UseDefault(getenv)
		return s, err
	}
	if s, err := pick(Spec{}); err != nil || !s.Discover() {
		t.Fatalf("nothing set: %+v, %v", s, err)
	}
	if _, err := saved.Add(dir, saved.Host{Name: "work", URL: "ws://127.0.0.1:1/"}, true); err != nil {
		t.Fatal(err)
	}
	if s, err := pick(Spec{}); err != nil || s.Saved != "work" {
		t.Errorf("default: %+v, %v", s, err)
	}
	env[HostEnv] = "ws://127.0.0.1:2/"
	if s, err := pick(Spec{}); err != nil || s.Host != "ws://127.0.0.1:2/" || !s.FromEnv || s.Saved != "" {
		t.Errorf("AHPTUI_HOST over the default: %+v, %v", s, err)
	}
	if s, _ := pick(Spec{Host: "ws://127.0.0.1:3/"}); s.Host != "ws://127.0.0.1:3/" {
		t.Errorf("--host lost to AHPTUI_HOST: %+v", s)
	}
	if s, _ := pick(Spec{Demo: true}); s.Host != "" || s.Saved != "" {
		t.Errorf("--demo lost to AHPTUI_HOST: %+v", s)
	}
	env[HostEnv] = "http://x y"
	if _, err := pick(Spec{}); err == nil || !strings.Contains(err.Error(), HostEnv) {
		t.Errorf("a bad AHPTUI_HOST: %v", err)
	}
	delete(env, HostEnv)
	if err := os.Chmod(filepath.Join(dir, saved.FileName), 0o666); err != nil {
		t.Fatal(err)
	}
	if s, err := pick(Spec{}); err == nil || s.Saved != "" {
		t.Errorf("a 0666 hosts.yml: %+v, %v", s, err)
	}
}
