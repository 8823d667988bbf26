package e2e

import (
	"strings"
	"testing"
)

// TestCLIJQ: --jq and --json=FIELDS through the binary, gh's shape: one
// result a line, strings raw; watch's NDJSON filtered line by line; an
// expression that does not parse is exit 2 before the command acts (the
// message is not sent).
func TestCLIJQ(t *testing.T) {
	t.Parallel()
	skipShort(t)
	wireFree(t)
	r, _ := newCLIRunner(t)
	res := r.run(0, "", "sessions", "--jq", ".[].session")
	if res.stdout != "ahp-session:/demo\nahp-session:/history\n" {
		t.Errorf("sessions --jq .[].session: %q", res.stdout)
	}
	res = r.run(0, "", "--json=session", "sessions")
	if strings.Contains(res.stdout, `"title"`) || !strings.Contains(res.stdout, `"session": "ahp-session:/demo"`) {
		t.Errorf("--json=session:\n%s", res.stdout)
	}
	res = r.run(2, "", "send", "demo", "write the changelog", "--jq", ".turn | select(")
	if !strings.Contains(res.stderr, "--jq") {
		t.Errorf("a bad --jq: %s", res.stderr)
	}
	if res = r.run(0, "", "show", "demo", "--jq", ".turns | length"); strings.TrimSpace(res.stdout) != "0" {
		t.Errorf("the send with a bad --jq ran: %d turns", len(res.stdout))
	}
	r.run(5, "", "send", "demo", "write the changelog")
	res = r.run(0, "", "watch", "demo", "--until", "input", "--jq", `select(.type == "state") | .waiting[0].kind`)
	if res.stdout != "approval\n" {
		t.Errorf("watch --jq: %q", res.stdout)
	}
}
