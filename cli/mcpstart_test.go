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
// session that has not run reports the start as requested once --timeout
// has passed with the server still starting (it had stopped, so the
// start is waited for: one that fails must say so, issue 32 item 10);
// once the session has run, the server is up. A ready server is "already
// running", with nothing sent.
func TestMCPStartRequestedAtTheEcho(t *testing.T) {
	h := demotest.Start(t, demohost.Config{HoldStartsUntilRun: true})
	mcp := func(verb string, extra ...string) mcpJSON {
		t.Helper()
		args := append([]string{"mcp", verb, demohost.FilesystemServerID, "--session", "demo", "--json", "--host", h.URL()}, extra...)
		out, errs, code := run(t, false, nil, args...)
		var j mcpJSON
		if code != ExitOK || json.Unmarshal([]byte(out), &j) != nil {
			t.Fatalf("mcp %s: exit %d %s\n%s", verb, code, errs, out)
		}
		return j
	}
	if j := mcp("stop"); j.State != "stopped" {
		t.Fatalf("mcp stop: %+v", j)
	}
	began := time.Now()
	j := mcp("start", "--timeout", "1500ms")
	took := time.Since(began)
	if j.State != "starting" || !j.StartRequested {
		t.Fatalf("before the first message: %+v, want starting and startRequested", j)
	}
	if took > 5*time.Second {
		t.Errorf("mcp start took %v to report a held start with --timeout 1.5s", took)
	}
	if out, errs, code := run(t, false, nil, "send", "demo", "stream", "--host", h.URL()); code != ExitOK {
		t.Fatalf("send: exit %d %s\n%s", code, errs, out)
	}
	if j = mcp("start"); j.State != "ready" || j.StartRequested {
		t.Fatalf("after the session ran: %+v, want ready", j)
	}
	if j = mcp("start"); !j.AlreadyRunning || j.State != "ready" {
		t.Fatalf("a ready server: %+v, want alreadyRunning", j)
	}
}
