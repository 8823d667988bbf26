package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ahptui/ahptui/host/fleet"
	"github.com/ahptui/ahptui/protocol/client"
)

// watchAll is watch on every host of the run: each host's first line
// (its session list, or a "host" line saying why it failed), then every
// host's session list changes as they come, each line naming its host.
// A host's connection changes are "host" lines, only where its state
// really changed: lost (connecting, with why), back (connected, then a
// sessionRemoved for each session gone meanwhile and its state afresh,
// as one host's watch prints), or given up (failed: the client gave up,
// or the host was not back within --reconnect-window, as one host's
// watch gives up). Connecting is bounded as for one host; watching only
// by a --timeout given. It ends when every host is lost.
func (a *app) watchAll(ctx context.Context, bounded bool) error {
	set, err := a.dialAll(ctx)
	if err != nil {
		return err
	}
	defer set.Close()
	out := newWatchOut(a.Stdout)
	hs := set.reg.Hosts()
	watches := make([]rootWatch, len(hs))
	firsts := make([]watchEvent, len(hs))
	errs := a.eachHost(ctx, set, func(ctx context.Context, i int, c *conn) error {
		list, err := c.ListSessions(ctx)
		if err != nil {
			return fmt.Errorf("list sessions: %w", err)
		}
		firsts[i] = watches[i].state(list)
		return nil
	})
	// index is each live host's place; lost, the hosts reconnecting and
	// since when.
	index, lost := map[*fleet.Host]int{}, map[*fleet.Host]time.Time{}
	for i, h := range hs {
		if errs[i] != nil {
			row := hostRowOf(h, errs[i])
			firsts[i] = watchEvent{Type: "host", HostState: row.State, Error: row.Error}
		} else {
			index[h] = i
		}
		firsts[i].Host = *refOf(h)
		if err := out.emit(firsts[i]); err != nil {
			return err
		}
	}
	if len(index) == 0 {
		return hostsFailed(set, errs)
	}
	if bounded {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, a.timeout)
		defer cancel()
	}
	events := set.reg.Events(ctx)
	for {
		var batch fleet.Events
		expire, gone := a.nextGiveUp(lost, index)
		select {
		case <-ctx.Done():
			stopTimer(expire)
			return withCode(ExitTimeout, errNotYet)
		case <-timerC(expire):
			delete(index, gone)
			delete(lost, gone)
			line := watchEvent{Type: "host", HostState: string(fleet.Failed),
				Error: hostText(fmt.Sprintf("lost the host and it was not back within %s (--reconnect-window)", a.reconnectWindow)),
				Host:  *refOf(gone)}
			if err := out.emit(line); err != nil {
				return err
			}
			if len(index) == 0 {
				return withCode(ExitUnreachable, errors.New("lost every host"))
			}
			continue
		case b, ok := <-events:
			stopTimer(expire)
			if !ok {
				return withCode(ExitUnreachable, errors.New("every host's connection closed"))
			}
			batch = b
		}
		h := batch.Host
		i, live := index[h]
		if !live {
			continue
		}
		var lines []watchEvent
		for _, ev := range batch.Events {
			if ce, isConn := ev.(client.ConnectionEvent); isConn {
				more, err := a.connectionLines(ctx, set.conns[i], &watches[i], lost, h, ce)
				if err != nil {
					return err
				}
				lines = append(lines, more...)
				continue
			}
			if w, ok := rootEvent(ev); ok {
				watches[i].track(w)
				lines = append(lines, w)
			}
		}
		for _, w := range lines {
			if w.Type == "host" && w.HostState == string(fleet.Failed) {
				delete(index, h) // given up, or back with its list unread
			}
			w.Host = *refOf(h)
			if err := out.emit(w); err != nil {
				return err
			}
		}
		if batch.Closed {
			delete(index, h)
		}
		if len(index) == 0 {
			return withCode(ExitUnreachable, errors.New("lost every host"))
		}
	}
}

// connectionLines are the lines a change of host h's connection prints:
// none for the first connection (the watch began connected, and its
// state line said so) nor for another attempt while h is still lost; a
// "host" line when h is lost, back or given up; and back, what a watch
// of one host prints after a reconnect (rootWatch.resync).
func (a *app) connectionLines(ctx context.Context, c *conn, rw *rootWatch, lost map[*fleet.Host]time.Time, h *fleet.Host, ce client.ConnectionEvent) ([]watchEvent, error) {
	line := watchEvent{Type: "host", HostState: hostStateOf(ce.Status)}
	if ce.Cause != nil {
		line.Error = hostText(ce.Cause.Error())
	}
	switch ce.Status {
	case client.StatusReconnecting:
		if _, already := lost[h]; already {
			return nil, nil
		}
		lost[h] = time.Now()
		return []watchEvent{line}, nil
	case client.StatusReady:
		if _, was := lost[h]; !was {
			return nil, nil
		}
		delete(lost, h)
		lctx, cancel := context.WithTimeout(ctx, a.timeout)
		defer cancel()
		list, err := c.ListSessions(lctx)
		if err != nil {
			// Back, but its list unread: the watch of it ends there.
			line.HostState, line.Error = string(fleet.Failed), hostText("list sessions after reconnecting: "+err.Error())
			return []watchEvent{line}, nil
		}
		return append([]watchEvent{line}, rw.resync(list)...), nil
	case client.StatusFailed:
		return []watchEvent{line}, nil
	}
	return nil, nil
}

// nextGiveUp is a timer for the first lost host still watched whose
// --reconnect-window ends, and that host (nil, nil when none is lost).
func (a *app) nextGiveUp(lost map[*fleet.Host]time.Time, index map[*fleet.Host]int) (*time.Timer, *fleet.Host) {
	var first *fleet.Host
	var at time.Time
	for h, since := range lost {
		if _, live := index[h]; !live {
			continue
		}
		if end := since.Add(a.reconnectWindow); first == nil || end.Before(at) {
			first, at = h, end
		}
	}
	if first == nil {
		return nil, nil
	}
	return time.NewTimer(time.Until(at)), first
}

// timerC is t's channel, or nil (never ready) for no timer.
func timerC(t *time.Timer) <-chan time.Time {
	if t == nil {
		return nil
	}
	return t.C
}

func stopTimer(t *time.Timer) {
	if t != nil {
		t.Stop()
	}
}

// hostStateOf is a host row's word for a client's connection status.
func hostStateOf(s client.ConnStatus) string {
	switch s {
	case client.StatusReady:
		return string(fleet.Connected)
	case client.StatusFailed:
		return string(fleet.Failed)
	}
	return string(fleet.Connecting)
}
