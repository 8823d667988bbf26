// Package fleet is the set of AHP hosts one ahptui talks to at once
// (issue 25): every configured host in config order, one entry per host
// identity, each with its own *client.Client and a state row.
//
// A host's identity is the one its sign-ins are bound to
// (authpkce.HostID): scheme, host and port normalised, the path kept
// (wss://gw/alice and wss://gw/bob are two hosts), the query — where a
// connection token rides — dropped. Two entries naming one identity are
// one host, the first's label kept: connecting twice would make one host
// see this installation's client id on two connections.
//
// Hosts connect in parallel, each within its own timeout, so a slow, hung
// or refusing host never delays another. Once connected, a host's
// *client.Client is its reconnect supervisor (backoff, replay, giving up);
// the registry adds none of its own.
//
// It imports host/dial, authpkce (the host identity) and protocol/client;
// never ui, views or cli.
package fleet

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/ahptui/ahptui/authpkce"
	"github.com/ahptui/ahptui/host/dial"
	"github.com/ahptui/ahptui/protocol/client"
)

// Kind is a host's connection state, as a row shows it.
type Kind string

const (
	// Connecting: an attempt is in flight (or the client is reconnecting).
	Connecting Kind = "connecting"
	// Connected: initialized; the client's mirror is live.
	Connected Kind = "connected"
	// Refused: the host answered and said no — it speaks none of our
	// AHP versions (-32005), or refused the upgrade with an HTTP status
	// (403: a wrong connection token). Not tried again on its own.
	Refused Kind = "refused"
	// Failed: no host answered (refused TCP connection, unresolved name,
	// nothing within the timeout), its configuration could not be read,
	// or the client gave up reconnecting.
	Failed Kind = "failed"
)

// State is a host's row: its kind, the attempt it is on (from 1) and the
// last error, whose text never carries the connection token.
type State struct {
	Kind    Kind
	Attempt int
	Err     error
}

// Config is one configured host.
type Config struct {
	// Target is where to dial (its URL is token-free; the token rides in
	// the target alone).
	Target dial.Target
	// Label names the host for people: a saved host's name, a local
	// host's description; empty shows the URL alone.
	Label string
	// Source says where the host came from: "flag", "saved", "local".
	Source string
	// Err, when set, is why the host cannot be dialled (a saved host's
	// token file unreadable, say): it is registered Failed with it, so it
	// is still a row, and never dialled.
	Err error
}

// Host is one host of the registry.
type Host struct {
	// ID is the host's identity (authpkce.HostID of its URL), or its
	// URL when that does not parse as one.
	ID     string
	URL    string // token-free
	Label  string
	Source string

	target dial.Target
	preErr error

	mu     sync.Mutex
	state  State
	client *client.Client
}

// Display is how the host is named to people and in JSON: its label and
// its token-free URL, or the URL alone.
func (h *Host) Display() string {
	if h.Label != "" {
		return h.Label + " (" + h.URL + ")"
	}
	return h.URL
}

// State is the host's row now. A connected host's kind follows its
// client: connecting while it reconnects, failed once it gave up.
func (h *Host) State() State {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.state
	if h.client != nil && s.Kind == Connected {
		switch h.client.Status() {
		case client.StatusConnecting, client.StatusReconnecting:
			s.Kind = Connecting
		case client.StatusFailed:
			s.Kind = Failed
		}
	}
	return s
}

// Client is the host's client once connected, else nil.
func (h *Host) Client() *client.Client {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.client
}

func (h *Host) set(s State, c *client.Client) {
	h.mu.Lock()
	h.state = s
	if c != nil {
		h.client = c
	}
	h.mu.Unlock()
}

// Options configure a Registry.
type Options struct {
	// ClientOptions are the client options that dial one target (client
	// id, client info, logger, a tracing dialer); required.
	ClientOptions func(dial.Target) client.Options
	// Timeout bounds one host's connect, every attempt included;
	// 0 means dial.AttemptTimeout.
	Timeout time.Duration
	// Attempts is how many times a host that did not answer is dialled
	// before it is Failed; 0 means 1. A refusal is never tried again.
	Attempts int
	// Backoff is the wait between attempts; 0 means 500ms.
	Backoff time.Duration
	// OnChange, when set, is told each state a host enters while
	// connecting (from the host's own goroutine).
	OnChange func(h *Host, s State)
}

// Registry is the configured hosts, in config order.
type Registry struct {
	opts  Options
	hosts []*Host
}

// New registers every configured host, before anything dials: config
// order, the first entry of each identity kept.
func New(cfgs []Config, opts Options) *Registry {
	if opts.Timeout <= 0 {
		opts.Timeout = dial.AttemptTimeout
	}
	if opts.Attempts <= 0 {
		opts.Attempts = 1
	}
	if opts.Backoff <= 0 {
		opts.Backoff = 500 * time.Millisecond
	}
	r := &Registry{opts: opts}
	seen := map[string]bool{}
	for _, c := range cfgs {
		id := Identity(c.Target.URL)
		if seen[id] {
			continue
		}
		seen[id] = true
		h := &Host{ID: id, URL: c.Target.URL, Label: c.Label, Source: c.Source, target: c.Target, preErr: c.Err,
			state: State{Kind: Connecting}}
		if c.Err != nil {
			h.state = State{Kind: Failed, Err: c.Err}
		}
		r.hosts = append(r.hosts, h)
	}
	return r
}

// Identity is the identity of the host at url: authpkce.HostID, the one
// sign-ins are bound to, else url itself.
func Identity(url string) string {
	if id, err := authpkce.HostID(url); err == nil {
		return id
	}
	return url
}

// Hosts are the registered hosts in config order.
func (r *Registry) Hosts() []*Host { return r.hosts }

// Connect dials every host not yet connected, all at once, and returns
// when each is connected, refused or failed.
func (r *Registry) Connect(ctx context.Context) {
	var wg sync.WaitGroup
	for _, h := range r.hosts {
		if h.Client() != nil || h.preErr != nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.connect(ctx, h)
		}()
	}
	wg.Wait()
}

func (r *Registry) connect(ctx context.Context, h *Host) {
	ctx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
	defer cancel()
	var last error
	for attempt := 1; ; attempt++ {
		r.enter(h, State{Kind: Connecting, Attempt: attempt, Err: last}, nil)
		c, err := client.Dial(ctx, r.opts.ClientOptions(h.target))
		if err == nil {
			r.enter(h, State{Kind: Connected, Attempt: attempt}, c)
			return
		}
		last = h.target.ScrubError(err)
		if Refusal(err) {
			r.enter(h, State{Kind: Refused, Attempt: attempt, Err: last}, nil)
			return
		}
		if attempt >= r.opts.Attempts || ctx.Err() != nil {
			r.enter(h, State{Kind: Failed, Attempt: attempt, Err: last}, nil)
			return
		}
		select {
		case <-ctx.Done():
			r.enter(h, State{Kind: Failed, Attempt: attempt, Err: last}, nil)
			return
		case <-time.After(r.opts.Backoff):
		}
	}
}

func (r *Registry) enter(h *Host, s State, c *client.Client) {
	h.set(s, c)
	if r.opts.OnChange != nil {
		r.opts.OnChange(h, s)
	}
}

// Refusal reports whether err is the host saying no, rather than no host
// answering: a version refusal, or an HTTP status at the upgrade.
func Refusal(err error) bool {
	var ve *client.UnsupportedProtocolVersionError
	return errors.As(err, &ve) || errors.Is(err, dial.ErrHTTPStatus)
}

// Close closes every connected host's client.
func (r *Registry) Close() {
	for _, h := range r.hosts {
		if c := h.Client(); c != nil {
			c.Close()
		}
	}
}

// Events is a batch of one host's client events, tagged with the host.
type Events struct {
	Host   *Host
	Events []client.Event
	// Closed: the host's event stream ended (the client was closed);
	// no more batches come from it.
	Closed bool
}

// Events fans in every connected host's events, each batch tagged with
// its host, until ctx ends; the channel is closed once every host's
// stream has ended or ctx has. Sends block: a slow reader holds the
// hosts' own queues back (each client bounds its queue and resyncs),
// nothing is dropped here.
func (r *Registry) Events(ctx context.Context) <-chan Events {
	out := make(chan Events)
	var wg sync.WaitGroup
	for _, h := range r.hosts {
		c := h.Client()
		if c == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				batch, ok := client.ReceiveEvents(c.Events(), 256)
				select {
				case out <- Events{Host: h, Events: batch, Closed: !ok}:
				case <-ctx.Done():
					return
				}
				if !ok {
					return
				}
			}
		}()
	}
	go func() {
		wg.Wait()
		close(out)
	}()
	return out
}
