package jsonrpc

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Transport moves whole frames, each holding exactly one JSON-RPC message.
// Read is called from one goroutine at a time; Write may be called from many
// and must serialize frames. Both honour ctx so a stalled peer cannot block a
// caller forever. Close is idempotent and unblocks pending Read and Write.
type Transport interface {
	// Read returns the next inbound frame. After the transport closes it
	// returns an error wrapping ErrClosed (or ErrFrameTooBig).
	Read(ctx context.Context) ([]byte, error)
	// Write sends one frame. The transport does not keep frame after return.
	Write(ctx context.Context, frame []byte) error
	// Close ends the connection, telling the peer why when it can.
	Close(reason string) error
}

// Aborter is implemented by transports that can drop the connection at once,
// without the close handshake Close performs. A Conn whose context ends uses
// it: its owner has given up on the peer, which will not answer a handshake.
type Aborter interface {
	Abort() error
}

var (
	// ErrClosed reports that the transport or connection is closed.
	ErrClosed = errors.New("jsonrpc: connection closed")
	// ErrFrameTooBig reports an inbound frame over the transport's read
	// limit; the transport closes the connection when it happens.
	ErrFrameTooBig = errors.New("jsonrpc: inbound frame too big")
)

// DefaultReadLimit bounds one inbound frame. AHP snapshots of long sessions
// are large, but a frame beyond 16 MiB is a host bug or an attack.
const DefaultReadLimit int64 = 16 << 20

// DefaultWriteTimeout bounds one outbound frame when the caller's context has
// no earlier deadline, so a peer that stops reading cannot hang writers.
const DefaultWriteTimeout = 10 * time.Second

// withWriteTimeout applies d (if positive) on top of ctx.
func withWriteTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, d)
}

// Pipe returns two connected in-memory transports for tests and in-process
// hosts. It is unbuffered: a Write completes only when the other end reads
// it, which exposes back-pressure bugs that a buffered pipe would hide.
// Closing either end closes both.
func Pipe() (a, b Transport) {
	ab := make(chan []byte)
	ba := make(chan []byte)
	s := &pipeState{done: make(chan struct{})}
	return &pipeEnd{in: ba, out: ab, s: s}, &pipeEnd{in: ab, out: ba, s: s}
}

type pipeState struct {
	once   sync.Once
	done   chan struct{}
	reason string
}

type pipeEnd struct {
	in  <-chan []byte
	out chan<- []byte
	s   *pipeState
}

func (p *pipeEnd) closedErr() error {
	return fmt.Errorf("%w: pipe closed: %s", ErrClosed, p.s.reason)
}

func (p *pipeEnd) Read(ctx context.Context) ([]byte, error) {
	select {
	case f := <-p.in:
		return f, nil
	case <-p.s.done:
		return nil, p.closedErr()
	case <-ctx.Done():
		return nil, fmt.Errorf("jsonrpc: pipe read: %w", ctx.Err())
	}
}

func (p *pipeEnd) Write(ctx context.Context, frame []byte) error {
	// The reader may keep the slice; copy so callers can reuse buffers.
	f := append([]byte(nil), frame...)
	select {
	case <-p.s.done:
		return p.closedErr()
	default:
	}
	select {
	case p.out <- f:
		return nil
	case <-p.s.done:
		return p.closedErr()
	case <-ctx.Done():
		return fmt.Errorf("jsonrpc: pipe write: peer did not read in time: %w", ctx.Err())
	}
}

func (p *pipeEnd) Close(reason string) error {
	p.s.once.Do(func() {
		p.s.reason = reason
		close(p.s.done)
	})
	return nil
}
