package main

import (
	"runtime/debug"
	"testing"
)

// TestBuildStamp: --version names the module version and the VCS revision
// the toolchain stamped (issue 14 item 10), never a placeholder.
func TestBuildStamp(t *testing.T) {
	const rev = "0123456789abcdef0123456789abcdef01234567"
	info := func(version string, settings ...string) *debug.BuildInfo {
		bi := &debug.BuildInfo{Main: debug.Module{Path: "github.com/ahptui/ahptui", Version: version}}
		for i := 0; i+1 < len(settings); i += 2 {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return bi
	}
	for _, tc := range []struct {
		name     string
		override string
		info     *debug.BuildInfo
		ok       bool
		want     string
	}{
		{"release", "", info("v0.3.0", "vcs.revision", rev, "vcs.modified", "false"), true, "v0.3.0 (rev 0123456789ab)"},
		{"checkout with changes", "", info("(devel)", "vcs.revision", rev, "vcs.modified", "true"), true, "(devel) (rev 0123456789ab, modified)"},
		{"go install from the proxy", "", info("v0.3.1"), true, "v0.3.1"},
		{"unstamped", "", info(""), true, "(devel)"},
		{"no build info", "", nil, false, "(devel)"},
		{"ldflags override", "v9.9.9", info("(devel)", "vcs.revision", "abc"), true, "v9.9.9 (rev abc)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := stampOf(tc.override, tc.info, tc.ok).String(); got != tc.want {
				t.Errorf("stamp = %q, want %q", got, tc.want)
			}
		})
	}
}
