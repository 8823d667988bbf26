package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ahptui/ahptui/hosts"
	"github.com/ahptui/ahptui/protocol/client"
)

// watchAll is watch on every host of the run: each host's first line
// (its session list, or a "host" line saying why it failed), then every
// host's session list changes as they come, each line naming its host,
// and a "host" line when a host reconnects or is lost. Connecting is
// bounded as for one host; watching only by a --timeout given. It ends
// when every host is lost.
func (a *app) watchAll(ctx context.Context, bounded bool) error {
	set, err := a.dialAll(ctx)
	if err != nil {
		return err
	}
	defer set.Close()
	enc := json.NewEncoder(jsonOut(a.Stdout))
	enc.SetEscapeHTML(false)
	hs := set.reg.Hosts()
	firsts := make([]watchEvent, len(hs))
	errs := a.eachHost(ctx, set, func(ctx context.Context, i int, c *conn) error {
		list, err := c.ListSessions(ctx)
		if err != nil {
			return fmt.Errorf("list sessions: %w", err)
		}
		first := watchEvent{Host: hs[i].Display(), Channel: rootChannel, Type: "state", Sessions: []sessionJSON{}}
		for _, s := range list {
			j := sessionOf(s)
			j.Host = first.Host
			first.Sessions = append(first.Sessions, j)
		}
		firsts[i] = first
		return nil
	})
	live := map[*hosts.Host]bool{}
	for i, h := range hs {
		if errs[i] != nil {
			row := hostRowOf(h, errs[i])
			firsts[i] = watchEvent{Host: row.Host, Type: "host", HostState: row.State, Error: row.Error}
		} else {
			live[h] = true
		}
		if err := enc.Encode(firsts[i]); err != nil {
			return err
		}
	}
	if len(live) == 0 {
		return hostsFailed(set, errs)
	}
	if bounded {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, a.timeout)
		defer cancel()
	}
	events := set.reg.Events(ctx)
	for {
		var batch hosts.Events
		select {
		case <-ctx.Done():
			return withCode(ExitTimeout, errNotYet)
		case b, ok := <-events:
			if !ok {
				return withCode(ExitUnreachable, errors.New("every host's connection closed"))
			}
			batch = b
		}
		h := batch.Host
		if !live[h] {
			continue
		}
		for _, ev := range batch.Events {
			w, ok := rootEvent(ev)
			if ce, isConn := ev.(client.ConnectionEvent); isConn {
				w, ok = watchEvent{Type: "host", HostState: hostStateOf(ce.Status)}, true
				if ce.Cause != nil {
					w.Error = hostText(ce.Cause.Error())
				}
				if ce.Status == client.StatusFailed {
					delete(live, h)
				}
			}
			if !ok {
				continue
			}
			w.Host = h.Display()
			if err := enc.Encode(w); err != nil {
				return err
			}
		}
		if batch.Closed {
			delete(live, h)
		}
		if len(live) == 0 {
			return withCode(ExitUnreachable, errors.New("lost every host"))
		}
	}
}

// hostStateOf is a host row's word for a client's connection status.
func hostStateOf(s client.ConnStatus) string {
	switch s {
	case client.StatusReady:
		return string(hosts.Connected)
	case client.StatusFailed:
		return string(hosts.Failed)
	}
	return string(hosts.Connecting)
}
