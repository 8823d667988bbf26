package main

import (
	"io"
	"strings"
	"testing"
)

// TestHostRepeatable: --host given again names several hosts; one --host
// keeps the single-host path (o.host alone).
func TestHostRepeatable(t *testing.T) {
	o, err := parseFlags([]string{"--host", "ws://127.0.0.1:1/", "--host", "ws://127.0.0.1:2/?tkn=abc", "--host", "wss://h.example/"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !o.multi() || strings.Join(o.hostValues(), " ") != "ws://127.0.0.1:1/ ws://127.0.0.1:2/?tkn=abc wss://h.example/" {
		t.Fatalf("hosts %q (multi %v)", o.hostValues(), o.multi())
	}
	ts, err := multiTargets(o)
	if err != nil || len(ts) != 3 || strings.Contains(ts[1].URL, "tkn") || !ts[1].HasToken() || ts[0].HasToken() {
		t.Fatalf("targets %+v, %v: each keeps its own token, out of its URL", ts, err)
	}
	one, err := parseFlags([]string{"--host", "ws://127.0.0.1:1/"}, io.Discard)
	if err != nil || one.multi() || one.host != "ws://127.0.0.1:1/" {
		t.Fatalf("one --host: %+v, %v", one, err)
	}
}

// TestMultiHostChecks: each host passes the transport rule, a host named
// twice is one, and a token file (one host's) is refused with several.
func TestMultiHostChecks(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--host", "ws://127.0.0.1:1/", "--host", "ws://agents.example.com/"}, "--insecure"},
		{[]string{"--host", "ws://127.0.0.1:1/", "--host", "ws://127.0.0.1:2/", "--connection-token-file", "/x"}, "--connection-token-file"},
		{[]string{"--demo-hosts", "2", "--demo-other-host"}, "--demo-other-host"},
		{[]string{"--demo-hosts", "99"}, "--demo-hosts"},
	} {
		if _, err := parseFlags(tc.args, io.Discard); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want an error naming %s", tc.args, err, tc.want)
		}
	}
	o, err := parseFlags([]string{"--host", "ws://127.0.0.1:1/", "--host", "ws://127.0.0.1:1/?tkn=x"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if ts, err := multiTargets(o); err != nil || len(ts) != 1 {
		t.Errorf("one host named twice gave %d targets (%v)", len(ts), err)
	}
}

// TestDemoHosts: --demo-hosts N with --host mixes them (multi); one
// demo host alone is --demo.
func TestDemoHosts(t *testing.T) {
	o, err := parseFlags([]string{"--demo-hosts", "3", "--host", "ws://127.0.0.1:9/"}, io.Discard)
	if err != nil || !o.multi() || o.demoHosts != 3 {
		t.Fatalf("%+v, %v", o, err)
	}
	o, err = parseFlags([]string{"--demo-hosts", "1"}, io.Discard)
	if err != nil || o.multi() || !o.demo {
		t.Fatalf("--demo-hosts 1: %+v, %v", o, err)
	}
}
