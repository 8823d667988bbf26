package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/ahptui/ahptui/protocol"
)

func cancelCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "cancel SESSION",
		Short: "cancel the turn running in a session",
		Args:  args(1, 1, "SESSION"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			return a.connected(cmd.Context(), func(ctx context.Context, c *conn) error {
				_, uri, chat, err := c.session(ctx, argv[0])
				if err != nil {
					return err
				}
				t := chat.ActiveTurn
				if t == nil {
					return conflictf("no turn is running in %s", hostText(uri))
				}
				var d float64
				if ts, err := time.Parse(time.RFC3339Nano, t.StartedAt); err == nil {
					d = float64(max(time.Since(ts), 0).Milliseconds())
				}
				if err := c.dispatch(ctx, chat.Resource, protocol.ChatTurnCancelledAction{TurnID: t.ID, Duration: d}); err != nil {
					return err
				}
				return a.emit(map[string]string{"session": uri, "cancelled": t.ID}, func(w io.Writer) {
					fmt.Fprintln(w, "cancelled the turn in "+hostText(uri))
				})
			})
		},
	}
}
