package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestRunFlags(t *testing.T) {
	for _, tc := range []struct {
		name     string
		args     []string
		code     int
		stdout   []string
		stderr   []string
		noStdout bool
	}{
		{name: "neither mode", args: nil, code: 2, stderr: []string{"exactly one of --host", "--demo"}, noStdout: true},
		{name: "both modes", args: []string{"--demo", "--host", "ws://127.0.0.1:1/"}, code: 2, stderr: []string{"exactly one of --host"}, noStdout: true},
		{name: "stray argument", args: []string{"--demo", "extra"}, code: 2, stderr: []string{`unexpected argument "extra"`}},
		{name: "unknown flag", args: []string{"--bogus"}, code: 2, stderr: []string{"flag provided but not defined"}},
		{name: "help", args: []string{"--help"}, code: 0, stdout: []string{"ahptui --host ws://", "ahptui --demo", "--no-browser", "--config-dir", "--log FILE", "--version", "Examples:"}},
		{name: "version", args: []string{"--version"}, code: 0, stdout: []string{"ahptui dev"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := run(tc.args, &out, &errb); code != tc.code {
				t.Fatalf("exit code %d, want %d (stderr %q)", code, tc.code, errb.String())
			}
			for _, w := range tc.stdout {
				if !strings.Contains(out.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, out.String())
				}
			}
			for _, w := range tc.stderr {
				if !strings.Contains(errb.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, errb.String())
				}
			}
			if tc.noStdout && out.Len() > 0 {
				t.Errorf("stdout should be empty, got %q", out.String())
			}
		})
	}
}
