package chaos

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/ahptui/ahptui/demohost"
)

// origin identifies one dispatch: the client and its clientSeq.
type origin struct {
	client string
	seq    int64
}

// appliedAction is what the ledger keeps of one action envelope.
type appliedAction struct {
	seq      int64
	channel  string
	typ      string
	origin   *origin
	rejected bool
	title    string // session/titleChanged
	id       string // chat/pendingMessageSet
}

// ledger reads the demo host's frame tap: which client each connection
// belongs to, the authenticate requests per connection, every action
// envelope the host sent (deduplicated by serverSeq, since the same envelope
// goes to each subscriber) and the kind of every reconnect result. It is the
// host's account of what happened, independent of any client.
type ledger struct {
	mu         sync.Mutex
	connClient map[int64]string
	auth       map[int64]int
	reconnID   map[int64]map[string]bool // conn → ids of its reconnect requests
	results    []reconnectResult
	actions    map[int64]appliedAction
	changed    chan struct{}   // closed and replaced on every frame
	maxSeq     int64           // highest serverSeq seen in an envelope
	rejections []appliedAction // echoed with rejectionReason to the dispatcher only
}

func newLedger() *ledger {
	return &ledger{
		connClient: map[int64]string{},
		auth:       map[int64]int{},
		reconnID:   map[int64]map[string]bool{},
		actions:    map[int64]appliedAction{},
		changed:    make(chan struct{}),
	}
}

type tapFrame struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
}

type tapEnvelope struct {
	Channel         string  `json:"channel"`
	ServerSeq       int64   `json:"serverSeq"`
	RejectionReason *string `json:"rejectionReason"`
	Origin          *struct {
		ClientID  string `json:"clientId"`
		ClientSeq int64  `json:"clientSeq"`
	} `json:"origin"`
	Action struct {
		Type  string `json:"type"`
		Title string `json:"title"`
		ID    string `json:"id"`
	} `json:"action"`
}

// tap is the demohost.Config.Tap hook. It never keeps frame.
func (l *ledger) tap(conn int64, dir demohost.Direction, frame []byte) {
	var f tapFrame
	if json.Unmarshal(frame, &f) != nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	defer func() {
		close(l.changed)
		l.changed = make(chan struct{})
	}()
	if dir == demohost.Inbound {
		switch f.Method {
		case "initialize", "reconnect":
			var p struct {
				ClientID string `json:"clientId"`
			}
			if json.Unmarshal(f.Params, &p) == nil {
				l.connClient[conn] = p.ClientID
			}
			if f.Method == "reconnect" {
				if l.reconnID[conn] == nil {
					l.reconnID[conn] = map[string]bool{}
				}
				l.reconnID[conn][string(f.ID)] = true
			}
		case "authenticate":
			l.auth[conn]++
		}
		return
	}
	if f.Method == "action" {
		var e tapEnvelope
		if json.Unmarshal(f.Params, &e) != nil {
			return
		}
		a := appliedAction{seq: e.ServerSeq, channel: e.Channel, typ: e.Action.Type, rejected: e.RejectionReason != nil,
			title: e.Action.Title, id: e.Action.ID}
		l.maxSeq = max(l.maxSeq, e.ServerSeq)
		if e.Origin != nil {
			a.origin = &origin{client: e.Origin.ClientID, seq: e.Origin.ClientSeq}
		}
		if a.rejected {
			l.rejections = append(l.rejections, a)
			return
		}
		l.actions[e.ServerSeq] = a
		return
	}
	if f.Result != nil && f.ID != nil && l.reconnID[conn][string(f.ID)] {
		var r struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(f.Result, &r) == nil {
			l.results = append(l.results, reconnectResult{conn: conn, typ: r.Type})
		}
		delete(l.reconnID[conn], string(f.ID))
	}
}

// until waits until cond (called with l.mu held) holds, re-checking after
// every frame the host sends or receives.
func (l *ledger) until(ctx context.Context, what string, cond func() bool) error {
	for {
		l.mu.Lock()
		ok := cond()
		ch := l.changed
		l.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("waiting for the host to %s: %w", what, ctx.Err())
		}
	}
}

// highestSeq is the highest serverSeq the host has sent.
func (l *ledger) highestSeq() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.maxSeq
}

// countLocked is count with l.mu held.
func (l *ledger) countLocked(match func(appliedAction) bool) int {
	n := 0
	for _, a := range l.actions {
		if match(a) {
			n++
		}
	}
	return n
}

// acceptedBy returns how many accepted envelopes carry each of client's
// clientSeqs.
func (l *ledger) acceptedBy(client string) map[int64]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[int64]int{}
	for _, a := range l.actions {
		if a.origin != nil && a.origin.client == client {
			out[a.origin.seq]++
		}
	}
	return out
}

// rejectedFor lists the rejected dispatches of client.
func (l *ledger) rejectedFor(client string) []appliedAction {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []appliedAction
	for _, a := range l.rejections {
		if a.origin != nil && a.origin.client == client {
			out = append(out, a)
		}
	}
	return out
}

// count returns how many accepted envelopes match.
func (l *ledger) count(match func(appliedAction) bool) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.countLocked(match)
}

// connsOf lists the host connections client opened, in order.
func (l *ledger) connsOf(client string) []int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []int64
	for c, id := range l.connClient {
		if id == client {
			out = append(out, c)
		}
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// authOn is how many authenticate requests conn carried.
func (l *ledger) authOn(conn int64) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.auth[conn]
}

type reconnectResult struct {
	conn int64
	typ  string // "replay" or "snapshot"
}

// resultsOf lists the kinds of reconnect result the host sent to client,
// in order.
func (l *ledger) resultsOf(client string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, r := range l.results {
		if l.connClient[r.conn] == client {
			out = append(out, r.typ)
		}
	}
	return out
}

// reconnectResults counts the kinds of reconnect result the host sent to
// client.
func (l *ledger) reconnectResults(client string) map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[string]int{}
	for _, r := range l.results {
		if l.connClient[r.conn] == client {
			out[r.typ]++
		}
	}
	return out
}
