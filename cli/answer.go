package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

// questionJSON is one question of an input request that waits.
type questionJSON struct {
	ID       string   `json:"id"`
	Kind     string   `json:"kind"` // text, number, integer, boolean, single-select, multi-select
	Message  string   `json:"message"`
	Required bool     `json:"required"`
	Options  []string `json:"options,omitempty"` // option ids of a select question
}

func questionsOf(r protocol.ChatInputRequest) []questionJSON {
	var out []questionJSON
	for _, q := range r.Questions {
		id, title, msg, required := views.QuestionBase(q)
		if title != "" {
			msg = title + ": " + msg
		}
		j := questionJSON{ID: id, Kind: q.Kind(), Message: msg, Required: required}
		for _, o := range views.QuestionOptions(q) {
			j.Options = append(j.Options, o.ID)
		}
		out = append(out, j)
	}
	return out
}

// answeredJSON is what answer prints.
type answeredJSON struct {
	Session  string            `json:"session"`
	Request  string            `json:"request"`
	Response string            `json:"response"` // accept or decline
	Answers  map[string]string `json:"answers"`
}

func answerCmd(a *app) *cobra.Command {
	var given []string
	var decline bool
	cmd := &cobra.Command{
		Use:   "answer SESSION [REQUEST]",
		Short: "answer an input request that waits in a session",
		Long: `Answers the session's input request (REQUEST may be left out when one
waits; ahptui show SESSION lists its questions). Each answer is
ID=VALUE, from --answer or, when none is given, one a line on stdin. A
boolean takes yes or no; a select question an option's id or label (a
multi-select several, comma-separated, or the ID repeated). --decline
declines the request instead.`,
		Args: args(1, 2, "SESSION [REQUEST]"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			if decline && len(given) > 0 {
				return usagef("--decline and --answer: give one")
			}
			if !decline && len(given) == 0 {
				lines, err := readAnswerLines(a.Stdin)
				if err != nil {
					return err
				}
				given = lines
			}
			return a.connected(cmd.Context(), func(ctx context.Context, c *conn) error {
				_, uri, chat, err := c.session(ctx, argv[0])
				if err != nil {
					return err
				}
				want := ""
				if len(argv) > 1 {
					want = argv[1]
				}
				req, err := pickRequest(chat, uri, want)
				if err != nil {
					return err
				}
				out := answeredJSON{Session: uri, Request: req.ID, Response: string(protocol.ChatInputResponseKindDecline), Answers: map[string]string{}}
				act := protocol.ChatInputCompletedAction{RequestID: req.ID, Response: protocol.ChatInputResponseKindDecline}
				if !decline {
					answers, shown, err := answersFor(req, given)
					if err != nil {
						return err
					}
					act.Response, act.Answers = protocol.ChatInputResponseKindAccept, answers
					out.Response, out.Answers = string(protocol.ChatInputResponseKindAccept), shown
				}
				if err := c.dispatch(ctx, chat.Resource, act); err != nil {
					return err
				}
				return a.emit(out, func(w io.Writer) {
					if decline {
						fmt.Fprintf(w, "declined %s\n", hostText(req.ID))
						return
					}
					fmt.Fprintf(w, "answered %s\n", hostText(req.ID))
					ids := make([]string, 0, len(out.Answers))
					for id := range out.Answers {
						ids = append(ids, id)
					}
					sort.Strings(ids)
					for _, id := range ids {
						fmt.Fprintf(w, "  %s = %s\n", hostText(id), hostText(out.Answers[id]))
					}
				})
			})
		},
	}
	cmd.Flags().StringArrayVar(&given, "answer", nil, "an answer, `ID=VALUE` (repeat for more)")
	cmd.Flags().BoolVar(&decline, "decline", false, "decline the request")
	return cmd
}

// readAnswerLines reads ID=VALUE lines, skipping blank ones and # comments.
func readAnswerLines(r io.Reader) ([]string, error) {
	var out []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read answers from stdin: %w", err)
	}
	return out, nil
}

// pickRequest is the unanswered input request want names, or the only one.
func pickRequest(chat protocol.ChatState, session, want string) (protocol.ChatInputRequest, error) {
	var open []protocol.ChatInputRequest
	if chat.ActiveTurn != nil {
		for _, p := range chat.ActiveTurn.ResponseParts {
			if v, ok := p.Variant.(protocol.InputRequestResponsePart); ok && v.Response == nil {
				open = append(open, v.Request)
			}
		}
	}
	for _, r := range open {
		if r.ID == want {
			return r, nil
		}
	}
	switch {
	case want != "":
		return protocol.ChatInputRequest{}, notFoundf("no input request %s waits in %s", views_quote(want), hostText(session))
	case len(open) == 1:
		return open[0], nil
	case len(open) == 0:
		return protocol.ChatInputRequest{}, conflictf("no input request waits in %s", hostText(session))
	}
	return protocol.ChatInputRequest{}, usagef("%d input requests wait in %s: name one", len(open), hostText(session))
}

// answersFor turns ID=VALUE answers into the request's answers, by the
// same rules as the UI's form (views.AnswerFromDraft).
func answersFor(req protocol.ChatInputRequest, given []string) (map[string]protocol.ChatInputAnswer, map[string]string, error) {
	values := map[string][]string{}
	for _, g := range given {
		id, v, ok := strings.Cut(g, "=")
		if !ok || strings.TrimSpace(id) == "" {
			return nil, nil, usagef("answer %q: want ID=VALUE", g)
		}
		values[strings.TrimSpace(id)] = append(values[strings.TrimSpace(id)], strings.TrimSpace(v))
	}
	byID := map[string]protocol.ChatInputQuestion{}
	for _, q := range req.Questions {
		id, _, _, _ := views.QuestionBase(q)
		byID[id] = q
	}
	for id := range values {
		if _, ok := byID[id]; !ok {
			return nil, nil, usagef("the request asks no question %s", views_quote(id))
		}
	}
	answers := map[string]protocol.ChatInputAnswer{}
	shown := map[string]string{}
	for _, q := range req.Questions {
		id, _, _, _ := views.QuestionBase(q)
		d, err := draftOf(q, values[id])
		if err != nil {
			return nil, nil, err
		}
		v, ok, err := views.AnswerFromDraft(q, d)
		if err != nil {
			return nil, nil, withCode(ExitUsage, err)
		}
		if ok {
			answers[id] = protocol.NewChatInputAnswer(protocol.ChatInputAnswered{State: "submitted", Value: v})
			shown[id] = strings.Join(values[id], ",")
		}
	}
	return answers, shown, nil
}

// draftOf is the form draft the values would have typed into q. A
// value q cannot take is refused here, naming what it takes, rather than
// dropped (which left a required question "needing an answer") or sent
// in part (the last of two answers to a single-select).
func draftOf(q protocol.ChatInputQuestion, values []string) (views.InputDraft, error) {
	var d views.InputDraft
	if len(values) == 0 {
		return d, nil
	}
	id, _, _, _ := views.QuestionBase(q)
	qid := views_quote(id)
	if _, multi := q.Variant.(protocol.ChatInputMultiSelectQuestion); !multi && len(values) > 1 {
		quoted := make([]string, len(values))
		for i, v := range values {
			quoted[i] = views_quote(v)
		}
		return d, usagef("%s takes one answer, and %d were given (%s)", qid, len(values), strings.Join(quoted, ", "))
	}
	last := values[len(values)-1]
	opts := views.QuestionOptions(q)
	option := func(v string) (string, bool) {
		i := slices.IndexFunc(opts, func(o protocol.ChatInputOption) bool { return o.ID == v || strings.EqualFold(o.Label, v) })
		if i < 0 {
			return "", false
		}
		return opts[i].ID, true
	}
	notAnOption := func(v string) error {
		ids := make([]string, len(opts))
		for i, o := range opts {
			ids[i] = hostText(o.ID)
		}
		return usagef("%s is not an option of %s (options: %s)", views_quote(v), hostText(id), strings.Join(ids, ", "))
	}
	switch v := q.Variant.(type) {
	case protocol.ChatInputBooleanQuestion:
		var b bool
		switch strings.ToLower(last) {
		case "yes", "y", "true":
			b = true
		case "no", "n", "false":
		default:
			return d, usagef("%s wants yes or no, not %s", qid, views_quote(last))
		}
		d.Bool = &b
	case protocol.ChatInputNumberQuestion:
		n, err := strconv.ParseFloat(last, 64)
		if err != nil || math.IsNaN(n) || math.IsInf(n, 0) {
			return d, usagef("%s wants a number, not %s", qid, views_quote(last))
		}
		if v.Kind == "integer" && n != math.Trunc(n) {
			return d, usagef("%s wants a whole number, not %s", qid, views_quote(last))
		}
		if (v.Min != nil && n < *v.Min) || (v.Max != nil && n > *v.Max) {
			return d, usagef("%s wants a number %s, not %s", qid, numberRange(v.Min, v.Max), views_quote(last))
		}
		d.Text = last
	case protocol.ChatInputSingleSelectQuestion:
		if id, ok := option(last); ok {
			d.Choice = id
			break
		}
		if v.AllowFreeformInput == nil || !*v.AllowFreeformInput {
			if parts := strings.Split(last, ","); len(parts) > 1 {
				return d, usagef("%s takes one option, not several (%s)", qid, views_quote(last))
			}
			return d, notAnOption(last)
		}
		d.Text = last
	case protocol.ChatInputMultiSelectQuestion:
		d.Chosen = map[string]bool{}
		var free []string
		for _, val := range values {
			for _, part := range strings.Split(val, ",") {
				part = strings.TrimSpace(part)
				if id, ok := option(part); ok {
					d.Chosen[id] = true
				} else if part != "" {
					if v.AllowFreeformInput == nil || !*v.AllowFreeformInput {
						return d, notAnOption(part)
					}
					free = append(free, part)
				}
			}
		}
		d.Text = strings.Join(free, ", ")
	default:
		d.Text = last
	}
	return d, nil
}

// numberRange says a number question's bounds: "from 1 to 10", "of at
// least 1", "of at most 10".
func numberRange(lo, hi *float64) string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	switch {
	case lo != nil && hi != nil:
		return "from " + f(*lo) + " to " + f(*hi)
	case lo != nil:
		return "of at least " + f(*lo)
	}
	return "of at most " + f(*hi)
}
