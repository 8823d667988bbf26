package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/ahptui/ahptui/authpkce"
	"github.com/ahptui/ahptui/host/dial"
	"github.com/ahptui/ahptui/host/fleet"
	"github.com/ahptui/ahptui/host/open"
	"github.com/ahptui/ahptui/host/pick"
	"github.com/ahptui/ahptui/host/registry"
	"github.com/ahptui/ahptui/protocol/client"
)

// multiHostAnnotation marks the commands that take several hosts
// (status, watch, inbox): --all-hosts, and --host more than once.
const multiHostAnnotation = "multi-host"

// multiHost: this run is on several hosts — --all-hosts, or --host
// given more than once.
func (a *app) multiHost() bool { return a.allHosts || len(a.hosts) > 1 }

// checkHosts is the global host flags' rule, before any command runs: one
// --host except where a command takes several, and --all-hosts only there.
func (a *app) checkHosts(multi bool) error {
	if len(a.hosts) == 1 {
		a.host = a.hosts[0]
	}
	switch {
	case !multi && a.allHosts:
		return usagef("--all-hosts applies to status, watch and inbox")
	case !multi && len(a.hosts) > 1:
		return usagef("--host given %d times: only status, watch and inbox take several hosts", len(a.hosts))
	case a.multiHost() && a.demo:
		return usagef("--demo is one host of its own: give it without --all-hosts or a second --host")
	case len(a.hosts) > 1 && a.tokenFile != "":
		return usagef("--connection-token-file with several --host: put each host's token in its URL (?tkn=), the environment or a saved host's file")
	}
	return nil
}

// hostConfigs are the hosts of a multi-host run (pick.Gather, which
// the UI's --all-hosts shares): each --host as given, then (with
// --all-hosts) the saved hosts by name and the hosts VS Code's local
// registry lists. A --host that is no URL nor saved name is a usage
// error; a saved or local host that cannot be dialled is a failed row,
// with its reason.
func (a *app) hostConfigs() ([]fleet.Config, error) {
	found, err := pick.Gather(pick.GatherSpec{Hosts: a.hosts, TokenFile: a.tokenFile, Insecure: a.insecure,
		ConfigDir: a.configDir, All: a.allHosts, Getenv: a.Getenv, Registry: a.registryEnv()})
	var fe *pick.HostFlagError
	if errors.As(err, &fe) {
		return nil, withCode(ExitUsage, fe.Err)
	}
	out := make([]fleet.Config, len(found))
	for i, f := range found {
		out[i] = fleet.Config(f)
	}
	return out, err
}

// registryEnv is where VS Code's registry is read: the command's own
// environment (a test's, or the process's).
func (a *app) registryEnv() registry.Env {
	home := a.Getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return registry.Env{GOOS: runtime.GOOS, Getenv: a.Getenv, Home: home}
}

// hostSet is a multi-host run's hosts, connected: the registry, and a
// conn for each host that connected (nil for the others).
type hostSet struct {
	reg     *fleet.Registry
	conns   []*conn
	release func()
}

func (s *hostSet) Close() {
	s.reg.Close()
	s.release()
}

// dialAll registers every host of the run and connects them at once, each
// within min(--timeout, one attempt's bound): a host that fails is a row
// with its reason, the others go on.
func (a *app) dialAll(ctx context.Context) (*hostSet, error) {
	cfgs, err := a.hostConfigs()
	if err != nil {
		return nil, err
	}
	if len(cfgs) == 0 {
		return nil, withCode(ExitUnreachable, open.ErrNoHosts)
	}
	// One client id for every host: the registry connects each host
	// once, so no host sees the id on two connections. --trace: one file
	// for every host, each line naming its host (its label, as the rows
	// name it, and token-free URL).
	run, err := a.open()
	if err != nil {
		return nil, err
	}
	labels := map[string]string{}
	for _, c := range cfgs {
		labels[c.Target.URL] = c.Label
	}
	reg := fleet.New(cfgs, fleet.Options{
		ClientOptions: func(t dial.Target) client.Options { return run.Options(t, labels[t.URL]) },
		Timeout:       min(a.timeout, dial.AttemptTimeout),
	})
	reg.Connect(ctx)
	auth, _ := authpkce.New(authpkce.Config{Dir: run.Dir, TokenStore: a.tokenStoreOr()})
	set := &hostSet{reg: reg, release: run.Close, conns: make([]*conn, len(reg.Hosts()))}
	for i, h := range reg.Hosts() {
		if c := h.Client(); c != nil {
			set.conns[i] = &conn{Client: c, host: h.URL, name: h.Label, release: func() {}, auth: auth, pushed: map[string]bool{},
				source: foundOf(h.Source), allowSaved: a.allowSaved, warn: a.Stderr}
		}
	}
	return set, nil
}

// hostJSON is one host's row (status and inbox, one host or several):
// the host, its state, and why it failed.
type hostJSON struct {
	Host    hostRef `json:"host"`
	State   string  `json:"state"` // connected, connecting, refused, failed
	Attempt int     `json:"attempt,omitempty"`
	Error   string  `json:"error,omitempty"`
	// Kind is the error's exit kind (unreachable, version, ...), as a
	// command's --json error names it.
	Kind string `json:"kind,omitempty"`
	// short is the error in a few words, for text output's header.
	short string
}

// shortReason is a failed host's error in a few words: a dial error's
// kind first phrase (connection refused, HTTP 403: ...), else the
// error's first line without the "connect to URL" the row already says.
func shortReason(err error, url string) string {
	var de *dial.DialError
	if errors.As(err, &de) {
		return de.Short()
	}
	return firstLine(strings.TrimPrefix(err.Error(), "connect to "+url+": "))
}

func hostRowOf(h *fleet.Host, err error) hostJSON {
	s := h.State()
	j := hostJSON{Host: *refOf(h), State: string(s.Kind), Attempt: s.Attempt}
	if err == nil && s.Kind != fleet.Connected {
		err = s.Err
		if err == nil {
			err = errors.New(string(s.Kind))
		}
	}
	if err != nil {
		if j.State == string(fleet.Connected) {
			j.State = string(fleet.Failed)
		}
		// The row names the host: its error need not say it again.
		msg := strings.TrimPrefix(err.Error(), "connect to "+h.URL+": ")
		j.Error, j.Kind, j.short = hostText(msg), exitKinds[hostExit(err)], hostText(shortReason(err, h.URL))
	}
	return j
}

// hostExit is a failed host's exit code: what the same failure would exit
// with on a single host, unreachable where it names nothing else.
func hostExit(err error) int {
	if code := exitCode(err); code != ExitFailure {
		return code
	}
	return ExitUnreachable
}

// eachHost runs f on every connected host at once, each within --timeout
// of its own, and returns each host's error (nil for a host f served; the
// connect error for one that did not connect).
func (a *app) eachHost(ctx context.Context, set *hostSet, f func(ctx context.Context, i int, c *conn) error) []error {
	errs := make([]error, len(set.conns))
	var wg sync.WaitGroup
	for i, c := range set.conns {
		if c == nil {
			h := set.reg.Hosts()[i]
			errs[i] = h.State().Err
			if errs[i] == nil {
				errs[i] = errors.New(string(h.State().Kind))
			}
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			hctx, cancel := context.WithTimeout(ctx, a.timeout)
			defer cancel()
			c.pushSaved(hctx, nil)
			errs[i] = f(hctx, i, c)
		}()
	}
	wg.Wait()
	return errs
}

// hostsFailed is the run's error when any host failed: the first failed
// host's exit code (config order), naming every failed host; nil when
// none did. What the others gave is printed all the same.
func hostsFailed(set *hostSet, errs []error) error {
	var names []string
	code := ExitOK
	for i, err := range errs {
		if err == nil {
			continue
		}
		if code == ExitOK {
			code = hostExit(err)
		}
		h := set.reg.Hosts()[i]
		names = append(names, h.Display()+" ("+hostText(shortReason(err, h.URL))+")")
	}
	if code == ExitOK {
		return nil
	}
	return withCode(code, fmt.Errorf("%d of %d hosts failed: %s", len(names), len(errs), strings.Join(names, "; ")))
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// hostFlagsOf are the flags that reach host h again from a printed
// command: --host with its saved name, else its token-free URL (a host
// VS Code's registry lists too: the command finds it again by its URL
// even when the registry lists several).
func hostFlagsOf(h *fleet.Host) []string {
	if h.Label != "" && (h.Source == "saved" || h.Source == "flag") {
		return []string{"--host", h.Label}
	}
	return []string{"--host", h.URL}
}

// groupHeader is a host's line above its rows in text output.
func (a *app) groupHeader(w io.Writer, row hostJSON) {
	state := row.State
	if row.short != "" {
		state += ": " + row.short
	} else if row.Error != "" {
		state += ": " + row.Error
	}
	color := sgrGreen
	if row.State != string(fleet.Connected) {
		color = sgrRed
	}
	fmt.Fprintf(w, "%s  %s\n", a.paint(sgrBold, hostText(row.Host.display())), a.paint(color, state))
}

// multiHostCmd marks cmd as one that runs on several hosts and gives it
// --all-hosts.
func multiHostCmd(a *app, cmd *cobra.Command) *cobra.Command {
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[multiHostAnnotation] = "yes"
	cmd.Flags().BoolVar(&a.allHosts, "all-hosts", false, "every --host, saved host and host VS Code's registry lists, at once")
	return cmd
}
