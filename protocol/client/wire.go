package client

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/convert"
)

// The client speaks four wires (protocol.WireOf): 1.0, which VS Code's
// 0.10 and upstream's 0.9 numbers share, 0.8, 0.7 and 0.6. Everything past
// this file sees 1.0 only: on an older wire each frame from the host is
// converted up (protocol/convert walks the releases in between) before it
// is decoded, and each frame to the host is converted down after it is
// encoded. 1.0 traffic is not touched, except the early-1.0 shapes a 1.0
// host may still send (lenient10), so the streaming hot path pays nothing
// for the older wires.
//
// A link learns its wire from the initialize result (a reconnect keeps the
// wire negotiated before). Until then its notifications wait in the
// connection's ordered, byte-capped queue (see awaitWire), because the
// host may send actions before the result that names their shape.

// setWireLocked records the wire of l and releases the notifications
// waiting for it (Client.mu held).
func (l *link) setWireLocked(w protocol.Wire) {
	l.wire = w
	select {
	case <-l.wireKnown:
	default:
		close(l.wireKnown)
	}
}

// unsetWireLocked makes l's notifications wait for a new initialize result
// (Client.mu held): a host that refused reconnect may have been restarted
// speaking another version.
func (l *link) unsetWireLocked() {
	select {
	case <-l.wireKnown:
		l.wire = protocol.WireUnknown
		l.wireKnown = make(chan struct{})
	default:
	}
}

// linkWire is the wire of l now; WireUnknown before the initialize result.
func (c *Client) linkWire(l *link) protocol.Wire {
	c.mu.Lock()
	defer c.mu.Unlock()
	return l.wire
}

// awaitWire returns l's wire, waiting for the initialize result that names
// it; false when the link ended first. It runs on the connection's one
// notification goroutine, so waiting keeps the host's order, and the
// connection's queue cap bounds what piles up meanwhile.
func (c *Client) awaitWire(l *link) (protocol.Wire, bool) {
	for {
		// wireKnown is closed under c.mu, so a closed one read under it
		// goes with the wire read beside it.
		c.mu.Lock()
		known, w := l.wireKnown, l.wire
		select {
		case <-known:
			c.mu.Unlock()
			return w, true
		default:
		}
		c.mu.Unlock()
		select {
		case <-known:
		case <-l.ctx.Done():
			return protocol.WireUnknown, false
		}
	}
}

// ActionDefined reports whether a peer that negotiated version defines
// the action type kind: its wire has it (convert.Defined) and, on the wire
// 0.9.x and 1.0 share, the number is not one before 1.0 added it
// (protocol.ActionDefinedIn). It is what Dispatch refuses with
// ErrNotInVersion, asked before a key sends anything.
func ActionDefined(version, kind string) bool {
	return protocol.ActionDefinedIn(version, kind) && convert.Defined(protocol.WireOf(version), kind)
}

// older reports whether w is converted at the link: a wire before 1.0.
func older(w protocol.Wire) bool { return w != protocol.WireUnknown && w < protocol.Wire10 }

// encodeParams encodes a command's or notification's params for wire w
// and the version negotiated on it: a 0.9 host is sent no member, command
// or action 1.0 added (protocol.Before10), an older one its own shapes.
func encodeParams(w protocol.Wire, version, method string, params any) (json.RawMessage, error) {
	if !protocol.CommandDefinedIn(version, method) {
		return nil, fmt.Errorf("%w (AHP %s): %s", ErrNotInVersion, version, method)
	}
	if d, ok := params.(protocol.DispatchActionParams); ok && !protocol.ActionDefinedIn(version, d.Action.Kind()) {
		return nil, fmt.Errorf("%w (AHP %s): %s", ErrNotInVersion, version, d.Action.Kind())
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("encode params: %w", err)
	}
	if !older(w) {
		return protocol.TrimParamsTo(version, method, raw)
	}
	down, err := convert.DownParams(w, method, raw)
	if errors.Is(err, convert.ErrNotInVersion) {
		return nil, fmt.Errorf("%w (AHP %s): %w", ErrNotInVersion, w, err)
	}
	if err != nil {
		return nil, fmt.Errorf("convert to AHP %s: %w", w, err)
	}
	return down, nil
}

// decodeResult decodes a command's result sent on wire w into result.
func decodeResult(w protocol.Wire, method string, raw json.RawMessage, result any) error {
	if older(w) {
		up, err := convert.UpResult(w, method, raw)
		if err != nil {
			return fmt.Errorf("convert the AHP %s result: %w", w, err)
		}
		raw = up
	} else if w == protocol.Wire10 {
		up, err := convert.Lenient10Result(method, raw)
		if err != nil {
			return fmt.Errorf("read the %s result: %w", quoteHost(method), err)
		}
		raw = up
	}
	// One validating pass for the large results (a snapshot, a page of
	// sessions), with encoding/json's result and errors (UnmarshalWire).
	if err := protocol.UnmarshalWire(raw, result); err != nil {
		return fmt.Errorf("decode result: %w", err)
	}
	return nil
}

// upParams converts notification params sent on wire w to 1.0. On 1.0
// it reads the early-1.0 spelling of a turn's error (convert.Lenient10),
// which costs a frame that has no "error" key one search.
func upParams(w protocol.Wire, method string, raw json.RawMessage) (json.RawMessage, error) {
	if w == protocol.Wire10 {
		up, err := convert.Lenient10Params(method, raw)
		if err != nil {
			return nil, fmt.Errorf("read the %s: %w", quoteHost(method), err)
		}
		return up, nil
	}
	if !older(w) {
		return raw, nil
	}
	up, err := convert.UpParams(w, method, raw)
	if err != nil {
		return nil, fmt.Errorf("convert the AHP %s %s: %w", w, quoteHost(method), err)
	}
	return up, nil
}

// ErrNotInVersion is wrapped by Dispatch for an action the negotiated
// version does not define (a 1.0-only action to a 0.8 host), and by a
// command whose params it cannot say (a side chat to a 0.6 host): nothing
// is sent and nothing changes. Gate such features on Client.Wire.
var ErrNotInVersion = errors.New("the host's AHP version does not define this action")

// checkSendable refuses, before any optimistic effect, an action the wire w
// and the version negotiated on it cannot carry (a 1.0-only action to a
// 0.8 or 0.9 host).
func checkSendable(w protocol.Wire, version string, action protocol.StateAction) error {
	if !protocol.ActionDefinedIn(version, action.Kind()) {
		return fmt.Errorf("%w (AHP %s)", ErrNotInVersion, version)
	}
	if !older(w) {
		return nil
	}
	raw, err := json.Marshal(action)
	if err != nil {
		return fmt.Errorf("encode action: %w", err)
	}
	if _, err := convert.DownAction(w, raw); err != nil {
		if errors.Is(err, convert.ErrNotInVersion) {
			return fmt.Errorf("%w (AHP %s)", ErrNotInVersion, w)
		}
		return fmt.Errorf("convert to AHP %s: %w", w, err)
	}
	return nil
}

// onlyDefined replaces an action the wire w does not define with an
// unknown one, which the mirror counts as seen and otherwise ignores. A
// 0.8 host sending a 1.0-only type (chat/turnResume, say) is not speaking
// 0.8, and a 0.8 reducer would ignore it; converting it up passes it
// through, so it is caught here.
func onlyDefined(w protocol.Wire, env *protocol.ActionEnvelope) {
	if !older(w) {
		return
	}
	if _, unknown := env.Action.Variant.(protocol.UnknownStateAction); unknown || env.Action.Variant == nil {
		return
	}
	if kind := env.Action.Kind(); !convert.Defined(w, kind) {
		env.Action = protocol.NewStateAction(protocol.UnknownStateAction{Discriminator: kind})
	}
}
