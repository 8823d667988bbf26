package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

// terminalJSON is one terminal in `ahptui terminals list --json`.
type terminalJSON struct {
	Terminal string `json:"terminal"`
	Title    string `json:"title"`
	// State is running or exited (or a newer host's word).
	State    string `json:"state"`
	ExitCode *int64 `json:"exitCode,omitempty"`
	// Chat and ToolCall: where in the session the terminal was claimed
	// or linked from.
	Chat     string `json:"chat,omitempty"`
	ToolCall string `json:"toolCall,omitempty"`
	// Listed: the host lists it on the root, so terminals show can read
	// it; a terminal only a tool call names may be gone.
	Listed bool `json:"listed"`
}

// terminalShowJSON is `ahptui terminals show --json`: the terminal's
// whole output as the host sent it (escapes and all), and its commands
// where the host detects them.
type terminalShowJSON struct {
	Terminal string        `json:"terminal"`
	Title    string        `json:"title"`
	State    string        `json:"state"`
	ExitCode *int64        `json:"exitCode,omitempty"`
	Cwd      string        `json:"cwd,omitempty"`
	Text     string        `json:"text"`
	Commands []commandJSON `json:"commands"`
}

type commandJSON struct {
	ID          string `json:"id"`
	CommandLine string `json:"commandLine"`
	Complete    bool   `json:"complete"`
	ExitCode    *int64 `json:"exitCode,omitempty"`
}

func lifecycle(l protocol.TerminalLifecycleState) (string, *int64) {
	switch v := l.Variant.(type) {
	case protocol.TerminalRunningLifecycleState:
		return "running", nil
	case protocol.TerminalExitedLifecycleState:
		return "exited", v.ExitCode
	}
	return "unknown", nil
}

func terminalsCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "terminals",
		Short: "list a session's terminals, or print one's output",
	}
	cmd.AddCommand(terminalsListCmd(a), terminalsShowCmd(a))
	return cmd
}

func terminalsListCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "list SESSION",
		Short: "the terminals the session's agent holds or its tool calls ran in",
		Args:  args(1, 1, "SESSION"),
		RunE: a.onSession(func(ctx context.Context, c *conn, argv []string, sess protocol.SessionState, uri string) error {
			out := []terminalJSON{}
			seen := map[string]int{}
			root, _ := c.Root()
			for _, t := range root.Terminals {
				cl, ok := t.Claim.Variant.(protocol.TerminalSessionClaim)
				if !ok || string(cl.Session) != uri {
					continue
				}
				j := terminalJSON{Terminal: string(t.Resource), Title: t.Title, Chat: string(cl.Chat), Listed: true}
				j.State, j.ExitCode = lifecycle(t.Lifecycle)
				if cl.ToolCallID != nil {
					j.ToolCall = *cl.ToolCallID
				}
				seen[j.Terminal] = len(out)
				out = append(out, j)
			}
			// The terminals the session's tool calls name, in every chat.
			listed := func(uri string) bool {
				return slices.ContainsFunc(root.Terminals, func(t protocol.TerminalInfo) bool { return string(t.Resource) == uri })
			}
			for _, ch := range sess.Chats {
				if err := c.Subscribe(ctx, ch.Resource); err != nil {
					return fmt.Errorf("subscribe to %s: %w", hostText(ch.Resource), err)
				}
				chat, _ := c.Chat(ch.Resource)
				for _, ref := range terminalRefs(chat) {
					if i, ok := seen[ref.terminal]; ok {
						if out[i].ToolCall == "" {
							out[i].ToolCall = ref.toolCall
						}
						continue
					}
					j := terminalJSON{Terminal: ref.terminal, Title: ref.title, Chat: ch.Resource, ToolCall: ref.toolCall, Listed: listed(ref.terminal), State: "unknown"}
					if j.Listed {
						for _, t := range root.Terminals {
							if string(t.Resource) == ref.terminal {
								j.State, j.ExitCode = lifecycle(t.Lifecycle)
							}
						}
					}
					seen[j.Terminal] = len(out)
					out = append(out, j)
				}
			}
			return a.emit(out, func(w io.Writer) {
				if len(out) == 0 {
					fmt.Fprintln(w, "no terminals in "+hostText(uri))
					return
				}
				rows := make([][]string, len(out))
				for i, j := range out {
					state := j.State
					if j.ExitCode != nil {
						state += " (" + strconv.FormatInt(*j.ExitCode, 10) + ")"
					}
					rows[i] = []string{hostText(j.Terminal), state, hostText(j.ToolCall), hostText(j.Title)}
				}
				a.table(w, []string{"TERMINAL", "STATE", "TOOL CALL", "TITLE"}, rows)
			})
		}),
	}
}

// terminalRef is a terminal a tool call's result names.
type terminalRef struct{ terminal, title, toolCall string }

func terminalRefs(chat protocol.ChatState) []terminalRef {
	var out []terminalRef
	for _, ct := range protocol.ChatTerminals(chat) {
		out = append(out, terminalRef{string(ct.Ref.Resource), ct.Ref.Title, ct.ToolCall})
	}
	return out
}

func terminalsShowCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "show TERMINAL",
		Short: "a terminal's output (escape sequences stripped unless --json)",
		Long: `Prints a terminal's output, TERMINAL being its URI (ahptui terminals list
SESSION shows them). As text, escape sequences and control characters are
stripped; --json keeps the output as the host sent it, with the commands
the host detected.`,
		Args: args(1, 1, "TERMINAL"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			return a.connected(cmd.Context(), func(ctx context.Context, c *conn) error {
				uri := argv[0]
				root, _ := c.Root()
				if !slices.ContainsFunc(root.Terminals, func(t protocol.TerminalInfo) bool { return string(t.Resource) == uri }) {
					return notFoundf("no terminal %s on this host (ahptui terminals list SESSION shows them)", views_quote(uri))
				}
				if err := c.Subscribe(ctx, uri); err != nil {
					return fmt.Errorf("subscribe to %s: %w", hostText(uri), err)
				}
				st, ok := c.Terminal(uri)
				if !ok {
					return withCode(ExitHostError, fmt.Errorf("the host sent no state for terminal %s", hostText(uri)))
				}
				j := terminalShowJSON{Terminal: uri, Title: st.Title, Commands: []commandJSON{}}
				j.State, j.ExitCode = lifecycle(st.Lifecycle)
				if st.Cwd != nil {
					j.Cwd = string(*st.Cwd)
				}
				var b strings.Builder
				for _, p := range st.Content {
					switch v := p.Variant.(type) {
					case protocol.TerminalUnclassifiedPart:
						b.WriteString(v.Value.String())
					case protocol.TerminalCommandPart:
						b.WriteString(v.Output.String())
						j.Commands = append(j.Commands, commandJSON{ID: v.CommandID, CommandLine: v.CommandLine, Complete: v.IsComplete, ExitCode: v.ExitCode})
					}
				}
				j.Text = b.String()
				return a.emit(j, func(w io.Writer) {
					text := terminalText(j.Text)
					fmt.Fprint(w, text)
					if text != "" && !strings.HasSuffix(text, "\n") {
						fmt.Fprintln(w)
					}
				})
			})
		},
	}
}

// terminalText is a terminal's raw output as plain lines: CR LF and
// lone CRs (a line redrawn) become line ends, then every escape
// sequence and control character is stripped (views' sanitizer).
func terminalText(raw string) string {
	raw = strings.ReplaceAll(raw, "\r\n", "\n")
	raw = strings.ReplaceAll(raw, "\r", "\n")
	return views.Sanitize(raw)
}
