package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/ahptui/ahptui/protocol/internal/wirescan"
)

// Hand-written wire types: the ones whose JSON form the generator cannot
// derive from the schemas (see internal/ahpgen/patches.go for why each one
// is here).

// StringOrMarkdown is either plain text (a bare JSON string) or markdown
// (`{"markdown": "..."}`). It re-encodes in the form it was decoded from.
type StringOrMarkdown struct {
	// Value is the text in either form.
	Value string
	// Markdown is true for the `{ markdown }` form.
	Markdown bool
}

// PlainString returns the plain-text form of s.
func PlainString(s string) StringOrMarkdown { return StringOrMarkdown{Value: s} }

// MarkdownString returns the markdown form of s.
func MarkdownString(s string) StringOrMarkdown { return StringOrMarkdown{Value: s, Markdown: true} }

// String returns the text regardless of form.
func (s StringOrMarkdown) String() string { return s.Value }

// MarshalJSON writes a bare string or a `{ markdown }` object.
func (s StringOrMarkdown) MarshalJSON() ([]byte, error) {
	if s.Markdown {
		return json.Marshal(struct {
			Markdown string `json:"markdown"`
		}{s.Value})
	}
	return json.Marshal(s.Value)
}

// UnmarshalJSON accepts either form.
func (s *StringOrMarkdown) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	// Tool calls carry several of these; the common shapes skip a second
	// validating json.Unmarshal (they are valid JSON by construction).
	if v, ok := wirescan.PlainJSONString(b); ok {
		*s = StringOrMarkdown{Value: v}
		return nil
	}
	if v, ok := wirescan.PlainMarkdownObject(b); ok {
		*s = StringOrMarkdown{Value: v, Markdown: true}
		return nil
	}
	if len(b) > 0 && b[0] == '{' {
		var m struct {
			Markdown string `json:"markdown"`
		}
		if err := json.Unmarshal(b, &m); err != nil {
			return fmt.Errorf("decode StringOrMarkdown: %w", err)
		}
		*s = StringOrMarkdown{Value: m.Markdown, Markdown: true}
		return nil
	}
	var v string
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("decode StringOrMarkdown: want a string or {markdown}: %w", err)
	}
	*s = StringOrMarkdown{Value: v}
	return nil
}

// JSONPrimitive is a JSON string, number, boolean or null, kept as its exact
// literal so numbers do not lose precision.
type JSONPrimitive struct {
	// Raw is the JSON literal; empty means null.
	Raw json.RawMessage
}

// NewJsonPrimitive encodes a Go string, bool, number or nil.
func NewJsonPrimitive(v any) (JSONPrimitive, error) {
	switch v.(type) {
	case nil, string, bool, int, int32, int64, uint, uint32, uint64, float32, float64, json.Number:
	default:
		return JSONPrimitive{}, fmt.Errorf("JsonPrimitive cannot hold %T: use a string, number, bool or nil", v)
	}
	b, err := json.Marshal(v)
	return JSONPrimitive{Raw: b}, err
}

// IsNull reports whether p is null.
func (p JSONPrimitive) IsNull() bool { return len(p.Raw) == 0 || string(p.Raw) == "null" }

// Str returns the string when p is a JSON string.
func (p JSONPrimitive) Str() (string, bool) {
	var s string
	if len(p.Raw) == 0 || p.Raw[0] != '"' || json.Unmarshal(p.Raw, &s) != nil {
		return "", false
	}
	return s, true
}

// Bool returns the value when p is a JSON boolean.
func (p JSONPrimitive) Bool() (bool, bool) {
	switch string(p.Raw) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// Number returns the value when p is a JSON number.
func (p JSONPrimitive) Number() (json.Number, bool) {
	if len(p.Raw) == 0 || !(p.Raw[0] == '-' || p.Raw[0] >= '0' && p.Raw[0] <= '9') {
		return "", false
	}
	return json.Number(p.Raw), true
}

// MarshalJSON writes the literal back.
func (p JSONPrimitive) MarshalJSON() ([]byte, error) {
	if len(p.Raw) == 0 {
		return []byte("null"), nil
	}
	return p.Raw, nil
}

// UnmarshalJSON keeps any primitive literal and rejects objects and arrays.
func (p *JSONPrimitive) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] == '{' || b[0] == '[' {
		return errors.New("decode JSONPrimitive: want a string, number, boolean or null")
	}
	p.Raw = append(json.RawMessage(nil), b...)
	return nil
}

// ItemList is the spec's `{ items: T[] }` wrapper, kept as an object on the
// wire so fields can be added next to items later.
type ItemList[T any] struct {
	Items []T `json:"items"`
}

// SnapshotState is the state inside a Snapshot: one of the channel states,
// chosen by the channel URI in Snapshot.Resource. Decoded on its own (without
// the URI) it holds UnknownSnapshotState; Snapshot decodes it properly.
type SnapshotState struct {
	Variant SnapshotStateVariant
}

// SnapshotStateVariant is implemented by RootState, SessionState, ChatState,
// TerminalState, ChangesetState, ResourceWatchState, AnnotationsState,
// CanvasState (1.0, experimental) and UnknownSnapshotState.
type SnapshotStateVariant interface{ isSnapshotState() }

// UnknownSnapshotState is the state of a channel kind this version does not
// know; Raw re-encodes unchanged.
type UnknownSnapshotState struct{ Raw json.RawMessage }

func (RootState) isSnapshotState()            {}
func (SessionState) isSnapshotState()         {}
func (ChatState) isSnapshotState()            {}
func (TerminalState) isSnapshotState()        {}
func (ChangesetState) isSnapshotState()       {}
func (ResourceWatchState) isSnapshotState()   {}
func (AnnotationsState) isSnapshotState()     {}
func (CanvasState) isSnapshotState()          {}
func (UnknownSnapshotState) isSnapshotState() {}

// MarshalJSON writes Raw back.
func (u UnknownSnapshotState) MarshalJSON() ([]byte, error) {
	if len(u.Raw) == 0 {
		return []byte("null"), nil
	}
	return u.Raw, nil
}

// MarshalJSON encodes the held state.
func (x SnapshotState) MarshalJSON() ([]byte, error) {
	if x.Variant == nil {
		return []byte("null"), nil
	}
	return json.Marshal(x.Variant)
}

// UnmarshalJSON keeps the raw state; Snapshot.UnmarshalJSON resolves it.
func (x *SnapshotState) UnmarshalJSON(b []byte) error {
	if isJSONNull(b) {
		x.Variant = nil
		return nil
	}
	x.Variant = UnknownSnapshotState{Raw: append(json.RawMessage(nil), b...)}
	return nil
}

// RootChannel is the URI of the root channel.
const RootChannel = "ahp-root://"

// ChannelKind names the kind of channel a URI addresses: "root", "session",
// "chat", "terminal", "changeset", "resourceWatch", "annotations", or "" when
// unknown.
func ChannelKind(uri string) string {
	scheme, rest, ok := strings.Cut(uri, ":")
	if !ok {
		return ""
	}
	switch scheme {
	case "ahp-root":
		return "root"
	case "ahp-session":
		if strings.HasSuffix(strings.TrimRight(rest, "/"), "/annotations") {
			return "annotations"
		}
		// VS Code's host names a session's changesets under the
		// session's own URI (ahp-session:/ID/changeset/uncommitted).
		if strings.Contains(rest, "/changeset/") {
			return "changeset"
		}
		return "session"
	case "ahp-chat":
		return "chat"
	case "ahp-terminal", "agenthost-terminal":
		// VS Code's agent host names its terminals agenthost-terminal://
		// (the resource of a tool call's terminal content), and serves
		// them as terminal channels under that name.
		return "terminal"
	case "ahp-changeset":
		return "changeset"
	case "ahp-resource-watch":
		return "resourceWatch"
	case "ahp-canvas":
		return "canvas"
	}
	return ""
}

// DecodeSnapshotState decodes raw as the state type of the channel resource.
// A channel kind this version does not know gives UnknownSnapshotState.
func DecodeSnapshotState(resource string, raw json.RawMessage) (SnapshotState, error) {
	var v SnapshotStateVariant
	var err error
	switch ChannelKind(resource) {
	case "root":
		v, err = decodeAs[RootState](raw)
	case "session":
		v, err = decodeAs[SessionState](raw)
	case "chat":
		v, err = decodeAs[ChatState](raw)
	case "terminal":
		v, err = decodeAs[TerminalState](raw)
	case "changeset":
		v, err = decodeAs[ChangesetState](raw)
	case "resourceWatch":
		v, err = decodeAs[ResourceWatchState](raw)
	case "annotations":
		v, err = decodeAs[AnnotationsState](raw)
	case "canvas":
		v, err = decodeAs[CanvasState](raw)
	default:
		v = UnknownSnapshotState{Raw: append(json.RawMessage(nil), raw...)}
	}
	if err != nil {
		return SnapshotState{}, fmt.Errorf("decode snapshot state of %q: %w", resource, err)
	}
	return SnapshotState{Variant: v}, nil
}

func decodeAs[T SnapshotStateVariant](raw json.RawMessage) (SnapshotStateVariant, error) {
	var v T
	err := UnmarshalWire(raw, &v)
	return v, err
}

// UnmarshalJSON decodes the state as the type its resource URI calls for.
// It takes one validating pass over b (decodeSnapshotWire); input that
// pass does not take is decoded by encoding/json as before, which also
// words any error.
func (s *Snapshot) UnmarshalJSON(b []byte) error {
	if v, ok := decodeSnapshotWire(b); ok {
		*s = v
		return nil
	}
	type plain Snapshot
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	if u, ok := p.State.Variant.(UnknownSnapshotState); ok {
		st, err := DecodeSnapshotState(p.Resource, u.Raw)
		if err != nil {
			return err
		}
		p.State = st
	}
	*s = Snapshot(p)
	return nil
}

// JsonRpcMessage is any JSON-RPC 2.0 message: a request, a notification, a
// success response or an error response (the schemas do not define it; the
// round-trip fixtures use it). Params, results and ids stay raw JSON here;
// decode them with the types of the method involved.
type JsonRpcMessage struct {
	Variant JsonRpcMessageVariant
}

// JsonRpcMessageVariant is implemented by JsonRpcRequest, JsonRpcNotification,
// JsonRpcSuccessResponse and JsonRpcErrorResponse.
type JsonRpcMessageVariant interface{ isJsonRpcMessage() }

// JsonRpcRequest is a call that expects a response with the same id.
type JsonRpcRequest struct {
	Jsonrpc string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitzero"`
}

// JsonRpcNotification is a call without an id; nothing answers it.
type JsonRpcNotification struct {
	Jsonrpc string          `json:"jsonrpc"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitzero"`
}

// JsonRpcSuccessResponse answers the request with the same id.
type JsonRpcSuccessResponse struct {
	Jsonrpc string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
}

// JsonRpcErrorResponse reports that the request with the same id failed.
type JsonRpcErrorResponse struct {
	Jsonrpc string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   JsonRpcError    `json:"error"`
}

// JsonRpcError is the error object of an error response. Code is one of
// JSONRPCErrorCode or AhpErrorCode; Data's shape depends on the code (e.g.
// AuthRequiredErrorData for AhpErrorCodeAuthRequired).
type JsonRpcError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitzero"`
}

func (JsonRpcRequest) isJsonRpcMessage()         {}
func (JsonRpcNotification) isJsonRpcMessage()    {}
func (JsonRpcSuccessResponse) isJsonRpcMessage() {}
func (JsonRpcErrorResponse) isJsonRpcMessage()   {}

// Error makes a JsonRpcError usable as a Go error.
func (e JsonRpcError) Error() string { return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message) }

func jsonrpcVersion(v string) string {
	if v == "" {
		return "2.0"
	}
	return v
}

// MarshalJSON writes the request, defaulting jsonrpc to "2.0".
func (m JsonRpcRequest) MarshalJSON() ([]byte, error) {
	type plain JsonRpcRequest
	m.Jsonrpc = jsonrpcVersion(m.Jsonrpc)
	return json.Marshal(plain(m))
}

// MarshalJSON writes the notification, defaulting jsonrpc to "2.0".
func (m JsonRpcNotification) MarshalJSON() ([]byte, error) {
	type plain JsonRpcNotification
	m.Jsonrpc = jsonrpcVersion(m.Jsonrpc)
	return json.Marshal(plain(m))
}

// MarshalJSON writes the response, defaulting jsonrpc to "2.0" and a missing
// result to null (a response must carry one).
func (m JsonRpcSuccessResponse) MarshalJSON() ([]byte, error) {
	type plain JsonRpcSuccessResponse
	m.Jsonrpc = jsonrpcVersion(m.Jsonrpc)
	if len(m.Result) == 0 {
		m.Result = json.RawMessage("null")
	}
	if len(m.ID) == 0 {
		m.ID = json.RawMessage("null")
	}
	return json.Marshal(plain(m))
}

// MarshalJSON writes the error response, defaulting jsonrpc to "2.0" and a
// missing id to null.
func (m JsonRpcErrorResponse) MarshalJSON() ([]byte, error) {
	type plain JsonRpcErrorResponse
	m.Jsonrpc = jsonrpcVersion(m.Jsonrpc)
	if len(m.ID) == 0 {
		m.ID = json.RawMessage("null")
	}
	return json.Marshal(plain(m))
}

// MarshalJSON encodes the held message.
func (x JsonRpcMessage) MarshalJSON() ([]byte, error) {
	if x.Variant == nil {
		return nil, errors.New("encode JsonRpcMessage: no message set")
	}
	return json.Marshal(x.Variant)
}

// UnmarshalJSON tells the four message kinds apart by which members are
// present: method+id, method, error, result.
func (x *JsonRpcMessage) UnmarshalJSON(b []byte) error {
	var peek struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
		Error  json.RawMessage `json:"error"`
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(b, &peek); err != nil {
		return fmt.Errorf("decode JSON-RPC message: %w", err)
	}
	var err error
	switch {
	case peek.Method != nil && peek.ID != nil:
		var m JsonRpcRequest
		err = json.Unmarshal(b, &m)
		x.Variant = m
	case peek.Method != nil:
		var m JsonRpcNotification
		err = json.Unmarshal(b, &m)
		x.Variant = m
	case peek.Error != nil:
		var m JsonRpcErrorResponse
		err = json.Unmarshal(b, &m)
		x.Variant = m
	case peek.Result != nil:
		var m JsonRpcSuccessResponse
		err = json.Unmarshal(b, &m)
		x.Variant = m
	default:
		return errors.New("decode JSON-RPC message: it has neither method, result nor error; the peer is not speaking JSON-RPC 2.0")
	}
	if err != nil {
		return fmt.Errorf("decode JSON-RPC message: %w", err)
	}
	return nil
}
