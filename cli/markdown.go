package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

// showMarkdown is `ahptui show SESSION --markdown`: the session's whole
// transcript as Markdown, every chat, each turn with its time, each tool
// call with its input and result. Host text is made inert (views'
// sanitizer: no escape sequences or control characters); what the host
// sent as Markdown stays Markdown, the rest is fenced.
func (a *app) showMarkdown(ctx context.Context, c *conn, arg string) error {
	sess, uri, _, err := c.session(ctx, arg)
	if err != nil {
		return err
	}
	var summary *protocol.SessionSummary
	if list, err := c.ListSessions(ctx); err == nil {
		for i := range list {
			if list[i].Resource == uri {
				summary = &list[i]
			}
		}
	}
	chats := make([]protocol.ChatState, 0, len(sess.Chats))
	for _, ch := range sess.Chats {
		if err := c.Subscribe(ctx, ch.Resource); err != nil {
			return fmt.Errorf("subscribe to %s: %w", hostText(ch.Resource), err)
		}
		st, _ := c.Chat(ch.Resource)
		chats = append(chats, st)
	}
	_, err = io.WriteString(a.Stdout, views.SessionMarkdown(sess, uri, summary, defaultChat(sess), chats))
	return err
}
