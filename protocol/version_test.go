package protocol

import (
	"strings"
	"testing"
)

func TestWireOf(t *testing.T) {
	tests := []struct {
		version string
		want    Wire
	}{
		{"1.0.0", Wire10},
		{"1.3.7", Wire10},
		{"0.10.0", Wire10}, // VS Code's number for the 1.0 wire
		{"0.9.0", Wire10},
		{"0.9.4", Wire10},
		{"0.6.0", Wire06},
		{"0.6.2", Wire06},
		{"0.7.0", Wire07},
		{"0.7.3", Wire07},
		{"0.8.0", Wire08}, // VS Code 1.133 and 1.134
		{"0.8.1", Wire08},
		{"0.5.2", WireUnknown},
		{"2.0.0", WireUnknown},
		{"1.0", WireUnknown},
		{"1.0.0-rc.1", WireUnknown},
		{"01.0.0", WireUnknown},
		{"", WireUnknown},
	}
	for _, tt := range tests {
		if got := WireOf(tt.version); got != tt.want {
			t.Errorf("WireOf(%q) = %v, want %v", tt.version, got, tt.want)
		}
	}
}

func TestProtocolVersionsFor(t *testing.T) {
	if got := strings.Join(ProtocolVersionsFor(Wire10, Wire06), ","); got != "1.0.0,0.10.0,0.9.0,0.6.0" {
		t.Errorf("two wires offer %s", got)
	}
	if got := strings.Join(ProtocolVersionsFor(Wire06, Wire07, Wire08, Wire10), ","); got != "1.0.0,0.10.0,0.9.0,0.8.0,0.7.0,0.6.0" {
		t.Errorf("every wire offers %s, newest first whatever the order asked", got)
	}
	if got := strings.Join(ProtocolVersionsFor(Wire06), ","); got != "0.6.0" {
		t.Errorf("0.6 alone offers %s", got)
	}
}

func TestParseVersion(t *testing.T) {
	good := map[string]Version{"0.6.0": {0, 6, 0}, "1.10.2": {1, 10, 2}, "0.0.0": {}}
	for in, want := range good {
		if got, err := ParseVersion(in); err != nil || got != want {
			t.Errorf("ParseVersion(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "1", "1.0", "1.0.0.0", "01.0.0", "1.00.0", "1.0.0-beta", "1.0.0+build", "v1.0.0", "a.b.c", "1.-1.0", "1.0.99999999999999999999"} {
		if v, err := ParseVersion(in); err == nil {
			t.Errorf("ParseVersion(%q) = %v, want an error", in, v)
		}
	}
}

func TestVersionRangeContains(t *testing.T) {
	tests := []struct {
		rng    string
		in     []string
		out    []string
		bounds string
	}{
		{"^1.0.0", []string{"1.0.0", "1.9.3"}, []string{"0.9.0", "2.0.0", "0.10.0"}, ">=1.0.0 <2.0.0"},
		{"^0.2.0", []string{"0.2.0", "0.2.9"}, []string{"0.3.0", "0.1.9", "1.0.0"}, ">=0.2.0 <0.3.0"},
		{"^0.0.3", []string{"0.0.3"}, []string{"0.0.4", "0.0.2"}, ">=0.0.3 <0.0.4"},
		{"^0.10.0", []string{"0.10.0", "0.10.5"}, []string{"0.9.0", "1.0.0", "0.11.0"}, ">=0.10.0 <0.11.0"},
		{"~0.9.0", []string{"0.9.0", "0.9.7"}, []string{"0.10.0", "0.8.9"}, ">=0.9.0 <0.10.0"},
		{"~1", []string{"1.0.0", "1.5.0"}, []string{"2.0.0"}, ">=1.0.0 <2.0.0"},
		{">=0.1.0 <0.3.0", []string{"0.1.0", "0.2.9"}, []string{"0.3.0", "0.0.9"}, ">=0.1.0 <0.3.0"},
		{">0.6.0 <=0.6.2", []string{"0.6.1", "0.6.2"}, []string{"0.6.0", "0.6.3"}, ">0.6.0 <=0.6.2"},
		{"0.6.0", []string{"0.6.0"}, []string{"0.6.1"}, "0.6.0"},
		{"=0.6.0", []string{"0.6.0"}, []string{"0.6.1"}, "0.6.0"},
		{"0.6.x", []string{"0.6.0", "0.6.9"}, []string{"0.7.0"}, ">=0.6.0 <0.7.0"},
		{"1.*", []string{"1.0.0", "1.4.4"}, []string{"2.0.0", "0.9.0"}, ">=1.0.0 <2.0.0"},
		{"*", []string{"0.0.1", "9.9.9"}, nil, "any"},
		{"<=0.9", []string{"0.9.7"}, []string{"0.10.0"}, "<0.10.0"},
		{"0.6.0 - 0.9.0", []string{"0.6.0", "0.9.0"}, []string{"0.9.1", "0.5.9"}, ">=0.6.0 <=0.9.0"},
		{"^1.0.0 || ~0.9.0", []string{"1.2.0", "0.9.1"}, []string{"0.10.0", "0.6.0"}, ">=1.0.0 <2.0.0 || >=0.9.0 <0.10.0"},
	}
	for _, tt := range tests {
		r, err := ParseVersionRange(tt.rng)
		if err != nil {
			t.Errorf("ParseVersionRange(%q): %v", tt.rng, err)
			continue
		}
		if r.Bounds() != tt.bounds {
			t.Errorf("%q.Bounds() = %q, want %q", tt.rng, r.Bounds(), tt.bounds)
		}
		for _, v := range tt.in {
			if !r.Contains(mustVersion(t, v)) {
				t.Errorf("%q should contain %s", tt.rng, v)
			}
		}
		for _, v := range tt.out {
			if r.Contains(mustVersion(t, v)) {
				t.Errorf("%q should not contain %s", tt.rng, v)
			}
		}
	}
	for _, bad := range []string{"", "^", "^x.1", "1.0.0-beta", "garbage", "1.x.2", "||", "^01.0.0"} {
		if r, err := ParseVersionRange(bad); err == nil {
			t.Errorf("ParseVersionRange(%q) = %v, want an error", bad, r.Bounds())
		}
	}
}

func mustVersion(t *testing.T, s string) Version {
	t.Helper()
	v, err := ParseVersion(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestNegotiateProtocolVersion(t *testing.T) {
	ranges := func(rs ...string) []VersionRange {
		var out []VersionRange
		for _, s := range rs {
			r, err := ParseVersionRange(s)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, r)
		}
		return out
	}
	current := ranges("^1.0.0", "~0.9.0")
	vscode := ranges("^0.10.0")
	ahptui := []string{"1.0.0", "0.10.0", "0.9.0", "0.8.0", "0.7.0", "0.6.0"}
	tests := []struct {
		name     string
		offered  []string
		accepted []VersionRange
		want     string
		ok       bool
		err      bool
	}{
		{"current host picks 1.0.0", ahptui, current, "1.0.0", true, false},
		{"highest wins whatever the order", []string{"0.6.0", "0.9.0", "1.0.0"}, current, "1.0.0", true, false},
		{"VS Code picks 0.10.0", ahptui, vscode, "0.10.0", true, false},
		{"0.9 host", ahptui, ranges("~0.9.0"), "0.9.0", true, false},
		{"0.6 host", ahptui, ranges("^0.6.0"), "0.6.0", true, false},
		{"VS Code 1.133/1.134 host picks 0.8.0", ahptui, ranges("^0.8.0"), "0.8.0", true, false},
		{"0.7 host", ahptui, ranges("0.7.0"), "0.7.0", true, false},
		{"0.6-only client refused", []string{"0.6.0"}, current, "", false, false},
		{"exact entry returned", []string{"1.2.3"}, current, "1.2.3", true, false},
		{"malformed offer", []string{"1.0.0", "1.0"}, current, "", false, true},
		{"prerelease offer", []string{"1.1.0-rc.1"}, current, "", false, true},
		{"nothing offered", nil, current, "", false, false},
	}
	for _, tt := range tests {
		got, ok, err := NegotiateProtocolVersion(tt.offered, tt.accepted)
		if (err != nil) != tt.err || ok != tt.ok || got != tt.want {
			t.Errorf("%s: got %q, %v, %v; want %q, %v, error %v", tt.name, got, ok, err, tt.want, tt.ok, tt.err)
		}
	}
}
