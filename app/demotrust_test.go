package app

import (
	"io"
	"strings"
	"testing"
)

// TestDemoOtherHostNeedsDemo: --demo-other-host is the demo's second
// identity (issue 22, item 15); without --demo it would do nothing, so it
// is refused.
func TestDemoOtherHostNeedsDemo(t *testing.T) {
	if _, err := parseFlags([]string{"--demo-other-host", "--host", "wss://h.example/"}, io.Discard); err == nil || !strings.Contains(err.Error(), "--demo") {
		t.Fatalf("--demo-other-host without --demo: %v", err)
	}
	o, err := parseFlags([]string{"--demo", "--demo-other-host"}, io.Discard)
	if err != nil || !o.demoOtherHost {
		t.Fatalf("--demo --demo-other-host: %+v, %v", o.demoOtherHost, err)
	}
}
