package cli

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// ExitInterrupted is the code of a command stopped by ctrl-c (SIGINT) or
// SIGTERM: 128 + SIGINT's number, what a shell reports for a program a
// signal ended.
const ExitInterrupted = 130

// errInterrupted is the cause of a command context a signal ended.
var errInterrupted = errors.New("interrupted")

// interruptible is ctx ended by SIGINT or SIGTERM with errInterrupted as
// its cause. Asking for SIGINT also undoes the ignore a shell sets on a
// job it starts in the background, so `kill -INT` reaches a backgrounded
// watch. stop releases the signals.
func interruptible(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
			cancel(errInterrupted)
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel(nil)
	}
}

// interrupted reports whether ctx ended because of a signal.
func interrupted(ctx context.Context) bool {
	return errors.Is(context.Cause(ctx), errInterrupted)
}

// checkedWriter remembers the first error writing to the output: a reader
// that went away (| head -1) or a full disk (> /dev/full) must not pass
// for success, nor kill the process with SIGPIPE.
type checkedWriter struct {
	mu  sync.Mutex
	w   io.Writer
	err error
}

func (c *checkedWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	if err != nil {
		c.err = err
	}
	return n, err
}

// failed is the first write error, if any.
func (c *checkedWriter) failed() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// brokenPipe: the reader of the output went away, which is how head and
// grep -q end a pipe; the command's work is done as far as anyone reads.
func brokenPipe(err error) bool { return errors.Is(err, syscall.EPIPE) }
