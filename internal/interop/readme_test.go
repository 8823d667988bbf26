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
	// A newcomer copies the blocks in order: a bare cd into VS Code's
	// install would leave the next command (go run .) outside this
	// checkout, and --cwd "$PWD" would point the agent at VS Code itself.
	for _, line := range strings.Split(section, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "cd ") {
			t.Errorf("the README's section changes directory outside a subshell: %q", line)
		}
	}
	if strings.Contains(section, `--cwd "$PWD"`) {
		t.Errorf(`the README's section sends the agent to --cwd "$PWD", VS Code's install after its cd`)
	}
	if _, err := os.Stat("../../.ci/install-vscode-host.sh"); err != nil {
		t.Errorf("the install script the README names: %v", err)
	}
}

// TestREADMEVersionsTable keeps README's table of VS Code versions true
// for the smoke suite: each version it runs against has a row saying the
// suite covers it, with the AHP version ahptui negotiates there in the
// "with ahptui" column.
func TestREADMEVersionsTable(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]string{}
	for _, l := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(l, "| 4.") {
			continue
		}
		cells := strings.Split(strings.Trim(l, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		v, _, _ := strings.Cut(cells[0], " ")
		rows[v] = cells
	}
	for _, v := range smokeVersions {
		cells, ok := rows[v.codeServer]
		if !ok || len(cells) < 4 {
			t.Errorf("README's versions table has no row for code-server %s", v.codeServer)
			continue
		}
		if !strings.HasPrefix(cells[2], v.ahp) {
			t.Errorf("README: code-server %s speaks %q with ahptui, the smoke suite negotiates %s", v.codeServer, cells[2], v.ahp)
		}
		if !strings.Contains(cells[3], "the smoke suite, every CI run") {
			t.Errorf("README: code-server %s is not marked as run by the smoke suite: %q", v.codeServer, cells[3])
		}
	}
}
