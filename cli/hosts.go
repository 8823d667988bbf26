package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/ahptui/ahptui/host/dial"
	"github.com/ahptui/ahptui/host/pick"
	"github.com/ahptui/ahptui/host/registry"
	"github.com/ahptui/ahptui/host/saved"
)

// useDefaultHost is the host of a run that names none: AHPTUI_HOST, else
// the saved default (pick.UseDefault, the UI's rule too). The run
// then names it like a --host, so every printed answer carries it.
func (a *app) useDefaultHost(s *pick.Spec) error {
	if len(a.hosts) > 0 || a.host != "" {
		return nil
	}
	if err := s.UseDefault(a.Getenv); err != nil {
		if a.Getenv(pick.HostEnv) != "" {
			return withCode(ExitUsage, err)
		}
		return withCode(ExitFailure, err)
	}
	a.host = cmp.Or(s.Host, s.Saved)
	return nil
}

// hostReachTimeout bounds one host's check in hosts list.
const hostReachTimeout = 3 * time.Second

// hostsListJSON is `ahptui hosts list --json`.
type hostsListJSON struct {
	File    string          `json:"file"`
	Default string          `json:"default,omitempty"`
	Saved   []savedRowJSON  `json:"saved"`
	Local   []localHostJSON `json:"local"`
	Ignored []string        `json:"ignored,omitempty"`
	Error   string          `json:"error,omitempty"`
}

// savedHostJSON is one saved host, as hosts add prints it.
type savedHostJSON struct {
	Name      string `json:"name"`
	URL       string `json:"url"`
	TokenFile string `json:"tokenFile,omitempty"`
	Insecure  bool   `json:"insecure,omitempty"`
	Default   bool   `json:"default,omitempty"`
}

// savedRowJSON is one saved host in hosts list, and whether it answers.
type savedRowJSON struct {
	savedHostJSON
	Reach string `json:"reach"`
}

// hostRemovedJSON is `ahptui hosts rm --json`.
type hostRemovedJSON struct {
	Removed string `json:"removed"`
}

// localHostJSON is one host VS Code's registry lists.
type localHostJSON struct {
	Description string `json:"description"`
	URL         string `json:"url"`
	Reach       string `json:"reach"`
}

const hostsLong = `The hosts ahptui knows: the saved ones (hosts.yml in the config
directory, edited with hosts add and hosts rm) and the ones VS Code's
registry lists on this machine. Bare ahptui hosts is hosts list.

A command (or the UI) that names no host with --host uses AHPTUI_HOST
(a URL or a saved host's name), else the saved default (hosts add
--default), else the one host VS Code's registry lists.`

func hostsCmd(a *app) *cobra.Command {
	hosts := &cobra.Command{
		Use:   "hosts",
		Short: "the saved hosts and the ones running here: list, add, rm",
		Long:  hostsLong,
		Args:  args(0, 0, "a subcommand: list, add or rm"),
		RunE:  func(cmd *cobra.Command, _ []string) error { return a.listHosts(cmd.Context()) },
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "the saved hosts and VS Code's, each dialled to see if it answers",
		Args:  args(0, 0, "no arguments"),
		RunE:  func(cmd *cobra.Command, _ []string) error { return a.listHosts(cmd.Context()) },
	}
	var tokenFile string
	var makeDefault bool
	add := &cobra.Command{
		Use:   "add NAME URL",
		Short: "save a host by name (replacing one of that name)",
		Long: `Saves URL as NAME in hosts.yml, for --host NAME, ahptui NAME and
--all-hosts. The URL carries no token: --token-file names the file that
holds it (owner-only, 0600), and only the file's path is saved. --default
makes it the host used when none is named.`,
		Args: args(2, 2, "NAME and URL"),
		RunE: func(_ *cobra.Command, argv []string) error {
			name, raw := argv[0], argv[1]
			if !saved.ValidName(name) {
				return usagef("%q cannot name a host: letters, digits, '.', '_' and '-', at most 64, starting with a letter or digit", hostText(name))
			}
			if err := pick.CheckURL(raw); err != nil {
				return withCode(ExitUsage, err)
			}
			t, err := dial.Parse(raw)
			if err != nil {
				return withCode(ExitUsage, err)
			}
			if t.HasToken() {
				return usagef("the URL carries a connection token (?tkn=): put the token in a file (0600) and give --token-file FILE")
			}
			if err := pick.CheckTransport(raw, a.insecure); err != nil {
				return withCode(ExitUsage, err)
			}
			h := saved.Host{Name: name, URL: raw, Insecure: a.insecure}
			if tokenFile != "" {
				if h.TokenFile, err = filepath.Abs(expandHome(tokenFile)); err != nil {
					return err
				}
				if _, err := dial.ReadTokenFile(h.TokenFile); err != nil {
					// A local failure (exit 1), as --connection-token-file's.
					return fmt.Errorf("--token-file: %w", err)
				}
			}
			dir, err := pick.ConfigDir(a.configDir)
			if err != nil {
				return err
			}
			replaced, err := saved.Add(dir, h, makeDefault)
			if err != nil {
				return fmt.Errorf("saved hosts: %w", err)
			}
			out := savedHostJSON{Name: name, URL: raw, TokenFile: h.TokenFile, Insecure: h.Insecure, Default: makeDefault}
			return a.emit(out, func(w io.Writer) {
				verb := "saved"
				if replaced {
					verb = "replaced"
				}
				fmt.Fprintf(w, "%s %s  %s", verb, name, hostText(raw))
				if makeDefault {
					fmt.Fprint(w, "  (default)")
				}
				fmt.Fprintln(w)
			})
		},
	}
	add.Flags().StringVar(&tokenFile, "token-file", "", "the host's connection token is in `FILE` (0600); its path is saved, never the token")
	add.Flags().BoolVar(&makeDefault, "default", false, "use this host when a command or the UI names none")
	rm := &cobra.Command{
		Use:     "rm NAME",
		Aliases: []string{"remove"},
		Short:   "forget a saved host (its token file stays)",
		Args:    args(1, 1, "NAME"),
		RunE: func(_ *cobra.Command, argv []string) error {
			dir, err := pick.ConfigDir(a.configDir)
			if err != nil {
				return err
			}
			if err := saved.Remove(dir, argv[0]); err != nil {
				if errors.Is(err, saved.ErrNotSaved) {
					return withCode(ExitNotFound, err)
				}
				return fmt.Errorf("saved hosts: %w", err)
			}
			return a.emit(hostRemovedJSON{Removed: argv[0]}, func(w io.Writer) {
				fmt.Fprintln(w, "removed", hostText(argv[0]))
			})
		},
	}
	hosts.AddCommand(list, add, rm)
	return hosts
}

// expandHome is p with a leading ~/ made the home directory.
func expandHome(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	return p
}

// listHosts is `ahptui hosts [list]`: the saved hosts and the ones VS
// Code's registry lists, each dialled once (the upgrade, with its token)
// to say whether it answers. A hosts.yml that cannot be read is said and
// the registry's hosts listed all the same.
func (a *app) listHosts(ctx context.Context) error {
	dir, err := pick.ConfigDir(a.configDir)
	if err != nil {
		return err
	}
	out := hostsListJSON{File: filepath.Join(dir, saved.FileName), Saved: []savedRowJSON{}, Local: []localHostJSON{}}
	known, err := saved.Load(dir)
	if err != nil {
		out.Error = hostText(err.Error())
		fmt.Fprintln(a.Stderr, "ahptui: saved hosts:", hostText(err.Error()))
	} else if out.Default, err = saved.Default(dir); err != nil {
		fmt.Fprintln(a.Stderr, "ahptui: saved hosts:", hostText(err.Error()))
	}
	var targets []dial.Target
	for _, h := range known {
		t, err := pick.SavedTarget(pick.Spec{Saved: h.Name, Insecure: a.insecure, ConfigDir: a.configDir})
		r := savedRowJSON{savedHostJSON: savedHostJSON{Name: h.Name, URL: h.URL, TokenFile: h.TokenFile, Insecure: h.Insecure, Default: h.Name == out.Default}}
		if err != nil {
			r.Reach = hostText(err.Error())
		}
		out.Saved = append(out.Saved, r)
		targets = append(targets, t)
	}
	reg := registry.Discover(a.registryEnv(), registry.Alive)
	for _, e := range reg.Entries {
		t := pick.RegistryTarget(e)
		out.Local = append(out.Local, localHostJSON{Description: pick.DescribeEntry(e), URL: t.URL})
		targets = append(targets, t)
	}
	for _, why := range reg.Skipped {
		out.Ignored = append(out.Ignored, hostText(why))
	}
	reach := make([]*string, 0, len(targets))
	for i := range out.Saved {
		reach = append(reach, &out.Saved[i].Reach)
	}
	for i := range out.Local {
		reach = append(reach, &out.Local[i].Reach)
	}
	var wg sync.WaitGroup
	for i, t := range targets {
		if *reach[i] != "" {
			continue // its configuration is why it cannot be dialled
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			*reach[i] = reachOf(ctx, t)
		}()
	}
	wg.Wait()
	return a.emit(out, func(w io.Writer) {
		fmt.Fprintf(w, "Saved hosts (%s):\n", out.File)
		if len(out.Saved) == 0 {
			fmt.Fprintln(w, "  none")
		}
		for _, r := range out.Saved {
			def := ""
			if r.Default {
				def = " (default)"
			}
			fmt.Fprintf(w, "  %s  %s%s  — %s\n", r.Name, hostText(r.URL), def, r.Reach)
		}
		fmt.Fprintln(w, "Running on this machine (VS Code's agent-host registry):")
		if len(out.Local) == 0 {
			fmt.Fprintln(w, "  none; start one with `code agent host`")
		}
		for _, r := range out.Local {
			fmt.Fprintf(w, "  %s  — %s\n", r.Description, r.Reach)
		}
		// Why an entry was left out: a stale file is normal, a refused
		// directory is something to fix.
		for _, why := range out.Ignored {
			fmt.Fprintln(w, "  ignored: "+why)
		}
	})
}

// reachOf dials t once (the upgrade, with its token) and says whether it
// answers, or the dial error's kind.
func reachOf(ctx context.Context, t dial.Target) string {
	ctx, cancel := context.WithTimeout(ctx, hostReachTimeout)
	defer cancel()
	tp, err := t.Dial(ctx, 0)
	if err != nil {
		var de *dial.DialError
		if errors.As(err, &de) {
			return de.Short()
		}
		return "unreachable"
	}
	_ = tp.Close("ahptui hosts: reachability check")
	return "reachable"
}
