// Package app is the ahptui command below its thin main: a command word
// (status, sessions, …) goes to the scriptable commands (cli), every other
// argument list is the terminal UI's — its flags, its opening (host/open,
// as the commands') and the Bubble Tea program (ui).
package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync/atomic"

	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/authpkce"
	"github.com/ahptui/ahptui/cli"
	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/host/dial"
	"github.com/ahptui/ahptui/host/open"
	"github.com/ahptui/ahptui/host/pick"
	"github.com/ahptui/ahptui/host/trace"
	"github.com/ahptui/ahptui/ui"
	"github.com/ahptui/ahptui/views"
)

const usageText = `ahptui — a terminal client for the Agent Host Protocol (AHP 1.0, 0.9, VS Code's 0.10, 0.8, 0.7 and 0.6)

Usage:
  ahptui                          connect to the agent host VS Code runs here
                                  (found in its local registry; a list to
                                  pick from when there are several)
  ahptui --host ws://HOST:PORT/   connect to an AHP host (?tkn=TOKEN, or
                                  --connection-token-file, for VS Code's)
  ahptui --demo                   run the built-in demo host and connect to it
  ahptui COMMAND                  status, sessions, show, send, watch, mcp,
                                  approve, auth, doctor…: the same actions
                                  for scripts (ahptui help lists them)

Examples:
  ahptui --demo
      Starts a scripted AHP host and its OAuth authorization server on
      127.0.0.1 (ephemeral ports) inside this process and connects to it.
      Open the demo session, send a message and watch tool calls, MCP
      servers and the "grant additional access" prompt. "hello" takes
      the whole tour; a message with one of these words shows one flow:
      DEMO_WORDS.
  ahptui --demo --demo-version 0.6.0
      The same demo over AHP 0.6.0 (it speaks 1.0.0 by default), to see
      ahptui with a host of the old protocol.
  ahptui --host ws://127.0.0.1:8080/ --no-browser
      Connects to a host; sign-in URLs are shown on screen for you to open
      (handy over SSH) instead of launching a browser.
  ahptui --demo-hosts 3 --host ws://127.0.0.1:8080/
      Three demo hosts and one of yours in one UI: the session list is
      grouped by host, the inbox (I) and ! reach every host.
  ahptui --all-hosts
      Every saved host and every host VS Code's registry lists, in one UI
      (each with its own token; a host listed twice is one).
  ahptui --demo --log /tmp/ahptui.log
      Writes a debug log (never tokens) to /tmp/ahptui.log.

Keys: press ? inside the app for every key; q quits.

Flags:
`

// demoWords lists the words that pick a demo path, from the demo's own
// table so the usage cannot fall behind it.
func demoWords() string {
	words := make([]string, len(demohost.DemoPaths))
	for i, p := range demohost.DemoPaths {
		words[i] = p.Word
	}
	return strings.Join(words, ", ")
}

type options struct {
	host, configDir, logFile string
	trace                    string
	tokenFile                string
	demoVersion              string
	demo, noBrowser, version bool
	demoOtherHost            bool   // --demo-other-host: the demo by a second name (demotrust.go)
	discover                 bool   // neither --host nor --demo: VS Code's registry
	listHosts                bool   // `ahptui hosts`
	saved                    string // a saved host's name (ahptui NAME, --host NAME)
	savedViaHost             bool   // the name came as --host NAME
	insecure                 bool
	noNotify                 bool     // --no-notify: no bell or desktop notification
	moreHosts                []string // --host given again: every value after the first (multihost.go)
	demoHosts                int      // --demo-hosts N: N demo hosts in this process
	allHosts                 bool     // --all-hosts: every --host, saved host and local host (multihost.go)
	cwd                      cwdFlag
	auth                     authOptions
}

func parseFlags(args []string, stdout io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("ahptui", flag.ContinueOnError)
	// The flag package's own messages are replaced by ours: errors come back
	// to run, and help goes to stdout (asked for, so not an error).
	fs.SetOutput(io.Discard)
	fs.Var(hostsFlag{&o}, "host", "WebSocket `URL` of the AHP host (ws:// or wss://), or a saved host's name; repeat it to watch several hosts in one UI")
	fs.BoolVar(&o.allHosts, "all-hosts", false, "every --host, then every saved host, then every host VS Code's local registry lists, in one UI")
	fs.IntVar(&o.demoHosts, "demo-hosts", 0, "start `N` demo hosts in this process and show them all in one UI (with --host too)")
	fs.StringVar(&o.tokenFile, "connection-token-file", "",
		"read the host's connection token (sent as ?tkn=) from `FILE`; "+dial.TokenEnv+" also gives one, and neither is ever shown or logged")
	fs.BoolVar(&o.demo, "demo", false, "start the in-process demo host and connect to it")
	fs.StringVar(&o.demoVersion, "demo-version", demohost.Version10,
		"AHP `VERSION` the demo host serves: "+strings.Join(demohost.Versions, " (default) or ")+" (the old protocol)")
	fs.BoolVar(&o.demoOtherHost, "demo-other-host", false,
		"with --demo: reach the demo host by a second name (localhost) holding a GitHub sign-in made on its first (127.0.0.1), to see the \"use your sign-in here?\" question")
	fs.BoolVar(&o.noBrowser, "no-browser", false, "never open a browser for sign-in; show the URL only")
	fs.BoolVar(&o.noNotify, "no-notify", false, "no bell or desktop notification when something starts waiting on you (config.json: \"notify\": false)")
	fs.StringVar(&o.configDir, "config-dir", "", "`DIR` for tokens and the client id (default: the user config dir + /ahptui)")
	fs.StringVar(&o.logFile, "log", "", "write a debug log to `FILE` (off by default; never logs tokens)")
	fs.StringVar(&o.trace, "trace", "", "append every AHP frame to `FILE`, one JSON line each (bearer tokens, ?tkn=, codes and refresh tokens redacted)")
	fs.BoolVar(&o.version, "version", false, "print the version and exit")
	fs.Var(&o.cwd, "cwd", "working `DIR` for new sessions, sent to the host as a file:// URI (repeat for more; default: the new-session dialog offers this directory to a host on this machine)")
	fs.BoolVar(&o.insecure, "insecure", false, "allow plain ws:// to a host that is not this machine (tokens travel unencrypted)")
	o.auth.register(fs)
	// One word before the flags: `ahptui hosts` or `ahptui NAME`.
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		if args[0] == "hosts" {
			o.listHosts = true
		} else {
			o.saved = args[0]
		}
		args = args[1:]
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, strings.Replace(usageText, "DEMO_WORDS", demoWords(), 1))
			fs.VisitAll(func(f *flag.Flag) {
				name, usage := flag.UnquoteUsage(f)
				fmt.Fprintf(stdout, "  %s\n      %s\n", strings.TrimSpace("--"+f.Name+" "+name), usage)
			})
		}
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q: use --host URL or --demo", fs.Arg(0))
	}
	if o.version || o.listHosts {
		return o, nil
	}
	if o.demoHosts == 1 && !o.multi() {
		o.demo = true // one demo host is --demo
	}
	if o.multi() {
		if !slices.Contains(demohost.Versions, o.demoVersion) {
			return o, fmt.Errorf("--demo-version %q: the demo host serves %s", o.demoVersion, strings.Join(demohost.Versions, " or "))
		}
		return o, checkMulti(o)
	}
	sp := o.spec()
	if err := sp.UseDefault(os.Getenv); err != nil { // AHPTUI_HOST, hosts.yml's default
		return o, err
	}
	if err := sp.Normalize(); err != nil {
		return o, err
	}
	o.saved, o.host, o.savedViaHost = sp.Saved, sp.Host, sp.SavedViaHost
	o.discover = sp.Discover()
	demoVersionSet := false
	fs.Visit(func(f *flag.Flag) {
		demoVersionSet = demoVersionSet || f.Name == "demo-version"
		o.auth.tokenStoreSet = o.auth.tokenStoreSet || f.Name == "token-store"
	})
	if err := checkDemoVersion(o, demoVersionSet); err != nil {
		return o, err
	}
	if o.demoOtherHost && !o.demo {
		return o, errors.New("--demo-other-host applies to --demo only")
	}
	return o, checkHostTransport(o.host, o.insecure)
}

// checkDemoVersion refuses a --demo-version the demo host cannot serve, or
// one given (set) without --demo: it would silently do nothing against
// --host, whose version the host and ahptui negotiate.
func checkDemoVersion(o options, set bool) error {
	if set && !o.demo {
		return errors.New("--demo-version applies to --demo only; a --host picks its own version")
	}
	if !slices.Contains(demohost.Versions, o.demoVersion) {
		return fmt.Errorf("--demo-version %q: the demo host serves %s", o.demoVersion, strings.Join(demohost.Versions, " or "))
	}
	return nil
}

// Build is what the binary was stamped with: the module version a host
// is told, and the whole stamp (with the VCS revision) --version prints.
type Build struct {
	Version string
	Stamp   string
}

// Run is the ahptui command with args (without the program name); it
// returns the exit code.
func Run(args []string, stdout, stderr io.Writer, b Build) int {
	if b.Version == "" {
		b.Version = "(devel)"
	}
	if b.Stamp == "" {
		b.Stamp = b.Version
	}
	build = b
	return run(args, stdout, stderr)
}

// build is the running binary's stamp, set once by Run.
var build = Build{Version: "(devel)", Stamp: "(devel)"}

func run(args []string, stdout, stderr io.Writer) int {
	// A command word (status, sessions, …) is the scriptable CLI's; every
	// other argument list is the UI's, parsed as before.
	if cli.IsCommand(args) {
		return cli.Run(args, cliEnv(stdout, stderr))
	}
	o, err := parseFlags(args, stdout)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "ahptui:", err)
		fmt.Fprintln(stderr, "run ahptui --help for usage")
		return 2
	}
	if o.version {
		fmt.Fprintln(stdout, "ahptui", build.Stamp)
		return 0
	}
	if o.listHosts {
		// ahptui hosts is a command (cli/hosts.go); it comes here only
		// with a flag the commands do not have, which it names.
		return cli.Run(args, cliEnv(stdout, stderr))
	}
	// From here on this process is the UI.
	warmWidthTable()
	var more []pick.Found
	var target dial.Target
	if o.multi() {
		more, err = multiTargets(o)
	} else {
		sp := o.spec()
		// An ssh:// host's first look may let ssh ask on the terminal
		// (a host key, a password) before the screen opens.
		sp.AskOnTerminal = isTerminal(os.Stdin)
		target, err = pick.Resolve(sp, os.Getenv, os.Stdin, stdout)
	}
	if err != nil {
		fmt.Fprintln(stderr, "ahptui:", err)
		if o.saved != "" && !o.savedViaHost {
			// ahptui stauts: a typo of a command reads as a host's name.
			if c := cli.Suggest(o.saved); c != "" {
				fmt.Fprintf(stderr, "did you mean the command %q? (ahptui %s --help)\n", c, c)
			}
		}
		var de *pick.DiscoverError
		if errors.As(err, &de) {
			return 1
		}
		return 2
	}
	if err := runApp(o, target, more); err != nil {
		fmt.Fprintln(stderr, "ahptui:", err)
		return 1
	}
	return 0
}

// cliEnv is the commands' environment: this process's.
func cliEnv(stdout, stderr io.Writer) cli.Env {
	return cli.Env{Stdin: os.Stdin, Stdout: stdout, Stderr: stderr, Getenv: os.Getenv,
		StdoutTTY: stdout == os.Stdout && isTerminal(os.Stdout), StdinTTY: isTerminal(os.Stdin),
		Version: build.Version, Stamp: build.Stamp}
}

func runApp(o options, target dial.Target, more []pick.Found) error {
	logger := slog.New(slog.DiscardHandler)
	if o.logFile != "" {
		// The trace's rule: created 0600, no symlink, no file others read.
		f, err := trace.OpenPrivate(o.logFile)
		if err != nil {
			return fmt.Errorf("open log file: %w", err)
		}
		defer f.Close()
		logger = slog.New(slog.NewTextHandler(f, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	// The opening every command runs too (host/open): the config
	// directory ours alone, the client id claimed, --trace opened.
	run, err := open.Start(open.Config{ConfigDir: o.configDir, Trace: o.trace, Version: build.Version, Logger: logger})
	if err != nil {
		return err
	}
	defer run.Close()
	dir, dirNote := run.Dir, run.DirNote

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	var demo *demohost.Host
	if o.demo {
		if demo, target, err = run.StartDemo(ctx, o.demoVersion, 0); err != nil {
			return err
		}
	}

	if o.multi() {
		var ts []pick.Found
		for i := range o.demoHosts {
			_, t, err := run.StartDemo(ctx, o.demoVersion, i+1)
			if err != nil {
				return err
			}
			ts = append(ts, pick.Found{Target: t, Source: "demo"})
		}
		if more = append(ts, more...); len(more) == 0 {
			return open.ErrNoHosts
		}
		if more[0].Err != nil {
			return fmt.Errorf("%s: %w", more[0].Target.URL, more[0].Err)
		}
		target = more[0].Target
		o.discover = more[0].Source == "local"
	}

	// Demo hosts alone: their sign-ins are the demo's, kept in memory.
	acfg := authpkce.Config{Dir: dir, MemoryOnly: o.demo || (o.demoHosts > 0 && len(o.hostValues()) == 0)}
	o.auth.apply(&acfg, logger)
	if o.noBrowser {
		acfg.OpenBrowser = func(string) error { return errors.New("--no-browser") }
	}
	var seeding *atomic.Bool
	if o.demoOtherHost {
		seeding = quietWhileSeeding(&acfg)
	}
	auth, notes, err := openAuth(acfg, o.auth, logger)
	if err != nil {
		return err
	}
	if o.demoOtherHost {
		if target, err = demoOtherHost(ctx, auth, seeding, demo); err != nil {
			return err
		}
	}
	if dirNote != "" {
		notes = append([]string{dirNote}, notes...)
	}
	notify, notifyNote := notifyEnabled(o.noNotify, dir)
	if notifyNote != "" {
		notes = append(notes, notifyNote)
	}

	var several []ui.HostConfig
	if len(more) > 1 {
		several = uiHosts(more, run)
	}
	m := ui.New(ui.Config{
		Hosts: several,
		// What the status line shows and sign-ins are bound to: the
		// host's URL without its token.
		Host:         target.URL,
		RegistryHost: o.discover,
		Connect:      connectVia(run, target),
		Auth:         auth,
		Notices:      notes,
		// Say so directly rather than leave the UI to recognise the
		// opener's error text.
		NoBrowser:          o.noBrowser,
		WorkingDirectories: o.cwd,
		Folder:             workingFolder(),
		NoColor:            views.NoColorRequested(os.Getenv),
		Editor:             ui.EditorFromEnv(os.Getenv),
		Dark:               true,
		Logger:             logger.With("component", "ui"),
		Notify:             notify,
		NotifyTerm:         views.NotifyTermFromEnv(os.Getenv),
	})
	p := tea.NewProgram(m, tea.WithContext(ctx))
	_, runErr := p.Run()
	m.Shutdown()
	if runErr != nil && !errors.Is(runErr, tea.ErrProgramKilled) {
		return fmt.Errorf("terminal UI: %w", runErr)
	}
	// The status bar cut it to its width and the screen is gone: an error
	// the session ended on is printed whole.
	if e := m.LastError(); e != "" {
		fmt.Fprintln(os.Stderr, "ahptui: last error: "+views.Sanitize(e))
	}
	return nil
}
