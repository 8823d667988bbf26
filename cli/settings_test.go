package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/internal/demotest"
)

// TestSettingsSetAsksOnATerminal: on a terminal, a value that lets tool
// calls run without asking is asked about, naming its effect and reach;
// anything but y keeps the old value, y sets it.
func TestSettingsSetAsksOnATerminal(t *testing.T) {
	h := demotest.Start(t, demohost.Config{})
	set := func(answer string) (string, int) {
		t.Helper()
		var out, errb bytes.Buffer
		home := t.TempDir()
		code := Run([]string{"settings", "set", "demo", demohost.ConfigApprovals, "Allow all", "--host", h.URL(), "--config-dir", t.TempDir()},
			Env{Stdout: &out, Stderr: &errb, Stdin: strings.NewReader(answer), StdinTTY: true,
				Getenv: func(k string) string {
					if k == "HOME" || k == "XDG_CONFIG_HOME" {
						return home
					}
					return ""
				}})
		return errb.String(), code
	}
	errs, code := set("n\n")
	if code != ExitUsage || !strings.Contains(errs, "Set Approvals to \"Allow all\"") || !strings.Contains(errs, "without asking you first, in this session") {
		t.Fatalf("answer n: exit %d\n%s", code, errs)
	}
	if errs, code = set("y\n"); code != ExitOK {
		t.Fatalf("answer y: exit %d\n%s", code, errs)
	}
	out, _, _ := run(t, false, nil, "settings", "show", "demo", "--json", "--host", h.URL())
	if !strings.Contains(out, `"value": "autoApprove"`) {
		t.Errorf("after y, approvals are not Allow all:\n%s", out)
	}
}
