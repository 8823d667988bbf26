package demohost

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/ahptui/ahptui/demohost/authserver"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

// Defaults for Config's zero values.
const (
	DefaultStepDelay    = 400 * time.Millisecond
	DefaultReplayBuffer = 4096
	DefaultSendQueue    = 1024
	// echoMemory is how many of each client's own envelopes are kept to
	// answer re-sent actions.
	echoMemory = 256
	// Provider is the only agent provider the host knows.
	Provider = "demo"
)

// Direction says which way a frame travelled, for Config.Tap and FrameError.
type Direction string

const (
	Inbound  Direction = "in"  // client → host
	Outbound Direction = "out" // host → client
)

// Config configures Start. The zero value gives a watchable demo: its own
// authorization server, ~400ms between scripted steps and the seeded demo
// session.
type Config struct {
	// Auth is an authorization server to use; nil starts one (configured by
	// AuthConfig) that Close stops.
	Auth       *authserver.Server
	AuthConfig authserver.Config

	// StepDelay paces the scripted agent (streaming chunks, MCP server
	// start-up). 0 means DefaultStepDelay; negative means no delay at all,
	// for tests that must not wait on the wall clock.
	StepDelay time.Duration

	// ReplayBuffer is how many action envelopes reconnect can replay;
	// older gaps get snapshots. 0 means DefaultReplayBuffer.
	ReplayBuffer int
	// SendQueue bounds the frames queued for one client. A client that
	// falls this far behind is disconnected so it never blocks the host.
	// 0 means DefaultSendQueue.
	SendQueue int

	// Validate, when set, is called with every inbound and outbound frame
	// (e.g. schemacheck's ValidateMessage). Failures never stop the host;
	// they are kept for ValidationErrors.
	Validate func(frame []byte) error
	// Tap, when set, sees every frame in both directions (tokens in
	// authenticate requests redacted), for recording transcripts. conn
	// numbers connections from 1. It must not keep or modify frame, and it
	// is called from several goroutines at once.
	Tap func(conn int64, dir Direction, frame []byte)

	// OnDisconnect, when set, is told (under the host's lock: it must not
	// call back into the Host) why a connection ended, e.g. a client that
	// stopped reading and overflowed its send queue.
	OnDisconnect func(conn int64, reason string)

	// NoDemoSession starts the host without the seeded demo and history
	// sessions.
	NoDemoSession bool

	// Addr is the 127.0.0.1 address to listen on; empty means any free
	// port. Resource URLs are built from it, so a host restarted on the same
	// Addr with the same Auth advertises the same protected resources — how
	// a test plays "the user comes back to the same host" with saved tokens.
	// Only loopback addresses are accepted: the demo is never reachable
	// from another machine.
	Addr string

	// Logger gets connection events (never params, never tokens); nil discards.
	Logger *slog.Logger
	// Clock stamps times; nil means time.Now.
	Clock func() time.Time

	// AgentToken, when set, makes the demo agent need a sign-in of its
	// own, as VS Code's copilotcli agent does: it lists the resource
	// AgentResourcePath in protectedResources with required set, never
	// sends auth/required, refuses createSession with -32007 and stops
	// every turn at a resumable error until the sender's connection pushed
	// a token for it — this string, or an OAuth token from the demo's
	// authorization server for that resource.
	AgentToken string
	// AgentResource names the agent's resource instead of
	// <origin>AgentResourcePath, with github.com as its authorization
	// server: "https://api.github.com" plays VS Code's copilotcli.
	AgentResource string
	// AgentIssuer, with AgentResource, names this authorization server
	// for it instead of github.com's: how a test makes a second host name
	// the very resource and issuer a first host's sign-in was made for
	// (grants stay bound to the host they were made on).
	AgentIssuer string

	// Version is the AHP version served: Version10 (the default when
	// empty), Version08, Version07 or Version06. The host accepts SupportedVersions(Version) in
	// initialize and speaks that wire on every connection.
	Version string

	// UnixSocket, when set, is a Unix socket path the host also serves
	// on (as a VS Code window's agent host does), besides its TCP port.
	UnixSocket string
	// ConnectionToken, when set, must come as ?tkn= on the upgrade, as
	// VS Code's agent host requires; without it, or wrong, the upgrade is
	// answered 403.
	ConnectionToken string

	// HoldStartsUntilRun plays VS Code's host before a session's first
	// message: a session/mcpServerStartRequested in a session none of
	// whose chats has had a turn is echoed (the reducer reads it as
	// starting) and then nothing happens until a turn starts in the
	// session, which starts the held servers. Off, the demo starts a
	// server whenever it is asked.
	HoldStartsUntilRun bool
}

// FrameError is a frame the Validate hook refused.
type FrameError struct {
	Conn  int64
	Dir   Direction
	Frame string
	Err   error
	// UnknownAction is set (to the action's type) when the frame is the
	// host's rejection echo of a client action whose type this protocol
	// version does not define. The spec requires echoing every invalid
	// action with a rejectionReason (the client must drop it from its
	// pending queue), and the echo repeats the action, so it cannot match
	// the closed StateAction schema. A test that dispatches unknown types
	// on purpose excludes these explicitly; any other failure is real.
	UnknownAction string
	// Rejected is set when the frame is the host's rejection echo of a
	// client action. The echo repeats the action as the host read it, so
	// an action the client sent malformed (a required member missing) is
	// malformed in its echo too; a test that sends arbitrary actions
	// excludes these, every other test holds them to the schema.
	Rejected bool
}

func (e FrameError) Error() string {
	return fmt.Sprintf("conn %d %s frame failed validation: %v: %s", e.Conn, e.Dir, e.Err, e.Frame)
}

// Host is a running demo host. Create it with Start.
type Host struct {
	cfg     Config
	wire    wire
	log     *slog.Logger
	clock   func() time.Time
	auth    *authserver.Server
	ownAuth bool

	ln  net.Listener
	srv *http.Server
	url string

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	closeOnce sync.Once
	closeErr  error

	mu     sync.Mutex
	closed bool
	nextID int64
	seq    int64
	// replay holds the last ReplayBuffer envelopes, oldest first.
	replay      replayRing
	replayFloor int64

	root     protocol.RootState
	sessions map[string]*session
	chats    map[string]*chat
	conns    map[*conn]struct{}
	lastSeq  map[string]int64 // clientId → last clientSeq seen
	// served holds the clientIds this host has initialized or resumed.
	// Only they may be replayed to: another process's lastSeenServerSeq is
	// a number in someone else's history, however plausible it looks here.
	served map[string]bool
	// sentTo keeps each client's most recent envelopes (bounded) so a
	// re-sent action is answered even after it left the replay buffer.
	sentTo    map[string][]replayEntry
	servers   map[string]serverSpec
	resources map[string]protocol.ProtectedResourceMetadata
	// changesets are the history session's changeset channels, created
	// on first subscribe; contents the text resourceRead serves for
	// their files (changesets.go). Both nil on an older wire.
	changesets map[string]*protocol.ChangesetState
	// terminals are the demo's terminal channels (terminals.go); nil on
	// an older wire.
	terminals map[string]*protocol.TerminalState
	contents  map[string]string

	valErrs []FrameError
}

type replayEntry struct {
	channel string
	origin  string // clientId of a rejected action, "" otherwise
	// The dispatching client's identity, for answering a re-sent action.
	clientID  string
	clientSeq int64
	seq       int64
	params    []byte
	// unknownAction is the type of a rejected action this protocol
	// version does not define (see FrameError.UnknownAction).
	unknownAction string
	// notForPeer: the action does not exist in the served version (a
	// 1.0-only action while serving 0.6), so no client is sent it, live
	// or in a replay.
	notForPeer bool
}

// Start starts the authorization server (unless cfg.Auth is set) and the
// WebSocket listener on 127.0.0.1 with an ephemeral port. The host serves
// until Close or until ctx is done.
func Start(ctx context.Context, cfg Config) (*Host, error) {
	if cfg.StepDelay == 0 {
		cfg.StepDelay = DefaultStepDelay
	}
	if cfg.ReplayBuffer <= 0 {
		cfg.ReplayBuffer = DefaultReplayBuffer
	}
	if cfg.SendQueue <= 0 {
		cfg.SendQueue = DefaultSendQueue
	}
	w, err := newWire(cfg.Version)
	if err != nil {
		return nil, err
	}
	cfg.Version = w.version
	h := &Host{
		cfg:      cfg,
		wire:     w,
		log:      cfg.Logger,
		clock:    cfg.Clock,
		sessions: map[string]*session{},
		chats:    map[string]*chat{},
		conns:    map[*conn]struct{}{},
		lastSeq:  map[string]int64{},
		served:   map[string]bool{},
		sentTo:   map[string][]replayEntry{},
	}
	if h.log == nil {
		h.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if h.clock == nil {
		h.clock = time.Now
	}
	h.ctx, h.cancel = context.WithCancel(context.Background())

	h.auth = cfg.Auth
	if h.auth == nil {
		a, err := authserver.Start(h.ctx, cfg.AuthConfig)
		if err != nil {
			h.cancel()
			return nil, fmt.Errorf("demohost: start the authorization server: %w", err)
		}
		h.auth, h.ownAuth = a, true
	}

	addr := cfg.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	if host, _, err := net.SplitHostPort(addr); err != nil || host != "127.0.0.1" {
		err = fmt.Errorf("demohost: listen address %q is not 127.0.0.1:port; the demo only listens on loopback", addr)
		h.cancel()
		if h.ownAuth {
			_ = h.auth.Close()
		}
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		h.cancel()
		if h.ownAuth {
			_ = h.auth.Close()
		}
		return nil, fmt.Errorf("demohost: listen on %s: %w", addr, err)
	}
	h.ln = ln
	h.url = "ws://" + ln.Addr().String() + "/"
	h.srv = &http.Server{Handler: http.HandlerFunc(h.serveHTTP), ReadHeaderTimeout: 10 * time.Second}

	h.mu.Lock()
	h.initState("http://" + ln.Addr().String())
	h.mu.Unlock()

	lns := []net.Listener{ln}
	if cfg.UnixSocket != "" {
		uln, err := net.Listen("unix", cfg.UnixSocket)
		if err != nil {
			_ = ln.Close()
			h.cancel()
			if h.ownAuth {
				_ = h.auth.Close()
			}
			return nil, fmt.Errorf("demohost: listen on %s: %w", cfg.UnixSocket, err)
		}
		lns = append(lns, uln)
	}
	for _, l := range lns {
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			if err := h.srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
				h.log.Warn("demohost: serve", "err", err)
			}
		}()
	}
	if ctx != nil {
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			select {
			case <-ctx.Done():
				go h.Close()
			case <-h.ctx.Done():
			}
		}()
	}
	return h, nil
}

// URL is the WebSocket address clients dial: ws://127.0.0.1:PORT/.
func (h *Host) URL() string { return h.url }

// AuthIssuer is the authorization server's issuer URL.
func (h *Host) AuthIssuer() string { return h.auth.Issuer() }

// ProtectedResource is the metadata the host advertises for the protected
// resource at path under its origin (GitHubResourcePath,
// DeployResourcePath), as a challenge carries it.
func (h *Host) ProtectedResource(path string) (protocol.ProtectedResourceMetadata, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for res, prm := range h.resources {
		if strings.HasSuffix(res, path) {
			return prm, true
		}
	}
	return protocol.ProtectedResourceMetadata{}, false
}

// Auth is the authorization server the host verifies tokens with.
func (h *Host) Auth() *authserver.Server { return h.auth }

// Close drops every connection, stops the scripted agent, the listener and
// (when Start created it) the authorization server, and waits for every
// goroutine to exit. It is safe to call more than once.
func (h *Host) Close() error {
	h.closeOnce.Do(func() {
		h.mu.Lock()
		h.closed = true
		for c := range h.conns {
			c.kill("host shutting down")
		}
		for _, ch := range h.chats {
			if ch.run != nil {
				ch.run.stop()
			}
		}
		h.mu.Unlock()
		h.cancel()
		err := h.srv.Close()
		h.wg.Wait()
		if h.ownAuth {
			err = errors.Join(err, h.auth.Close())
		}
		h.closeErr = err
	})
	return h.closeErr
}

// DropConnections abruptly closes every client connection (no JSON-RPC
// goodbye), as a network failure would. Sessions, the replay buffer and
// client sequence numbers are kept, so clients can reconnect and replay.
func (h *Host) DropConnections() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for c := range h.conns {
		c.kill("connection dropped by the demo host")
	}
}

// Restart simulates the host process restarting: connections drop, the
// replay buffer and verified tokens are forgotten (so a reconnecting client
// gets snapshots, never a replay, and must push its tokens again), running
// turns fail and MCP servers start again. Sessions survive, as a host with
// persistent sessions would keep them, and so does the clientSeq dedupe
// table with its echoes: state persisted without it would apply a re-sent
// action a second time when the client never saw the first echo.
func (h *Host) Restart() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for c := range h.conns {
		c.kill("demo host restarting")
	}
	h.replay.reset()
	h.replayFloor = h.seq + 1
	// Verified tokens lived on the killed connections (grantedLocked skips
	// dead ones), so they are forgotten with them.
	for _, ch := range h.chats {
		if ch.run != nil {
			h.failTurnLocked(ch, "HostRestarted", "the agent host restarted while this turn was running")
		}
	}
	// MCP servers restart with the process; protected ones wait for a
	// token again.
	for _, s := range h.sessions {
		for _, id := range serverOrder {
			m, enabled, ok := findServer(s.state, id)
			if ok && enabled && (!h.servers[id].manual || m.State.Kind() != "stopped") {
				h.startServerLocked(s, id)
			}
		}
	}
}

// ValidationErrors returns the frames Config.Validate refused so far.
func (h *Host) ValidationErrors() []FrameError {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]FrameError(nil), h.valErrs...)
}

// ServerSeq is the host's current global sequence number.
func (h *Host) ServerSeq() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.seq
}

// ConnCount is the number of open client connections.
func (h *Host) ConnCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.conns)
}

func (h *Host) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/" {
		http.NotFound(w, r)
		return
	}
	if want := h.cfg.ConnectionToken; want != "" && subtle.ConstantTimeCompare([]byte(r.URL.Query().Get("tkn")), []byte(want)) != 1 {
		http.Error(w, "forbidden", http.StatusForbidden)
		return
	}
	t, err := jsonrpc.Accept(w, r, jsonrpc.AcceptOptions{})
	if err != nil {
		h.log.Debug("demohost: upgrade failed", "err", err)
		return
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		_ = t.Close("host shutting down")
		return
	}
	h.nextID++
	c := newConn(h, h.nextID, t)
	h.conns[c] = struct{}{}
	h.wg.Add(1)
	h.mu.Unlock()
	defer h.wg.Done()
	c.serve()
}

// validateLocked runs the Validate hook on one frame that is not an action
// envelope.
func (h *Host) validateLocked(connID int64, dir Direction, frame []byte) {
	h.validateFrameLocked(connID, dir, frame, nil)
}

// validateFrameLocked is validateLocked for any frame; env is the replay
// entry of an action envelope (nil for other frames), which says whether
// the frame echoes a rejected or unknown action (see FrameError).
func (h *Host) validateFrameLocked(connID int64, dir Direction, frame []byte, env *replayEntry) {
	if h.cfg.Validate == nil {
		return
	}
	if err := h.cfg.Validate(frame); err != nil {
		f := string(frame)
		if len(f) > 2000 {
			f = f[:2000] + "…"
		}
		fe := FrameError{Conn: connID, Dir: dir, Frame: redactFrame(f), Err: err}
		if env != nil {
			fe.UnknownAction, fe.Rejected = env.unknownAction, env.origin != ""
		}
		h.valErrs = append(h.valErrs, fe)
	}
}

// now is the host clock in the wire's ISO 8601 form.
func (h *Host) now() string { return isoTime(h.clock()) }

func isoTime(t time.Time) string { return protocol.Timestamp(t) }

// reduceRules are the 1.0 reducer rules: the demo host's state is the 1.0
// model whatever its clients speak.
func (h *Host) reduceRules() protocol.Rules { return protocol.Rules{} }

// Version is the AHP version the host serves (Config.Version, defaulted).
func (h *Host) Version() string { return h.wire.version }
