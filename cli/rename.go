package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

func renameCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "rename SESSION TITLE",
		Short: "rename a session (session/titleChanged, as the UI's R)",
		Args:  args(2, 2, "SESSION TITLE"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			title, err := views.SessionTitle(argv[1])
			if err != nil {
				return usagef("%v", err)
			}
			return a.connected(cmd.Context(), func(ctx context.Context, c *conn) error {
				_, uri, _, err := c.session(ctx, argv[0])
				if err != nil {
					return err
				}
				if err := c.dispatch(ctx, uri, protocol.SessionTitleChangedAction{Title: title}); err != nil {
					return err
				}
				return a.emit(map[string]string{"session": uri, "title": title}, func(w io.Writer) {
					fmt.Fprintf(w, "renamed %s to %s\n", hostText(uri), hostText(title))
				})
			})
		},
	}
}
