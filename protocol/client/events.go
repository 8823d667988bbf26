package client

import (
	"fmt"
	"sync"

	"github.com/ahptui/ahptui/protocol"
)

// ConnStatus is the state of the client's connection to the host.
type ConnStatus int

const (
	// StatusConnecting: the first connection is being opened.
	StatusConnecting ConnStatus = iota
	// StatusReady: initialized and subscribed; the mirror is live.
	StatusReady
	// StatusReconnecting: the transport dropped; the client is retrying.
	StatusReconnecting
	// StatusFailed: the client gave up (or was closed); Cause says why.
	StatusFailed
)

// String names the status for logs and the status bar.
func (s ConnStatus) String() string {
	switch s {
	case StatusConnecting:
		return "connecting"
	case StatusReady:
		return "ready"
	case StatusReconnecting:
		return "reconnecting"
	case StatusFailed:
		return "failed"
	}
	return fmt.Sprintf("ConnStatus(%d)", int(s))
}

// Event is what the UI consumes, in order, from Client.Events(). Events are
// never dropped: the client queues them without bound so its reader never
// waits for the UI.
type Event interface{ isEvent() }

// ConnectionEvent reports a change of connection status.
type ConnectionEvent struct {
	Status ConnStatus
	// Attempt counts reconnect attempts (1 for the first retry); 0 otherwise.
	Attempt int
	// Cause says why the client is reconnecting or has failed.
	Cause error
	// ProtocolVersion is the negotiated version once Ready.
	ProtocolVersion string
}

// ChannelStateEvent says the optimistic state of Channel changed: read it
// with State, Root, Session or Chat. Consecutive events for the same channel
// may be coalesced into one.
type ChannelStateEvent struct{ Channel string }

// ChannelDroppedEvent says the client no longer mirrors Channel (the host
// listed it as missing on reconnect, or a resubscribe failed).
type ChannelDroppedEvent struct {
	Channel string
	Reason  string
}

// SessionsListedEvent carries a fresh session list (after connect and after
// every reconnect, since root/session* notifications are not replayed).
type SessionsListedEvent struct{ Sessions []protocol.SessionSummary }

// SessionAddedEvent mirrors root/sessionAdded.
type SessionAddedEvent struct{ Summary protocol.SessionSummary }

// SessionRemovedEvent mirrors root/sessionRemoved.
type SessionRemovedEvent struct{ Session string }

// SessionSummaryChangedEvent mirrors root/sessionSummaryChanged.
type SessionSummaryChangedEvent struct {
	Session string
	Changes protocol.PartialSessionSummary
}

// AuthRequiredEvent mirrors the auth/required notification.
type AuthRequiredEvent struct{ Params protocol.AuthRequiredParams }

// ActionRejectedEvent says the host rejected one of our dispatched actions;
// its optimistic effect has been rolled back. Reason is host text
// (untrusted).
type ActionRejectedEvent struct {
	Channel   string
	Action    protocol.StateAction
	ClientSeq int64
	Reason    string
}

// ActionConfirmedEvent says the host accepted one of our dispatched actions:
// its echo arrived and the action is now part of the confirmed state. With
// ActionRejectedEvent it settles every dispatch, so the UI can clear a
// "pending" marker exactly when the host answered rather than guessing.
type ActionConfirmedEvent struct {
	Channel   string
	Action    protocol.StateAction
	ClientSeq int64
}

// HostErrorEvent reports something the host sent that the client could not
// use (a malformed frame, an envelope that does not decode). The connection
// and the mirror are intact; the UI shows it and carries on.
type HostErrorEvent struct{ Err error }

func (ConnectionEvent) isEvent()            {}
func (ChannelStateEvent) isEvent()          {}
func (ChannelDroppedEvent) isEvent()        {}
func (SessionsListedEvent) isEvent()        {}
func (SessionAddedEvent) isEvent()          {}
func (SessionRemovedEvent) isEvent()        {}
func (SessionSummaryChangedEvent) isEvent() {}
func (AuthRequiredEvent) isEvent()          {}
func (ActionRejectedEvent) isEvent()        {}
func (ActionConfirmedEvent) isEvent()       {}
func (HostErrorEvent) isEvent()             {}

// eventBuffer is how many events the pump moves ahead into the out
// channel, so that ReceiveEvents finds a burst waiting there rather than
// one event per hand-over. Events that wait in the buffer can no longer
// be coalesced by push; ReceiveEvents coalesces them instead.
const eventBuffer = 64

// ReceiveEvents waits for the next event on ch (Client.Events()) and
// returns it with the events already waiting behind it, at most max in
// all, in order; consecutive ChannelStateEvents for the same channel are
// coalesced, as the client's queue does. ok is false once ch is closed and
// drained. A UI that applies the whole batch in one update draws one frame
// for a burst of deltas instead of one per delta.
func ReceiveEvents(ch <-chan Event, max int) (batch []Event, ok bool) {
	e, ok := <-ch
	if !ok {
		return nil, false
	}
	batch = append(batch, e)
	for len(batch) < max {
		select {
		case e, ok := <-ch:
			if !ok {
				return batch, true
			}
			if cs, isCS := e.(ChannelStateEvent); isCS {
				if last, lastCS := batch[len(batch)-1].(ChannelStateEvent); lastCS && last.Channel == cs.Channel {
					continue
				}
			}
			batch = append(batch, e)
		default:
			return batch, true
		}
	}
	return batch, true
}

// eventQueue is an unbounded FIFO between producers (the connection reader,
// Dispatch, the reconnect loop) and the UI's channel. Producers never block:
// a slow UI must not stall the reader, or pings would time out and the
// host's writes would back up.
type eventQueue struct {
	mu     sync.Mutex
	items  []Event
	wake   chan struct{}
	out    chan Event
	done   chan struct{}
	once   sync.Once
	closed bool
}

func newEventQueue() *eventQueue {
	q := &eventQueue{
		wake: make(chan struct{}, 1),
		out:  make(chan Event, eventBuffer),
		done: make(chan struct{}),
	}
	go q.pump()
	return q
}

// push appends e. Consecutive ChannelStateEvents for the same channel are
// coalesced: the UI re-reads the state anyway, so one is as good as many.
func (q *eventQueue) push(e Event) {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return
	}
	if cs, ok := e.(ChannelStateEvent); ok && len(q.items) > 0 {
		if last, ok := q.items[len(q.items)-1].(ChannelStateEvent); ok && last.Channel == cs.Channel {
			q.mu.Unlock()
			return
		}
	}
	q.items = append(q.items, e)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// close stops accepting events; the pump delivers what is queued and then
// closes the out channel.
func (q *eventQueue) close() {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return
	}
	q.closed = true
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// abandon makes the pump stop even if nobody reads the remaining events.
func (q *eventQueue) abandon() {
	q.close()
	q.once.Do(func() { close(q.done) })
}

func (q *eventQueue) pump() {
	defer close(q.out)
	for {
		q.mu.Lock()
		if len(q.items) == 0 {
			closed := q.closed
			q.mu.Unlock()
			if closed {
				return
			}
			select {
			case <-q.wake:
			case <-q.done:
				return
			}
			continue
		}
		e := q.items[0]
		q.items[0] = nil
		q.items = q.items[1:]
		q.mu.Unlock()
		select {
		case q.out <- e:
		case <-q.done:
			return
		}
	}
}
