package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/ahptui/ahptui/authpkce"
	"github.com/ahptui/ahptui/host/dial"
	"github.com/ahptui/ahptui/host/open"
	"github.com/ahptui/ahptui/host/pick"
	"github.com/ahptui/ahptui/host/trust"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
)

// conn is one command's connection to its host.
type conn struct {
	*client.Client
	host    string // the token-free URL: what output names
	name    string // the saved host's name it was reached by, else ""
	release func()
	// auth is the saved sign-ins (nil for --demo, whose tokens live in
	// memory); pushed, the resources a saved token went to (or was said
	// not to go to).
	auth   *authpkce.Authenticator
	pushed map[string]bool

	// events are the client's event batches, read by one pump for the
	// connection's life, so a wait can also wake for the reconnect window.
	events chan eventBatch
	stop   chan struct{}
	// source is how the host was found (trust.Decide); allowSaved is
	// --allow-saved-tokens; warn gets the line for a sign-in not sent.
	source     trust.Found
	allowSaved bool
	warn       io.Writer
	// window is how long the host may stay lost before a command gives up
	// (exit 3); lostAt is when it was lost (zero while connected), and
	// lostCause why. reconnects counts the times it came back, so a watch
	// knows to print the state afresh.
	window     time.Duration
	lostAt     time.Time
	lostCause  error
	reconnects int
}

// eventBatch is one read of the client's events.
type eventBatch struct {
	batch []client.Event
	ok    bool
}

func (c *conn) Close() {
	if c.stop != nil {
		close(c.stop)
	}
	if c.Client != nil {
		c.Client.Close()
	}
	c.release()
}

// pump reads the client's events for the connection's life.
func (c *conn) pump() {
	c.events, c.stop = make(chan eventBatch), make(chan struct{})
	events, stop := c.Events(), c.stop
	go func() {
		for {
			b, ok := client.ReceiveEvents(events, 256)
			select {
			case c.events <- eventBatch{b, ok}:
			case <-stop:
				return
			}
			if !ok {
				return
			}
		}
	}()
}

// spec is the host the global flags name.
func (a *app) spec() (pick.Spec, error) {
	s := pick.Spec{Host: a.host, TokenFile: a.tokenFile, Insecure: a.insecure, Demo: a.demo, ConfigDir: a.configDir}
	if err := a.useDefaultHost(&s); err != nil {
		return s, err
	}
	if err := s.Normalize(); err != nil {
		return s, withCode(ExitUsage, err)
	}
	if err := pick.CheckTransport(s.Host, s.Insecure); err != nil {
		return s, withCode(ExitUsage, err)
	}
	return s, nil
}

// dial connects to the host the flags name, as the UI does: the same
// resolution (host/pick), the same client id claim in the config dir, the
// demo host started in this process for --demo.
func (a *app) dial(ctx context.Context) (*conn, error) {
	s, err := a.spec()
	if err != nil {
		return nil, err
	}
	target, err := pick.Resolve(s, a.Getenv, a.Stdin, a.Stderr)
	if err != nil {
		var de *pick.DiscoverError
		var dle *dial.DialError
		if errors.As(err, &dle) {
			// An ssh:// host's look at the box: its named failure.
			phrase, _ := dial.Explain(dle, a.timeout)
			return nil, withCode(exitCode(dle), &connectError{url: dle.URL, phrase: phrase, err: err})
		}
		if errors.As(err, &de) {
			return nil, withCode(ExitUnreachable, err)
		}
		if errors.Is(err, pick.ErrSavedHosts) || errors.Is(err, dial.ErrTokenFile) {
			// hosts.yml itself is the problem, as with --all-hosts.
			return nil, withCode(ExitFailure, err)
		}
		return nil, withCode(ExitUsage, err)
	}
	run, err := a.open()
	if err != nil {
		return nil, err
	}
	cn := &conn{release: run.Close}
	if a.demo {
		// The demo lives as long as this command: Close stops it.
		if _, target, err = run.StartDemo(context.Background(), a.demoVersion, 0); err != nil {
			run.Close()
			return nil, err
		}
	}
	c, err := run.Dial(ctx, target, s.Saved)
	if err != nil {
		run.Close()
		return nil, a.connectError(ctx, target, err)
	}
	cn.Client, cn.host, cn.pushed, cn.window = c, target.URL, map[string]bool{}, a.reconnectWindow
	cn.name = s.Saved
	cn.pump()
	cn.source, cn.allowSaved, cn.warn = sourceOf(s), a.allowSaved, a.Stderr
	if !a.demo {
		// Without the store the commands still work; only saved sign-ins
		// are not offered to the host.
		cn.auth, _ = authpkce.New(authpkce.Config{Dir: run.Dir, TokenStore: a.tokenStoreOr()})
	}
	cn.pushSaved(ctx, nil)
	return cn, nil
}

// open is the run's opening (host/open, as the UI's): the config
// directory checked, the client id claimed, --trace opened. A --trace
// path that cannot be written is the command line's fault (2).
func (a *app) open() (*open.Run, error) {
	run, err := open.Start(open.Config{ConfigDir: a.configDir, Trace: a.trace, Version: a.Version})
	var oe *open.Error
	if errors.As(err, &oe) && oe.Stage == open.StageTrace {
		return nil, withCode(ExitUsage, err)
	}
	return run, err
}

// sourceOf is how s found its host: VS Code's registry when no host was
// named, a saved host's name, else the command line.
func sourceOf(s pick.Spec) trust.Found {
	switch {
	case s.Discover():
		return trust.Registry
	case s.Saved != "":
		return trust.Saved
	}
	return trust.CommandLine
}

// connected runs f with a connection, within --timeout.
func (a *app) connected(ctx context.Context, f func(ctx context.Context, c *conn) error) error {
	ctx, cancel := context.WithTimeout(ctx, a.timeout)
	defer cancel()
	c, err := a.dial(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	return f(ctx, c)
}

// wait reads the client's events until check says done (it is asked once
// before any event, then after each batch). A connection that fails, or
// ctx ending, ends the wait with the matching exit code.
//
// A check that itself waited on the host (a dispatch) returns errRecheck:
// the events that wait read are gone, so it is asked again at once rather
// than after an event that may never come.
func (c *conn) wait(ctx context.Context, check func(ev []client.Event) (bool, error)) error {
	var batch []client.Event
	for {
		done, err := check(batch)
		if errors.Is(err, errRecheck) {
			batch = nil
			continue
		}
		if done || err != nil {
			return err
		}
		if batch, err = c.receive(ctx); err != nil {
			return err
		}
	}
}

// errRecheck asks wait to run its check again before reading events.
var errRecheck = errors.New("check again")

// receive is the next batch of events, or why there is none: ctx ended,
// the client gave up, or the host was lost and did not come back within
// the reconnect window (a restart is survived; a host gone for good ends
// the command with exit 3 instead of a silent hang).
func (c *conn) receive(ctx context.Context) ([]client.Event, error) {
	var expire <-chan time.Time
	if !c.lostAt.IsZero() {
		t := time.NewTimer(time.Until(c.lostAt.Add(c.window)))
		defer t.Stop()
		expire = t.C
	}
	select {
	case <-ctx.Done():
		return nil, withCode(ExitTimeout, errNotYet)
	case <-expire:
		err := fmt.Errorf("lost the host %s and it was not back within %s (--reconnect-window)", c.host, c.window)
		if c.lostCause != nil {
			err = fmt.Errorf("%w: %w", err, c.lostCause)
		}
		return nil, withCode(ExitUnreachable, err)
	case r := <-c.events:
		if !r.ok {
			return nil, withCode(ExitUnreachable, errors.New("the connection to the host closed"))
		}
		for _, ev := range r.batch {
			ce, ok := ev.(client.ConnectionEvent)
			if !ok {
				continue
			}
			switch ce.Status {
			case client.StatusFailed:
				return nil, withCode(ExitUnreachable, fmt.Errorf("lost the host: %w", ce.Cause))
			case client.StatusReconnecting:
				if c.lostAt.IsZero() {
					c.lostAt, c.lostCause = time.Now(), ce.Cause
				}
			case client.StatusReady:
				if !c.lostAt.IsZero() {
					c.lostAt, c.lostCause = time.Time{}, nil
					c.reconnects++
				}
			}
		}
		return r.batch, nil
	}
}

// dispatch sends one action on channel and waits until the host confirms
// or rejects it (a rejection is the host's error).
func (c *conn) dispatch(ctx context.Context, channel string, v protocol.StateActionVariant) error {
	act := protocol.NewStateAction(v)
	seq, err := c.Dispatch(channel, act)
	if err != nil {
		return fmt.Errorf("could not send %s: %w", act.Kind(), err)
	}
	return c.wait(ctx, func(batch []client.Event) (bool, error) {
		for _, ev := range batch {
			switch e := ev.(type) {
			case client.ActionConfirmedEvent:
				if e.ClientSeq == seq {
					return true, nil
				}
			case client.ActionRejectedEvent:
				if e.ClientSeq == seq {
					return true, withCode(ExitHostError, fmt.Errorf("the host rejected %s: %s", act.Kind(), views_quote(e.Reason)))
				}
			}
		}
		return false, nil
	})
}

// onSession is the RunE of a command whose first argument names a
// session: it connects, finds the session (exit 8 when the host has no
// such session) and hands it to run with the arguments.
func (a *app) onSession(run func(ctx context.Context, c *conn, argv []string, sess protocol.SessionState, uri string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, argv []string) error {
		return a.connected(cmd.Context(), func(ctx context.Context, c *conn) error {
			sess, uri, _, err := c.session(ctx, argv[0])
			if err != nil {
				return err
			}
			return run(ctx, c, argv, sess, uri)
		})
	}
}

// newID mints a session or turn id: 16 random bytes in hex.
func newID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
