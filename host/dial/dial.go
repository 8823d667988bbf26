package dial

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

// AttemptTimeout bounds one attempt's dial and handshake: a host that
// never answers is reported within it, not after half a minute.
const AttemptTimeout = 10 * time.Second

// The kinds of dial failure; a *DialError matches exactly one with
// errors.Is.
var (
	ErrRefused     = errors.New("refused")
	ErrNotResolved = errors.New("name not resolved")
	ErrTimedOut    = errors.New("timed out")
	ErrTLS         = errors.New("TLS failed")
	ErrHTTPStatus  = errors.New("HTTP error at the upgrade")
	ErrDial        = errors.New("could not connect")
)

// DialError is a failed dial: its kind, the HTTP status when the host
// answered the upgrade with one, and the cause's text with the token
// removed. It never holds the raw cause, so no caller can print the
// token by unwrapping it.
type DialError struct {
	Kind   error // one of the Err* kinds above
	Status int   // the upgrade's HTTP status (Kind ErrHTTPStatus)
	URL    string
	Cause  string
	ctxErr error  // context.DeadlineExceeded or Canceled, when that ended it
	short  string // Short's phrase for an ErrNotOurs refusal
}

// Short is the kind-first phrase a narrow status line shows.
func (e *DialError) Short() string {
	switch {
	case e.Kind == ErrHTTPStatus && e.Status == http.StatusForbidden:
		return "HTTP 403: wrong or missing connection token"
	case e.Kind == ErrHTTPStatus && e.Status == http.StatusNotFound:
		return "HTTP 404: wrong path"
	case e.Kind == ErrHTTPStatus:
		return fmt.Sprintf("HTTP %d at the upgrade", e.Status)
	case e.Kind == ErrRefused:
		return "connection refused"
	case e.Kind == ErrNotOurs && e.short != "":
		return e.short
	case e.Kind == ErrNotOurs:
		return "host not verified"
	}
	return e.Kind.Error()
}

func (e *DialError) Error() string {
	// The client says "connect to URL: " before it.
	return e.Short() + ": " + e.Cause
}

// Unwrap is the kind, and the context error that ended the dial if one did.
func (e *DialError) Unwrap() []error {
	if e.ctxErr != nil {
		return []error{e.Kind, e.ctxErr}
	}
	return []error{e.Kind}
}

// Dialer returns what client.Options.Dial takes: it dials t, whatever URL
// it is handed (the client names the host by t.URL, which has no token).
// readLimit is the inbound frame limit.
func (t Target) Dialer(readLimit int64) func(ctx context.Context, _ string) (jsonrpc.Transport, error) {
	return func(ctx context.Context, _ string) (jsonrpc.Transport, error) {
		return t.Dial(ctx, readLimit)
	}
}

// upgradeOver makes tr's one upgrade run over conn, already open (an
// ssh stream, a socket whose peer was checked), and never dial another;
// no proxy is asked. The returned func, deferred, closes conn if the
// upgrade never took it.
func upgradeOver(tr *http.Transport, conn net.Conn) func() {
	var used atomic.Bool
	tr.Proxy = nil
	tr.DialContext = func(context.Context, string, string) (net.Conn, error) {
		if used.Swap(true) {
			return nil, errors.New("a second connection for one upgrade")
		}
		return conn, nil
	}
	return func() {
		if !used.Load() {
			conn.Close()
		}
	}
}

// Dial opens the WebSocket to t, sending its token as ?tkn=. The upgrade
// goes through a client of its own (no proxy for a Unix socket, no
// redirects followed), and ctx bounds it.
func (t Target) Dial(ctx context.Context, readLimit int64) (jsonrpc.Transport, error) {
	rec := &statusRecorder{}
	tr := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout:   AttemptTimeout,
		ResponseHeaderTimeout: AttemptTimeout,
	}
	if t.Socket != "" {
		sock := t.Socket
		tr.Proxy = nil
		tr.DialContext = func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", sock)
		}
	}
	var streamed net.Conn
	if t.stream != nil {
		conn, err := t.streamConn(ctx)
		if err != nil {
			return nil, err
		}
		streamed = conn
		defer upgradeOver(tr, conn)()
	} else if t.verify {
		// The upgrade runs over the connection whose peer was checked,
		// and over no other.
		conn, derr := t.checkPeer(ctx)
		if derr != nil {
			return nil, derr
		}
		defer upgradeOver(tr, conn)()
	}
	rec.next = tr
	hc := &http.Client{
		Transport:     rec,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	defer tr.CloseIdleConnections()
	tp, err := jsonrpc.Dial(ctx, t.wireURL(), jsonrpc.DialOptions{HTTPClient: hc, ReadLimit: readLimit})
	if err != nil {
		// A stream whose far end failed (ssh exited: the remote port
		// refused, the box went away) says why better than the upgrade.
		if f, ok := streamed.(interface{ Failure() error }); ok {
			if ferr := f.Failure(); ferr != nil {
				var de *DialError
				if errors.As(ferr, &de) {
					return nil, de
				}
			}
		}
		return nil, t.classify(ctx, err, int(rec.status.Load()))
	}
	return tp, nil
}

// wireURL is the URL the upgrade request names: the token and the rest of
// the query put back.
func (t Target) wireURL() string {
	q := make(map[string][]string, len(t.query)+1)
	for k, v := range t.query {
		q[k] = v
	}
	if t.token != "" {
		q[TokenParam] = []string{t.token}
	}
	base := t.dialURL
	if base == "" {
		base = t.URL
	}
	if len(q) == 0 {
		return base
	}
	return base + "?" + encodeQuery(q)
}

// classify names err's kind; status is the upgrade's HTTP status (0 when
// no response came).
func (t Target) classify(ctx context.Context, err error, status int) *DialError {
	// The dialled URL, query and all, is in most of the library's texts;
	// the user already knows the host from e.URL.
	cause := Scrub(strings.ReplaceAll(err.Error(), t.wireURL(), t.URL), t.token)
	de := &DialError{Kind: ErrDial, Status: status, URL: t.URL, Cause: cause}
	if ce := ctx.Err(); ce != nil {
		de.ctxErr = ce
	}
	var dnsErr *net.DNSError
	var netErr net.Error
	var recErr tls.RecordHeaderError
	var certErr *tls.CertificateVerificationError
	var unknownCA x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var alert tls.AlertError
	switch {
	case status != 0 && status != http.StatusSwitchingProtocols:
		de.Kind = ErrHTTPStatus
	case errors.As(err, &dnsErr):
		de.Kind = ErrNotResolved
		if dnsErr.IsTimeout {
			de.Kind = ErrTimedOut
		}
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ENOENT):
		de.Kind = ErrRefused
	case errors.As(err, &recErr), errors.As(err, &certErr), errors.As(err, &unknownCA),
		errors.As(err, &hostErr), errors.As(err, &alert), strings.Contains(err.Error(), "tls: "),
		strings.Contains(err.Error(), "HTTP response to HTTPS client"):
		de.Kind = ErrTLS
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		de.Kind = ErrTimedOut
		if de.ctxErr == nil {
			de.ctxErr = context.DeadlineExceeded
		}
	}
	return de
}

// statusRecorder keeps the status of the upgrade's response, which the
// WebSocket library reports only as text.
type statusRecorder struct {
	next   http.RoundTripper
	status atomic.Int32
}

func (r *statusRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.next.RoundTrip(req)
	if resp != nil {
		r.status.Store(int32(resp.StatusCode))
	}
	return resp, err
}
