package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/host/waits"
	"github.com/ahptui/ahptui/protocol/client"
	"github.com/ahptui/ahptui/views"
)

// Env is what a command reads and writes besides its arguments; main
// passes the process's own, tests their buffers.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	// StdoutTTY: stdout is a terminal, so human output may be coloured
	// (unless NO_COLOR is set).
	StdoutTTY bool
	// Version is the module version the client names itself with;
	// Stamp, what ahptui --version prints after "ahptui " (the version
	// and the revision it was built from), "" for Version alone.
	Version, Stamp string
	// StdinTTY: stdin is a terminal, so a command may ask a question
	// (dispose without --yes); without one it fails at once.
	StdinTTY bool
}

// app is one command run: the global flags and the environment.
type app struct {
	Env
	host, tokenFile, configDir, demoVersion string
	// hosts is every --host given (status, watch and inbox take several);
	// host is the one when one was given.
	hosts                []string
	allHosts             bool
	trace, tokenStore    string
	demo, insecure, json bool
	timeout              time.Duration
	// reconnectWindow: how long a lost host may take to come back.
	reconnectWindow time.Duration
	color           bool
	allowSaved      bool // --allow-saved-tokens (saved.go)
	// jsonFields is --json=FIELDS, jq --jq EXPR, filter the two compiled
	// (jq.go).
	jsonFields []string
	jq         string
	filter     *jsonFilter
	// signalEnds: a signal is how this command ends (demo serve), so it
	// is exit 0, not 130.
	signalEnds bool
}

// IsCommand reports whether args name one of the commands, which Run
// handles; everything else (bare ahptui, a saved host's name, the UI's
// flags) is the terminal UI's. The commands' global flags may stand
// before the command word (ahptui --host H status, ahptui --json
// status), and cobra's completion requests (__complete) are commands.
func IsCommand(args []string) bool {
	word, ok := commandWord(args)
	if !ok {
		return false
	}
	return isCommandWord(word)
}

// isCommandWord: one of the commands, an alias, or what cobra adds.
func isCommandWord(word string) bool {
	for _, c := range newRoot(&app{}).Commands() {
		if c.Name() == word || slices.Contains(c.Aliases, word) {
			return true
		}
	}
	switch word {
	case "help", "completion", cobra.ShellCompRequestCmd, cobra.ShellCompNoDescRequestCmd:
		return true
	}
	return false
}

// commandWord is the first argument that is not a global flag or a
// global flag's value; ok is false when an argument is a flag the
// commands do not have (the UI's, such as --cwd), so the list is the UI's.
func commandWord(args []string) (string, bool) {
	flags := newRoot(&app{}).PersistentFlags()
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || !strings.HasPrefix(a, "-") || a == "-" {
			return a, a != "--"
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := flags.Lookup(name)
		if f == nil {
			return "", false
		}
		if !hasValue && f.NoOptDefVal == "" {
			i++ // its value
		}
	}
	return "", false
}

// Suggest names the commands close to word (a typo such as stauts), for
// the UI's "no saved host named …" message; "" when none is.
func Suggest(word string) string {
	root := newRoot(&app{})
	root.SuggestionsMinimumDistance = 2
	if s := root.SuggestionsFor(word); len(s) > 0 {
		return s[0]
	}
	return ""
}

// Run runs the command args name and returns its exit code.
func Run(args []string, env Env) int {
	if env.Getenv == nil {
		env.Getenv = os.Getenv
	}
	if env.Stdin == nil {
		env.Stdin = strings.NewReader("")
	}
	out := &checkedWriter{w: env.Stdout}
	env.Stdout = out
	defer catchSIGPIPE()()
	ctx, stop := interruptible(context.Background())
	defer stop()
	a := &app{Env: env}
	root := newRoot(a)
	root.SetArgs(args)
	root.SetIn(env.Stdin)
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	err := root.ExecuteContext(ctx)
	if interrupted(ctx) && !a.signalEnds {
		// Whatever the command was waiting for when the signal came, the
		// signal is why it stopped.
		err = withCode(ExitInterrupted, interruptedError(err))
	}
	if werr := out.failed(); werr != nil && (err == nil || errors.Is(err, werr) || brokenPipe(err)) {
		if brokenPipe(werr) {
			return ExitOK
		}
		err = fmt.Errorf("write the output: %w", werr)
	}
	if err == nil {
		return ExitOK
	}
	code := exitCode(err)
	msg := views.SanitizeLine(err.Error())
	var ae *client.AuthRequiredError
	if errors.As(err, &ae) && len(ae.Resources) > 0 {
		// The host names what to sign in to; say which command does it,
		// on the host the run named.
		argv := []string{"ahptui", "auth", "login"}
		if h := a.namedHost(); h != "" {
			argv = append(argv, "--host", h)
		}
		if r := ae.Resources[0].Resource; strings.HasPrefix(r, "-") {
			argv = append(argv, "--", r)
		} else {
			argv = append(argv, r)
		}
		msg += "; sign in with: " + views.SanitizeLine(waits.Quote(argv))
	}
	if a.json {
		b, _ := json.Marshal(map[string]any{"error": msg, "exit": code, "kind": exitKinds[code]})
		fmt.Fprintln(env.Stderr, string(escapeJSON(b)))
	} else {
		fmt.Fprintln(env.Stderr, "ahptui:", msg)
		var ce *connectError
		if a.trace != "" && errors.As(err, &ce) {
			// --trace asks for the detail: the whole Go error chain.
			fmt.Fprintln(env.Stderr, "ahptui: detail:", views.SanitizeLine(ce.chain()))
		}
		if code == ExitUsage {
			fmt.Fprintln(env.Stderr, "run ahptui "+commandPath(root, args)+" --help for usage")
		}
	}
	return code
}

// interruptedError says a signal stopped the command, keeping what the
// command itself said about it (send: whether the turn was cancelled).
func interruptedError(err error) error {
	var ie *interruptNote
	if errors.As(err, &ie) {
		return ie
	}
	return errInterrupted
}

// interruptNote is what a command says of its own stop by a signal.
type interruptNote struct{ msg string }

func (n *interruptNote) Error() string { return "interrupted: " + n.msg }

// commandPath is the command args name, for the usage hint.
func commandPath(root *cobra.Command, args []string) string {
	c, _, err := root.Find(args)
	if err != nil || c == root {
		return "help"
	}
	return strings.TrimPrefix(c.CommandPath(), root.Name()+" ")
}

const rootLong = `Commands for scripts: each prints what it reads or does, as text by
default (coloured on a terminal unless NO_COLOR or CLICOLOR=0 is set;
CLICOLOR_FORCE=1 colours a pipe too) or as JSON with --json, and ends
with an exit code that says what went wrong (ahptui help exit-codes
lists them). They connect the way the UI does: --host URL, a saved host
(--host NAME), the one agent host VS Code's registry lists (no flag), or
the built-in demo (--demo).

status, watch and inbox also run on several hosts at once: --host more
than once, or --all-hosts (every --host, every saved host and every host
VS Code's registry lists). Each host connects on its own; one that fails
is a row with its reason, the others are shown, and the exit code is the
first failed host's.

Bare ahptui, ahptui NAME and ahptui hosts open the terminal UI and its
lists as before; a saved host named like a command is reached with
--host NAME.`

func newRoot(a *app) *cobra.Command {
	root := &cobra.Command{
		Use:           "ahptui",
		Short:         "a terminal client for the Agent Host Protocol",
		Long:          rootLong,
		SilenceErrors: true,
		SilenceUsage:  true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if err := a.setupJSONFilter(); err != nil {
				return err
			}
			a.color = colorWanted(a.Getenv, a.StdoutTTY) && !a.json
			if !slices.Contains(demohost.Versions, a.demoVersion) {
				return usagef("--demo-version %q: the demo host serves %s", a.demoVersion, strings.Join(demohost.Versions, " or "))
			}
			if cmd.Flags().Changed("demo-version") && !a.demo {
				return usagef("--demo-version applies to --demo only; a --host picks its own version")
			}
			return a.checkHosts(cmd.Annotations[multiHostAnnotation] != "")
		},
	}
	pf := root.PersistentFlags()
	pf.StringArrayVar(&a.hosts, "host", nil, "WebSocket `URL` of the AHP host, or a saved host's name (status, watch and inbox take it more than once)")
	pf.StringVar(&a.tokenFile, "connection-token-file", "", "read the host's connection token from `FILE`")
	pf.BoolVar(&a.demo, "demo", false, "start the built-in demo host in this process and use it")
	pf.StringVar(&a.demoVersion, "demo-version", demohost.Version10, "AHP `VERSION` the demo host serves")
	pf.StringVar(&a.configDir, "config-dir", "", "`DIR` for tokens and the client id (default: the user config dir + /ahptui)")
	pf.BoolVar(&a.insecure, "insecure", false, "allow plain ws:// to a host that is not this machine")
	jsonFlags(pf, a)
	pf.StringVar(&a.trace, "trace", "", "append every frame to `FILE` as a JSON line (secrets redacted)")
	pf.DurationVar(&a.timeout, "timeout", 30*time.Second, "give up waiting on the host after `DURATION`")
	pf.DurationVar(&a.reconnectWindow, "reconnect-window", 30*time.Second, "how long a lost host may take to come back, `DURATION`, before exit 3")
	savedFlags(root, a)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return withCode(ExitUsage, err) })

	root.AddCommand(statusCmd(a), sessionsCmd(a), showCmd(a), mcpCmd(a), watchCmd(a), inboxCmd(a), authCmd(a), doctorCmd(a))
	root.AddCommand(actCmds(a)...)
	root.AddCommand(versionCmd(a))
	root.AddCommand(resumeCmd(a), chatsCmd(a), changesCmd(a), settingsCmd(a), terminalsCmd(a))
	root.AddCommand(demoCmd(a), hostsCmd(a))
	a.registerCompletions(root)
	// Every command's help ends with one line naming the table, which
	// ahptui help exit-codes prints whole.
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Long == "" {
			c.Long = c.Short
		}
		c.Long += "\n\n" + exitCodesPointer
		setExample(c)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	wrapFlagHelp(root)
	root.AddCommand(exitCodesTopic())
	return root
}

// exitCodesTopic is ahptui help exit-codes: a help topic (no Run), the
// one place the table is printed.
func exitCodesTopic() *cobra.Command {
	c := &cobra.Command{
		Use:   "exit-codes",
		Short: "what each exit code of the commands means",
		Long:  exitCodesHelp,
	}
	c.SetHelpFunc(func(c *cobra.Command, _ []string) { fmt.Fprintln(c.OutOrStdout(), c.Long) })
	return c
}

// args checks a command's positional arguments as a usage error.
func args(min, max int, names string) cobra.PositionalArgs {
	return func(_ *cobra.Command, a []string) error {
		if len(a) < min || (max >= 0 && len(a) > max) {
			return usagef("want %s, got %d argument(s)", names, len(a))
		}
		return nil
	}
}

// errNotYet is the error of a context that ended while waiting on the host.
var errNotYet = errors.New("the host did not get there in time (see --timeout)")

// versionCmd is ahptui version: what ahptui --version prints, for those
// who type it as a word (as go, gh and kubectl take it).
func versionCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "print ahptui's version and the revision it was built from",
		Args:  args(0, 0, "no arguments"),
		RunE: func(*cobra.Command, []string) error {
			stamp := cmp.Or(a.Stamp, a.Version, "(devel)")
			return a.emit(map[string]string{"version": cmp.Or(a.Version, "(devel)"), "build": stamp}, func(w io.Writer) {
				fmt.Fprintln(w, "ahptui", stamp)
			})
		},
	}
}

func actCmds(a *app) []*cobra.Command {
	return []*cobra.Command{decideCmd(a, true), decideCmd(a, false), newCmd(a), disposeCmd(a), cancelCmd(a), renameCmd(a), sendCmd(a), answerCmd(a)}
}
