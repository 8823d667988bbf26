package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
	"github.com/ahptui/ahptui/views"
)

// watchEvent is one line of `ahptui watch` (NDJSON; README, Scripting).
type watchEvent struct {
	// Seq numbers the run's lines from 1; Time is when the line was
	// written (RFC 3339, nanoseconds, UTC). watchOut sets both.
	Seq  int    `json:"seq"`
	Time string `json:"time"`
	// Host is the event's host, on every line (one host or several).
	Host hostRef `json:"host"`
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
also says when a host reconnects or is lost, and when one is given up
(not back within --reconnect-window). It ends when every host is lost.`,
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
				out := newWatchOut(a.Stdout)
				emit := func(ev watchEvent) error {
					ev.Host = *c.ref()
					return out.emit(ev)
				}
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

// watchOut writes watch's lines, one JSON object each, numbering them
// and stamping the time as it writes; safe for concurrent use.
type watchOut struct {
	mu  sync.Mutex
	enc *json.Encoder
	seq int
	now func() time.Time
}

func newWatchOut(w io.Writer) *watchOut {
	enc := json.NewEncoder(jsonOut(w))
	enc.SetEscapeHTML(false)
	return &watchOut{enc: enc, now: time.Now}
}

// emit writes ev as the run's next line.
func (o *watchOut) emit(ev watchEvent) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.seq++
	ev.Seq, ev.Time = o.seq, o.now().UTC().Format(time.RFC3339Nano)
	return o.enc.Encode(ev)
}

func watchRoot(ctx context.Context, c *conn, emit func(watchEvent) error) error {
	list, err := c.ListSessions(ctx)
	if err != nil {
		return fmt.Errorf("list sessions: %w", err)
	}
	var rw rootWatch
	if err := emit(rw.state(list)); err != nil {
		return err
	}
	seen := c.reconnects
	return c.wait(ctx, func(batch []client.Event) (bool, error) {
		for _, ev := range batch {
			w, ok := rootEvent(ev)
			if !ok {
				continue
			}
			rw.track(w)
			if err := emit(w); err != nil {
				return false, err
			}
		}
		if c.reconnects == seen {
			return false, nil
		}
		seen = c.reconnects
		list, err := c.ListSessions(ctx)
		if err != nil {
			return false, fmt.Errorf("list sessions after reconnecting: %w", err)
		}
		for _, w := range rw.resync(list) {
			if err := emit(w); err != nil {
				return false, err
			}
		}
		return false, nil
	})
}

// rootWatch is what a watch of one host's session list has said: the
// sessions it knows, so that after a reconnect it can say which are gone.
type rootWatch struct{ known map[string]bool }

// state is the "state" line of list, which the watch now knows.
func (r *rootWatch) state(list []protocol.SessionSummary) watchEvent {
	r.known = map[string]bool{}
	ev := watchEvent{Channel: rootChannel, Type: "state", Sessions: []sessionJSON{}}
	for _, s := range list {
		ev.Sessions = append(ev.Sessions, sessionOf(s))
		r.known[s.Resource] = true
	}
	return ev
}

// track keeps the known sessions up to date with a line printed.
func (r *rootWatch) track(w watchEvent) {
	switch w.Type {
	case "sessionAdded":
		r.known[w.Session] = true
	case "sessionRemoved":
		delete(r.known, w.Session)
	}
}

// resync is what to print when the host is back after a loss, which sent
// no events for what changed meanwhile: a sessionRemoved for each session
// known that list lacks, then list's state afresh.
func (r *rootWatch) resync(list []protocol.SessionSummary) []watchEvent {
	now := map[string]bool{}
	for _, s := range list {
		now[s.Resource] = true
	}
	var out []watchEvent
	for _, uri := range slices.Sorted(maps.Keys(r.known)) {
		if !now[uri] {
			out = append(out, watchEvent{Channel: rootChannel, Type: "sessionRemoved", Session: uri})
		}
	}
	return append(out, r.state(list))
}

// rootEvent is the line a change to the host's session list prints, if
// ev is one.
func rootEvent(ev client.Event) (watchEvent, bool) {
	var w watchEvent
	switch e := ev.(type) {
	case client.SessionAddedEvent:
		w = watchEvent{Type: "sessionAdded", Session: e.Summary.Resource, Title: e.Summary.Title, Status: views.StatusWord(e.Summary.Status)}
	case client.SessionRemovedEvent:
		w = watchEvent{Type: "sessionRemoved", Session: e.Session}
	case client.SessionSummaryChangedEvent:
		w = watchEvent{Type: "sessionChanged", Session: e.Session}
		if e.Changes.Title != nil {
			w.Title = *e.Changes.Title
		}
		if e.Changes.Status != nil {
			w.Status = views.StatusWord(*e.Changes.Status)
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
			ev.Type, ev.Status, ev.Turn, ev.Waiting = "state", views.StatusWord(ch.Status), cur, ws
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
		if st := views.StatusWord(ch.Status); st != status && !first {
			ev := base
			ev.Type, ev.Status = "status", st
			out = append(out, ev)
		}
		status, turn, waitKey, first = views.StatusWord(ch.Status), cur, string(key), false
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
