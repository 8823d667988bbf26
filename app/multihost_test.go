package app

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ahptui/ahptui/host/dial"
	"github.com/ahptui/ahptui/host/open"
	"github.com/ahptui/ahptui/host/pick"
	"github.com/ahptui/ahptui/host/registry"
)

// TestHostRepeatable: --host given again names several hosts; one --host
// keeps the single-host path (o.host alone).
func TestHostRepeatable(t *testing.T) {
	o, err := parseFlags([]string{"--host", "ws://127.0.0.1:1/", "--host", "ws://127.0.0.1:2/?tkn=abc", "--host", "wss://h.example/"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !o.multi() || strings.Join(o.hostValues(), " ") != "ws://127.0.0.1:1/ ws://127.0.0.1:2/?tkn=abc wss://h.example/" {
		t.Fatalf("hosts %q (multi %v)", o.hostValues(), o.multi())
	}
	ts, err := multiTargets(o)
	if err != nil || len(ts) != 3 || strings.Contains(ts[1].Target.URL, "tkn") || !ts[1].Target.HasToken() || ts[0].Target.HasToken() {
		t.Fatalf("targets %+v, %v: each keeps its own token, out of its URL", ts, err)
	}
	one, err := parseFlags([]string{"--host", "ws://127.0.0.1:1/"}, io.Discard)
	if err != nil || one.multi() || one.host != "ws://127.0.0.1:1/" {
		t.Fatalf("one --host: %+v, %v", one, err)
	}
}

// TestMultiHostChecks: each host passes the transport rule, a host named
// twice is one, and a token file (one host's) is refused with several.
func TestMultiHostChecks(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--host", "ws://127.0.0.1:1/", "--host", "ws://agents.example.com/"}, "--insecure"},
		{[]string{"--host", "ws://127.0.0.1:1/", "--host", "ws://127.0.0.1:2/", "--connection-token-file", "/x"}, "--connection-token-file"},
		{[]string{"--demo-hosts", "2", "--demo-other-host"}, "--demo-other-host"},
		{[]string{"--demo-hosts", "99"}, "--demo-hosts"},
	} {
		if _, err := parseFlags(tc.args, io.Discard); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want an error naming %s", tc.args, err, tc.want)
		}
	}
	o, err := parseFlags([]string{"--host", "ws://127.0.0.1:1/", "--host", "ws://127.0.0.1:1/?tkn=x"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if ts, err := multiTargets(o); err != nil || len(ts) != 1 {
		t.Errorf("one host named twice gave %d targets (%v)", len(ts), err)
	}
}

// TestDemoHosts: --demo-hosts N with --host mixes them (multi); one
// demo host alone is --demo.
func TestDemoHosts(t *testing.T) {
	o, err := parseFlags([]string{"--demo-hosts", "3", "--host", "ws://127.0.0.1:9/"}, io.Discard)
	if err != nil || !o.multi() || o.demoHosts != 3 {
		t.Fatalf("%+v, %v", o, err)
	}
	o, err = parseFlags([]string{"--demo-hosts", "1"}, io.Discard)
	if err != nil || o.multi() || !o.demo {
		t.Fatalf("--demo-hosts 1: %+v, %v", o, err)
	}
}

// TestAllHostsUI: the UI's --all-hosts is every --host, then the saved
// hosts, then the hosts VS Code's registry lists — the CLI's own
// gathering — one entry per host identity (the path kept, the token
// dropped), and no two hosts share a connection token.
func TestAllHostsUI(t *testing.T) {
	const localSecret = "registry-token-0099"
	dir := t.TempDir()
	hostsYML := "hosts:\n  again:\n    url: ws://127.0.0.1:7/p\n  alice:\n    url: ws://127.0.0.1:7/alice\n  box:\n    url: ws://127.0.0.1:8/\n"
	if err := os.WriteFile(filepath.Join(dir, "hosts.yml"), []byte(hostsYML), 0o600); err != nil {
		t.Fatal(err)
	}
	portable := t.TempDir()
	t.Setenv("VSCODE_PORTABLE", portable)
	t.Setenv(dial.TokenEnv, "env-token-0042")
	entries := filepath.Join(registry.RegistryDir(filepath.Join(portable, "user-data")), "entries")
	if err := os.MkdirAll(entries, 0o700); err != nil {
		t.Fatal(err)
	}
	for d := entries; d != portable; d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	entry := registry.Entry{SchemaVersion: 2, Type: registry.TypeStandalone, PID: os.Getpid(), InstanceID: "i1",
		ProtocolVersion: "1.0.0", ConnectionToken: localSecret, Endpoint: registry.Endpoint{Type: "tcp", Host: "127.0.0.1", Port: 9}}
	body, _ := json.Marshal(entry)
	if err := os.WriteFile(filepath.Join(entries, entry.Identity()+".json"), body, 0o600); err != nil {
		t.Fatal(err)
	}

	o, err := parseFlags([]string{"--all-hosts", "--config-dir", dir, "--host", "ws://127.0.0.1:7/p?tkn=flag-token-0001", "--host", "ws://127.0.0.1:6/"}, io.Discard)
	if err != nil || !o.multi() {
		t.Fatalf("%+v, %v", o, err)
	}
	cfgs, err := multiTargets(o)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cfgs {
		got = append(got, c.Source+" "+c.Target.URL)
	}
	want := []string{"flag ws://127.0.0.1:7/p", "flag ws://127.0.0.1:6/", "saved ws://127.0.0.1:7/alice", "saved ws://127.0.0.1:8/", "local ws://127.0.0.1:9/"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("hosts:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Each host holds its own token only; the variable goes to none of
	// several (ScrubError hides the token a target holds).
	holds := func(c pick.Found, tok string) bool { return c.Target.ScrubError(errors.New(tok)).Error() != tok }
	for i, c := range cfgs {
		for j, tok := range []string{"flag-token-0001", "env-token-0042", localSecret} {
			if want := (i == 0 && j == 0) || (i == 4 && j == 2); holds(c, tok) != want {
				t.Errorf("host %d (%s) holds %s: %v, want %v", i, c.Target.URL, tok, !want, want)
			}
		}
	}
	run, err := open.Start(open.Config{ConfigDir: t.TempDir(), Probe: true})
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	ui := uiHosts(cfgs, run)
	if len(ui) != 5 || !ui[4].RegistryHost || ui[0].RegistryHost || strings.Contains(ui[0].Host, "tkn") {
		t.Errorf("ui hosts %+v", ui)
	}
}
