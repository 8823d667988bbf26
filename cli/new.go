package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ahptui/ahptui/protocol"
)

// created is what new prints.
type createdJSON struct {
	Session string `json:"session"`
	Agent   string `json:"agent"`
}

// pickAgent is the agent a new session runs: the one asked for, or the
// host's only one.
func pickAgent(c *conn, want string) (string, error) {
	root, _ := c.Root()
	var names []string
	for _, ag := range root.Agents {
		if want != "" && ag.Provider == want {
			return ag.Provider, nil
		}
		names = append(names, hostText(ag.Provider))
	}
	switch {
	case want != "":
		return "", notFoundf("no agent %s on this host: it has %s", views_quote(want), strings.Join(names, ", "))
	case len(names) == 1:
		return root.Agents[0].Provider, nil
	case len(names) == 0:
		return "", withCode(ExitHostError, errors.New("the host offers no agent"))
	}
	return "", usagef("the host has several agents: pick one with --agent (%s)", strings.Join(names, ", "))
}

// createSession creates a session for agent in dirs and returns its URI.
func createSession(ctx context.Context, c *conn, agent string, dirs []string) (string, error) {
	uri := "ahp-session:/" + newID()
	p := protocol.CreateSessionParams{Channel: uri, Provider: &agent, WorkingDirectories: dirs}
	if err := c.CreateSession(ctx, p); err != nil {
		return "", fmt.Errorf("create a session: %w", err)
	}
	return uri, nil
}

// fileURIs are the file:// URIs of dirs, made absolute as a shell would.
func fileURIs(dirs []string) ([]string, error) {
	var out []string
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, usagef("--cwd %q: %v", d, err)
		}
		p := filepath.ToSlash(abs)
		if !strings.HasPrefix(p, "/") {
			p = "/" + p
		}
		out = append(out, "file://"+p)
	}
	return out, nil
}

func newCmd(a *app) *cobra.Command {
	var agent string
	var cwd []string
	cmd := &cobra.Command{
		Use:   "new",
		Short: "create a session and print its URI",
		Args:  args(0, 0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			dirs, err := fileURIs(cwd)
			if err != nil {
				return err
			}
			return a.connected(cmd.Context(), func(ctx context.Context, c *conn) error {
				ag, err := pickAgent(c, agent)
				if err != nil {
					return err
				}
				uri, err := createSession(ctx, c, ag, dirs)
				if err != nil {
					return err
				}
				return a.emit(createdJSON{uri, ag}, func(w io.Writer) { fmt.Fprintln(w, hostText(uri)) })
			})
		},
	}
	cmd.Flags().StringVar(&agent, "agent", "", "the agent (provider, `NAME`) the session runs (default: the host's only one)")
	cmd.Flags().StringArrayVar(&cwd, "cwd", nil, "working `DIR` of the session, sent as a file:// URI (repeat for more)")
	return cmd
}
