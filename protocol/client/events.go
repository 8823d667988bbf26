package client

import (
	"errors"
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

// Event is what the UI consumes, in order, from Client.Events(). The client
// queues them so its reader never waits for the UI. Events are not dropped
// while the reader keeps up; a consumer that falls far behind a flooding
// host makes the client refuse the host's further events and reconnect
// (ConnectionEvent with a Cause wrapping ErrEventQueueFull), which resends
// the state those events were about.
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
// with State, Root, Session or Chat. A change while an event for the same
// channel is still waiting to be read is folded into that event.
type ChannelStateEvent struct{ Channel string }

// ChannelDroppedEvent says the client no longer mirrors Channel (the host
// listed it as missing on reconnect, or a resubscribe failed).
type ChannelDroppedEvent struct {
	Channel string
	Reason  string
}

// SessionsListedEvent carries a fresh session list (after connect and after
// every reconnect, since root/session* notifications are not replayed).
type SessionsListedEvent struct {
	Sessions []protocol.SessionSummary
	// Truncated: the host listed more sessions than the client keeps (its
	// caps on items and bytes); Sessions holds the first that fit.
	Truncated bool
}

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

// ErrEventQueueFull is the cause of a reconnect forced because the
// consumer of Events fell too far behind the host's notifications.
var ErrEventQueueFull = errors.New("ahp: the host sent events faster than they were read")

// maxQueuedEventBytes bounds the host payload waiting in the event queue.
// A UI that reads events as it draws never gets near it; a host flooding a
// stalled UI reaches it within seconds, and the reconnect that follows
// resends whatever state was refused (snapshots, the session list).
const maxQueuedEventBytes = 16 << 20

// stateFoldAt is how many waiting events make a ChannelStateEvent fold into
// an earlier one for its channel: far more than a UI that keeps up leaves
// waiting, so it only bounds a flood.
const stateFoldAt = 1024

// queuedEventOverhead is what one queued event costs beyond its host
// payload, so a flood of tiny notifications is bounded too.
const queuedEventOverhead = 256

// eventQueue is the FIFO between producers (the connection reader,
// Dispatch, the reconnect loop) and the UI's channel. Producers never
// block: a slow UI must not stall the reader, or pings would time out and
// the host's writes would back up. Its growth is bounded instead:
//
//   - a ChannelStateEvent right after one for the same channel is dropped,
//     and once more than stateFoldAt events wait, one for a channel that
//     already has one waiting is folded into it (the UI re-reads the
//     state when it takes the event, so it sees every later change; a UI
//     that keeps up still sees each state as before);
//   - events that carry host payload and that the host can send without
//     end (notifications, malformed frames) go through pushHost, which
//     refuses them past maxQueuedEventBytes so the client can drop the
//     connection and resync;
//   - every other event is bounded by the client's own state (its pending
//     actions, its channels, its reconnect attempts).
type eventQueue struct {
	mu    sync.Mutex
	items []queuedEvent
	bytes int64
	// statePos is, per channel, the position (in pushed counted since the
	// start) of its last queued ChannelStateEvent, unless a
	// ChannelDroppedEvent for it came after; it waits while >= popped.
	statePos       map[string]int64
	pushed, popped int64
	// handed holds the costs of the events the pump moved into out, oldest
	// first. They stay in bytes until the reader takes them: out is
	// buffered (eventBuffer), and a burst of large host events waiting
	// there must count against the cap like one waiting in items.
	handed []int64
	wake   chan struct{}
	out    chan Event
	done   chan struct{}
	once   sync.Once
	closed bool
}

type queuedEvent struct {
	e    Event
	cost int64
}

func newEventQueue() *eventQueue {
	q := newIdleEventQueue()
	go q.pump()
	return q
}

// newIdleEventQueue is an event queue whose pump is not running yet: what
// is pushed waits in items, where push coalesces it (tests start the pump
// once the queue holds what they check).
func newIdleEventQueue() *eventQueue {
	return &eventQueue{
		statePos: map[string]int64{},
		wake:     make(chan struct{}, 1),
		out:      make(chan Event, eventBuffer),
		done:     make(chan struct{}),
	}
}

// push appends e, coalescing a ChannelStateEvent with one already waiting
// for the same channel.
func (q *eventQueue) push(e Event) {
	q.mu.Lock()
	q.appendLocked(e, 0)
	q.mu.Unlock()
}

// pushHost appends e, which carries size bytes of host payload, unless the
// queue is over its cap; it reports whether e was queued.
func (q *eventQueue) pushHost(e Event, size int) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.settleHandedLocked()
	if q.bytes > maxQueuedEventBytes {
		return false
	}
	q.appendLocked(e, size)
	return true
}

func (q *eventQueue) appendLocked(e Event, size int) {
	if q.closed {
		return
	}
	switch ev := e.(type) {
	case ChannelStateEvent:
		pos, ok := q.statePos[ev.Channel]
		waiting := ok && pos >= q.popped
		if waiting && (pos == q.pushed-1 || len(q.items) > stateFoldAt) {
			return
		}
		q.statePos[ev.Channel] = q.pushed
	case ChannelDroppedEvent:
		// A state event after the drop (a resubscribe) must be queued
		// after it, not merged into one before it.
		delete(q.statePos, ev.Channel)
	}
	q.pushed++
	cost := int64(size) + queuedEventOverhead
	q.items = append(q.items, queuedEvent{e: e, cost: cost})
	q.bytes += cost
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
		it := q.items[0]
		q.items[0] = queuedEvent{}
		q.items = q.items[1:]
		q.popped++ // from here on a change needs a new event
		q.mu.Unlock()
		select {
		case q.out <- it.e:
		case <-q.done:
			return
		}
		q.mu.Lock()
		q.handed = append(q.handed, it.cost)
		q.settleHandedLocked()
		q.mu.Unlock()
	}
}

// settleHandedLocked releases the bytes of the handed events the reader
// has taken: out is a FIFO, so those are the oldest ones beyond what
// len(out) still holds.
func (q *eventQueue) settleHandedLocked() {
	n := len(q.handed) - len(q.out)
	if n <= 0 {
		return
	}
	for _, c := range q.handed[:n] {
		q.bytes -= c
	}
	q.handed = append(q.handed[:0], q.handed[n:]...)
}
