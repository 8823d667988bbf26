package protocol

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

// SupportedProtocolVersions are the AHP versions this client implements,
// most preferred first, as offered in initialize.
var SupportedProtocolVersions = []string{"0.6.0"}

// RootChannel is the URI of the root channel.
const RootChannel = "ahp-root://"

// Options configures Dial. Zero durations take the defaults below.
type Options struct {
	URL        string         // ws://... or wss://...
	ClientID   string         // stable per installation; see LoadOrCreateClientID
	ClientInfo Implementation // {Name:"ahptui", Version:...}
	Clock      Clock          // default time.Now
	// Dial opens the transport; default is a WebSocket (jsonrpc.Dial) with
	// MaxFrameBytes as its read limit.
	Dial func(ctx context.Context, url string) (jsonrpc.Transport, error)

	PingInterval time.Duration // default 15s
	PingTimeout  time.Duration // default 10s

	ReconnectInitial time.Duration // first backoff, default 250ms
	ReconnectMax     time.Duration // backoff cap, default 10s
	// GiveUpAfter bounds the total reconnect time, then StatusFailed; default 2m.
	GiveUpAfter time.Duration

	MaxFrameBytes int64        // inbound frame limit, default jsonrpc.DefaultReadLimit
	Logger        *slog.Logger // never logs tokens or frame bodies; nil discards
}

// Client is a connection to one AHP host plus the mirror of the channels it
// subscribes to. It is safe for concurrent use.
type Client struct {
	opts Options
}

// Dial connects, initializes (subscribing to ahp-root://) and lists sessions.
// A host error comes back typed (see errors.go), e.g.
// *UnsupportedProtocolVersionError.
func Dial(ctx context.Context, opts Options) (*Client, error) {
	return nil, errors.New("ahp client: not implemented yet")
}

// Events returns the client's event stream; it is closed after Close.
func (c *Client) Events() <-chan Event { return nil }

// ProtocolVersion is the version the host selected.
func (c *Client) ProtocolVersion() string { return "" }

// ServerInfo is the host's implementation identity, if it sent one.
func (c *Client) ServerInfo() *Implementation { return nil }

// Subscribe adds channel to the mirror; its snapshot arrives before it returns.
func (c *Client) Subscribe(ctx context.Context, channel string) error { return nil }

// Unsubscribe removes channel from the mirror.
func (c *Client) Unsubscribe(ctx context.Context, channel string) error { return nil }

// ListSessions fetches every page of the session list.
func (c *Client) ListSessions(ctx context.Context) ([]SessionSummary, error) { return nil, nil }

// CreateSession asks the host to create a session.
func (c *Client) CreateSession(ctx context.Context, p CreateSessionParams) error { return nil }

// DisposeSession asks the host to dispose a session.
func (c *Client) DisposeSession(ctx context.Context, session string) error { return nil }

// CreateChat asks the host to create a chat in a session.
func (c *Client) CreateChat(ctx context.Context, p CreateChatParams) error { return nil }

// FetchTurns asks the host to page older turns into a chat.
func (c *Client) FetchTurns(ctx context.Context, p FetchTurnsParams) (FetchTurnsResult, error) {
	return FetchTurnsResult{}, nil
}

// Authenticate pushes a token; it is remembered and re-pushed after reconnect.
func (c *Client) Authenticate(ctx context.Context, resource, token string, scopes []string) error {
	return nil
}

// Dispatch applies action optimistically and sends it (fire-and-forget).
func (c *Client) Dispatch(channel string, action StateAction) (clientSeq int64, err error) {
	return 0, nil
}

// Reconnect drops the transport and takes the normal reconnect path.
func (c *Client) Reconnect() {}

// Root returns the optimistic root state.
func (c *Client) Root() (RootState, bool) { return RootState{}, false }

// Session returns the optimistic state of a session channel.
func (c *Client) Session(uri string) (SessionState, bool) { return SessionState{}, false }

// Chat returns the optimistic state of a chat channel.
func (c *Client) Chat(uri string) (ChatState, bool) { return ChatState{}, false }

// State returns the optimistic state of any channel.
func (c *Client) State(channel string) (any, bool) { return nil, false }

// Close ends the client.
func (c *Client) Close() error { return nil }
