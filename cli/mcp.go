package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
	"github.com/ahptui/ahptui/views"
)

// mcpJSON is one MCP server in `ahptui mcp --json` output.
type mcpJSON struct {
	Session string `json:"session"`
	ID      string `json:"id"`
	Name    string `json:"name"`
	Parent  string `json:"parent,omitempty"`
	State   string `json:"state"` // starting, ready, authRequired, error, stopped (or a newer host's word)
	Enabled bool   `json:"enabled"`
	Error   string `json:"error,omitempty"`
	// Resource is the protected resource to sign in to when State is
	// authRequired.
	Resource string `json:"resource,omitempty"`
	// StartRequested: the host echoed the start request in a session
	// that has not run and left the server starting (VS Code's host
	// starts it with the session's first message); State is starting.
	StartRequested bool `json:"startRequested,omitempty"`
	// AlreadyRunning (mcp start): the server was ready, so nothing was
	// sent.
	AlreadyRunning bool `json:"alreadyRunning,omitempty"`
	// Blocking: the server is starting and the host holds the session's
	// new messages until it is up (AHP 1.0); mcp background lets them go.
	Blocking bool `json:"blocking,omitempty"`
}

func mcpOf(session string, r views.MCPServerRow) mcpJSON {
	j := mcpJSON{Session: session, ID: r.ID, Name: r.Name, Parent: r.Parent, State: r.StateKind, Enabled: r.Enabled, Error: r.Error,
		StartRequested: r.StartRequested, Blocking: r.StateKind == "starting" && r.Blocking}
	if r.Auth != nil {
		j.Resource = r.Auth.Resource.Resource
	}
	return j
}

func mcpRows(sess protocol.SessionState) []views.MCPServerRow {
	return views.MCPServerRows(views.SessionCustomizations(sess))
}

func mcpCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "list, start, stop, enable and disable a session's MCP servers",
	}
	var session string
	list := &cobra.Command{
		Use:   "list",
		Short: "the MCP servers of one session (--session) or of every session",
		Args:  args(0, 0, "no arguments (the session is --session)"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.connected(cmd.Context(), func(ctx context.Context, c *conn) error {
				var names []string
				if session != "" {
					names = []string{session}
				} else {
					ss, err := c.ListSessions(ctx)
					if err != nil {
						return fmt.Errorf("list sessions: %w", err)
					}
					for _, s := range ss {
						names = append(names, s.Resource)
					}
				}
				out := []mcpJSON{}
				for _, n := range names {
					sess, uri, _, err := c.session(ctx, n)
					if err != nil {
						return err
					}
					for _, r := range mcpRows(sess) {
						out = append(out, mcpOf(uri, r))
					}
				}
				return a.emit(out, func(w io.Writer) { a.printMCP(w, out) })
			})
		},
	}
	list.Flags().StringVar(&session, "session", "", "the `SESSION` whose servers to list (default: every session)")
	cmd.AddCommand(list)
	for _, v := range []mcpVerb{verbStart, verbStop, verbEnable, verbDisable, verbBackground} {
		cmd.AddCommand(mcpActCmd(a, v))
	}
	return cmd
}

func (a *app) printMCP(w io.Writer, out []mcpJSON) {
	if len(out) == 0 {
		fmt.Fprintln(w, "no MCP servers")
		return
	}
	rows := make([][]string, len(out))
	for i, m := range out {
		enabled := "enabled"
		if !m.Enabled {
			enabled = "disabled"
		}
		note := m.Error
		if m.Resource != "" {
			note = "sign in to " + m.Resource
		}
		if m.StartRequested {
			note = views.StartRequestedText
		}
		if m.AlreadyRunning {
			note = "already running"
		}
		if m.Blocking {
			note = "holding new messages until it is up (ahptui mcp background lets them go)"
		}
		rows[i] = []string{hostText(m.Session), hostText(m.ID), hostText(m.Name), hostText(m.State), enabled, hostText(note)}
	}
	a.table(w, []string{"SESSION", "ID", "NAME", "STATE", "ENABLED", "NOTE"}, rows)
}

type mcpVerb string

const (
	verbStart   mcpVerb = "start"
	verbStop    mcpVerb = "stop"
	verbEnable  mcpVerb = "enable"
	verbDisable mcpVerb = "disable"
	// verbBackground is the UI's background key: a blocking start goes on
	// without holding the session's new messages.
	verbBackground mcpVerb = "background"
)

var mcpVerbHelp = map[mcpVerb]string{
	verbStart:      "start an MCP server; wait until ready, failed or asking sign-in",
	verbStop:       "stop an MCP server and wait until it has stopped",
	verbEnable:     "enable an MCP server in the session and wait for the host",
	verbDisable:    "disable an MCP server in the session and wait for the host",
	verbBackground: "let a blocking MCP start go on in the background",
}

func mcpActCmd(a *app, verb mcpVerb) *cobra.Command {
	var session string
	cmd := &cobra.Command{
		Use:   string(verb) + " SERVER",
		Short: mcpVerbHelp[verb],
		Long: mcpVerbHelp[verb] + `.
SERVER is the server's id or name (ahptui mcp list shows both);
--session is needed when the host has more than one session. Prints the
server's state when the host has settled it.`,
		Args: args(1, 1, "SERVER"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			return a.connected(cmd.Context(), func(ctx context.Context, c *conn) error {
				j, err := mcpAct(ctx, c, session, argv[0], verb)
				if err != nil {
					return err
				}
				if perr := a.emit(j, func(w io.Writer) { a.printMCP(w, []mcpJSON{j}) }); perr != nil {
					return perr
				}
				return mcpOutcome(j, verb)
			})
		},
	}
	cmd.Flags().StringVar(&session, "session", "", "the `SESSION` the server belongs to")
	return cmd
}

// onlySession is the host's one session, for a command whose --session
// may be left out when there is only one.
func onlySession(ctx context.Context, c *conn, session string) (string, error) {
	if session != "" {
		return session, nil
	}
	list, err := c.ListSessions(ctx)
	if err != nil {
		return "", fmt.Errorf("list sessions: %w", err)
	}
	if len(list) != 1 {
		return "", usagef("the host has %d sessions: name one with --session", len(list))
	}
	return list[0].Resource, nil
}

func findServer(rows []views.MCPServerRow, arg string) (views.MCPServerRow, error) {
	for _, r := range rows {
		if r.ID == arg {
			return r, nil
		}
	}
	var found []views.MCPServerRow
	for _, r := range rows {
		if r.Name == arg {
			found = append(found, r)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return views.MCPServerRow{}, notFoundf("no MCP server %s in this session (ahptui mcp list shows them)", views_quote(arg))
	}
	return views.MCPServerRow{}, usagef("several MCP servers are named %s: give its id (ahptui mcp list shows them)", views_quote(arg))
}

// mcpAct sends verb for the server and waits until the host's state for
// it has settled the way verb asks.
func mcpAct(ctx context.Context, c *conn, session, server string, verb mcpVerb) (mcpJSON, error) {
	session, err := onlySession(ctx, c, session)
	if err != nil {
		return mcpJSON{}, err
	}
	sess, uri, chat, err := c.session(ctx, session)
	if err != nil {
		return mcpJSON{}, err
	}
	r, err := findServer(mcpRows(sess), server)
	if err != nil {
		return mcpJSON{}, err
	}
	before := r.StateKind
	var v protocol.StateActionVariant
	switch verb {
	case verbStart:
		if before == "ready" {
			// Nothing to start: say so rather than restart it.
			j := mcpOf(uri, r)
			j.AlreadyRunning = true
			return j, nil
		}
		v = protocol.SessionMcpServerStartRequestedAction{ID: r.ID}
	case verbBackground:
		if v := c.ProtocolVersion(); !client.ActionDefined(v, backgroundAction) {
			return mcpJSON{}, withCode(ExitHostError, fmt.Errorf("this host speaks AHP %s, which cannot move a server start to the background (AHP 1.0 can)", hostText(v)))
		}
		if r.StateKind != "starting" || !r.Blocking {
			return mcpJSON{}, conflictf("MCP server %s is %s and holds no new messages: nothing to move to the background",
				views_quote(r.Name), hostText(r.StateKind))
		}
		v = protocol.SessionMcpServerBackgroundRequestedAction{ID: r.ID}
	case verbStop:
		v = protocol.SessionMcpServerStopRequestedAction{ID: r.ID}
	case verbEnable, verbDisable:
		on := verb == verbEnable
		if r.Enabled == on {
			return mcpOf(uri, r), nil
		}
		v = protocol.SessionCustomizationToggledAction{ID: r.ID, Enablement: protocol.WithSessionEnablement(r.Enablement, on)}
	}
	if err := c.dispatch(ctx, uri, v); err != nil {
		return mcpJSON{}, err
	}
	// The echo is in. In a session that has not run, a start the host
	// echoed with no state change since is one it holds until the
	// session's first message (VS Code's host): the UI's rule
	// (views.StartRequests) says so, and nothing more will come to wait
	// for. In a session that has run, the host starts it: wait for that.
	//
	// Only a start the host already had under way (before: starting) is
	// reported at the echo: one whose server had failed, stopped or
	// waited for sign-in is waited for, so a start that fails again
	// says so (issue 32, item 10), and one the host holds all the same
	// is reported as requested when --timeout ends.
	unrun := chat.ActiveTurn == nil && len(chat.Turns) == 0
	if verb == verbStart && unrun && before == "starting" {
		if j, ok := startRequested(c, uri, r.ID); ok {
			return j, nil
		}
	}
	var last views.MCPServerRow
	err = c.wait(ctx, func([]client.Event) (bool, error) {
		s, ok := c.Session(uri)
		if !ok {
			return false, withCode(ExitHostError, fmt.Errorf("the host dropped session %s", hostText(uri)))
		}
		// A server that asks for sign-in only now gets a saved token too,
		// as the UI pushes one on every snapshot.
		if c.pushSaved(ctx, &s) {
			return false, errRecheck
		}
		cur, err := findServer(mcpRows(s), r.ID)
		if err != nil {
			return false, withCode(ExitHostError, fmt.Errorf("the host removed MCP server %s", views_quote(r.ID)))
		}
		last = cur
		switch verb {
		case verbStart:
			return cur.StateKind != "starting" && cur.StateKind != "stopped", nil
		case verbStop:
			return cur.StateKind == "stopped", nil
		case verbBackground:
			return cur.StateKind != "starting" || !cur.Blocking, nil
		}
		return cur.Enabled == (verb == verbEnable), nil
	})
	if err != nil && verb == verbStart && unrun && last.StateKind == "starting" && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		// Still starting when --timeout ended, in a session that has not
		// run: the host holds the start until the first message (VS
		// Code's host does).
		if j, ok := startRequested(c, uri, r.ID); ok {
			return j, nil
		}
	}
	if err != nil {
		return mcpJSON{}, err
	}
	return mcpOf(uri, last), nil
}

// backgroundAction is the action mcp background sends (AHP 1.0 only).
const backgroundAction = "session/mcpServerBackgroundRequested"

// startRequested is server id's row in session uri, when the host has
// echoed this client's start request for it (the caller has just seen
// the echo) and has not moved it on since: views.StartRequests' rule.
func startRequested(c *conn, uri, id string) (mcpJSON, bool) {
	s, ok := c.Session(uri)
	if !ok {
		return mcpJSON{}, false
	}
	var req views.StartRequests
	req.Echoed(id)
	rows := mcpRows(s)
	req.Observe(rows)
	for _, row := range req.Mark(rows) {
		if row.ID == id && row.StartRequested {
			return mcpOf(uri, row), true
		}
	}
	return mcpJSON{}, false
}

// mcpOutcome is the exit a settled state means: a start that ends in an
// error is the host's error, one that ends needing sign-in waits on it.
func mcpOutcome(j mcpJSON, verb mcpVerb) error {
	if verb != verbStart {
		return nil
	}
	switch j.State {
	case "error":
		return withCode(ExitHostError, errors.New("MCP server "+strconv.Quote(hostText(j.Name))+" failed to start: "+hostText(j.Error)))
	case "authRequired":
		return withCode(ExitSignIn, errors.New("MCP server "+strconv.Quote(hostText(j.Name))+" needs sign-in to "+hostText(j.Resource)))
	}
	return nil
}
