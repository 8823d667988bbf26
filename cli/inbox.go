package cli

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/ahptui/ahptui/hosts"
	"github.com/ahptui/ahptui/protocol"
)

// Kinds of inbox item besides waitJSON's (approval, result-approval,
// input, sign-in).
const (
	inboxMCPFailed = "mcp-failed" // an MCP server in its error state
	inboxTurnError = "turn-error" // a chat's latest turn stopped on an error
)

// inboxJSON is `ahptui inbox --json`: every host's row, and what waits on
// the user across them, the longest waiting first.
type inboxJSON struct {
	Hosts []hostJSON      `json:"hosts"`
	Items []inboxItemJSON `json:"items"`
}

// inboxItemJSON is one thing that waits on the user, with its host.
type inboxItemJSON struct {
	Host     string `json:"host"`
	Session  string `json:"session"`
	Title    string `json:"title,omitempty"`
	Chat     string `json:"chat,omitempty"`
	Kind     string `json:"kind"`
	Name     string `json:"name,omitempty"`
	ToolCall string `json:"toolCall,omitempty"`
	Request  string `json:"request,omitempty"`
	Server   string `json:"server,omitempty"`
	// Since is when the session last changed on the host (its
	// modifiedAt): the command sees each item once, so the host's clock
	// is the one that says how long it has waited.
	Since  string `json:"since,omitempty"`
	Answer string `json:"answer"`
}

func inboxCmd(a *app) *cobra.Command {
	return multiHostCmd(a, &cobra.Command{
		Use:   "inbox",
		Short: "what waits on you, across hosts: approvals, inputs, sign-ins, failed servers, stopped turns",
		Long: `What waits on you: tool calls to approve, input requests, sign-ins, MCP
servers that failed and turns stopped on an error, in every session
whose status says it needs input or stopped on an error. The longest
waiting first, by when the host last changed the session; each item
names its host, its session and the command that answers it.

With --all-hosts (or --host more than once), every host's at once: a
host that fails is a row with its reason, and the exit code is the
first failed host's.`,
		Args: args(0, 0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if a.multiHost() {
				return a.inboxAll(cmd.Context())
			}
			return a.connected(cmd.Context(), func(ctx context.Context, c *conn) error {
				items, err := readInbox(ctx, c)
				if err != nil {
					return err
				}
				for i := range items {
					items[i].Host = c.host
				}
				sortInbox(items)
				out := inboxJSON{Hosts: []hostJSON{{Host: c.host, State: string(hosts.Connected)}}, Items: nonNil(items)}
				return a.emit(out, func(w io.Writer) { a.printInbox(w, out) })
			})
		},
	})
}

func (a *app) inboxAll(ctx context.Context) error {
	set, err := a.dialAll(ctx)
	if err != nil {
		return err
	}
	defer set.Close()
	hs := set.reg.Hosts()
	per := make([][]inboxItemJSON, len(hs))
	errs := a.eachHost(ctx, set, func(ctx context.Context, i int, c *conn) error {
		items, err := readInbox(ctx, c)
		for j := range items {
			items[j].Host, items[j].Answer = hs[i].Display(), answerOn(items[j].Answer, hs[i])
		}
		per[i] = items
		return err
	})
	out := inboxJSON{Hosts: make([]hostJSON, len(hs)), Items: []inboxItemJSON{}}
	for i, h := range hs {
		out.Hosts[i] = hostRowOf(h, errs[i])
		if errs[i] == nil {
			out.Items = append(out.Items, per[i]...)
		}
	}
	sortInbox(out.Items)
	if err := a.emit(out, func(w io.Writer) { a.printInbox(w, out) }); err != nil {
		return err
	}
	return hostsFailed(set, errs)
}

// readInbox is what waits on the user on c's host: the sessions whose
// status says input-needed or error are opened (the list's status bits
// say which; no other session is subscribed to), and each one's
// approvals, inputs and sign-ins (what status lists as waiting), failed
// MCP servers and a turn stopped on an error are its items.
func readInbox(ctx context.Context, c *conn) ([]inboxItemJSON, error) {
	list, err := c.ListSessions(ctx)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	var out []inboxItemJSON
	for _, s := range list {
		if !s.Status.Has(protocol.SessionStatusInputNeeded) && !s.Status.Has(protocol.SessionStatusError) {
			continue
		}
		sess, uri, chat, err := c.session(ctx, s.Resource)
		if err != nil {
			return out, err
		}
		since := cmp.Or(s.ModifiedAt, s.CreatedAt)
		base := inboxItemJSON{Session: uri, Title: s.Title, Since: since}
		for _, w := range waiting(sess, uri, chat) {
			it := base
			it.Chat, it.Kind, it.Name, it.ToolCall, it.Request, it.Answer = w.Chat, w.Kind, w.Name, w.ToolCall, w.Request, w.Answer
			out = append(out, it)
		}
		for _, r := range mcpRows(sess) {
			if r.StateKind == "error" {
				it := base
				it.Kind, it.Name, it.Server = inboxMCPFailed, r.Name, r.ID
				it.Answer = "ahptui mcp start " + r.ID + " --session " + uri
				out = append(out, it)
			}
		}
		if chat.ActiveTurn == nil && len(chat.Turns) > 0 {
			if t := chat.Turns[len(chat.Turns)-1]; t.State == protocol.TurnStateError {
				it := base
				it.Chat, it.Kind, it.Name, it.Answer = chat.Resource, inboxTurnError, turnErrorText(t), "ahptui show "+uri
				out = append(out, it)
			}
		}
	}
	return out, nil
}

// turnErrorText is the message of the error a turn stopped on, if it
// carries one.
func turnErrorText(t protocol.Turn) string {
	for i := len(t.ResponseParts) - 1; i >= 0; i-- {
		if e, ok := t.ResponseParts[i].Variant.(protocol.ErrorResponsePart); ok {
			return e.Error.Message
		}
	}
	return ""
}

// sortInbox orders items the longest waiting first (an item without a
// time last), stably: hosts in config order, a session's items in order.
func sortInbox(items []inboxItemJSON) {
	at := func(s string) (time.Time, bool) {
		t, err := time.Parse(time.RFC3339Nano, s)
		return t, err == nil
	}
	slices.SortStableFunc(items, func(x, y inboxItemJSON) int {
		tx, okx := at(x.Since)
		ty, oky := at(y.Since)
		switch {
		case okx && oky:
			return tx.Compare(ty)
		case okx:
			return -1
		case oky:
			return 1
		}
		return 0
	})
}

// printInbox prints the inbox grouped by host, each host's items the
// longest waiting first; a failed host's line says why.
func (a *app) printInbox(w io.Writer, in inboxJSON) {
	for _, h := range in.Hosts {
		a.groupHeader(w, h)
		if h.Error != "" {
			continue
		}
		n := 0
		for _, it := range in.Items {
			if it.Host != h.Host {
				continue
			}
			n++
			title := ""
			if it.Title != "" {
				title = "  " + views_quote(it.Title)
			}
			fmt.Fprintf(w, "  %s  %s%s  %s %s\n", hostText(it.Since), hostText(it.Session), title, a.paint(sgrYellow, it.Kind), hostText(it.Name))
			fmt.Fprintf(w, "      answer: %s\n", hostText(it.Answer))
		}
		if n == 0 {
			fmt.Fprintln(w, "  nothing waits on you")
		}
	}
}
