package jsonrpc

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Standard JSON-RPC 2.0 error codes (errors.schema.json JSONRPCErrorCode).
const (
	ParseError     int64 = -32700
	InvalidRequest int64 = -32600
	MethodNotFound int64 = -32601
	InvalidParams  int64 = -32602
	InternalError  int64 = -32603
)

// AHP 0.6.0 application error codes (errors.schema.json AhpErrorCode; the
// names are those of the spec's AhpErrorCodes table).
const (
	// SessionNotFound: the referenced session URI does not exist.
	SessionNotFound int64 = -32001
	// ProviderNotFound: the requested agent provider is not registered.
	ProviderNotFound int64 = -32002
	// SessionAlreadyExists: createSession with a URI already in use.
	SessionAlreadyExists int64 = -32003
	// TurnInProgress: the operation needs no active turn, but one is running.
	TurnInProgress int64 = -32004
	// UnsupportedProtocolVersion: no offered protocol version is acceptable;
	// data is UnsupportedProtocolVersionErrorData {supportedVersions}.
	UnsupportedProtocolVersion int64 = -32005
	// ContentNotFound: the requested content URI does not exist.
	ContentNotFound int64 = -32006
	// AuthRequired: a protected resource needs a token pushed with
	// authenticate; data is AuthRequiredErrorData {resources}.
	AuthRequired int64 = -32007
	// NotFound: the requested file, folder or URI does not exist.
	NotFound int64 = -32008
	// PermissionDenied: access refused; data may be PermissionDeniedErrorData
	// {request} naming a resourceRequest that would unlock it.
	PermissionDenied int64 = -32009
	// AlreadyExists: the target exists and the operation may not overwrite it.
	AlreadyExists int64 = -32010
)

// Error is a JSON-RPC error object. Message and Data come from the peer and
// are untrusted: strip control characters before showing them.
type Error struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// NewError returns an error with the given code and message.
func NewError(code int64, message string) *Error {
	return &Error{Code: code, Message: message}
}

// NewErrorData returns an error carrying data encoded as JSON (for example
// an AuthRequiredErrorData). If data cannot be encoded the error is returned
// without it.
func NewErrorData(code int64, message string, data any) *Error {
	e := &Error{Code: code, Message: message}
	if b, err := json.Marshal(data); err == nil {
		e.Data = b
	}
	return e
}

func (e *Error) Error() string {
	name := CodeName(e.Code)
	if name == "" {
		name = "error"
	}
	return fmt.Sprintf("jsonrpc: %s (%d): %s", name, e.Code, e.Message)
}

// Is makes errors.Is(err, ErrMethodNotFound) (or any *Error target) match on
// the code alone, since messages differ between peers.
func (e *Error) Is(target error) bool {
	var t *Error
	if !errors.As(target, &t) || t == nil {
		return false
	}
	return e.Code == t.Code
}

// Sentinel errors for errors.Is comparisons and for handlers to return.
var (
	ErrParse          = NewError(ParseError, "parse error")
	ErrInvalidRequest = NewError(InvalidRequest, "invalid request")
	ErrMethodNotFound = NewError(MethodNotFound, "method not found")
	ErrInvalidParams  = NewError(InvalidParams, "invalid params")
	ErrInternal       = NewError(InternalError, "internal error")
)

// CodeName returns the spec's name for a code, or "" for an unknown code.
func CodeName(code int64) string {
	switch code {
	case ParseError:
		return "ParseError"
	case InvalidRequest:
		return "InvalidRequest"
	case MethodNotFound:
		return "MethodNotFound"
	case InvalidParams:
		return "InvalidParams"
	case InternalError:
		return "InternalError"
	case SessionNotFound:
		return "SessionNotFound"
	case ProviderNotFound:
		return "ProviderNotFound"
	case SessionAlreadyExists:
		return "SessionAlreadyExists"
	case TurnInProgress:
		return "TurnInProgress"
	case UnsupportedProtocolVersion:
		return "UnsupportedProtocolVersion"
	case ContentNotFound:
		return "ContentNotFound"
	case AuthRequired:
		return "AuthRequired"
	case NotFound:
		return "NotFound"
	case PermissionDenied:
		return "PermissionDenied"
	case AlreadyExists:
		return "AlreadyExists"
	}
	return ""
}
