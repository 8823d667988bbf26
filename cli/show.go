package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

// chatJSON is `ahptui show --json`: the session's default chat.
type chatJSON struct {
	Session string     `json:"session"`
	Chat    string     `json:"chat"`
	Title   string     `json:"title"`
	Status  string     `json:"status"`
	Turns   []turnJSON `json:"turns"`
	Waiting []waitJSON `json:"waiting"`
}

type turnJSON struct {
	ID      string     `json:"id"`
	State   string     `json:"state"` // complete, cancelled, error, or running for the active turn
	Message string     `json:"message"`
	Parts   []partJSON `json:"parts"`
}

type partJSON struct {
	Kind     string        `json:"kind"`
	Text     string        `json:"text,omitempty"`
	ToolCall *toolCallJSON `json:"toolCall,omitempty"`
}

type toolCallJSON struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Status      string `json:"status"`
	McpServer   string `json:"mcpServer,omitempty"`
	WaitsOnUser bool   `json:"waitsOnUser"`
}

func partsOf(ps []protocol.ResponsePart) []partJSON {
	out := []partJSON{}
	for _, p := range ps {
		j := partJSON{Kind: p.Kind()}
		switch v := p.Variant.(type) {
		case protocol.MarkdownResponsePart:
			j.Text = v.Content.String()
		case protocol.ReasoningResponsePart:
			j.Text = v.Content.String()
		case protocol.ErrorResponsePart:
			j.Text = v.Error.Message
		case protocol.SystemNotificationResponsePart:
			j.Text = v.Content.Value
		case protocol.InputRequestResponsePart:
			if v.Request.Message != nil {
				j.Text = *v.Request.Message
			}
		case protocol.ResourceResponsePart:
			j.Text = v.URI
		case protocol.ToolCallResponsePart:
			tc := v.ToolCall
			j.ToolCall = &toolCallJSON{ID: tc.ID(), Name: tc.Name(), Status: tc.Status(), McpServer: tc.McpServer(),
				WaitsOnUser: tc.WaitsOnUser(nil)}
		}
		out = append(out, j)
	}
	return out
}

func chatOf(sess protocol.SessionState, session string, chat protocol.ChatState, flags []string) chatJSON {
	j := chatJSON{Session: session, Chat: chat.Resource, Title: sess.Title, Status: views.StatusWord(chat.Status), Turns: []turnJSON{},
		Waiting: allWaiting(sess, session, chat, flags)}
	for _, t := range chat.Turns {
		j.Turns = append(j.Turns, turnJSON{ID: t.ID, State: string(t.State), Message: t.Message.Text, Parts: partsOf(t.ResponseParts)})
	}
	if t := chat.ActiveTurn; t != nil {
		j.Turns = append(j.Turns, turnJSON{ID: t.ID, State: "running", Message: t.Message.Text, Parts: partsOf(t.ResponseParts)})
	}
	return j
}

func showCmd(a *app) *cobra.Command {
	var markdown bool
	cmd := &cobra.Command{
		Use:   "show SESSION",
		Short: "a session's chat: every turn, the tool calls and what waits on you",
		Long: `Prints the session's default chat. SESSION is the session's URI, its id
(the URI after the scheme) or a prefix of the id only it has.`,
		Args: args(1, 1, "SESSION"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			if markdown && a.json {
				return usagef("--markdown and --json are two outputs: pick one")
			}
			return a.connected(cmd.Context(), func(ctx context.Context, c *conn) error {
				if markdown {
					return a.showMarkdown(ctx, c, argv[0]) // markdown.go
				}
				sess, uri, chat, err := c.session(ctx, argv[0])
				if err != nil {
					return err
				}
				j := chatOf(sess, uri, chat, a.hostFlags(c))
				return a.emit(j, func(w io.Writer) { a.printChat(w, j) })
			})
		},
	}
	cmd.Flags().BoolVar(&markdown, "markdown", false, "print the whole transcript as Markdown: every chat, timestamps, tool calls' inputs and results")
	return cmd
}

func (a *app) printChat(w io.Writer, j chatJSON) {
	fmt.Fprintf(w, "%s %s  %s\n", a.paint(sgrBold, hostText(j.Title)), hostText(j.Session), a.paint(statusColor(j.Status), j.Status))
	for _, t := range j.Turns {
		fmt.Fprintln(w)
		fmt.Fprintf(w, "%s %s\n", a.paint(sgrCyan, ">"), hostText(t.Message))
		for _, p := range t.Parts {
			switch {
			case p.ToolCall != nil:
				fmt.Fprintf(w, "  %s %s  %s  %s\n", a.paint(sgrDim, "tool"), hostText(p.ToolCall.Name), hostText(p.ToolCall.ID),
					a.paint(statusColor(p.ToolCall.Status), hostText(p.ToolCall.Status)))
			case p.Kind == "markdown":
				for _, l := range strings.Split(strings.TrimRight(p.Text, "\n"), "\n") {
					fmt.Fprintln(w, "  "+hostText(l))
				}
			case p.Text != "":
				fmt.Fprintf(w, "  %s %s\n", a.paint(sgrDim, hostText(p.Kind)), hostText(p.Text))
			}
		}
		if t.State != string(protocol.TurnStateComplete) {
			fmt.Fprintf(w, "  (%s)\n", a.paint(statusColor(t.State), hostText(t.State)))
		}
	}
	a.printWaiting(w, j.Waiting)
}
