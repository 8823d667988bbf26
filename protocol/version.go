package protocol

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Version negotiation (AHP versioning.md; DELTA §1). The client offers exact
// versions; a 1.0-era host answers with the highest offered entry inside its
// caret ranges (whatever the offer order) or refuses with -32005, whose
// supportedVersions may hold exact versions or SemVer ranges. These helpers
// are pure so the demo host negotiates with the same rules it is tested by.

// Wire is the shape of the traffic a negotiated version implies. Several
// version numbers share one wire: VS Code 0.10.x and upstream 0.9.x hosts
// send 1.0 shapes (DELTA §1.3–1.4), so the number is a label and the wire is
// what decoders and reducers switch on.
type Wire int

const (
	// WireUnknown: a version this client has no decoder for.
	WireUnknown Wire = iota
	// Wire06: AHP 0.6.x, the shapes of ../shared/ahp.
	Wire06
	// Wire07: AHP 0.7.x, the shapes of ../shared/ahp-0.7.0.
	Wire07
	// Wire08: AHP 0.8.x (VS Code 1.133 and 1.134 hosts): 0.7 with the
	// 0.8 changes of DELTA (customization enablement, auth/required
	// metadata).
	Wire08
	// Wire10: AHP 1.x, and the 0.9.x and VS Code 0.10.x numbers for the
	// same wire.
	Wire10
)

// The wires are ordered oldest first, so w < Wire10 reads "older than
// 1.0" (WireUnknown aside).

func (w Wire) String() string {
	switch w {
	case Wire06:
		return "0.6"
	case Wire07:
		return "0.7"
	case Wire08:
		return "0.8"
	case Wire10:
		return "1.0"
	}
	return "unknown"
}

// WireOf maps a negotiated version to its wire; a malformed or unknown
// version is WireUnknown.
func WireOf(version string) Wire {
	v, err := ParseVersion(version)
	if err != nil {
		return WireUnknown
	}
	switch {
	case v.Major == 1:
		return Wire10
	case v.Major == 0 && (v.Minor == 9 || v.Minor == 10):
		return Wire10
	case v.Major == 0 && v.Minor == 8:
		return Wire08
	case v.Major == 0 && v.Minor == 7:
		return Wire07
	case v.Major == 0 && v.Minor == 6:
		return Wire06
	}
	return WireUnknown
}

// ProtocolVersionsFor lists, most preferred first, the versions to offer for
// the wires this build decodes. The order matters only to 0.6-era hosts
// (they SHOULD honour it); 1.0-era hosts take the highest they accept.
func ProtocolVersionsFor(wires ...Wire) []string {
	var out []string
	for _, v := range []struct {
		version string
		wire    Wire
	}{{"1.0.0", Wire10}, {"0.10.0", Wire10}, {"0.9.0", Wire10}, {"0.8.0", Wire08}, {"0.7.0", Wire07}, {"0.6.0", Wire06}} {
		for _, w := range wires {
			if w == v.wire {
				out = append(out, v.version)
			}
		}
	}
	return out
}

// Version is a SemVer core version (major.minor.patch). Prerelease and
// build metadata are refused: the spec's negotiation treats them as
// malformed.
type Version struct{ Major, Minor, Patch uint64 }

func (v Version) String() string { return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch) }

// Compare returns -1, 0 or +1 as v is lower than, equal to or higher than w.
func (v Version) Compare(w Version) int {
	for _, d := range [3][2]uint64{{v.Major, w.Major}, {v.Minor, w.Minor}, {v.Patch, w.Patch}} {
		if d[0] != d[1] {
			if d[0] < d[1] {
				return -1
			}
			return 1
		}
	}
	return 0
}

// errMalformedVersion is wrapped by every version and range parse error.
var errMalformedVersion = errors.New("not a SemVer version (major.minor.patch, no leading zeros, no prerelease or build)")

// ParseVersion reads an exact major.minor.patch version.
func ParseVersion(s string) (Version, error) {
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return Version{}, fmt.Errorf("version %q: %w", s, errMalformedVersion)
	}
	var n [3]uint64
	for i, p := range parts {
		x, ok := semverNumber(p)
		if !ok {
			return Version{}, fmt.Errorf("version %q: %w", s, errMalformedVersion)
		}
		n[i] = x
	}
	return Version{n[0], n[1], n[2]}, nil
}

// semverNumber reads one numeric identifier: digits, no leading zero.
func semverNumber(p string) (uint64, bool) {
	if p == "" || (len(p) > 1 && p[0] == '0') {
		return 0, false
	}
	for _, r := range p {
		if r < '0' || r > '9' {
			return 0, false
		}
	}
	x, err := strconv.ParseUint(p, 10, 64)
	return x, err == nil
}

// VersionRange is a SemVer range as node-semver spells it (what the spec's
// hosts publish): `||`-separated sets of space-separated comparators, each
// a primitive (`>=1.0.0`, `<2.0.0`, `=1.2.3`, `1.2.3`), a caret (`^0.9.0`),
// a tilde (`~0.9.0`), an x-range (`1.x`, `0.9.*`, `*`) or a hyphen range
// (`0.6.0 - 0.9.0`).
type VersionRange struct {
	text string
	sets [][]comparator // OR of ANDs
}

// comparator is one bound; op is one of "<", "<=", ">", ">=", "=".
type comparator struct {
	op string
	v  Version
}

func (c comparator) holds(v Version) bool {
	d := v.Compare(c.v)
	switch c.op {
	case "<":
		return d < 0
	case "<=":
		return d <= 0
	case ">":
		return d > 0
	case ">=":
		return d >= 0
	}
	return d == 0
}

func (r VersionRange) String() string { return r.text }

// Contains reports whether v satisfies the range.
func (r VersionRange) Contains(v Version) bool {
	for _, set := range r.sets {
		ok := true
		for _, c := range set {
			if !c.holds(v) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// Bounds renders the range as plain comparators (`>=0.9.0 <0.10.0`), the
// form a user can read without knowing caret and tilde rules.
func (r VersionRange) Bounds() string {
	sets := make([]string, len(r.sets))
	for i, set := range r.sets {
		cs := make([]string, len(set))
		for j, c := range set {
			op := c.op
			if op == "=" {
				op = ""
			}
			cs[j] = op + c.v.String()
		}
		if len(cs) == 0 {
			cs = []string{"any"}
		}
		sets[i] = strings.Join(cs, " ")
	}
	return strings.Join(sets, " || ")
}

// ParseVersionRange reads a range; an exact version is a range of one.
func ParseVersionRange(s string) (VersionRange, error) {
	r := VersionRange{text: s}
	for _, alt := range strings.Split(s, "||") {
		fields := strings.Fields(alt)
		var set []comparator
		if len(fields) == 3 && fields[1] == "-" {
			lo, err := parsePartial(fields[0])
			if err != nil {
				return VersionRange{}, fmt.Errorf("range %q: %w", s, err)
			}
			hi, err := parsePartial(fields[2])
			if err != nil {
				return VersionRange{}, fmt.Errorf("range %q: %w", s, err)
			}
			set = append(set, comparator{">=", lo.floor()})
			if hi.n > 0 {
				set = append(set, hi.upper(true))
			}
			r.sets = append(r.sets, set)
			continue
		}
		if len(fields) == 0 {
			return VersionRange{}, fmt.Errorf("range %q: empty alternative: %w", s, errMalformedVersion)
		}
		for _, f := range fields {
			cs, err := parseComparator(f)
			if err != nil {
				return VersionRange{}, fmt.Errorf("range %q: %w", s, err)
			}
			set = append(set, cs...)
		}
		r.sets = append(r.sets, set)
	}
	return r, nil
}

// partial is a version with n (0–3) leading numbers given; the rest are
// wildcards (`1`, `1.2`, `1.x`, `*`).
type partial struct {
	v Version
	n int
}

func (p partial) floor() Version { return p.v }

// upper is the comparator just above the wildcard span: 1.2 → <1.3.0.
// With inclusive and a full version it is <=v (hyphen ranges).
func (p partial) upper(inclusive bool) comparator {
	switch p.n {
	case 1:
		return comparator{"<", Version{p.v.Major + 1, 0, 0}}
	case 2:
		return comparator{"<", Version{p.v.Major, p.v.Minor + 1, 0}}
	}
	if inclusive {
		return comparator{"<=", p.v}
	}
	return comparator{"=", p.v}
}

func parsePartial(s string) (partial, error) {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "v"), "=")
	parts := strings.Split(s, ".")
	if len(parts) > 3 {
		return partial{}, fmt.Errorf("%q: %w", s, errMalformedVersion)
	}
	var p partial
	nums := [3]*uint64{&p.v.Major, &p.v.Minor, &p.v.Patch}
	wild := false
	for i, part := range parts {
		if part == "x" || part == "X" || part == "*" {
			wild = true
			continue
		}
		if wild {
			return partial{}, fmt.Errorf("%q: a number after a wildcard: %w", s, errMalformedVersion)
		}
		x, ok := semverNumber(part)
		if !ok {
			return partial{}, fmt.Errorf("%q: %w", s, errMalformedVersion)
		}
		*nums[i] = x
		p.n = i + 1
	}
	return p, nil
}

// parseComparator expands one space-free token into primitive comparators.
func parseComparator(f string) ([]comparator, error) {
	for _, op := range []string{">=", "<=", ">", "<"} {
		if rest, ok := strings.CutPrefix(f, op); ok {
			p, err := parsePartial(rest)
			if err != nil {
				return nil, err
			}
			if p.n < 3 && (op == "<=" || op == ">") {
				// <=1.2 means <1.3.0; >1.2 means >=1.3.0.
				u := p.upper(false)
				if op == ">" {
					return []comparator{{">=", u.v}}, nil
				}
				return []comparator{u}, nil
			}
			return []comparator{{op, p.v}}, nil
		}
	}
	switch {
	case strings.HasPrefix(f, "^"):
		p, err := parsePartial(f[1:])
		if err != nil {
			return nil, err
		}
		if p.n == 0 {
			return nil, nil
		}
		v := p.v
		var hi Version
		switch {
		case v.Major > 0 || p.n == 1:
			hi = Version{v.Major + 1, 0, 0}
		case v.Minor > 0 || p.n == 2:
			hi = Version{0, v.Minor + 1, 0}
		default:
			hi = Version{0, 0, v.Patch + 1}
		}
		return []comparator{{">=", v}, {"<", hi}}, nil
	case strings.HasPrefix(f, "~"):
		p, err := parsePartial(strings.TrimPrefix(f[1:], ">"))
		if err != nil {
			return nil, err
		}
		if p.n == 0 {
			return nil, nil
		}
		hi := Version{p.v.Major, p.v.Minor + 1, 0}
		if p.n == 1 {
			hi = Version{p.v.Major + 1, 0, 0}
		}
		return []comparator{{">=", p.v}, {"<", hi}}, nil
	}
	p, err := parsePartial(f)
	if err != nil {
		return nil, err
	}
	switch p.n {
	case 0:
		return nil, nil
	case 3:
		return []comparator{{"=", p.v}}, nil
	}
	return []comparator{{">=", p.v}, p.upper(false)}, nil
}

// NegotiateProtocolVersion applies the 1.0 rule: of the offered entries,
// the highest version inside any accepted range, returned exactly as
// offered. ok is false when none fits (the host answers -32005). A
// malformed offered entry is an error (the host answers InvalidParams).
func NegotiateProtocolVersion(offered []string, accepted []VersionRange) (chosen string, ok bool, err error) {
	var best Version
	for _, o := range offered {
		v, err := ParseVersion(o)
		if err != nil {
			return "", false, fmt.Errorf("protocolVersions: %w", err)
		}
		for _, r := range accepted {
			if r.Contains(v) && (!ok || v.Compare(best) > 0) {
				chosen, best, ok = o, v, true
			}
		}
	}
	return chosen, ok, nil
}
