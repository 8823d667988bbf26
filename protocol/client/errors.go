package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

// Sentinels for errors.Is on host errors that carry no structured data.
// They match any host error with the same code (jsonrpc.Error.Is compares
// codes only), e.g. errors.Is(err, protocol.ErrSessionNotFound).
var (
	ErrSessionNotFound            = jsonrpc.NewError(jsonrpc.SessionNotFound, "session not found")
	ErrProviderNotFound           = jsonrpc.NewError(jsonrpc.ProviderNotFound, "provider not found")
	ErrSessionAlreadyExists       = jsonrpc.NewError(jsonrpc.SessionAlreadyExists, "session already exists")
	ErrTurnInProgress             = jsonrpc.NewError(jsonrpc.TurnInProgress, "turn in progress")
	ErrUnsupportedProtocolVersion = jsonrpc.NewError(jsonrpc.UnsupportedProtocolVersion, "unsupported protocol version")
	ErrContentNotFound            = jsonrpc.NewError(jsonrpc.ContentNotFound, "content not found")
	ErrAuthRequired               = jsonrpc.NewError(jsonrpc.AuthRequired, "authentication required")
	ErrNotFound                   = jsonrpc.NewError(jsonrpc.NotFound, "not found")
	ErrPermissionDenied           = jsonrpc.NewError(jsonrpc.PermissionDenied, "permission denied")
	ErrAlreadyExists              = jsonrpc.NewError(jsonrpc.AlreadyExists, "already exists")
)

// ErrClientClosed is returned by calls made after Close.
var ErrClientClosed = errors.New("ahp client closed")

// ErrNotConnected is returned by commands issued after the client gave up
// reconnecting (StatusFailed), or whose ctx ended while it was still
// reconnecting; retry once a ConnectionEvent{Status: StatusReady} arrives
// (ctrl+r calls Client.Reconnect).
var ErrNotConnected = errors.New("not connected to the AHP host: retry when the connection is ready")

// HostError is a JSON-RPC error from the host for which the schemas define
// no structured data (or whose data did not decode). Message and Data are
// host text: untrusted. It wraps the *jsonrpc.Error, so errors.Is against
// the Err* sentinels above works.
type HostError struct {
	Code    int64
	Message string
	Data    json.RawMessage
	err     *jsonrpc.Error
}

func (e *HostError) Error() string {
	name := jsonrpc.CodeName(e.Code)
	if name == "" {
		name = "error"
	}
	return fmt.Sprintf("host %s (%d): %s", name, e.Code, quoteHost(e.Message))
}

func (e *HostError) Unwrap() error { return e.err }

// AuthRequiredError (-32007): the host needs a token for one of Resources,
// pushed with Client.Authenticate, before it will do what was asked.
type AuthRequiredError struct {
	Resources []protocol.ProtectedResourceMetadata
	Message   string
	err       *jsonrpc.Error
}

func (e *AuthRequiredError) Error() string {
	names := make([]string, 0, len(e.Resources))
	for _, r := range e.Resources {
		names = append(names, quoteHost(r.Resource))
	}
	return fmt.Sprintf("host requires authentication for %s: sign in, then retry (%s)",
		strings.Join(names, ", "), quoteHost(e.Message))
}

func (e *AuthRequiredError) Unwrap() error { return e.err }

// UnsupportedProtocolVersionError (-32005): the host speaks none of the
// versions we offered. Supported lists what it accepts (versions or SemVer
// ranges, host text).
type UnsupportedProtocolVersionError struct {
	Offered   []string
	Supported []string
	Message   string
	err       *jsonrpc.Error
}

func (e *UnsupportedProtocolVersionError) Error() string {
	return e.Summary()
}

// Summary is the one line for a status bar: what the host accepts (ranges
// spelled out) and what ahptui offers.
func (e *UnsupportedProtocolVersionError) Summary() string {
	return DescribeVersionMismatch(e.Supported, e.Offered)
}

func (e *UnsupportedProtocolVersionError) Unwrap() error { return e.err }

// PermissionDeniedError (-32009): the host refused access. Request, when
// present, names a resourceRequest that would unlock the operation.
type PermissionDeniedError struct {
	Request *protocol.ResourceRequestParams
	Message string
	err     *jsonrpc.Error
}

func (e *PermissionDeniedError) Error() string {
	return fmt.Sprintf("host denied permission: %s", quoteHost(e.Message))
}

func (e *PermissionDeniedError) Unwrap() error { return e.err }

// asHostError turns a *jsonrpc.Error from the host into the typed error for
// its code. Other errors (transport, context) pass through unchanged.
func asHostError(err error, offered []string) error {
	var je *jsonrpc.Error
	if !errors.As(err, &je) {
		return err
	}
	switch je.Code {
	case jsonrpc.AuthRequired:
		var d protocol.AuthRequiredErrorData
		if len(je.Data) > 0 && json.Unmarshal(je.Data, &d) == nil {
			return &AuthRequiredError{Resources: d.Resources, Message: je.Message, err: je}
		}
		return &AuthRequiredError{Message: je.Message, err: je}
	case jsonrpc.UnsupportedProtocolVersion:
		var d protocol.UnsupportedProtocolVersionErrorData
		if len(je.Data) > 0 {
			_ = json.Unmarshal(je.Data, &d)
		}
		return &UnsupportedProtocolVersionError{Offered: offered, Supported: d.SupportedVersions, Message: je.Message, err: je}
	case jsonrpc.PermissionDenied:
		var d protocol.PermissionDeniedErrorData
		if len(je.Data) > 0 {
			_ = json.Unmarshal(je.Data, &d)
		}
		return &PermissionDeniedError{Request: d.Request, Message: je.Message, err: je}
	}
	return &HostError{Code: je.Code, Message: je.Message, Data: je.Data, err: je}
}

// quoteHost puts host text into an error or log message: Go-quoted, so
// every control, bidi or invisible character shows as an escape (nothing a
// terminal could act on, nothing silently dropped), and cut to about 300
// bytes so one message cannot take over the screen. It is not a display
// sanitizer: what shows these messages passes them through views'
// Sanitize, the one that decides what reaches the terminal.
func quoteHost(s string) string {
	const maxLen = 300
	if len(s) <= maxLen {
		return strconv.Quote(s)
	}
	cut := maxLen
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + "…"
}

// DescribeVersionMismatch is the one line a user reads when a host refuses
// every offered version: what the host accepts (its own words, with caret
// and tilde ranges spelled out as bounds) and what ahptui offers. Host text
// is sanitized.
func DescribeVersionMismatch(supported, offered []string) string {
	acc := make([]string, 0, len(supported))
	for _, s := range supported {
		trimmed := strings.TrimSpace(s)
		// A range that parses holds only version characters; anything
		// else is host text and is quoted.
		r, err := protocol.ParseVersionRange(trimmed)
		switch {
		case err != nil:
			acc = append(acc, quoteHost(trimmed)+" (unreadable)")
		case r.Bounds() != trimmed && strings.TrimPrefix(r.Bounds(), "=") != trimmed:
			acc = append(acc, trimmed+" ("+r.Bounds()+")")
		default:
			acc = append(acc, trimmed)
		}
	}
	host := "nothing it named"
	if len(acc) > 0 {
		host = strings.Join(acc, ", ")
	}
	return fmt.Sprintf("host accepts AHP %s; ahptui offers %s", host, strings.Join(offered, ", "))
}
