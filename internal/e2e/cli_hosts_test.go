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
	var rows []struct {
		Host, State, Error, Kind, ProtocolVersion string
		Sessions                                  []struct{ Host, Session string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	if len(rows) != 3 {
		t.Fatalf("%d rows:\n%s", len(rows), r.stdout)
	}
	for i, want := range []string{a.URL(), down, b.URL()} {
		row := rows[i]
		if row.Host != want {
			t.Errorf("row %d is %s, want %s", i, row.Host, want)
		}
		if want == down {
			if row.State != "failed" || row.Kind != "unreachable" || !strings.Contains(row.Error, "connection refused") || len(row.Sessions) != 0 {
				t.Errorf("the host down: %+v", row)
			}
			continue
		}
		if row.State != "connected" || row.ProtocolVersion != suiteVersion || len(row.Sessions) != 2 {
			t.Errorf("%s: %+v", want, row)
		}
		for _, s := range row.Sessions {
			if s.Host != want {
				t.Errorf("%s's session %s names host %q", want, s.Session, s.Host)
			}
		}
	}
	if took := time.Since(began); took > 20*time.Second {
		t.Errorf("took %v", took)
	}
}
