package cli

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ahptui/ahptui/demohost"
)

// demoCmd is `ahptui demo serve`: the built-in demo host in a process of
// its own, so the commands of a script share one host (each --demo run
// starts a host of its own, gone when the command ends).
func demoCmd(a *app) *cobra.Command {
	demo := &cobra.Command{
		Use:   "demo",
		Short: "the built-in demo host, served for scripts to share (demo serve)",
		Args:  args(0, 0, "a subcommand: serve"),
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	var port int
	var tokenFile, version string
	serve := &cobra.Command{
		Use:   "serve",
		Short: "run the demo host on 127.0.0.1 until stopped; prints its URL first",
		Long: `Runs the built-in demo host (its seeded sessions, scripted agent and
OAuth authorization server) on 127.0.0.1 until SIGINT or SIGTERM, then
exits 0. The first line of stdout is its URL, with no token in it, for
the other commands' --host (or AHPTUI_HOST); with --json that line is a
JSON object instead: {url, protocolVersion, authIssuer, tokenFile?}.

  ahptui demo serve --token-file "$dir/token" >"$dir/url" &
  until [ -s "$dir/url" ]; do sleep 0.1; done
  ahptui hosts add demo "$(head -1 "$dir/url")" \
    --token-file "$dir/token" --default

With --token-file FILE the host requires a connection token (as VS
Code's agent host does): a fresh one is written to FILE, owner-only
(0600), and removed when the host stops; give it to the commands with
--connection-token-file FILE. The token is never printed.`,
		Args: args(0, 0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if a.demo || len(a.hosts) > 0 || a.allHosts {
				return usagef("demo serve is a host: give no --demo, --host or --all-hosts")
			}
			if !slices.Contains(demohost.Versions, version) {
				return usagef("--version %q: the demo host serves %s", version, strings.Join(demohost.Versions, " or "))
			}
			if port < 0 || port > 65535 {
				return usagef("--port %d: give 1 to 65535, or 0 for any free port", port)
			}
			// A --json=FIELDS the line does not have is refused before
			// the host starts, as every command refuses it before acting.
			if a.filter != nil {
				a.filter.typ = reflect.TypeOf(demoServeJSON{})
				if err := a.filter.checkFields(); err != nil {
					return err
				}
			}
			cfg := demohost.Config{Version: version, Logger: slog.New(slog.DiscardHandler)}
			if port != 0 {
				cfg.Addr = "127.0.0.1:" + strconv.Itoa(port)
			}
			if tokenFile != "" {
				abs, err := filepath.Abs(tokenFile)
				if err != nil {
					return withCode(ExitFailure, fmt.Errorf("--token-file: %w", err))
				}
				tokenFile = abs
				tok, err := newConnectionToken()
				if err != nil {
					return err
				}
				if err := writePrivate(tokenFile, tok); err != nil {
					return withCode(ExitFailure, fmt.Errorf("--token-file: %w", err))
				}
				defer os.Remove(tokenFile)
				cfg.ConnectionToken = tok
			}
			ctx := cmd.Context()
			h, err := demohost.Start(ctx, cfg)
			if err != nil {
				return fmt.Errorf("start the demo host: %w", err)
			}
			defer h.Close()
			if a.json {
				// One line, not emit's indented document: a script reads
				// it while the host runs on.
				enc := json.NewEncoder(jsonOut(a.Stdout))
				enc.SetEscapeHTML(false)
				line := demoServeJSON{URL: h.URL(), ProtocolVersion: version, AuthIssuer: h.AuthIssuer(), TokenFile: tokenFile}
				if err := enc.Encode(line); err != nil {
					return err
				}
			} else {
				if _, err := fmt.Fprintln(a.Stdout, h.URL()); err != nil {
					return err
				}
				fmt.Fprintf(a.Stderr, "ahptui: demo host (AHP %s) on %s; its sign-ins at %s; ctrl-c stops it\n", version, h.URL(), h.AuthIssuer())
			}
			// A signal is how it ends: that is success, not an interruption.
			a.signalEnds = true
			<-ctx.Done()
			return nil
		},
	}
	serve.Flags().IntVar(&port, "port", 0, "listen on 127.0.0.1:`PORT` (default: any free port)")
	serve.Flags().StringVar(&tokenFile, "token-file", "", "require a connection token, written (0600) to `FILE` and removed at the end")
	serve.Flags().StringVar(&version, "version", demohost.Version10, "AHP `VERSION` the demo host serves")
	demo.AddCommand(serve)
	return demo
}

// demoServeJSON is `ahptui demo serve --json`: the first line of stdout,
// once the host listens.
type demoServeJSON struct {
	URL             string `json:"url"`
	ProtocolVersion string `json:"protocolVersion"`
	AuthIssuer      string `json:"authIssuer"`
	TokenFile       string `json:"tokenFile,omitempty"`
}

// newConnectionToken is a fresh random connection token.
func newConnectionToken() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("a connection token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// writePrivate writes s to path, owner-only: a new file in path's
// directory, renamed over path, so a symlink or another's file at path
// is replaced, never written through.
func writePrivate(path, s string) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := io.WriteString(f, s+"\n")
	if err := f.Chmod(0o600); werr == nil {
		werr = err
	}
	if err := f.Close(); werr == nil {
		werr = err
	}
	if werr == nil {
		werr = os.Rename(tmp, path)
	}
	if werr != nil {
		os.Remove(tmp)
	}
	return werr
}
