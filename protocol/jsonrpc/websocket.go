package jsonrpc

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
	"unicode/utf8"

	"github.com/coder/websocket"
)

// DialOptions configures Dial.
type DialOptions struct {
	// HTTPClient performs the upgrade request; nil uses a client of the
	// connection's own (see newDialClient), never http.DefaultClient, whose
	// transport any imported package may have replaced or wrapped.
	HTTPClient *http.Client
	// HTTPHeader is sent with the upgrade request (e.g. transport-level
	// authorization, which AHP leaves to the handshake).
	HTTPHeader http.Header
	// ReadLimit bounds one inbound frame in bytes; 0 means DefaultReadLimit.
	ReadLimit int64
	// WriteTimeout bounds one outbound frame; 0 means DefaultWriteTimeout,
	// negative disables it (the caller's ctx still applies).
	WriteTimeout time.Duration
}

// AcceptOptions configures Accept.
type AcceptOptions struct {
	// OriginPatterns lists extra allowed Origin hosts (see
	// websocket.AcceptOptions); same-origin and no-Origin requests pass.
	OriginPatterns []string
	// ReadLimit bounds one inbound frame in bytes; 0 means DefaultReadLimit.
	ReadLimit int64
	// WriteTimeout as in DialOptions.
	WriteTimeout time.Duration
}

// Dial opens a WebSocket to an AHP host (ws:// or wss:// url).
func Dial(ctx context.Context, url string, opts DialOptions) (Transport, error) {
	hc := opts.HTTPClient
	if hc == nil {
		hc = newDialClient()
		// The connection is hijacked for the WebSocket; the transport's
		// idle pool has nothing to keep.
		defer hc.CloseIdleConnections()
	}
	c, resp, err := websocket.Dial(ctx, url, &websocket.DialOptions{
		HTTPClient: hc,
		HTTPHeader: opts.HTTPHeader,
	})
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	if err != nil {
		if resp != nil {
			return nil, fmt.Errorf("dial %s: HTTP %d: %w", url, resp.StatusCode, err)
		}
		return nil, fmt.Errorf("dial %s: %w", url, err)
	}
	return newWSTransport(c, opts.ReadLimit, opts.WriteTimeout), nil
}

// newDialClient is the upgrade request's own client: its own Transport, so
// nothing installed process-wide (a tracing wrapper around
// http.DefaultTransport, a test's stub) sees or changes the handshake, and
// no redirect is followed, so the upgrade goes to the exact URL the user
// gave and its headers never travel to a host the user did not name.
func newDialClient() *http.Client {
	return &http.Client{
		Transport: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			TLSHandshakeTimeout:   10 * time.Second,
			ResponseHeaderTimeout: 30 * time.Second,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// Accept upgrades an HTTP request to an AHP WebSocket transport. On failure
// it has already written an HTTP error response.
func Accept(w http.ResponseWriter, r *http.Request, opts AcceptOptions) (Transport, error) {
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{OriginPatterns: opts.OriginPatterns})
	if err != nil {
		return nil, fmt.Errorf("jsonrpc: websocket upgrade failed: %w", err)
	}
	return newWSTransport(c, opts.ReadLimit, opts.WriteTimeout), nil
}

type wsTransport struct {
	c            *websocket.Conn
	readLimit    int64
	writeTimeout time.Duration
}

func newWSTransport(c *websocket.Conn, limit int64, wt time.Duration) *wsTransport {
	if limit <= 0 {
		limit = DefaultReadLimit
	}
	if wt == 0 {
		wt = DefaultWriteTimeout
	}
	c.SetReadLimit(limit)
	return &wsTransport{c: c, readLimit: limit, writeTimeout: wt}
}

func (t *wsTransport) Read(ctx context.Context) ([]byte, error) {
	typ, data, err := t.c.Read(ctx)
	if err != nil {
		return nil, t.readErr(err)
	}
	if typ != websocket.MessageText {
		// AHP frames are text; a binary frame means a foreign protocol.
		_ = t.c.Close(websocket.StatusUnsupportedData, "AHP expects text frames")
		return nil, fmt.Errorf("%w: peer sent a binary frame; AHP uses text frames only", ErrClosed)
	}
	return data, nil
}

func (t *wsTransport) readErr(err error) error {
	if errors.Is(err, websocket.ErrMessageTooBig) {
		return fmt.Errorf("%w: frame over the %d-byte read limit: %w", ErrFrameTooBig, t.readLimit, err)
	}
	if code := websocket.CloseStatus(err); code != -1 {
		var ce websocket.CloseError
		errors.As(err, &ce)
		return fmt.Errorf("%w: peer closed with status %d (%s), reason %q: %w", ErrClosed, int(code), code, ce.Reason, err)
	}
	return fmt.Errorf("%w: websocket read: %w", ErrClosed, err)
}

func (t *wsTransport) Write(ctx context.Context, frame []byte) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("jsonrpc: websocket write not started: %w", err)
	}
	// websocket.Conn closes the whole connection when a write's ctx ends
	// mid-frame (the stream cannot be resynchronised). A caller cancelling
	// a Call must not kill the connection, so the write ignores
	// cancellation and only honours deadlines: the caller's and the write
	// timeout, whichever is sooner. A deadline hit means the peer stopped
	// reading, and closing is then right.
	wctx := context.WithoutCancel(ctx)
	deadline, hasDeadline := ctx.Deadline()
	if t.writeTimeout > 0 {
		if d := time.Now().Add(t.writeTimeout); !hasDeadline || d.Before(deadline) {
			deadline, hasDeadline = d, true
		}
	}
	if hasDeadline {
		var cancel context.CancelFunc
		wctx, cancel = context.WithDeadline(wctx, deadline)
		defer cancel()
	}
	if err := t.c.Write(wctx, websocket.MessageText, frame); err != nil {
		if wctx.Err() != nil {
			return fmt.Errorf("%w: websocket write timed out, peer not reading: %w", ErrClosed, wctx.Err())
		}
		return fmt.Errorf("%w: websocket write: %w", ErrClosed, err)
	}
	return nil
}

// Abort closes the underlying connection immediately, with no close
// handshake.
func (t *wsTransport) Abort() error {
	err := t.c.CloseNow()
	if err == nil || errors.Is(err, net.ErrClosed) {
		return nil
	}
	return fmt.Errorf("jsonrpc: websocket abort: %w", err)
}

func (t *wsTransport) Close(reason string) error {
	// A close reason must fit in a control frame (123 bytes).
	for len(reason) > 123 {
		reason = reason[:123]
		for !utf8.ValidString(reason) {
			reason = reason[:len(reason)-1]
		}
	}
	err := t.c.Close(websocket.StatusNormalClosure, reason)
	if err == nil || errors.Is(err, net.ErrClosed) || websocket.CloseStatus(err) != -1 {
		return nil
	}
	return fmt.Errorf("jsonrpc: websocket close: %w", err)
}
