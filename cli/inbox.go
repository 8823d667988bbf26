package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ahptui/ahptui/host/fleet"
)

// inboxJSON is `ahptui inbox --json`, one shape for one host or several
// (as status's): every host's row, and what waits on the user across
// them, the longest waiting first, each item naming its host.
type inboxJSON struct {
	Hosts []hostJSON      `json:"hosts"`
	Items []inboxItemJSON `json:"items"`
}

// inboxItemJSON is one thing that waits on the user, with its host.
type inboxItemJSON struct {
	Host     hostRef `json:"host"`
	Session  string  `json:"session"`
	Title    string  `json:"title,omitempty"`
	Chat     string  `json:"chat,omitempty"`
	Kind     string  `json:"kind"`
	Name     string  `json:"name,omitempty"`
	ToolCall string  `json:"toolCall,omitempty"`
	Request  string  `json:"request,omitempty"`
	Server   string  `json:"server,omitempty"`
	Resource string  `json:"resource,omitempty"`
	// Since is when the session last changed on the host (its
	// modifiedAt): the command sees each item once, so the host's clock
	// is the one that says how long it has waited.
	Since string `json:"since,omitempty"`
	// Answer is the command that answers, quoted for a POSIX shell;
	// AnswerArgs the same command as its arguments.
	Answer     string   `json:"answer"`
	AnswerArgs []string `json:"answerArgs,omitempty"`
}

func inboxCmd(a *app) *cobra.Command {
	var wait bool
	var kinds []string
	cmd := multiHostCmd(a, &cobra.Command{
		Use:   "inbox",
		Short: "what waits on you, by host: approvals, inputs, sign-ins, errors",
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
			if err := checkKinds(kinds); err != nil {
				return err
			}
			if a.multiHost() {
				if wait {
					return usagef("--wait takes one host")
				}
				return a.inboxAll(cmd.Context(), kinds)
			}
			return a.connected(cmd.Context(), func(ctx context.Context, c *conn) error {
				items, err := waitInbox(ctx, c, a.hostFlags(c), kinds, wait)
				if err != nil {
					return err
				}
				for i := range items {
					items[i].Host = *c.ref()
				}
				sortInbox(items)
				out := inboxJSON{Hosts: []hostJSON{{Host: *c.ref(), State: string(fleet.Connected)}}, Items: nonNil(items)}
				return a.emit(out, func(w io.Writer) { a.printInbox(w, out) })
			})
		},
	})
	cmd.Flags().BoolVar(&wait, "wait", false, "block until something waits (of --kind), then print it")
	cmd.Flags().StringSliceVar(&kinds, "kind", nil, "only items of these `KINDS` (a comma list: approval, result-approval, input, sign-in, mcp-failed, turn-error, needs-input)")
	return cmd
}

func (a *app) inboxAll(ctx context.Context, kinds []string) error {
	set, err := a.dialAll(ctx)
	if err != nil {
		return err
	}
	defer set.Close()
	hs := set.reg.Hosts()
	per := make([][]inboxItemJSON, len(hs))
	errs := a.eachHost(ctx, set, func(ctx context.Context, i int, c *conn) error {
		items, err := readInbox(ctx, c, hostFlagsOf(hs[i]))
		items = ofKinds(items, kinds)
		for j := range items {
			items[j].Host = *refOf(hs[i])
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

// readInbox is what waits on the user on c's host, answers reaching it
// through flags: host/waits over every session the host lists (each
// opened with its default chat, as status does): approvals, inputs and
// sign-ins, MCP servers failed or waiting for sign-in, a turn stopped on
// an error.
func readInbox(ctx context.Context, c *conn, flags []string) ([]inboxItemJSON, error) {
	list, err := c.ListSessions(ctx)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	items, err := hostWaits(ctx, c, list, flags)
	out := make([]inboxItemJSON, 0, len(items))
	for _, it := range items {
		w := waitOf(it)
		out = append(out, inboxItemJSON{Session: w.Session, Title: it.Title, Chat: w.Chat, Kind: w.Kind, Name: w.Name,
			ToolCall: w.ToolCall, Request: w.Request, Server: w.Server, Resource: w.Resource, Since: it.Modified,
			Answer: w.Answer, AnswerArgs: w.AnswerArgs})
	}
	return out, err
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
			if it.Host.URL != h.Host.URL {
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

// inboxKinds are the kinds an inbox item has (host/waits').
var inboxKinds = []string{"approval", "result-approval", "input", "sign-in", "mcp-failed", "turn-error", "needs-input"}

// checkKinds refuses a --kind that is no kind.
func checkKinds(kinds []string) error {
	for _, k := range kinds {
		if !slices.Contains(inboxKinds, k) {
			return usagef("--kind %q: give %s", hostText(k), strings.Join(inboxKinds, ", "))
		}
	}
	return nil
}

// ofKinds is items of kinds (every item when kinds is empty).
func ofKinds(items []inboxItemJSON, kinds []string) []inboxItemJSON {
	if len(kinds) == 0 {
		return items
	}
	return slices.DeleteFunc(items, func(it inboxItemJSON) bool { return !slices.Contains(kinds, it.Kind) })
}

// inboxPoll is how often inbox --wait looks again when no event came: a
// session the host added, or changed, in a way no subscription reports.
const inboxPoll = time.Second

// waitInbox is what waits on c's host (of kinds); with wait, it reads
// again on every batch of events (or after inboxPoll) until something
// does, or ctx ends (--timeout: exit 10).
func waitInbox(ctx context.Context, c *conn, flags, kinds []string, wait bool) ([]inboxItemJSON, error) {
	for {
		items, err := readInbox(ctx, c, flags)
		if err != nil {
			return nil, err
		}
		if items = ofKinds(items, kinds); len(items) > 0 || !wait {
			return items, nil
		}
		pctx, cancel := context.WithTimeout(ctx, inboxPoll)
		_, err = c.receive(pctx)
		cancel()
		if err != nil && (ctx.Err() != nil || pctx.Err() == nil) {
			return nil, err
		}
	}
}
