package main

import (
	"runtime/debug"
)

// version, when set at build time with -ldflags "-X main.version=v1.2.3",
// overrides the module version from the build info (a binary built outside
// module mode has none).
var version string

// buildStamp is what the Go toolchain stamped into the binary: the module
// version ("v0.3.0", or "(devel)" for a build from a checkout) and the VCS
// revision it was built from.
type buildStamp struct {
	Version  string
	Revision string // "" when the build was not from a VCS checkout (go run, tests)
	Modified bool   // the checkout had uncommitted changes
}

// stampOf reads a stamp from the build info, override (main.version) first.
func stampOf(override string, info *debug.BuildInfo, ok bool) buildStamp {
	var s buildStamp
	if ok {
		s.Version = info.Main.Version
		for _, kv := range info.Settings {
			switch kv.Key {
			case "vcs.revision":
				s.Revision = kv.Value
			case "vcs.modified":
				s.Modified = kv.Value == "true"
			}
		}
	}
	if override != "" {
		s.Version = override
	}
	if s.Version == "" {
		s.Version = "(devel)"
	}
	return s
}

// String is the --version line after "ahptui ": "v0.3.0 (rev 0123456789ab)"
// or "(devel) (rev 0123456789ab, modified)"; the revision is cut to 12
// digits, as `go version -m` and most tools show it.
func (s buildStamp) String() string {
	if s.Revision == "" {
		return s.Version
	}
	rev := s.Revision
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if s.Modified {
		rev += ", modified"
	}
	return s.Version + " (rev " + rev + ")"
}

// appStamp is this binary's stamp.
func appStamp() buildStamp {
	info, ok := debug.ReadBuildInfo()
	return stampOf(version, info, ok)
}
