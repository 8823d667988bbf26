package demohost

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/convert"
	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

// The versions the demo host can serve (Config.Version). Its state is the
// 1.0 model whatever it serves; serving an older version, every frame is
// converted at the connection's edge (protocol/convert), so the scripts
// and reducers are written once.
const (
	// Version10 is AHP 1.0.0, the default: what current hosts speak.
	Version10 = "1.0.0"
	// Version08 is AHP 0.8.0, what VS Code 1.133 and 1.134 hosts speak.
	Version08 = "0.8.0"
	// Version07 is AHP 0.7.0.
	Version07 = "0.7.0"
	// Version06 is AHP 0.6.0, for clients (and tests) of the old wire.
	Version06 = "0.6.0"
)

// Versions lists the versions offered to users (--demo-version), default
// first. Config.Version also takes Version08 and Version07, which tests
// use to stand in for hosts of those releases.
var Versions = []string{Version10, Version06}

// servable is what Config.Version accepts.
var servable = []string{Version10, Version08, Version07, Version06}

// SupportedVersions are the offers a host serving version accepts, as it
// publishes them in -32005's supportedVersions. Serving 1.0 they are the
// spec's caret ranges (versioning.md at 1.0: ^1.0.0 or ~0.9.0, the 0.9
// numbers label the same wire). VS Code's 0.10.0 is left out on purpose:
// it was never published upstream (DELTA §1.4) and a spec host refuses it;
// ahptui offers 1.0.0 beside it, so the demo still connects. Serving 0.8
// it is the caret range VS Code's 0.8 hosts accept (^0.8.0 only); serving
// 0.7 or 0.6 the one exact version, as hosts of that era published plain
// lists.
func SupportedVersions(version string) []string {
	switch version {
	case Version06, Version07:
		return []string{version}
	case Version08:
		return []string{"^0.8.0"}
	}
	return []string{"^1.0.0", "~0.9.0"}
}

// wire is what the host speaks on every connection: the negotiated
// version's wire, fixed by Config.Version (reconnect carries no version,
// so a connection cannot pick one of its own).
type wire struct {
	version   string
	kind      protocol.Wire
	supported []string
	ranges    []protocol.VersionRange
}

func newWire(version string) (wire, error) {
	if version == "" {
		version = Version10
	}
	if !slices.Contains(servable, version) {
		return wire{}, fmt.Errorf("demohost: cannot serve AHP %q; serve one of %v", version, servable)
	}
	w := wire{version: version, kind: protocol.WireOf(version), supported: SupportedVersions(version)}
	for _, s := range w.supported {
		r, err := protocol.ParseVersionRange(s)
		if err != nil {
			return wire{}, fmt.Errorf("demohost: supported version %q: %w", s, err)
		}
		w.ranges = append(w.ranges, r)
	}
	return w, nil
}

// older reports whether frames are converted to and from an older wire.
func (w wire) older() bool { return w.kind < protocol.Wire10 }

// errNotForPeer marks a frame the peer's version does not define (a
// 1.0-only action to a 0.6 client): it is left out, as a host filters
// actions by the version they were introduced in (DELTA §1.3).
var errNotForPeer = errors.New("demohost: not defined in the negotiated version")

// upParams turns a client's params into the 1.0 shape the host reads.
func (w wire) upParams(method string, params json.RawMessage) (json.RawMessage, error) {
	if !w.older() || len(params) == 0 {
		return params, nil
	}
	out, err := convert.UpParams(w.kind, method, params)
	if err != nil {
		return nil, fmt.Errorf("read %s %s params: %w", w.kind, method, err)
	}
	return out, nil
}

// downParams turns the host's 1.0 notification params into the peer's
// wire; errNotForPeer when the peer's version has no such notification
// or action.
func (w wire) downParams(method string, params json.RawMessage) (json.RawMessage, error) {
	if !w.older() {
		return params, nil
	}
	out, err := convert.DownParams(w.kind, method, params)
	if errors.Is(err, convert.ErrNotInVersion) {
		return nil, errNotForPeer
	}
	if err != nil {
		return nil, fmt.Errorf("write %s %s params: %w", w.kind, method, err)
	}
	return out, nil
}

// downResult turns a command's 1.0 result into the peer's wire.
func (w wire) downResult(method string, result json.RawMessage) (json.RawMessage, error) {
	if !w.older() {
		return result, nil
	}
	out, err := convert.DownResult(w.kind, method, result)
	if err != nil {
		return nil, fmt.Errorf("write %s %s result: %w", w.kind, method, err)
	}
	return out, nil
}

// encodeNotification renders a host→client notification on the host's
// wire. errNotForPeer means there is nothing to send.
func (h *Host) encodeNotification(method string, params any) ([]byte, error) {
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", method, err)
	}
	raw, err = h.wire.downParams(method, raw)
	if err != nil {
		return nil, err
	}
	return jsonrpc.Encode(&jsonrpc.Request{Method: method, Params: raw})
}

// response renders the answer to a request of method on the host's wire.
func (h *Host) response(method string, id *jsonrpc.ID, res any, rerr rpcError) *jsonrpc.Response {
	if rerr != nil {
		return &jsonrpc.Response{ID: id, Error: rerr}
	}
	raw, err := json.Marshal(res)
	if err == nil {
		raw, err = h.wire.downResult(method, raw)
	}
	if err != nil {
		h.log.Error("demohost: encode result", "method", method, "err", err)
		return &jsonrpc.Response{ID: id, Error: jsonrpc.NewError(jsonrpc.InternalError, "the host could not encode its result")}
	}
	return &jsonrpc.Response{ID: id, Result: raw}
}
