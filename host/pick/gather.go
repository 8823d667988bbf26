package pick

import (
	"fmt"
	"io"
	"strings"

	"github.com/ahptui/ahptui/authpkce"
	"github.com/ahptui/ahptui/host/dial"
	"github.com/ahptui/ahptui/host/registry"
	"github.com/ahptui/ahptui/host/saved"
	"github.com/ahptui/ahptui/views"
)

// GatherSpec names the hosts of a run on several hosts: the CLI's
// status, watch and inbox, and the UI's.
type GatherSpec struct {
	// Hosts is every --host value, in the order given: URLs or saved
	// hosts' names.
	Hosts []string
	// TokenFile is --connection-token-file; it applies with one --host
	// only (it holds one host's token).
	TokenFile string
	Insecure  bool
	ConfigDir string
	// All is --all-hosts: the saved hosts and VS Code's local registry's
	// hosts too.
	All bool
	// Getenv reads AHPTUI_CONNECTION_TOKEN, for one --host only: with
	// several, one variable would send one host's token to every other.
	Getenv func(string) string
	// Registry is where VS Code's registry is read (All only).
	Registry registry.Env
}

// Found is one host Gather found; its fields are fleet.Config's, so
// fleet.Config(f) converts it (fleet's tests import host/pick, so host/pick
// cannot import hosts).
type Found struct {
	// Target is where to dial (its URL is token-free).
	Target dial.Target
	// Label names the host for people: a saved host's name, a local
	// host's description.
	Label string
	// Source is where it came from: "flag", "saved", "local".
	Source string
	// Err is why it cannot be dialled (a saved host's token file
	// unreadable, say).
	Err error
}

// Identity is the identity of the host at url: authpkce.HostID (scheme,
// host and port normalised, the path kept, the query with its token
// dropped) — the one sign-ins are bound to — else url itself.
func Identity(url string) string {
	if id, err := authpkce.HostID(url); err == nil {
		return id
	}
	return url
}

// HostFlagError is a --host that is neither a URL nor a saved host's
// name, or that breaks the transport rule: a usage error.
type HostFlagError struct{ Err error }

func (e *HostFlagError) Error() string { return e.Err.Error() }
func (e *HostFlagError) Unwrap() error { return e.Err }

// Gather is the hosts s names, in this order: each --host as given, then
// (with All) the saved hosts by name and the hosts VS Code's local
// registry lists. A host named twice — by its identity, Identity:
// the path kept, the token dropped — is one, the first kept: two entries
// would dial one host twice with one client id. A saved or local host
// that cannot be dialled is kept with its reason (Config.Err).
func Gather(s GatherSpec) ([]Found, error) {
	var out []Found
	getenv := s.Getenv
	if getenv == nil || len(s.Hosts) != 1 {
		getenv = func(string) string { return "" }
	}
	for _, v := range s.Hosts {
		sp := Spec{Host: v, Insecure: s.Insecure, ConfigDir: s.ConfigDir}
		if len(s.Hosts) == 1 {
			sp.TokenFile = s.TokenFile
		}
		if err := sp.Normalize(); err != nil {
			return nil, &HostFlagError{err}
		}
		if err := CheckTransport(sp.Host, sp.Insecure); err != nil {
			return nil, &HostFlagError{err}
		}
		t, err := Resolve(sp, getenv, strings.NewReader(""), io.Discard)
		if err != nil {
			return nil, &HostFlagError{err}
		}
		out = append(out, Found{Target: t, Label: t.Name, Source: "flag"})
	}
	if s.All {
		dir, err := ConfigDir(s.ConfigDir)
		if err != nil {
			return nil, err
		}
		saved, err := saved.Load(dir)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrSavedHosts, err)
		}
		for _, h := range saved {
			t, err := SavedTarget(Spec{Saved: h.Name, Insecure: s.Insecure, ConfigDir: s.ConfigDir})
			if err != nil {
				// Named by its URL (hosts.yml holds no token) with the reason.
				t, _ = dial.Parse(h.URL)
			}
			out = append(out, Found{Target: t, Label: h.Name, Source: "saved", Err: err})
		}
		for _, e := range registry.Discover(s.Registry, registry.Alive).Entries {
			label := fmt.Sprintf("local %s pid %d", views.SanitizeLine(e.Type), e.PID)
			out = append(out, Found{Target: RegistryTargetIn(s.Registry, e), Label: label, Source: "local"})
		}
	}
	return Dedupe(out), nil
}

// Dedupe keeps the first entry of each host identity, in order.
func Dedupe(cfgs []Found) []Found {
	seen := map[string]bool{}
	var out []Found
	for _, c := range cfgs {
		id := Identity(c.Target.URL)
		if seen[id] {
			continue
		}
		seen[id] = true
		out = append(out, c)
	}
	return out
}
