package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ahptui/ahptui/internal/badhost"
	"github.com/ahptui/ahptui/internal/tmuxtest"
)

// TestCLIStatusAllHosts is issue 25's scriptable twin, run as the built
// binary: status --all-hosts --json over two demo hosts and one down
// prints all three in the order given (no saved host, no VS Code
// registry in this home), the two with their sessions, each session
// naming its host, and the one down as a row with its reason; the exit
// code says a host failed (3) and stderr names it.
func TestCLIStatusAllHosts(t *testing.T) {
	t.Parallel()
	skipShort(t)
	a, b := cliHost(t), cliHost(t)
	down := badhost.Closed(t)
	bin := tmuxtest.Build(t, "github.com/ahptui/ahptui")
	began := time.Now()
	r := runCLI(t, bin, cliEnv(t), "", "status", "--all-hosts", "--json",
		"--host", a.URL(), "--host", down, "--host", b.URL(), "--config-dir", privateDir(t))
	if r.code != 3 {
		t.Errorf("exit %d, want 3; stderr %q", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "1 of 3 hosts failed: "+down) || !strings.Contains(r.stderr, `"kind":"unreachable"`) {
		t.Errorf("stderr: %s", r.stderr)
	}
	// One shape whatever the number of hosts: the rows, then every
	// host's sessions, each naming its host.
	type host struct{ Name, URL string }
	var st struct {
		Hosts []struct {
			Host                                host
			State, Error, Kind, ProtocolVersion string
		}
		Sessions []struct {
			Host    host
			Session string
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &st); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	if len(st.Hosts) != 3 {
		t.Fatalf("%d rows:\n%s", len(st.Hosts), r.stdout)
	}
	for i, want := range []string{a.URL(), down, b.URL()} {
		row := st.Hosts[i]
		if row.Host != (host{URL: want}) {
			t.Errorf("row %d is %+v, want %s", i, row.Host, want)
		}
		n := 0
		for _, s := range st.Sessions {
			if s.Host.URL == want {
				n++
			}
		}
		if want == down {
			if row.State != "failed" || row.Kind != "unreachable" || !strings.Contains(row.Error, "connection refused") || n != 0 {
				t.Errorf("the host down: %+v, %d sessions", row, n)
			}
			continue
		}
		if row.State != "connected" || row.ProtocolVersion != suiteVersion || n != 2 {
			t.Errorf("%s: %+v, %d sessions", want, row, n)
		}
	}
	if len(st.Sessions) != 4 {
		t.Errorf("%d sessions, want each host's 2:\n%s", len(st.Sessions), r.stdout)
	}
	if took := time.Since(began); took > 20*time.Second {
		t.Errorf("took %v", took)
	}
}
