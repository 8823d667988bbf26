package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ahptui/ahptui/host/chaturi"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

// chatSummaryJSON is one chat in `ahptui chats list --json`.
type chatSummaryJSON struct {
	Session string `json:"session"`
	Chat    string `json:"chat"`
	Title   string `json:"title"`
	Status  string `json:"status"`
	// Default: the chat the session opens on (show, send, watch).
	Default bool `json:"default"`
	// Origin is how the chat came to be (fork, sideChat, ...), as the
	// host says; absent for the session's first.
	Origin     string `json:"origin,omitempty"`
	Activity   string `json:"activity,omitempty"`
	ModifiedAt string `json:"modifiedAt,omitempty"`
	// ReadOnly: the host does not take messages in it.
	ReadOnly bool `json:"readOnly,omitempty"`
}

// chatCreatedJSON is what chats new and chats fork print.
type chatCreatedJSON struct {
	Session string `json:"session"`
	Chat    string `json:"chat"`
	// From and Turn: the chat and turn a fork starts from.
	From string `json:"from,omitempty"`
	Turn string `json:"turn,omitempty"`
}

func chatsCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "chats",
		Short: "list a session's chats, start a new one or fork one",
	}
	cmd.AddCommand(chatsListCmd(a), chatsNewCmd(a), chatsForkCmd(a))
	return cmd
}

func chatsListCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "list SESSION",
		Short: "the session's chats: title, status, origin, which is the default",
		Args:  args(1, 1, "SESSION"),
		RunE: a.onSession(func(ctx context.Context, c *conn, argv []string, sess protocol.SessionState, uri string) error {
			def := defaultChat(sess)
			out := []chatSummaryJSON{}
			for _, ch := range sess.Chats {
				j := chatSummaryJSON{Session: uri, Chat: ch.Resource, Title: ch.Title, Status: views.StatusWord(ch.Status),
					Default: ch.Resource == def, ModifiedAt: ch.ModifiedAt,
					ReadOnly: ch.Interactivity != nil && *ch.Interactivity != protocol.ChatInteractivityFull}
				if ch.Origin != nil {
					j.Origin = ch.Origin.Kind()
				}
				if ch.Activity != nil {
					j.Activity = *ch.Activity
				}
				out = append(out, j)
			}
			return a.emit(out, func(w io.Writer) {
				if len(out) == 0 {
					fmt.Fprintln(w, "no chats in "+hostText(uri))
					return
				}
				rows := make([][]string, len(out))
				for i, j := range out {
					mark := ""
					if j.Default {
						mark = "*"
					}
					rows[i] = []string{mark, hostText(j.Chat), j.Status, hostText(j.Origin), hostText(j.Title)}
				}
				a.table(w, []string{"", "CHAT", "STATUS", "ORIGIN", "TITLE"}, rows)
			})
		}),
	}
}

// chatCaps is what the session's agent lets a client create: more chats
// at all (multipleChats), forks.
func chatCaps(c *conn, sess protocol.SessionState) (multi, fork bool) {
	root, _ := c.Root()
	for _, ag := range root.Agents {
		if ag.Provider != sess.Provider || ag.Capabilities == nil || ag.Capabilities.MultipleChats == nil {
			continue
		}
		mc := ag.Capabilities.MultipleChats
		return true, mc.Fork != nil && *mc.Fork
	}
	return false, false
}

// createChat asks the host for a chat in session uri from source; its
// URI is minted as the UI mints one (chaturi), in the host's shape.
func createChat(ctx context.Context, c *conn, sess protocol.SessionState, uri string, source *protocol.ChatSource) (string, error) {
	chat := chaturi.Mint(uri, chaturi.Like(sess), newID())
	if err := c.CreateChat(ctx, protocol.CreateChatParams{Channel: uri, Chat: chat, Source: source}); err != nil {
		return "", fmt.Errorf("create a chat in %s: %w", hostText(uri), err)
	}
	return chat, nil
}

func chatsNewCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "new SESSION",
		Short: "start a blank chat in the session and print its URI",
		Long: `Starts a blank chat in the session and prints its URI, where the
session's agent lets a client make more chats. The host names the chat:
AHP has no title for a client to give.`,
		Args: args(1, 1, "SESSION"),
		RunE: a.onSession(func(ctx context.Context, c *conn, argv []string, sess protocol.SessionState, uri string) error {
			if multi, _ := chatCaps(c, sess); !multi {
				return withCode(ExitHostError, fmt.Errorf("the agent of %s keeps one chat a session: it does not let a client create more", hostText(uri)))
			}
			chat, err := createChat(ctx, c, sess, uri, nil)
			if err != nil {
				return err
			}
			return a.emit(chatCreatedJSON{Session: uri, Chat: chat}, func(w io.Writer) { fmt.Fprintln(w, hostText(chat)) })
		}),
	}
}

func chatsForkCmd(a *app) *cobra.Command {
	var turn string
	cmd := &cobra.Command{
		Use:   "fork SESSION CHAT",
		Short: "fork a chat at a finished turn and print the new chat's URI",
		Long: `Forks CHAT (its URI, the id in it, or a prefix of its title; ahptui chats
list SESSION shows them) at a finished turn, --turn ID, else its latest,
where the session's agent forks chats; prints the new chat's URI.`,
		Args: args(2, 2, "SESSION CHAT"),
		RunE: a.onSession(func(ctx context.Context, c *conn, argv []string, sess protocol.SessionState, uri string) error {
			if _, fork := chatCaps(c, sess); !fork {
				return withCode(ExitHostError, fmt.Errorf("the agent of %s does not fork chats", hostText(uri)))
			}
			from, chat, err := c.chatIn(ctx, sess, uri, argv[1])
			if err != nil {
				return err
			}
			id, err := forkTurn(chat, turn)
			if err != nil {
				return err
			}
			src := &protocol.ChatSource{Variant: protocol.ForkChatSource{Chat: from, TurnID: id}}
			made, err := createChat(ctx, c, sess, uri, src)
			if err != nil {
				return err
			}
			return a.emit(chatCreatedJSON{Session: uri, Chat: made, From: from, Turn: id}, func(w io.Writer) { fmt.Fprintln(w, hostText(made)) })
		}),
	}
	cmd.Flags().StringVar(&turn, "turn", "", "the finished turn `ID` to fork at (default: the chat's latest)")
	return cmd
}

// forkTurn is the finished turn a fork starts from: want, or the latest.
func forkTurn(chat protocol.ChatState, want string) (string, error) {
	if want == "" {
		if n := len(chat.Turns); n > 0 {
			return chat.Turns[n-1].ID, nil
		}
		return "", conflictf("nothing to fork in %s yet: a fork starts from a finished turn", hostText(chat.Resource))
	}
	for _, t := range chat.Turns {
		if t.ID == want {
			return t.ID, nil
		}
	}
	if chat.ActiveTurn != nil && chat.ActiveTurn.ID == want {
		return "", conflictf("turn %s is still running: a fork starts from a finished turn", views_quote(want))
	}
	return "", notFoundf("no turn %s in %s (ahptui show --json lists the turns' ids)", views_quote(want), hostText(chat.Resource))
}

// chatIn is the chat of session sess (uri) that arg names, subscribed:
// its URI, the id in it (ahp-chat:/ID, ahp-chat://ID/…), or a prefix of
// its title only it has; "" names the default chat.
func (c *conn) chatIn(ctx context.Context, sess protocol.SessionState, uri, arg string) (string, protocol.ChatState, error) {
	want := defaultChat(sess)
	if arg != "" {
		var err error
		if want, err = findChat(sess, uri, arg); err != nil {
			return "", protocol.ChatState{}, err
		}
	}
	if want == "" {
		return "", protocol.ChatState{}, withCode(ExitHostError, fmt.Errorf("%s has no chat", hostText(uri)))
	}
	if err := c.Subscribe(ctx, want); err != nil {
		return "", protocol.ChatState{}, fmt.Errorf("subscribe to %s: %w", hostText(want), err)
	}
	ch, _ := c.Chat(want)
	return want, ch, nil
}

// chatID is the id a chat URI carries: ahp-chat:/ID, ahp-chat://ID/….
func chatID(uri string) string {
	rest, ok := strings.CutPrefix(uri, "ahp-chat:")
	if !ok {
		return ""
	}
	rest = strings.TrimLeft(rest, "/")
	id, _, _ := strings.Cut(rest, "/")
	return id
}

func findChat(sess protocol.SessionState, uri, arg string) (string, error) {
	for _, ch := range sess.Chats {
		if ch.Resource == arg || chatID(ch.Resource) == arg {
			return ch.Resource, nil
		}
	}
	var found []string
	for _, ch := range sess.Chats {
		if strings.HasPrefix(strings.ToLower(ch.Title), strings.ToLower(arg)) {
			found = append(found, ch.Resource)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return "", notFoundf("no chat %s in %s (ahptui chats list %s shows them)", views_quote(arg), hostText(uri), hostText(uri))
	}
	for i := range found {
		found[i] = hostText(found[i])
	}
	return "", usagef("%s names several chats: %s", views_quote(arg), strings.Join(found, ", "))
}
