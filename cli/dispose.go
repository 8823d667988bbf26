package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

func disposeCmd(a *app) *cobra.Command {
	var yes bool
	cmd := &cobra.Command{
		Use:   "dispose SESSION",
		Short: "dispose of a session (asks first unless --yes)",
		Args:  args(1, 1, "SESSION"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			if !yes && !a.StdinTTY {
				// Nobody can answer the question: say so before connecting
				// rather than read an answer from a script's stdin.
				return usagef("dispose asks before it disposes, and stdin is not a terminal: pass --yes")
			}
			return a.connected(cmd.Context(), func(ctx context.Context, c *conn) error {
				list, err := c.ListSessions(ctx)
				if err != nil {
					return fmt.Errorf("list sessions: %w", err)
				}
				uri, err := findSession(list, argv[0])
				if err != nil {
					return err
				}
				if !yes {
					fmt.Fprintf(a.Stderr, "Dispose of %s? It cannot be undone. [y/N] ", hostText(uri))
					line, _ := bufio.NewReader(a.Stdin).ReadString('\n')
					if !strings.EqualFold(strings.TrimSpace(line), "y") && !strings.EqualFold(strings.TrimSpace(line), "yes") {
						return usagef("not disposed: answer y, or pass --yes")
					}
				}
				if err := c.DisposeSession(ctx, uri); err != nil {
					return fmt.Errorf("dispose of %s: %w", hostText(uri), err)
				}
				return a.emit(map[string]string{"disposed": uri}, func(w io.Writer) { fmt.Fprintln(w, "disposed of "+hostText(uri)) })
			})
		},
	}
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "do not ask")
	return cmd
}
