package chaos

import (
	"context"
	"fmt"
	"sync"

	"github.com/ahptui/ahptui/protocol/client"
)

// recorder drains a client's event stream (so the client never queues
// without bound) and lets tests wait for a condition, re-checked after
// every event instead of polling or sleeping.
type recorder struct {
	mu      sync.Mutex
	conns   []client.ConnectionEvent
	rejects []client.ActionRejectedEvent
	hostErr []error
	n       int           // events seen
	changed chan struct{} // closed and replaced on every event
	done    chan struct{} // closed when the stream ends
}

func newRecorder(events <-chan client.Event) *recorder {
	r := &recorder{changed: make(chan struct{}), done: make(chan struct{})}
	go r.run(events)
	return r
}

func (r *recorder) run(events <-chan client.Event) {
	defer close(r.done)
	for ev := range events {
		r.mu.Lock()
		switch e := ev.(type) {
		case client.ConnectionEvent:
			r.conns = append(r.conns, e)
		case client.ActionRejectedEvent:
			r.rejects = append(r.rejects, e)
		case client.HostErrorEvent:
			r.hostErr = append(r.hostErr, e.Err)
		}
		r.n++
		close(r.changed)
		r.changed = make(chan struct{})
		r.mu.Unlock()
	}
	r.mu.Lock()
	close(r.changed)
	r.changed = make(chan struct{})
	r.mu.Unlock()
}

// mark is a position in the connection-event history.
func (r *recorder) mark() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.conns)
}

// connSince returns the connection events after mark.
func (r *recorder) connSince(mark int) []client.ConnectionEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]client.ConnectionEvent(nil), r.conns[mark:]...)
}

// rejections returns every ActionRejectedEvent so far.
func (r *recorder) rejections() []client.ActionRejectedEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]client.ActionRejectedEvent(nil), r.rejects...)
}

// hostErrors returns every HostErrorEvent so far.
func (r *recorder) hostErrors() []error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]error(nil), r.hostErr...)
}

// waitStatus waits for a connection event with status after mark and
// returns it with the mark just past it.
func (r *recorder) waitStatus(ctx context.Context, mark int, status client.ConnStatus) (client.ConnectionEvent, int, error) {
	var got client.ConnectionEvent
	next := mark
	err := r.until(ctx, "connection status "+status.String(), func() bool {
		for i := mark; i < len(r.conns); i++ {
			if r.conns[i].Status == status {
				got, next = r.conns[i], i+1
				return true
			}
		}
		return false
	})
	return got, next, err
}

// until waits until cond (called with r.mu held, after every event) holds.
func (r *recorder) until(ctx context.Context, what string, cond func() bool) error {
	for {
		r.mu.Lock()
		ok := cond()
		ch := r.changed
		r.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w", what, ctx.Err())
		}
	}
}

// wake returns a channel closed at the next event.
func (r *recorder) wake() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.changed
}
