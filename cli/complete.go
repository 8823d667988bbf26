package cli

import (
	"context"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/host/pick"
	"github.com/ahptui/ahptui/host/saved"
	"github.com/ahptui/ahptui/views"
)

// completeTimeout bounds the host a completion asks: a shell waits on it
// as the user presses tab, and an unreachable host must cost no more.
const completeTimeout = 2 * time.Second

// completeFrom is a shell completion that asks the host the flags name
// (as every command connects) and offers what list finds there; nothing
// when the host cannot be reached in time. No file names are offered:
// none of these arguments is a file.
func (a *app) completeFrom(list func(ctx context.Context, c *conn, argv []string) []cobra.Completion) cobra.CompletionFunc {
	return func(cmd *cobra.Command, argv []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(a.hosts) > 0 {
			// cobra parses the line once more to complete it, so a
			// --host is listed twice here: complete against the last.
			a.host = a.hosts[len(a.hosts)-1]
		}
		// A completion never asks anything (the registry's picker) and
		// never prints past the shell's own protocol.
		q := *a
		q.Stdin, q.Stderr = strings.NewReader(""), io.Discard
		q.timeout = completeTimeout
		var out []cobra.Completion
		_ = q.connected(cmd.Context(), func(ctx context.Context, c *conn) error {
			for _, comp := range list(ctx, c, argv) {
				if strings.HasPrefix(comp, toComplete) {
					out = append(out, comp)
				}
			}
			return nil
		})
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// describe is a completion with its description, one line, cleaned of
// anything a host could use to draw on the user's terminal.
func describe(choice, desc string) cobra.Completion {
	desc = views.SanitizeLine(desc)
	if desc == "" {
		return views.SanitizeLine(choice)
	}
	return cobra.CompletionWithDesc(views.SanitizeLine(choice), desc)
}

// sessionChoices are the host's sessions by id, described by title.
func sessionChoices(ctx context.Context, c *conn, _ []string) []cobra.Completion {
	list, err := c.ListSessions(ctx)
	if err != nil {
		return nil
	}
	out := make([]cobra.Completion, 0, len(list))
	for _, s := range list {
		out = append(out, describe(sessionID(s.Resource), s.Title))
	}
	return out
}

// completeSession completes a command's first argument, a SESSION;
// after it, rest (if any) completes the next.
func (a *app) completeSession(rest func(ctx context.Context, c *conn, argv []string) []cobra.Completion) cobra.CompletionFunc {
	return a.completeFrom(func(ctx context.Context, c *conn, argv []string) []cobra.Completion {
		switch {
		case len(argv) == 0:
			return sessionChoices(ctx, c, argv)
		case len(argv) == 1 && rest != nil:
			return rest(ctx, c, argv)
		}
		return nil
	})
}

// toolCallChoices are the tool calls that wait in argv[0]'s session.
func toolCallChoices(ctx context.Context, c *conn, argv []string) []cobra.Completion {
	sess, uri, chat, err := c.session(ctx, argv[0])
	if err != nil {
		return nil
	}
	var out []cobra.Completion
	for _, w := range waiting(sess, uri, chat) {
		if w.ToolCall != "" {
			out = append(out, describe(w.ToolCall, w.Kind+": "+w.Name))
		}
	}
	return out
}

// serverChoices are the MCP servers of session (or of the host's only
// session, when it is ""), by id, described by name and state.
func serverChoices(ctx context.Context, c *conn, session string) []cobra.Completion {
	s, err := onlySession(ctx, c, session)
	if err != nil {
		return nil
	}
	sess, _, _, err := c.session(ctx, s)
	if err != nil {
		return nil
	}
	var out []cobra.Completion
	for _, r := range mcpRows(sess) {
		out = append(out, describe(r.ID, r.Name+" ("+r.StateKind+")"))
	}
	return out
}

// completeHosts offers the saved hosts' names for --host.
func (a *app) completeHosts(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	dir, err := pick.ConfigDir(a.configDir)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	hosts, err := saved.Load(dir)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	out := make([]cobra.Completion, 0, len(hosts))
	for _, h := range hosts {
		out = append(out, describe(h.Name, h.URL))
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// fixed completes a flag from a fixed list of values.
func fixed(values ...string) cobra.CompletionFunc {
	return cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp)
}

// registerCompletions wires the dynamic completions into root's tree:
// every SESSION argument, TOOLCALL after it, MCP SERVER, --host, and the
// flags whose values are words.
func (a *app) registerCompletions(root *cobra.Command) {
	_ = root.RegisterFlagCompletionFunc("host", a.completeHosts)
	_ = root.RegisterFlagCompletionFunc("demo-version", fixed(demohost.Versions...))
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		switch c.Name() {
		case "show", "send", "answer", "dispose", "cancel", "watch":
			c.ValidArgsFunction = a.completeSession(nil)
		case "approve", "deny":
			c.ValidArgsFunction = a.completeSession(toolCallChoices)
		case string(verbStart), string(verbStop), string(verbEnable), string(verbDisable):
			if f := c.Flags().Lookup("session"); f != nil {
				session := f.Value
				c.ValidArgsFunction = a.completeFrom(func(ctx context.Context, cn *conn, argv []string) []cobra.Completion {
					if len(argv) > 0 {
						return nil
					}
					return serverChoices(ctx, cn, session.String())
				})
				_ = c.RegisterFlagCompletionFunc("session", a.completeFrom(sessionChoices))
			}
		}
		if c.Flags().Lookup("until") != nil {
			_ = c.RegisterFlagCompletionFunc("until", fixed(untilInput, untilIdle, untilDone))
		}
		if c.Flags().Lookup("approve") != nil {
			_ = c.RegisterFlagCompletionFunc("approve", fixed(approveNone, approveReads, approveAll))
		}
		if c.Flags().Lookup("cwd") != nil {
			_ = c.RegisterFlagCompletionFunc("cwd", func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
				return nil, cobra.ShellCompDirectiveFilterDirs
			})
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
