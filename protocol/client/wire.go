package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/ahp06"
	"github.com/ahptui/ahptui/protocol/convert06"
)

// The client speaks two wires (protocol.WireOf): 1.0, which VS Code's
// 0.10 and upstream's 0.9 numbers share, and 0.6. Everything past this
// file sees 1.0 only: on the 0.6 wire each frame from the host is
// converted up before it is decoded, and each frame to the host is
// converted down after it is encoded. 1.0 traffic is not touched, so the
// streaming hot path pays nothing for 0.6.
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

// encodeParams encodes a command's or notification's params for wire w
// and the version negotiated on it: a 0.9 host is sent no member, command
// or action 1.0 added (protocol.Before10), a 0.6 host the 0.6 shapes.
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
	if w != protocol.Wire06 {
		return protocol.TrimParamsTo(version, method, raw)
	}
	down, err := convert06.DownParams(method, raw)
	if errors.Is(err, convert06.ErrNot06) {
		return nil, fmt.Errorf("%w (AHP 0.6): %w", ErrNotInVersion, err)
	}
	if err != nil {
		return nil, fmt.Errorf("convert to AHP 0.6: %w", err)
	}
	return down, nil
}

// decodeResult decodes a command's result sent on wire w into result.
func decodeResult(w protocol.Wire, method string, raw json.RawMessage, result any) error {
	if w == protocol.Wire06 {
		up, err := convert06.UpResult(method, raw)
		if err != nil {
			return fmt.Errorf("convert the AHP 0.6 result: %w", err)
		}
		raw = up
	}
	if err := json.Unmarshal(raw, result); err != nil {
		return fmt.Errorf("decode result: %w", err)
	}
	return nil
}

// upParams converts notification params sent on wire w to 1.0.
func upParams(w protocol.Wire, method string, raw json.RawMessage) (json.RawMessage, error) {
	if w != protocol.Wire06 {
		return raw, nil
	}
	up, err := convert06.UpParams(method, raw)
	if err != nil {
		return nil, fmt.Errorf("convert the AHP 0.6 %s: %w", quoteHost(method), err)
	}
	return up, nil
}

// ErrNotInVersion is wrapped by Dispatch for an action the negotiated
// version does not define (a 1.0-only action to a 0.6 host), and by a
// command whose params it cannot say (a side chat to a 0.6 host): nothing
// is sent and nothing changes. Gate such features on Client.Wire.
var ErrNotInVersion = errors.New("the host's AHP version does not define this action")

// checkSendable refuses, before any optimistic effect, an action the wire w
// and the version negotiated on it cannot carry (a 1.0-only action to a
// 0.6 or 0.9 host).
func checkSendable(w protocol.Wire, version string, action protocol.StateAction) error {
	if !protocol.ActionDefinedIn(version, action.Kind()) {
		return fmt.Errorf("%w (AHP %s)", ErrNotInVersion, version)
	}
	if w != protocol.Wire06 {
		return nil
	}
	raw, err := json.Marshal(action)
	if err != nil {
		return fmt.Errorf("encode action: %w", err)
	}
	if _, err := convert06.DownAction(raw); err != nil {
		if errors.Is(err, convert06.ErrNot06) {
			return fmt.Errorf("%w (AHP 0.6)", ErrNotInVersion)
		}
		return fmt.Errorf("convert to AHP 0.6: %w", err)
	}
	return nil
}

// onlyDefined replaces an action the wire w does not define with an
// unknown one, which the mirror counts as seen and otherwise ignores. A
// 0.6 host sending a 1.0-only type (chat/turnResume, say) is not speaking
// 0.6, and a 0.6 reducer would ignore it; converting it up passes it
// through, so it is caught here.
func onlyDefined(w protocol.Wire, env *protocol.ActionEnvelope) {
	if w != protocol.Wire06 {
		return
	}
	if _, unknown := env.Action.Variant.(protocol.UnknownStateAction); unknown || env.Action.Variant == nil {
		return
	}
	if kind := env.Action.Kind(); !defined06(kind) {
		env.Action = protocol.NewStateAction(protocol.UnknownStateAction{Discriminator: kind})
	}
}

// defined06Kinds caches defined06 per action type. Only types the 1.0
// decoder knows are asked, so the map is bounded by the schema, not by
// the host.
var defined06Kinds sync.Map

// defined06 reports whether AHP 0.6 defines the action type kind: the 0.6
// decoder knows it. The probe carries "approved" because one type,
// chat/toolCallConfirmed, is itself a union chosen by it; every other
// type ignores it (TestDefined06MatchesTheConversion checks all of them).
func defined06(kind string) bool {
	if v, ok := defined06Kinds.Load(kind); ok {
		return v.(bool)
	}
	probe, _ := json.Marshal(map[string]any{"type": kind, "approved": true})
	var a ahp06.StateAction
	err := json.Unmarshal(probe, &a)
	_, unknown := a.Variant.(ahp06.UnknownStateAction)
	ok := err == nil && a.Variant != nil && !unknown
	defined06Kinds.Store(kind, ok)
	return ok
}
