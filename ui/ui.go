package ui

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"time"

	"github.com/ahptui/ahptui/authpkce"
	"github.com/ahptui/ahptui/keymap"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
	"github.com/ahptui/ahptui/views"
)

// Client is the part of *client.Client the UI uses. It is an interface so
// model tests can wrap the real client (e.g. record every Dispatch) without
// a fake host.
type Client interface {
	Events() <-chan client.Event
	ProtocolVersion() string
	// Wire is the wire the negotiated version implies; what the UI offers
	// and says (revoking a token on the host) depends on it.
	Wire() protocol.Wire
	Subscribe(ctx context.Context, channel string) error
	Unsubscribe(ctx context.Context, channel string) error
	CreateSession(ctx context.Context, p protocol.CreateSessionParams) error
	// ResolveSessionConfig asks for a new session's settings (schema and
	// values with the host's defaults).
	ResolveSessionConfig(ctx context.Context, p protocol.ResolveSessionConfigParams) (protocol.ResolveSessionConfigResult, error)
	// SessionConfigCompletions asks for the values of a setting the
	// schema marks enumDynamic that match a query.
	SessionConfigCompletions(ctx context.Context, p protocol.SessionConfigCompletionsParams) (protocol.SessionConfigCompletionsResult, error)
	DisposeSession(ctx context.Context, session string) error
	// Authenticate pushes a token; expiry (zero: unknown) lets a 1.0 host
	// be told the token's remaining lifetime. An empty token revokes the
	// resource's authentication on a 1.0 host.
	Authenticate(ctx context.Context, resource, token string, scopes []string, expiry time.Time) error
	// ForgetToken stops the client pushing resource's token again after a
	// reconnect (a forgotten sign-in must not come back by itself).
	ForgetToken(resource string)
	Dispatch(channel string, action protocol.StateAction) (clientSeq int64, err error)
	Reconnect()
	Root() (protocol.RootState, bool)
	Session(uri string) (protocol.SessionState, bool)
	Chat(uri string) (protocol.ChatState, bool)
	// Terminal is a subscribed terminal's state; ClientID is the id the
	// host names this client by in a terminal's claim.
	Terminal(uri string) (protocol.TerminalState, bool)
	ClientID() string
	Close() error
}

// Authenticator starts OAuth grants; *authpkce.Authenticator implements it.
type Authenticator interface {
	Start(ctx context.Context, req authpkce.GrantRequest) (*authpkce.Grant, error)
}

// Config wires a Model to the outside world. Only Connect is required.
type Config struct {
	// Host is the host's URL without the `?tkn=` query
	// (scheme://host:port/path, or ws+unix:// and a socket's path): what
	// the status bar names the host and what saved sign-ins are bound to
	// (authpkce.HostID). The connection token lives only in Connect.
	Host string
	// RegistryHost: the host was found in VS Code's owner-only local agent-host registry with a live pid.
	RegistryHost bool
	// Hosts, when it names two or more, are the hosts of one UI (issue
	// 25): Host, RegistryHost and Connect are then the first's, the one
	// active at start. One host (or none) is Host and Connect alone.
	Hosts []HostConfig
	// Connect dials the host. It runs as a tea.Cmd so the UI is up (and says
	// "connecting") before the network answers; ctrl+r calls it again after
	// a failed first connect.
	Connect func(ctx context.Context) (Client, error)
	// Auth runs "grant additional access" flows; nil disables them (the
	// prompt then says why). When it also has Lookup (*authpkce.Authenticator
	// does), a saved token that authpkce allows silently on this host (same
	// host, same issuer) is pushed without a prompt, once per connection.
	Auth Authenticator
	// Notices are what the user must read at start (a token store
	// repaired or fallen back to the file); the status line shows them
	// until the next message, and the message history keeps them.
	Notices []string
	// Keys defaults to keymap.DefaultKeyMap().
	Keys *keymap.KeyMap
	// Clock stamps turns and ages sessions; nil means time.Now. Goldens fix it.
	Clock func() time.Time
	// NewID mints turn, message and session ids; nil means random hex.
	NewID func() string
	// NoColor switches colour off (NO_COLOR); the theme keeps meaning in text.
	NoColor bool
	// Editor is the command the composer's draft is edited with (ctrl+g):
	// $VISUAL, else $EDITOR (EditorFromEnv); empty means vi.
	Editor string
	// Dark is the background assumption until the terminal answers the
	// background-colour query.
	Dark bool
	// Logger receives debug events (never tokens); nil discards.
	Logger *slog.Logger
	// Tick is how often ages and flow timers refresh; 0 means 15s, negative
	// disables the ticker (goldens).
	Tick time.Duration
	// NoBrowser says the user turned browser opening off (--no-browser): a
	// sign-in then asks them to open the URL rather than reporting that a
	// browser could not be opened, which would read as a failure.
	NoBrowser bool
	// WorkingDirectories are the URIs (file:///…) a new session is created
	// with (createSession.workingDirectories), e.g. the directory ahptui
	// was started in; none when empty. Only the first goes to an agent that
	// does not advertise multipleWorkingDirectories.
	WorkingDirectories []string
	// Folder is the directory ahptui runs in (a file:// URI): the
	// new-session dialog offers it as the session's folder, editable,
	// when WorkingDirectories is empty and the host runs on this machine.
	Folder string
	// Notify turns the signals on: the bell and a desktop notification
	// when something starts waiting on the user while ahptui is not in
	// front (--no-notify and config.json's "notify": false turn them off).
	Notify bool
	// NotifyTerm is the terminal the notification is written for (its
	// OSC form, tmux passthrough), read from the environment by main.
	NotifyTerm views.NotifyTerm
}

func randomID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Messages the model's commands report back with. They are unexported: only
// the model's own commands produce them.
type (
	connectedMsg struct {
		client Client
		err    error
	}
	eventMsg      struct{ ev client.Event }
	eventsMsg     struct{ evs []client.Event } // a burst, applied in one update
	retryConnect  struct{ try int }
	eventsClosed  struct{}
	subscribedMsg struct {
		channel string
		err     error
	}
	opDoneMsg struct {
		what string // "create session", "dispose session", …
		err  error
		// session, when set, is opened on success (createSession).
		session string
	}
	grantStartedMsg struct {
		resource string
		grant    *authpkce.Grant
		err      error
	}
	grantDoneMsg struct {
		resource string
		grant    *authpkce.Grant // the flow that ended; a newer one may run for resource
		result   authpkce.Result
		err      error
	}
	authenticatedMsg struct {
		resource string // the flow's resource
		pushed   string // the resource the token went out for
		err      error
	}
	tickMsg   time.Time
	closedMsg struct{}
	// settleMsg fires pendingTimeout after an MCP dispatch; it only
	// matters if the host never answered that clientSeq.
	settleMsg struct{ seq int64 }
)
