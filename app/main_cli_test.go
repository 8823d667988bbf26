package app

import (
	"bytes"
	"strings"
	"testing"
)

// TestHelpPointsToCommands: the UI's --help says the scriptable commands
// exist, and a command word reaches them (not the saved-host lookup).
func TestHelpPointsToCommands(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"--help"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "ahptui help lists them") {
		t.Errorf("--help: exit %d\n%s", code, out.String())
	}
	out.Reset()
	if code := run([]string{"help"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "Exit codes:") {
		t.Errorf("help: exit %d\n%s%s", code, out.String(), errb.String())
	}
}
