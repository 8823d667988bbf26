package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ahptui/ahptui/hosts"
	"github.com/ahptui/ahptui/protocol"
)

// statusJSON is `ahptui status --json`, one shape for one host or
// several (docs/cli.md): each host's row with its version, server and
// agents, then every host's sessions and what waits, each naming its
// host, so .sessions[] and .waiting[] read the same however many hosts
// the run has.
type statusJSON struct {
	Hosts    []hostStatusJSON `json:"hosts"`
	Sessions []sessionJSON    `json:"sessions"`
	Waiting  []waitJSON       `json:"waiting"`
}

// hostStatusJSON is one host of status: its row, and for a connected
// host its AHP version, server and agents.
type hostStatusJSON struct {
	hostJSON
	ProtocolVersion string      `json:"protocolVersion,omitempty"`
	Server          string      `json:"server,omitempty"`
	Agents          []agentJSON `json:"agents"`
}

type agentJSON struct {
	Provider    string `json:"provider"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

func statusCmd(a *app) *cobra.Command {
	return multiHostCmd(a, &cobra.Command{
		Use:   "status",
		Short: "the host, its AHP version, agents, sessions and what waits on you",
		Long: `The host, its AHP version, agents, sessions and what waits on you.

With --all-hosts (or --host more than once), every host's, grouped by
host; --json has the same shape for one host or several: every host's
row, then every session and waiting row, each naming its host.`,
		Args: args(0, 0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if a.multiHost() {
				return a.statusAll(cmd.Context())
			}
			return a.connected(cmd.Context(), func(ctx context.Context, c *conn) error {
				st, err := readStatus(ctx, c, a.hostFlags(c))
				if err != nil {
					return err
				}
				return a.emit(st, func(w io.Writer) { a.printStatus(w, st.Hosts[0], st) })
			})
		},
	})
}

// readStatus is status on c's host, every session and waiting row naming
// it; the answers reach it through flags.
func readStatus(ctx context.Context, c *conn, flags []string) (statusJSON, error) {
	row := hostStatusJSON{hostJSON: hostJSON{Host: *c.ref(), State: string(hosts.Connected)}, ProtocolVersion: c.ProtocolVersion(), Agents: []agentJSON{}}
	st := statusJSON{Hosts: []hostStatusJSON{row}, Sessions: []sessionJSON{}, Waiting: []waitJSON{}}
	if si := c.ServerInfo(); si != nil {
		st.Hosts[0].Server = si.Name
		if si.Version != nil {
			st.Hosts[0].Server += " " + *si.Version
		}
	}
	if root, ok := c.Root(); ok {
		for _, ag := range root.Agents {
			st.Hosts[0].Agents = append(st.Hosts[0].Agents, agentJSON{Provider: ag.Provider, Name: ag.DisplayName, Description: ag.Description})
		}
	}
	list, err := c.ListSessions(ctx)
	if err != nil {
		return st, fmt.Errorf("list sessions: %w", err)
	}
	for _, s := range list {
		j := sessionOf(s)
		j.Host = c.ref()
		st.Sessions = append(st.Sessions, j)
	}
	// Every session is opened: an MCP server waiting for sign-in or
	// failed shows in its state alone, whatever the session's status.
	items, err := hostWaits(ctx, c, list, flags)
	for _, it := range items {
		w := waitOf(it)
		w.Host = c.ref()
		st.Waiting = append(st.Waiting, w)
	}
	return st, err
}

// printStatus prints one host's status: its row h, and the sessions and
// waiting rows of st that are h's.
func (a *app) printStatus(w io.Writer, h hostStatusJSON, st statusJSON) {
	fmt.Fprintf(w, "%s %s\n", a.paint(sgrBold, "Host:"), hostText(h.Host.display()))
	fmt.Fprintf(w, "%s AHP %s", a.paint(sgrBold, "Protocol:"), hostText(h.ProtocolVersion))
	if h.Server != "" {
		fmt.Fprintf(w, " (%s)", hostText(h.Server))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, a.paint(sgrBold, "Agents:"))
	if len(h.Agents) == 0 {
		fmt.Fprintln(w, "  none")
	}
	for _, ag := range h.Agents {
		fmt.Fprintf(w, "  %s  %s\n", hostText(ag.Provider), hostText(ag.Name))
	}
	fmt.Fprintln(w, a.paint(sgrBold, "Sessions:"))
	sessions := onHost(st.Sessions, h.Host, func(s sessionJSON) *hostRef { return s.Host })
	if len(sessions) == 0 {
		fmt.Fprintln(w, "  none")
	}
	rows := make([][]string, len(sessions))
	for i, s := range sessions {
		rows[i] = []string{"  " + hostText(s.Session), s.Status, hostText(s.Title)}
	}
	if len(rows) > 0 {
		a.tableRows(w, []string{"", "STATUS", ""}, rows)
	}
	a.printWaiting(w, onHost(st.Waiting, h.Host, func(x waitJSON) *hostRef { return x.Host }))
}

// onHost are the rows of host h (a row that names no host is every
// host's).
func onHost[T any](rows []T, h hostRef, host func(T) *hostRef) []T {
	var out []T
	for _, r := range rows {
		if x := host(r); x == nil || x.URL == h.URL {
			out = append(out, r)
		}
	}
	return out
}

// printWaiting says what waits on the user and what answers it.
func (a *app) printWaiting(w io.Writer, ws []waitJSON) {
	if len(ws) == 0 {
		return
	}
	fmt.Fprintln(w, a.paint(sgrBold, "Waiting on you:"))
	for _, x := range ws {
		fmt.Fprintf(w, "  %s  %s %s\n", hostText(x.Session), a.paint(sgrYellow, x.Kind), hostText(x.Name))
		for _, o := range x.Options {
			fmt.Fprintf(w, "      --option %d  %s (%s)\n", o.N, hostText(o.Label), hostText(o.Kind))
		}
		for _, q := range x.Questions {
			fmt.Fprintf(w, "      %s (%s): %s", hostText(q.ID), hostText(q.Kind), hostText(q.Message))
			if len(q.Options) > 0 {
				fmt.Fprintf(w, " [%s]", hostText(strings.Join(q.Options, ", ")))
			}
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "    answer: %s\n", hostText(x.Answer))
	}
}

func sessionsCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "sessions",
		Short: "the host's sessions, with their status",
		Args:  args(0, 0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.connected(cmd.Context(), func(ctx context.Context, c *conn) error {
				list, err := c.ListSessions(ctx)
				if err != nil {
					return fmt.Errorf("list sessions: %w", err)
				}
				out := make([]sessionJSON, len(list))
				rows := make([][]string, len(list))
				for i, s := range list {
					out[i] = sessionOf(s)
					rows[i] = []string{hostText(s.Resource), out[i].Status, hostText(s.Provider), hostText(s.Title)}
				}
				return a.emit(out, func(w io.Writer) {
					if len(rows) == 0 {
						fmt.Fprintln(w, "no sessions; ahptui new creates one")
						return
					}
					a.table(w, []string{"SESSION", "STATUS", "AGENT", "TITLE"}, rows)
				})
			})
		},
	}
}

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
	j := chatJSON{Session: session, Chat: chat.Resource, Title: sess.Title, Status: statusWord(chat.Status), Turns: []turnJSON{},
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
