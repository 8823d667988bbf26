package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ahptui/ahptui/host/privilege"
	"github.com/ahptui/ahptui/protocol"
)

// decisionJSON is what approve and deny print.
type decisionJSON struct {
	Session  string `json:"session"`
	ToolCall string `json:"toolCall"`
	Name     string `json:"name"`
	Approved bool   `json:"approved"`
	Option   string `json:"option,omitempty"` // the option's label, when one was picked
}

func decideCmd(a *app, approve bool) *cobra.Command {
	verb, short := "deny", "deny a tool call (or its result) that waits on you"
	if approve {
		verb, short = "approve", "approve a tool call (or its result) that waits on you"
	}
	var option int
	cmd := &cobra.Command{
		Use:   verb + " SESSION [TOOLCALL]",
		Short: short,
		Long: short + `.
TOOLCALL is the call's id (ahptui show SESSION lists what waits); it may
be left out when one call waits. --option N picks the call's N-th
option (numbered from 1 as show lists them); the option's own kind then
decides whether the call is approved or denied.`,
		Args: args(1, 2, "SESSION [TOOLCALL]"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			return a.connected(cmd.Context(), func(ctx context.Context, c *conn) error {
				sess, uri, chat, err := c.session(ctx, argv[0])
				if err != nil {
					return err
				}
				want := ""
				if len(argv) > 1 {
					want = argv[1]
				}
				w, err := pickWaiting(waiting(sess, uri, chat), uri, want)
				if err != nil {
					return err
				}
				d, err := decide(ctx, c, chat, w, approve, option)
				if err != nil {
					return err
				}
				return a.emit(d, func(out io.Writer) {
					word := "denied"
					if d.Approved {
						word = "approved"
					}
					fmt.Fprintf(out, "%s %s (%s)", word, hostText(d.Name), hostText(d.ToolCall))
					if d.Option != "" {
						fmt.Fprintf(out, ": %s", hostText(d.Option))
					}
					fmt.Fprintln(out)
				})
			})
		},
	}
	cmd.Flags().IntVar(&option, "option", 0, "pick the call's option `N` (from 1)")
	return cmd
}

// pickWaiting is the approval that want names, or the only one.
func pickWaiting(ws []waitJSON, session, want string) (waitJSON, error) {
	var calls []waitJSON
	for _, w := range ws {
		if w.Kind == "approval" || w.Kind == "result-approval" {
			calls = append(calls, w)
		}
	}
	for _, w := range calls {
		if want != "" && w.ToolCall == want {
			return w, nil
		}
	}
	switch {
	case want != "":
		return waitJSON{}, notFoundf("no tool call %s waits for approval in %s (ahptui show %s lists what waits)", views_quote(want), hostText(session), hostText(session))
	case len(calls) == 1:
		return calls[0], nil
	case len(calls) == 0:
		return waitJSON{}, conflictf("nothing waits for approval in %s", hostText(session))
	}
	ids := make([]string, len(calls))
	for i, w := range calls {
		ids[i] = hostText(w.ToolCall)
	}
	return waitJSON{}, usagef("%d tool calls wait in %s: name one of %s", len(calls), hostText(session), strings.Join(ids, ", "))
}

// decide approves or denies w as the UI's keys do: a result confirmation
// is answered as such; a call with options is answered with one (option
// picks it; else approve takes the one that allows just this call, deny
// the first denying one).
func decide(ctx context.Context, c *conn, chat protocol.ChatState, w waitJSON, approve bool, option int) (decisionJSON, error) {
	d := decisionJSON{Session: w.Session, ToolCall: w.ToolCall, Name: w.Name, Approved: approve}
	turn := chat.ActiveTurn.ID
	if w.Kind == "result-approval" {
		if option != 0 {
			return d, usagef("%s waits for its result to be confirmed: it has no options", hostText(w.Name))
		}
		return d, c.dispatch(ctx, chat.Resource, protocol.ChatToolCallResultConfirmedAction{TurnID: turn, ToolCallID: w.ToolCall, Approved: approve})
	}
	var picked *optionJSON
	switch {
	case option != 0 && (option < 1 || option > len(w.Options)):
		return d, usagef("no option %d: %s offers %d", option, hostText(w.Name), len(w.Options))
	case option != 0:
		picked = &w.Options[option-1]
	case approve && len(w.Options) > 0:
		// As the UI's approve key: the option that allows just this
		// call (host/privilege), never a broader one such as VS Code's
		// "Allow in this Session", which is listed first.
		opts := make([]protocol.ConfirmationOption, len(w.Options))
		for i, o := range w.Options {
			opts[i] = protocol.ConfirmationOption{ID: o.ID, Label: o.Label, Kind: protocol.ConfirmationOptionKind(o.Kind)}
		}
		once, ok := privilege.OnceOption(opts)
		if !ok {
			return d, usagef("%s offers no option that allows just this call: pick one with --option N (ahptui show %s lists them)",
				hostText(w.Name), hostText(w.Session))
		}
		for i := range w.Options {
			if w.Options[i].ID == once.ID {
				picked = &w.Options[i]
				break
			}
		}
	default:
		for i := range w.Options {
			if w.Options[i].Kind == string(protocol.ConfirmationOptionKindDeny) {
				picked = &w.Options[i]
				break
			}
		}
	}
	var id *string
	if picked != nil {
		switch protocol.ConfirmationOptionKind(picked.Kind) {
		case protocol.ConfirmationOptionKindApprove:
			d.Approved = true
		case protocol.ConfirmationOptionKindDeny:
			d.Approved = false
		default:
			return d, usagef("option %d (%s) is of a kind this ahptui does not know: pick another", picked.N, views_quote(picked.Label))
		}
		id, d.Option = &picked.ID, picked.Label
	}
	if d.Approved {
		return d, c.dispatch(ctx, chat.Resource, protocol.ChatToolCallApprovedAction{TurnID: turn, ToolCallID: w.ToolCall, Approved: true,
			Confirmed: protocol.ToolCallConfirmationReasonUserAction, SelectedOptionID: id})
	}
	return d, c.dispatch(ctx, chat.Resource, protocol.ChatToolCallDeniedAction{TurnID: turn, ToolCallID: w.ToolCall, Approved: false,
		Reason: string(protocol.ToolCallCancellationReasonDenied), SelectedOptionID: id})
}
