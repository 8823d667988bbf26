package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
	"github.com/ahptui/ahptui/views"
)

// resumeAction is what resume sends (AHP 1.0 only).
const resumeAction = "chat/turnResume"

// resumedJSON is what resume prints.
type resumedJSON struct {
	Session string `json:"session"`
	Chat    string `json:"chat"`
	Resumed string `json:"resumed"` // the turn
}

func resumeCmd(a *app) *cobra.Command {
	var chatArg string
	cmd := &cobra.Command{
		Use:   "resume SESSION",
		Short: "resume the latest turn, stopped at an error the host can resume",
		Long: `Asks the host to resume the chat's latest turn, where it stopped at an
error the host marks resumable (a rate limit, a sign-in), as the UI's
resume key does. The chat is the session's default unless --chat names
another. ahptui watch SESSION follows the turn from there.`,
		Args: args(1, 1, "SESSION"),
		RunE: a.onSession(func(ctx context.Context, c *conn, argv []string, sess protocol.SessionState, uri string) error {
			if v := c.ProtocolVersion(); !client.ActionDefined(v, resumeAction) {
				return withCode(ExitHostError, fmt.Errorf("this host speaks AHP %s, which cannot resume a turn (AHP 1.0 can)", hostText(v)))
			}
			chatURI, chat, err := c.chatIn(ctx, sess, uri, chatArg)
			if err != nil {
				return err
			}
			id := views.ResumableTurn(chat)
			if id == "" {
				return conflictf("%s", noResumeReason(chat))
			}
			if err := c.dispatch(ctx, chatURI, protocol.ChatTurnResumeAction{TurnID: id}); err != nil {
				return err
			}
			j := resumedJSON{Session: uri, Chat: chatURI, Resumed: id}
			return a.emit(j, func(w io.Writer) { fmt.Fprintf(w, "resumed turn %s in %s\n", hostText(id), hostText(chatURI)) })
		}),
	}
	cmd.Flags().StringVar(&chatArg, "chat", "", "the `CHAT` whose turn to resume (default: the session's default chat)")
	return cmd
}

// noResumeReason says why the chat has no turn to resume.
func noResumeReason(chat protocol.ChatState) string {
	switch {
	case chat.ActiveTurn != nil:
		return "a turn is running in " + hostText(chat.Resource) + ": nothing to resume"
	case len(chat.Turns) == 0:
		return "no turn in " + hostText(chat.Resource) + " yet: nothing to resume"
	}
	return "no turn to resume in " + hostText(chat.Resource) +
		": only the latest turn, stopped at an error the host marks resumable, can be resumed"
}
