package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// Version is the only JSON-RPC version AHP speaks.
const Version = "2.0"

// ID identifies a request. JSON-RPC allows a string or a number; the value is
// kept exactly as it appeared on the wire (a number keeps its literal text),
// so a reply echoes precisely what the peer sent. The zero ID is invalid.
// ID is comparable and can key a map.
type ID struct {
	raw      string // number literal, or the decoded string
	isString bool
}

// Int64ID returns a numeric id.
func Int64ID(n int64) ID { return ID{raw: strconv.FormatInt(n, 10)} }

// StringID returns a string id.
func StringID(s string) ID { return ID{raw: s, isString: true} }

// IsString reports whether the id is a JSON string.
func (id ID) IsString() bool { return id.isString }

// IsValid reports whether id was set (the zero ID is not a valid id).
func (id ID) IsValid() bool { return id.isString || id.raw != "" }

// String returns the id for logs: strings are quoted, numbers are not.
func (id ID) String() string {
	if id.isString {
		return strconv.Quote(id.raw)
	}
	return id.raw
}

// MarshalJSON implements json.Marshaler.
func (id ID) MarshalJSON() ([]byte, error) {
	if id.isString {
		return json.Marshal(id.raw)
	}
	if id.raw == "" {
		return nil, errors.New("jsonrpc: cannot encode the zero ID")
	}
	return []byte(id.raw), nil
}

// UnmarshalJSON implements json.Unmarshaler. It accepts a string or a number
// and rejects every other JSON type (null is handled by the enclosing
// message, where it means "no usable id").
func (id *ID) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return errors.New("jsonrpc: empty id")
	}
	switch c := b[0]; {
	case c == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return fmt.Errorf("jsonrpc: invalid string id: %w", err)
		}
		*id = ID{raw: s, isString: true}
		return nil
	case c == '-' || (c >= '0' && c <= '9'):
		if !json.Valid(b) {
			return fmt.Errorf("jsonrpc: invalid number id %.32q", b)
		}
		*id = ID{raw: string(b)}
		return nil
	default:
		return fmt.Errorf("jsonrpc: id must be a string or a number, got %.32s", b)
	}
}

// Message is a decoded frame: a *Request (which includes notifications) or
// a *Response.
type Message interface{ isMessage() }

// Request is a JSON-RPC request, or a notification when ID is nil.
type Request struct {
	ID     *ID
	Method string
	// Params is the raw params member; nil when absent.
	Params json.RawMessage
}

func (*Request) isMessage() {}

// IsNotification reports whether the request expects no response.
func (r *Request) IsNotification() bool { return r.ID == nil }

// Response is a JSON-RPC response. Exactly one of Result and Error is set;
// a successful response whose result is JSON null has Result "null".
// ID is nil when the peer answered with "id": null (it could not read the
// request's id, e.g. after a parse error).
type Response struct {
	ID     *ID
	Result json.RawMessage
	Error  *Error
}

func (*Response) isMessage() {}

// wireMessage is the union of every member a JSON-RPC object can carry.
// A member spelled null has a nil pointer, except ID and Result, which keep
// the raw "null" because it means something there.
type wireMessage struct {
	JSONRPC string
	ID      json.RawMessage
	Method  *string
	Params  json.RawMessage
	Result  json.RawMessage
	Error   *Error
}

// ErrBatchUnsupported is returned by Decode for a JSON array frame. AHP sends
// exactly one JSON-RPC message per frame (transport.md), so a batch means the
// peer is not speaking AHP.
var ErrBatchUnsupported = errors.New("jsonrpc: batch frames are not supported: AHP sends exactly one JSON-RPC message per frame")

// DecodeError describes a frame that is not a valid JSON-RPC message. Code is
// ParseError for bytes that are not JSON and InvalidRequest for JSON that is
// not a JSON-RPC 2.0 message. ID is set when the frame carried a usable id;
// IsRequest when it looked like a request, so the receiver knows whether an
// error response is owed.
type DecodeError struct {
	Code      int64
	ID        *ID
	IsRequest bool
	Err       error
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("jsonrpc: cannot decode frame (code %d): %v", e.Code, e.Err)
}

func (e *DecodeError) Unwrap() error { return e.Err }

// Decode parses one frame into a *Request or *Response. It never panics; a
// bad frame yields a *DecodeError (which wraps ErrBatchUnsupported for
// arrays). Params and Result alias nothing in frame: they are copies.
func Decode(frame []byte) (Message, error) {
	if !json.Valid(frame) {
		var v json.RawMessage
		err := json.Unmarshal(frame, &v) // only to describe the syntax error
		if err == nil {
			err = errors.New("invalid JSON")
		}
		return nil, &DecodeError{Code: ParseError, Err: err}
	}
	var w wireMessage
	if err := scanMessage(frame, &w); err != nil {
		// Answerable: a batch is (usually) requests awaiting replies, and a
		// request with a mistyped member still deserves an error reply.
		return nil, &DecodeError{Code: InvalidRequest, IsRequest: true, Err: err}
	}
	var id *ID
	if len(w.ID) > 0 && string(w.ID) != "null" {
		id = new(ID)
		if err := id.UnmarshalJSON(w.ID); err != nil {
			return nil, &DecodeError{Code: InvalidRequest, IsRequest: w.Method != nil, Err: err}
		}
	}
	bad := func(format string, args ...any) error {
		return &DecodeError{Code: InvalidRequest, ID: id, IsRequest: w.Method != nil, Err: fmt.Errorf(format, args...)}
	}
	if w.JSONRPC != Version {
		return nil, bad("jsonrpc member is %.16q, want %q", w.JSONRPC, Version)
	}
	if w.Method != nil {
		if *w.Method == "" {
			return nil, bad("empty method name")
		}
		if w.Result != nil || w.Error != nil {
			return nil, bad("request %q also carries result or error", *w.Method)
		}
		if len(w.ID) > 0 && id == nil {
			return nil, bad("request %q has a null id", *w.Method)
		}
		if p := w.Params; len(p) > 0 && p[0] != '{' && p[0] != '[' {
			return nil, bad("params of %q must be an object or an array", *w.Method)
		}
		return &Request{ID: id, Method: *w.Method, Params: w.Params}, nil
	}
	if len(w.ID) == 0 {
		return nil, bad("message has neither method nor id")
	}
	switch {
	case w.Error != nil && w.Result != nil:
		return nil, bad("response carries both result and error")
	case w.Error == nil && w.Result == nil:
		return nil, bad("response carries neither result nor error")
	}
	return &Response{ID: id, Result: w.Result, Error: w.Error}, nil
}

// Encode renders a message as one frame.
func Encode(m Message) ([]byte, error) {
	switch m := m.(type) {
	case *Request:
		return m.MarshalJSON()
	case *Response:
		return m.MarshalJSON()
	default:
		return nil, fmt.Errorf("jsonrpc: cannot encode %T", m)
	}
}

// MarshalJSON implements json.Marshaler, adding the jsonrpc member.
func (r *Request) MarshalJSON() ([]byte, error) {
	if r.Method == "" {
		return nil, errors.New("jsonrpc: request without a method")
	}
	return json.Marshal(wireRequest{JSONRPC: Version, ID: r.ID, Method: r.Method, Params: r.Params})
}

// MarshalJSON implements json.Marshaler, adding the jsonrpc member. A nil ID
// encodes as null and a success without a Result encodes "result": null.
func (r *Response) MarshalJSON() ([]byte, error) {
	if r.Error != nil {
		return json.Marshal(wireErrorResponse{JSONRPC: Version, ID: r.ID, Error: r.Error})
	}
	res := r.Result
	if len(res) == 0 {
		res = json.RawMessage("null")
	}
	return json.Marshal(wireResultResponse{JSONRPC: Version, ID: r.ID, Result: res})
}

type wireRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      *ID             `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

type wireResultResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      *ID             `json:"id"`
	Result  json.RawMessage `json:"result"`
}

type wireErrorResponse struct {
	JSONRPC string `json:"jsonrpc"`
	ID      *ID    `json:"id"`
	Error   *Error `json:"error"`
}
