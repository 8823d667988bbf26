package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
)

// watchEvent is one line of `ahptui watch` (NDJSON; README, Scripting).
type watchEvent struct {
	// Host names the event's host in a multi-host watch (its label and
	// token-free URL); absent on one host.
	Host string `json:"host,omitempty"`
	// HostState and Error are a "host" line's: the host's state
	// (connected, connecting, refused, failed) and why.
	HostState string        `json:"hostState,omitempty"`
	Error     string        `json:"error,omitempty"`
	Channel   string        `json:"channel,omitempty"`
	Type      string        `json:"type"` // state, turnStarted, toolCall, waiting, turnEnded, sessionAdded, sessionRemoved, sessionChanged, host
	Session   string        `json:"session,omitempty"`
	Title     string        `json:"title,omitempty"`
	Status    string        `json:"status,omitempty"`
	Turn      string        `json:"turn,omitempty"`
	TurnState string        `json:"turnState,omitempty"`
	ToolCall  *toolCallJSON `json:"toolCall,omitempty"`
	Waiting   []waitJSON    `json:"waiting,omitempty"`
	// Sessions is the host's list, on the first line of a watch with no
	// SESSION.
	Sessions []sessionJSON `json:"sessions,omitempty"`
}

// Conditions watch --until stops at.
const (
	untilInput = "input" // something waits on the user
	untilIdle  = "idle"  // no turn runs and nothing waits
	untilDone  = "done"  // the running (or next) turn has ended
)

func watchCmd(a *app) *cobra.Command {
	var until string
	cmd := multiHostCmd(a, &cobra.Command{
		Use:   "watch [SESSION]",
		Short: "print a session's (or the host's) changes as NDJSON events",
		Long: `Prints one JSON object a line for each change: with SESSION, its chat's
status, turns, tool calls and what waits on the user; without, sessions
added, removed and changed. The first line is the state as it is.

--until stops when the session gets there: input (something waits on
the user), idle (no turn runs and nothing waits) or done (the running
turn, or the next one, has ended). Without --until, watch runs until
interrupted; --timeout bounds it only when given.

With --all-hosts (or --host more than once), no SESSION: every host's
session list, each line naming its host, from the first line (each
host's state, or a "host" line saying why it failed) on; a "host" line
also says when a host reconnects or is lost. It ends when every host is
lost.`,
		Args: args(0, 1, "[SESSION]"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			if until != "" && !slices.Contains([]string{untilInput, untilIdle, untilDone}, until) {
				return usagef("--until %q: want input, idle or done", until)
			}
			if until != "" && len(argv) == 0 {
				return usagef("--until needs a SESSION to watch")
			}
			if a.multiHost() && len(argv) > 0 {
				return usagef("a SESSION is on one host: watch it with one --host (--all-hosts watches every host's session list)")
			}
			ctx := cmd.Context()
			if a.multiHost() {
				return a.watchAll(ctx, cmd.Flags().Changed("timeout"))
			}
			if !cmd.Flags().Changed("timeout") {
				// Dialling is bounded by the default; watching is not.
				a.timeout = 100 * 365 * 24 * time.Hour
			}
			return a.connected(ctx, func(ctx context.Context, c *conn) error {
				enc := json.NewEncoder(jsonOut(a.Stdout))
				enc.SetEscapeHTML(false)
				emit := func(ev watchEvent) error { return enc.Encode(ev) }
				if len(argv) == 0 {
					return watchRoot(ctx, c, emit)
				}
				return watchSession(ctx, c, argv[0], until, a.hostFlags(c), emit)
			})
		},
	})
	cmd.Flags().StringVar(&until, "until", "", "stop when the session reaches `STATE`: input, idle or done")
	return cmd
}

const rootChannel = "ahp-root://"

func watchRoot(ctx context.Context, c *conn, emit func(watchEvent) error) error {
	list, err := c.ListSessions(ctx)
	if err != nil {
		return fmt.Errorf("list sessions: %w", err)
	}
	known := map[string]bool{}
	state := func(list []protocol.SessionSummary) error {
		first := watchEvent{Channel: rootChannel, Type: "state", Sessions: []sessionJSON{}}
		for _, s := range list {
			first.Sessions = append(first.Sessions, sessionOf(s))
			known[s.Resource] = true
		}
		return emit(first)
	}
	if err := state(list); err != nil {
		return err
	}
	seen := c.reconnects
	return c.wait(ctx, func(batch []client.Event) (bool, error) {
		for _, ev := range batch {
			w, ok := rootEvent(ev)
			if !ok {
				continue
			}
			switch w.Type {
			case "sessionAdded":
				known[w.Session] = true
			case "sessionRemoved":
				delete(known, w.Session)
			}
			if err := emit(w); err != nil {
				return false, err
			}
		}
		if c.reconnects == seen {
			return false, nil
		}
		// Back after losing the host: what changed meanwhile sent no
		// events. Say which sessions are gone, then the list afresh.
		seen = c.reconnects
		list, err := c.ListSessions(ctx)
		if err != nil {
			return false, fmt.Errorf("list sessions after reconnecting: %w", err)
		}
		now := map[string]bool{}
		for _, s := range list {
			now[s.Resource] = true
		}
		for _, uri := range slices.Sorted(maps.Keys(known)) {
			if !now[uri] {
				delete(known, uri)
				if err := emit(watchEvent{Channel: rootChannel, Type: "sessionRemoved", Session: uri}); err != nil {
					return false, err
				}
			}
		}
		return false, state(list)
	})
}

// rootEvent is the line a change to the host's session list prints, if
// ev is one.
func rootEvent(ev client.Event) (watchEvent, bool) {
	var w watchEvent
	switch e := ev.(type) {
	case client.SessionAddedEvent:
		w = watchEvent{Type: "sessionAdded", Session: e.Summary.Resource, Title: e.Summary.Title, Status: statusWord(e.Summary.Status)}
	case client.SessionRemovedEvent:
		w = watchEvent{Type: "sessionRemoved", Session: e.Session}
	case client.SessionSummaryChangedEvent:
		w = watchEvent{Type: "sessionChanged", Session: e.Session}
		if e.Changes.Title != nil {
			w.Title = *e.Changes.Title
		}
		if e.Changes.Status != nil {
			w.Status = statusWord(*e.Changes.Status)
		}
	default:
		return w, false
	}
	w.Channel = rootChannel
	return w, true
}

func watchSession(ctx context.Context, c *conn, arg, until string, flags []string, emit func(watchEvent) error) error {
	_, uri, chat, err := c.session(ctx, arg)
	if err != nil {
		return err
	}
	if chat.Resource == "" {
		return withCode(ExitHostError, fmt.Errorf("%s has no chat to watch", hostText(uri)))
	}
	first := true
	var status, turn string
	var waitKey string
	tools := map[string]string{}
	ended := map[string]bool{}
	for _, t := range chat.Turns {
		ended[t.ID] = true
	}
	doneSeen := false
	seen := c.reconnects
	return c.wait(ctx, func([]client.Event) (bool, error) {
		if c.reconnects != seen {
			// Back after losing the host: the state afresh.
			seen, first = c.reconnects, true
		}
		sess, _ := c.Session(uri)
		ch, ok := c.Chat(chat.Resource)
		if !ok {
			return false, withCode(ExitHostError, fmt.Errorf("the host dropped the chat of %s", hostText(uri)))
		}
		ws := waiting(sess, uri, ch, flags...)
		cur := ""
		if ch.ActiveTurn != nil {
			cur = ch.ActiveTurn.ID
		}
		base := watchEvent{Channel: ch.Resource, Session: uri}
		var out []watchEvent
		if first {
			ev := base
			ev.Type, ev.Status, ev.Turn, ev.Waiting = "state", statusWord(ch.Status), cur, ws
			out = append(out, ev)
		}
		for _, t := range ch.Turns {
			if !ended[t.ID] {
				ended[t.ID] = true
				doneSeen = true
				ev := base
				ev.Type, ev.Turn, ev.TurnState = "turnEnded", t.ID, string(t.State)
				out = append(out, ev)
			}
		}
		if cur != "" && cur != turn && !first {
			ev := base
			ev.Type, ev.Turn = "turnStarted", cur
			out = append(out, ev)
		}
		if ch.ActiveTurn != nil {
			for _, p := range ch.ActiveTurn.ResponseParts {
				v, ok := p.Variant.(protocol.ToolCallResponsePart)
				if !ok || v.ToolCall.Status() == protocol.ToolCallStatusStreaming || tools[v.ToolCall.ID()] == v.ToolCall.Status() {
					continue
				}
				tools[v.ToolCall.ID()] = v.ToolCall.Status()
				if first {
					continue
				}
				tc := partsOf([]protocol.ResponsePart{p})[0].ToolCall
				ev := base
				ev.Type, ev.Turn, ev.ToolCall = "toolCall", cur, tc
				out = append(out, ev)
			}
		}
		key, _ := json.Marshal(ws)
		if string(key) != waitKey && !first && len(ws) > 0 {
			ev := base
			ev.Type, ev.Waiting = "waiting", ws
			out = append(out, ev)
		}
		if st := statusWord(ch.Status); st != status && !first {
			ev := base
			ev.Type, ev.Status = "status", st
			out = append(out, ev)
		}
		status, turn, waitKey, first = statusWord(ch.Status), cur, string(key), false
		for _, ev := range out {
			if err := emit(ev); err != nil {
				return false, err
			}
		}
		switch until {
		case untilInput:
			return len(ws) > 0, nil
		case untilIdle:
			return cur == "" && len(ws) == 0, nil
		case untilDone:
			return doneSeen, nil
		}
		return false, nil
	})
}
