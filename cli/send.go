package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ahptui/ahptui/host/waits"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
	"github.com/ahptui/ahptui/views"
)

// Approval policies of send: what it may approve with nobody watching.
const (
	approveNone  = "none"
	approveReads = "reads"
	approveAll   = "all"
)

// sentJSON is `ahptui send --json`: the turn as show prints it, and what
// stopped it when something waits on the user.
type sentJSON struct {
	Session  string         `json:"session"`
	Turn     turnJSON       `json:"turn"`
	Approved []decisionJSON `json:"approved"`
	Waiting  []waitJSON     `json:"waiting"`
}

func sendCmd(a *app) *cobra.Command {
	var isNew bool
	var agent, policy, file string
	var cwd []string
	cmd := &cobra.Command{
		Use:   "send (SESSION | --new) MESSAGE",
		Short: "send a message; stream the answer until the turn ends or waits",
		Long: `Sends MESSAGE as a new turn in SESSION (or in a new session with --new) and
prints the answer as it streams (with --json, the whole turn at the end).
MESSAGE - (or --file FILE) reads the message from stdin (or the file).
With --new, the first line is the new session: "session: URI".
Interrupted (ctrl-c), send asks the host to cancel the turn it started
and says whether it did.

--approve decides what send may approve with nobody watching: none (the
default), reads (tool calls of tools the host marks read-only) or all.
Anything else that waits on the user — an approval it may not give, an
input request, a sign-in — stops send with exit code 5; it prints what
waits and the command that answers it. send waits as long as the turn
runs unless --timeout is given.`,
		Args: func(cmd *cobra.Command, argv []string) error {
			switch {
			case isNew && file != "":
				return args(0, 0, "--new --file FILE")(cmd, argv)
			case isNew:
				return args(1, 1, "--new MESSAGE")(cmd, argv)
			case file != "":
				return args(1, 1, "SESSION --file FILE")(cmd, argv)
			}
			return args(2, 2, "SESSION MESSAGE (or --new MESSAGE)")(cmd, argv)
		},
		RunE: func(cmd *cobra.Command, argv []string) error {
			if !slices.Contains([]string{approveNone, approveReads, approveAll}, policy) {
				return usagef("--approve %q: want none, reads or all", policy)
			}
			dirs, err := fileURIs(cwd)
			if err != nil {
				return err
			}
			text, err := a.messageText(argv, file)
			if err != nil {
				return err
			}
			if !cmd.Flags().Changed("timeout") {
				// A turn takes as long as the agent needs; each connect
				// attempt is still bounded (host/dial.AttemptTimeout).
				a.timeout = 100 * 365 * 24 * time.Hour
			}
			return a.connected(cmd.Context(), func(ctx context.Context, c *conn) error {
				session := ""
				if isNew {
					ag, err := pickAgent(c, agent)
					if err != nil {
						return err
					}
					if session, err = createSession(ctx, c, ag, dirs); err != nil {
						return err
					}
					if !a.json {
						// First, so a script that stops reading (or a
						// --timeout) still has the session to come back to.
						fmt.Fprintln(a.Stdout, "session: "+hostText(session))
					}
				} else {
					session = argv[0]
				}
				return a.send(ctx, c, session, text, policy)
			})
		},
	}
	cmd.Flags().BoolVar(&isNew, "new", false, "send in a new session (see --agent, --cwd)")
	cmd.Flags().StringVar(&file, "file", "", "read the message from `FILE` (- for stdin) instead of an argument")
	cmd.Flags().StringVar(&agent, "agent", "", "the agent (`NAME`) of a --new session (default: the host's only one)")
	cmd.Flags().StringArrayVar(&cwd, "cwd", nil, "working `DIR` of a --new session (repeat for more)")
	cmd.Flags().StringVar(&policy, "approve", approveNone, "what send may approve unattended, `POLICY`: none, reads or all")
	return cmd
}

// streamer prints a turn's parts as they grow: the text not printed yet
// of each markdown part, and each tool call's status when it changes.
type streamer struct {
	a       *app
	w       io.Writer
	printed map[int]int    // part index → bytes of text printed
	status  map[int]string // part index → tool call status printed
	newline bool           // the last byte printed was a newline
}

func (s *streamer) print(parts []protocol.ResponsePart) {
	for i, p := range parts {
		switch v := p.Variant.(type) {
		case protocol.MarkdownResponsePart:
			text := v.Content.String()
			if n := s.printed[i]; n < len(text) {
				chunk := views.Sanitize(text[n:])
				fmt.Fprint(s.w, chunk)
				s.printed[i] = len(text)
				s.newline = strings.HasSuffix(chunk, "\n")
			}
		case protocol.ToolCallResponsePart:
			tc := v.ToolCall
			// A call whose arguments still stream says nothing yet;
			// how many such states a host sends is its own business.
			if s.status[i] == tc.Status() || tc.Status() == protocol.ToolCallStatusStreaming {
				continue
			}
			s.status[i] = tc.Status()
			if !s.newline {
				fmt.Fprintln(s.w)
			}
			fmt.Fprintf(s.w, "%s %s  %s  %s\n", s.a.paint(sgrDim, "tool"), hostText(tc.Name()), hostText(tc.ID()),
				s.a.paint(statusColor(tc.Status()), hostText(tc.Status())))
			s.newline = true
		}
	}
}

// readOnlyTool reports whether the session's tools mark name read-only.
func readOnlyTool(sess protocol.SessionState, name string) bool {
	for _, t := range sess.ServerTools {
		if t.Name == name && t.Annotations != nil && t.Annotations.ReadOnlyHint != nil && *t.Annotations.ReadOnlyHint {
			return true
		}
	}
	return false
}

// send starts a turn with text in session and follows it to its end.
func (a *app) send(ctx context.Context, c *conn, session, text, policy string) error {
	_, uri, chat, err := c.session(ctx, session)
	if err != nil {
		return err
	}
	if chat.Resource == "" {
		return withCode(ExitHostError, fmt.Errorf("%s has no chat to send to", hostText(uri)))
	}
	if chat.ActiveTurn != nil {
		return conflictf("a turn is running in %s: wait for it or cancel it (ahptui cancel %s)", hostText(uri), hostText(uri))
	}
	turnID := newID()
	msg := protocol.Message{Text: text, Origin: protocol.MessageOrigin{Kind: protocol.MessageKindUser}}
	if err := c.dispatch(ctx, chat.Resource, protocol.ChatTurnStartedAction{TurnID: turnID, StartedAt: protocol.Timestamp(time.Now()), Message: msg}); err != nil {
		return err
	}
	st := &streamer{a: a, w: a.Stdout, printed: map[int]int{}, status: map[int]string{}, newline: true}
	out := sentJSON{Session: uri, Approved: []decisionJSON{}, Waiting: []waitJSON{}}
	decided := map[string]bool{}
	var ended *protocol.Turn
	err = c.wait(ctx, func([]client.Event) (bool, error) {
		sess, _ := c.Session(uri)
		if c.pushSaved(ctx, &sess) {
			return false, errRecheck
		}
		ch, ok := c.Chat(chat.Resource)
		if !ok {
			return false, withCode(ExitHostError, fmt.Errorf("the host dropped the chat of %s", hostText(uri)))
		}
		if i := slices.IndexFunc(ch.Turns, func(t protocol.Turn) bool { return t.ID == turnID }); i >= 0 {
			t := ch.Turns[i]
			ended = &t
			return true, nil
		}
		if ch.ActiveTurn == nil || ch.ActiveTurn.ID != turnID {
			return false, nil
		}
		if !a.json {
			st.print(ch.ActiveTurn.ResponseParts)
		}
		var stop []waitJSON
		for _, w := range waiting(sess, uri, ch, a.hostFlags(c)...) {
			if decided[w.ToolCall+"/"+w.Kind] {
				continue
			}
			mayApprove := (w.Kind == "approval" || w.Kind == "result-approval") &&
				(policy == approveAll || (policy == approveReads && readOnlyTool(sess, toolName(ch, w.ToolCall))))
			if !mayApprove {
				stop = append(stop, w)
				continue
			}
			d, err := decide(ctx, c, ch, w, true, 0)
			if err != nil {
				return false, err
			}
			decided[w.ToolCall+"/"+w.Kind] = true
			out.Approved = append(out.Approved, d)
			return false, errRecheck
		}
		if len(stop) > 0 {
			out.Waiting = stop
			out.Turn = turnJSON{ID: turnID, State: "running", Message: text, Parts: partsOf(ch.ActiveTurn.ResponseParts)}
			return true, nil
		}
		return false, nil
	})
	if err != nil && interrupted(ctx) && ended == nil {
		return cancelOnInterrupt(ctx, c, chat.Resource, turnID)
	}
	if err != nil {
		return err
	}
	if ended != nil {
		out.Turn = turnJSON{ID: ended.ID, State: string(ended.State), Message: ended.Message.Text, Parts: partsOf(ended.ResponseParts)}
		if !a.json {
			st.print(ended.ResponseParts)
			if !st.newline {
				fmt.Fprintln(a.Stdout)
			}
		}
	}
	if a.json {
		if err := a.emit(out, nil); err != nil {
			return err
		}
	} else if len(out.Waiting) > 0 {
		if !st.newline {
			fmt.Fprintln(a.Stdout)
		}
		a.printWaiting(a.Stdout, out.Waiting)
	}
	switch {
	case len(out.Waiting) > 0:
		return withCode(ExitWaiting, fmt.Errorf("the turn waits on you: %s", hostText(out.Waiting[0].Answer)))
	case ended != nil && ended.State == protocol.TurnStateError:
		if res := agentSignIn(c, ended); res != "" {
			login := append(append([]string{"ahptui", "auth", "login"}, a.hostFlags(c)...), res)
			return withCode(ExitSignIn, fmt.Errorf("the turn ended for want of a sign-in%s: sign in with %s, then send again", turnError(ended), waits.Quote(login)))
		}
		return withCode(ExitHostError, errors.New("the turn ended with an error"+turnError(ended)))
	case ended != nil && ended.State == protocol.TurnStateCancelled:
		return withCode(ExitInterrupted, errors.New("the turn was cancelled"))
	}
	return nil
}

// toolName is the tool name of call id in the chat's running turn.
func toolName(ch protocol.ChatState, id string) string {
	if ch.ActiveTurn == nil {
		return ""
	}
	for _, p := range ch.ActiveTurn.ResponseParts {
		if v, ok := p.Variant.(protocol.ToolCallResponsePart); ok && v.ToolCall.ID() == id {
			if pc, ok := v.ToolCall.Variant.(protocol.ToolCallPendingConfirmationState); ok {
				return pc.ToolName
			}
		}
	}
	return ""
}

// turnError is ": message" of a turn's last error part, or "".
func turnError(t *protocol.Turn) string {
	for i := len(t.ResponseParts) - 1; i >= 0; i-- {
		if e, ok := t.ResponseParts[i].Variant.(protocol.ErrorResponsePart); ok {
			return ": " + hostText(e.Error.Message)
		}
	}
	return ""
}

// agentSignIn is the agent's protected resource a turn ended for want
// of, "" when it ended otherwise. VS Code's copilotcli never sends
// auth/required: its turns end at an "AuthRequired" error while a
// resource the agent lists as required has no token (the UI reads the
// need the same way, off the agent's declaration).
func agentSignIn(c *conn, t *protocol.Turn) string {
	authErr := false
	for _, p := range t.ResponseParts {
		if e, ok := p.Variant.(protocol.ErrorResponsePart); ok && e.Error.ErrorType == "AuthRequired" {
			authErr = true
		}
	}
	if !authErr {
		return ""
	}
	root, _ := c.Root()
	for _, ag := range root.Agents {
		for _, p := range ag.ProtectedResources {
			if p.Required == nil || *p.Required {
				return hostText(p.Resource)
			}
		}
	}
	return ""
}

// maxMessageBytes bounds a message read from stdin or a file: a turn's
// text, not a way to ship a disk image to the host by mistake.
const maxMessageBytes = 1 << 20

// messageText is the message send sends: the last argument, or stdin for
// "-", or --file's contents.
func (a *app) messageText(argv []string, file string) (string, error) {
	src := file
	if src == "" {
		if text := argv[len(argv)-1]; text != "-" {
			return text, nil
		}
		src = "-"
	}
	var r io.Reader
	name := "stdin"
	if src == "-" {
		r = a.Stdin
	} else {
		f, err := os.Open(src)
		if err != nil {
			return "", usagef("--file: %v", err)
		}
		defer f.Close()
		r, name = f, src
	}
	b, err := io.ReadAll(io.LimitReader(r, maxMessageBytes+1))
	if err != nil {
		return "", fmt.Errorf("read the message from %s: %w", name, err)
	}
	if len(b) > maxMessageBytes {
		return "", usagef("the message in %s is over %d bytes", name, maxMessageBytes)
	}
	text := strings.TrimRight(string(b), "\n")
	if strings.TrimSpace(text) == "" {
		return "", usagef("the message in %s is empty", name)
	}
	return text, nil
}

// cancelOnInterrupt asks the host to cancel the turn send started, when
// the user stopped send before the turn ended: a turn left running would
// go on spending and acting with nobody watching. ctx is the ended one;
// the request gets a few seconds of its own.
func cancelOnInterrupt(ctx context.Context, c *conn, chat, turnID string) error {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if ch, ok := c.Chat(chat); !ok || ch.ActiveTurn == nil || ch.ActiveTurn.ID != turnID {
		return &interruptNote{"the turn had already ended"}
	}
	if err := c.dispatch(cctx, chat, protocol.ChatTurnCancelledAction{TurnID: turnID}); err != nil {
		return &interruptNote{"the turn still runs on the host; cancelling it failed: " + views.SanitizeLine(err.Error())}
	}
	return &interruptNote{"asked the host to cancel the turn, and it did"}
}
