// Package open is the one opening sequence every front-end runs before it
// talks to a host: the TUI, each scriptable command, --all-hosts and
// doctor. It makes sure the config directory is ahptui's own before
// anything is read from it, claims the client id, opens the wire trace,
// starts the demo hosts a run asks for, and dials with the token kept in
// the dialer and out of every error.
//
// It was written four times (main's runApp, the commands' dial, their
// --all-hosts set and doctor), each with its own copy of the error
// strings; a guarantee added to one copy was missing from the others.
package open

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"

	"github.com/ahptui/ahptui/authpkce"
	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/host/dial"
	"github.com/ahptui/ahptui/host/pick"
	"github.com/ahptui/ahptui/host/trace"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
)

// ErrNoHosts is a run of several hosts that found none to open.
var ErrNoHosts = errors.New("no hosts: no --host, no saved host (hosts.yml), and VS Code's registry lists none running")

// Config is one run's opening: what its flags say.
type Config struct {
	// ConfigDir is --config-dir; empty means the user config dir.
	ConfigDir string
	// Trace is --trace FILE: every frame of every host recorded there.
	Trace string
	// Version is the module version the host is told (never the
	// revision: that is for our own bug reports).
	Version string
	// Logger receives the dialers' and demo hosts' records; nil
	// discards them.
	Logger *slog.Logger
	// Probe opens nothing on disk: no directory is created, no client id
	// is claimed (a fresh one is used) and the directory's ownership is
	// left to the caller to report. doctor looks without writing.
	Probe bool
}

// Stage names the step of the opening that failed, so each front-end
// can give it its own exit (a bad --trace path is a usage error, an
// unusable config directory a local failure).
type Stage int

const (
	StageConfigDir Stage = iota + 1
	StageClientID
	StageTrace
	StageDemo
)

// Error is a failed opening step. Its text is the one the user reads,
// the same from every front-end.
type Error struct {
	Stage Stage
	// N numbers the demo host that did not start when a run starts
	// several (StageDemo), else 0.
	N   int
	Err error
}

func (e *Error) Error() string {
	switch e.Stage {
	case StageConfigDir:
		return "config directory: " + e.Err.Error()
	case StageClientID:
		return "client id: " + e.Err.Error() + " (pass a writable --config-dir)"
	case StageDemo:
		if e.N > 0 {
			return fmt.Sprintf("start demo host %d: %v", e.N, e.Err)
		}
		return "start the demo host: " + e.Err.Error()
	}
	return e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// Run is an opened run: its config directory, its client id, its trace
// and its demo hosts, until Close.
type Run struct {
	// Dir is the config directory, checked to be ours alone (unless
	// Probe).
	Dir string
	// DirNote is what the check of Dir has to tell the user (its
	// permissions were tightened), or "".
	DirNote string
	// ClientID is this run's client id: every host it dials sees it.
	ClientID string

	info     protocol.Implementation
	logger   *slog.Logger
	trace    *trace.Trace
	releases []func()
}

// Start opens a run: the directory check, the client id claim and the
// trace file, in that order. On error nothing is left open.
func Start(cfg Config) (*Run, error) {
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	ver := cfg.Version
	r := &Run{info: protocol.Implementation{Name: "ahptui", Version: &ver}, logger: logger}
	dir, err := pick.ConfigDir(cfg.ConfigDir)
	if err != nil {
		return nil, err
	}
	r.Dir = dir
	if cfg.Probe {
		r.ClientID = freshID()
	} else {
		// The directory holds the tokens and the answers that let a host
		// have them: it must be ours alone before anything is read.
		if r.DirNote, err = authpkce.PrivateDir(dir); err != nil {
			return nil, &Error{Stage: StageConfigDir, Err: err}
		}
		id, release, err := client.ClaimClientID(dir)
		if err != nil {
			return nil, &Error{Stage: StageClientID, Err: err}
		}
		r.ClientID = id
		r.releases = append(r.releases, release)
	}
	if cfg.Trace != "" {
		tr, err := trace.Create(cfg.Trace)
		if err != nil {
			r.Close()
			return nil, &Error{Stage: StageTrace, Err: err}
		}
		r.trace = tr
		r.releases = append(r.releases, func() { _ = tr.Close() })
	}
	return r, nil
}

// Close releases the client id, closes the trace and stops the run's demo
// hosts, the last opened first.
func (r *Run) Close() {
	for i := len(r.releases) - 1; i >= 0; i-- {
		r.releases[i]()
	}
	r.releases = nil
}

// Info is how the run names itself to a host.
func (r *Run) Info() protocol.Implementation { return r.info }

// StartDemo starts an embedded demo host speaking version (the newest
// when ""), stopped by Close, and returns it with its target. n numbers
// the host in the log when a run starts several (0: the only one).
func (r *Run) StartDemo(ctx context.Context, version string, n int) (*demohost.Host, dial.Target, error) {
	logger := r.logger.With("component", "demohost")
	if n > 0 {
		logger = logger.With("n", n)
	}
	h, err := demohost.Start(ctx, demohost.Config{Version: version, Logger: logger})
	if err != nil {
		return nil, dial.Target{}, &Error{Stage: StageDemo, N: n, Err: err}
	}
	r.releases = append(r.releases, func() { _ = h.Close() })
	t, err := dial.Parse(h.URL())
	if err != nil {
		return nil, dial.Target{}, &Error{Stage: StageDemo, N: n, Err: fmt.Errorf("its URL: %w", err)}
	}
	return h, t, nil
}

// Options are the client options that dial target for this run: the
// client names the host by its token-free URL, the dialer alone sends the
// token, one attempt gives up after dial.AttemptTimeout, and with a
// trace every frame is recorded naming the host: label as the user gave
// it (a saved host's name, "" for a URL) and its token-free URL.
func (r *Run) Options(target dial.Target, label string) client.Options {
	o := pick.ClientOptions(target, r.ClientID, r.info, r.logger.With("host", target.URL))
	if r.trace != nil {
		o.Dial = r.trace.DialHost(label, target.URL, o.Dial)
	}
	return o
}

// freshID is a client id claimed nowhere: 16 random bytes in hex.
func freshID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Dial connects to target. A host may echo what it was sent: the error
// never carries the token. The failure is logged whole, with its time;
// screens cut it to their width.
func (r *Run) Dial(ctx context.Context, target dial.Target, label string) (*client.Client, error) {
	c, err := client.Dial(ctx, r.Options(target, label))
	if err != nil {
		err = target.ScrubError(err)
		r.logger.Warn("connect failed", "host", target.URL, "error", err.Error())
		return nil, err
	}
	return c, nil
}
