package app

import (
	"io"
	"strings"
	"testing"
)

// TestHostTransport: ws:// leaves the machine only with --insecure;
// wss:// and loopback ws:// need nothing.
func TestHostTransport(t *testing.T) {
	for _, tc := range []struct {
		host     string
		insecure bool
		ok       bool
	}{
		{"ws://127.0.0.1:8080/", false, true},
		{"ws://127.1.2.3:8080/", false, true},
		{"ws://[::1]:8080/", false, true},
		{"ws://localhost:8080/", false, true},
		{"ws://LOCALHOST./", false, true},
		{"wss://agents.example.com/", false, true},
		{"ws://agents.example.com/", false, false},
		{"WS://agents.example.com/", false, false},
		{"ws://10.0.0.5:8080/", false, false},
		{"ws://192.168.1.2/", false, false},
		{"ws://[fe80::1]/", false, false},
		{"ws://localhost.evil.example/", false, false},
		{"ws://127.0.0.1.nip.io/", false, false},
		{"ws://user:secret@agents.example.com/", false, false},
		{"ws://agents.example.com/", true, true},
		{"ws://10.0.0.5:8080/", true, true},
	} {
		err := checkHostTransport(tc.host, tc.insecure)
		if (err == nil) != tc.ok {
			t.Errorf("checkHostTransport(%q, insecure=%v) = %v, want ok=%v", tc.host, tc.insecure, err, tc.ok)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("the error repeats the URL's password: %v", err)
		}
	}
}

// The check is wired into flag parsing: refused before anything connects.
func TestParseFlagsRefusesPlainRemoteWS(t *testing.T) {
	if _, err := parseFlags([]string{"--host", "ws://agents.example.com/"}, io.Discard); err == nil || !strings.Contains(err.Error(), "--insecure") {
		t.Fatalf("parseFlags: %v", err)
	}
	if _, err := parseFlags([]string{"--host", "ws://agents.example.com/", "--insecure"}, io.Discard); err != nil {
		t.Fatalf("parseFlags with --insecure: %v", err)
	}
}
