// Package trace records every AHP frame a client sends and receives as
// one JSON line: {"time", "direction", "connection", "host", "message"}
// (--trace FILE on the UI and every command); "host" names the host the
// connection is to (DialHost), so a trace of several hosts says whose
// each frame is. Secrets never reach the file: the
// values of token-like members (authenticate's token, OAuth codes,
// refresh and access tokens, secrets and verifiers), a URL's ?tkn= and a
// Bearer credential inside any string are replaced by "[redacted]".
//
// It wraps a jsonrpc transport and imports protocol/jsonrpc only.
package trace

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"sync"
	"time"

	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

// Redacted replaces every secret in a trace.
const Redacted = "[redacted]"

// secretMembers are the member names whose string values are secrets,
// wherever they appear in a frame.
var secretMembers = map[string]bool{
	"token": true, "accessToken": true, "access_token": true, "refreshToken": true, "refresh_token": true,
	"idToken": true, "id_token": true, "code": true, "codeVerifier": true, "code_verifier": true,
	"clientSecret": true, "client_secret": true, "password": true, "secret": true,
}

var (
	tknParam = regexp.MustCompile(`([?&](?:tkn|code|access_token|refresh_token)=)[^&#"\s]*`)
	bearer   = regexp.MustCompile(`(?i)(bearer\s+)[A-Za-z0-9\-._~+/]+=*`)
)

// redactString hides the secrets a free-text value may carry.
func redactString(s string) string {
	s = tknParam.ReplaceAllString(s, "${1}"+Redacted)
	return bearer.ReplaceAllString(s, "${1}"+Redacted)
}

// redact walks a decoded frame, replacing secrets in place.
func redact(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			if _, ok := val.(string); ok && secretMembers[k] {
				x[k] = Redacted
				continue
			}
			x[k] = redact(val)
		}
		return x
	case []any:
		for i := range x {
			x[i] = redact(x[i])
		}
		return x
	case string:
		return redactString(x)
	}
	return v
}

// Message is frame as a trace records it: the decoded JSON with its
// secrets redacted, or, for a frame that is not JSON, its text redacted.
func Message(frame []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(frame))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		b, _ := json.Marshal(redactString(string(frame)))
		return b
	}
	b, err := json.Marshal(redact(v))
	if err != nil {
		b, _ = json.Marshal(Redacted)
	}
	return b
}

// Line is one record of a trace.
type Line struct {
	Time       string `json:"time"`
	Direction  string `json:"direction"` // "out" (to the host) or "in"
	Connection int64  `json:"connection"`
	// Host is the connection's host, when the dial named it (DialHost).
	Host    *Host           `json:"host,omitempty"`
	Message json.RawMessage `json:"message"`
}

// Host names a connection's host in a trace: the name it was given by (a
// saved host's, "" for a URL) and its URL without the connection token.
type Host struct {
	Name string `json:"name"`
	URL  string `json:"url"`
}

// Trace writes lines to its file; it is safe for concurrent use.
type Trace struct {
	mu    sync.Mutex
	w     io.Writer
	close func() error
	conns int64
	clock func() time.Time
}

// Create opens path for a trace (OpenPrivate: created 0600, or our own
// private file appended to; a symlink or a file others can read refused).
func Create(path string) (*Trace, error) {
	f, err := OpenPrivate(path)
	if err != nil {
		return nil, fmt.Errorf("--trace: %w", err)
	}
	return &Trace{w: f, close: f.Close, clock: time.Now}, nil
}

// New is a trace onto w (tests).
func New(w io.Writer, clock func() time.Time) *Trace {
	return &Trace{w: w, close: func() error { return nil }, clock: clock}
}

// Close closes the file.
func (t *Trace) Close() error { return t.close() }

func (t *Trace) record(conn int64, host *Host, dir string, frame []byte) {
	line, err := json.Marshal(Line{Time: t.clock().UTC().Format(time.RFC3339Nano), Direction: dir, Connection: conn, Host: host, Message: Message(frame)})
	if err != nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	_, _ = t.w.Write(append(line, '\n'))
}

// Dial wraps dial: each transport it opens is a connection of its own
// number (from 1), and every frame through it is recorded.
func (t *Trace) Dial(dial func(ctx context.Context, url string) (jsonrpc.Transport, error)) func(ctx context.Context, url string) (jsonrpc.Transport, error) {
	return t.dial(nil, dial)
}

// DialHost is Dial with every line naming the host: name as the user
// gave it ("" for a URL) and url, which must be token-free (the trace
// writes it as given; it is the caller's to strip the token, as
// host/dial.Target.URL is).
func (t *Trace) DialHost(name, url string, dial func(ctx context.Context, url string) (jsonrpc.Transport, error)) func(ctx context.Context, url string) (jsonrpc.Transport, error) {
	return t.dial(&Host{Name: name, URL: redactString(url)}, dial)
}

func (t *Trace) dial(host *Host, dial func(ctx context.Context, url string) (jsonrpc.Transport, error)) func(ctx context.Context, url string) (jsonrpc.Transport, error) {
	return func(ctx context.Context, url string) (jsonrpc.Transport, error) {
		tp, err := dial(ctx, url)
		if err != nil {
			return nil, err
		}
		t.mu.Lock()
		t.conns++
		n := t.conns
		t.mu.Unlock()
		return &traced{Transport: tp, t: t, conn: n, host: host}, nil
	}
}

// traced records the frames of one transport.
type traced struct {
	jsonrpc.Transport
	t    *Trace
	conn int64
	host *Host
}

func (tr *traced) Read(ctx context.Context) ([]byte, error) {
	b, err := tr.Transport.Read(ctx)
	if err == nil {
		tr.t.record(tr.conn, tr.host, "in", b)
	}
	return b, err
}

func (tr *traced) Write(ctx context.Context, frame []byte) error {
	tr.t.record(tr.conn, tr.host, "out", frame)
	return tr.Transport.Write(ctx, frame)
}

// Abort passes an abort on when the transport can (jsonrpc.Aborter).
func (tr *traced) Abort() error {
	if a, ok := tr.Transport.(jsonrpc.Aborter); ok {
		return a.Abort()
	}
	return tr.Transport.Close("aborted")
}
