package cli

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/internal/demotest"
)

// TestMCPStartRequestedAtTheEcho: against a host that holds a start
// until the session's first message (the demo playing VS Code's host, on
// a real WebSocket, through the real protocol client), mcp start in the
// session that has not run reports the start as requested as soon as the
// echo comes, with no wait for a state change that will not come; once
// the session has run, it waits for and prints the server ready.
func TestMCPStartRequestedAtTheEcho(t *testing.T) {
	h := demotest.Start(t, demohost.Config{HoldStartsUntilRun: true})
	start := func() (mcpJSON, time.Duration) {
		t.Helper()
		began := time.Now()
		out, errs, code := run(t, false, nil, "mcp", "start", demohost.FilesystemServerID, "--session", "demo", "--json", "--host", h.URL())
		took := time.Since(began)
		var j mcpJSON
		if code != ExitOK || json.Unmarshal([]byte(out), &j) != nil {
			t.Fatalf("mcp start: exit %d %s\n%s", code, errs, out)
		}
		return j, took
	}
	j, took := start()
	if j.State != "starting" || !j.StartRequested {
		t.Fatalf("before the first message: %+v, want starting and startRequested", j)
	}
	// The old rule waited 5 s before saying so; the echo takes far less.
	if took > 3*time.Second {
		t.Errorf("mcp start took %v to report a held start", took)
	}
	if out, errs, code := run(t, false, nil, "send", "demo", "stream", "--host", h.URL()); code != ExitOK {
		t.Fatalf("send: exit %d %s\n%s", code, errs, out)
	}
	if j, _ = start(); j.State != "ready" || j.StartRequested {
		t.Fatalf("after the session ran: %+v, want ready", j)
	}
}
