package app

import (
	"context"
	"errors"
	"os"

	"github.com/ahptui/ahptui/host/open"
	"github.com/ahptui/ahptui/host/pick"
	"github.com/ahptui/ahptui/ui"
)

// Several hosts in one UI (issue 25): --host repeated, and --demo-hosts N
// for N demo hosts in this process (with --host too). One host keeps the
// single-host path (spec, discovery, --connection-token-file) untouched.

// hostsFlag is --host, repeatable: the first value is options.host (the
// single-host path's), every further one is in moreHosts.
type hostsFlag struct{ o *options }

func (f hostsFlag) String() string {
	if f.o == nil {
		return ""
	}
	return f.o.host
}

func (f hostsFlag) Set(v string) error {
	if f.o.host == "" && len(f.o.moreHosts) == 0 {
		f.o.host = v
		return nil
	}
	f.o.moreHosts = append(f.o.moreHosts, v)
	return nil
}

// multi reports whether o names several hosts.
func (o options) multi() bool {
	return o.allHosts || len(o.moreHosts) > 0 || o.demoHosts > 1 || (o.demoHosts == 1 && o.host != "")
}

// hostValues is every --host value, in the order given.
func (o options) hostValues() []string {
	if o.host == "" {
		return o.moreHosts
	}
	return append([]string{o.host}, o.moreHosts...)
}

// checkMulti checks a command line naming several hosts. Each --host is
// a URL or a saved host's name under the transport rule; a token comes
// only with its own host (the URL's ?tkn= or the saved host's file):
// --connection-token-file and AHPTUI_CONNECTION_TOKEN would send one
// host's token to every other.
func checkMulti(o options) error {
	switch {
	case o.tokenFile != "":
		return errors.New("--connection-token-file names one host's token; with several hosts give each its ?tkn= or save it (ahptui hosts)")
	case o.demoOtherHost:
		return errors.New("--demo-other-host applies to one demo host")
	case o.saved != "":
		return errors.New("give the saved host as --host NAME when naming several hosts")
	case o.demo:
		return errors.New("--demo is one host of its own: use --demo-hosts N with --all-hosts or a second --host")
	case o.demoHosts < 0 || o.demoHosts > 50:
		return errors.New("--demo-hosts takes 1 to 50")
	}
	for _, v := range o.hostValues() {
		sp := pick.Spec{Host: v, Insecure: o.insecure, ConfigDir: o.configDir}
		if err := sp.Normalize(); err != nil {
			return err
		}
		if sp.Host != "" {
			if err := checkHostTransport(sp.Host, o.insecure); err != nil {
				return err
			}
		}
	}
	return nil
}

// multiTargets is every --host, then with --all-hosts every saved host
// and every host VS Code's local registry lists: the CLI's own gathering
// (pick.Gather), one entry per host identity (the path kept, the
// token dropped). Each host's token is its own (its ?tkn=, its saved
// file, its registry entry); AHPTUI_CONNECTION_TOKEN applies to a lone
// --host only.
func multiTargets(o options) ([]pick.Found, error) {
	return pick.Gather(pick.GatherSpec{Hosts: o.hostValues(), Insecure: o.insecure, ConfigDir: o.configDir,
		All: o.allHosts, Getenv: os.Getenv, Registry: pick.RegistryEnv()})
}

// uiHosts is each target as the UI's HostConfig, with its own Connect:
// its own client, reconnect supervisor and negotiated version.
// A host that cannot be dialled (a saved host whose token file is
// unreadable) is still a row, its connect failing with the reason.
func uiHosts(cfgs []pick.Found, run *open.Run) []ui.HostConfig {
	out := make([]ui.HostConfig, len(cfgs))
	for i, c := range cfgs {
		t := c.Target
		connect := connectVia(run, t)
		if err := c.Err; err != nil {
			connect = func(context.Context) (ui.Client, error) { return nil, err }
		}
		out[i] = ui.HostConfig{Host: t.URL, RegistryHost: c.Source == "local", Connect: connect}
	}
	return out
}
