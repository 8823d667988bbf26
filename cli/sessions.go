package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

func sessionsCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "sessions",
		Short: "the host's sessions, with their status",
		Args:  args(0, 0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.connected(cmd.Context(), func(ctx context.Context, c *conn) error {
				list, err := c.ListSessions(ctx)
				if err != nil {
					return fmt.Errorf("list sessions: %w", err)
				}
				out := make([]sessionJSON, len(list))
				rows := make([][]string, len(list))
				for i, s := range list {
					out[i] = sessionOf(s)
					rows[i] = []string{hostText(s.Resource), out[i].Status, hostText(s.Provider), hostText(s.Title)}
				}
				return a.emit(out, func(w io.Writer) {
					if len(rows) == 0 {
						fmt.Fprintln(w, "no sessions; ahptui new creates one")
						return
					}
					a.table(w, []string{"SESSION", "STATUS", "AGENT", "TITLE"}, rows)
				})
			})
		},
	}
}
