package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSignalNotifyEnabled(t *testing.T) {
	cases := []struct {
		name     string
		file     string // "" for no file
		noNotify bool
		want     bool
		notice   string
	}{
		{"no file", "", false, true, ""},
		{"flag off", "", true, false, ""},
		{"file off", `{"notify": false}`, false, false, ""},
		{"file on", `{"notify": true}`, false, true, ""},
		{"file without the setting", `{}`, false, true, ""},
		{"flag wins over file on", `{"notify": true}`, true, false, ""},
		{"bad JSON keeps on and says so", `{"notify": fals`, false, true, "ignored"},
		{"wrong type keeps on and says so", `{"notify": "no"}`, false, true, "ignored"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.file != "" {
				if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(tc.file), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			on, notice := notifyEnabled(tc.noNotify, dir)
			if on != tc.want || (tc.notice == "") != (notice == "") || !strings.Contains(notice, tc.notice) {
				t.Errorf("notifyEnabled = %v, %q; want %v, notice containing %q", on, notice, tc.want, tc.notice)
			}
		})
	}
	o, err := parseFlags([]string{"--no-notify"}, nil)
	if err != nil || !o.noNotify {
		t.Errorf("--no-notify: %+v, %v", o.noNotify, err)
	}
}
