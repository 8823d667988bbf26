package interop

import (
	"os"
	"strings"
	"testing"
)

// TestREADMEConnectVSCode keeps README's "Connect to VS Code's agent host"
// true: the server command it gives carries every flag the interop suite
// runs the real host with (but the suite's private data directory), the
// install script it names exists, and ahptui is pointed at the agent
// host's port over ws:// on loopback with a working directory.
func TestREADMEConnectVSCode(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Connect to VS Code's agent host\n")
	if !ok {
		t.Fatal(`README.md has no "## Connect to VS Code's agent host" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	for i, a := range serverArgs(8000, 8123, "DATA") {
		if a == "--server-data-dir" || a == "DATA" || (i > 0 && serverArgs(8000, 8123, "DATA")[i-1] == "--server-data-dir") {
			continue
		}
		if !strings.Contains(section, a) {
			t.Errorf("the README's server command lacks %q, which the suite passes", a)
		}
	}
	for _, want := range []string{".ci/install-vscode-host.sh", "--host ws://127.0.0.1:8123", "--cwd", "node/bin/node"} {
		if !strings.Contains(section, want) {
			t.Errorf("the README's section lacks %q", want)
		}
	}
	if _, err := os.Stat("../../.ci/install-vscode-host.sh"); err != nil {
		t.Errorf("the install script the README names: %v", err)
	}
}
