package convert

import (
	"encoding/json"
	"fmt"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/internal/wirescan"
)

// step is what one release changed on the wire, from the wire below it:
// up converts the older shape to the newer, down the reverse. A
// conversion from 0.6 to 1.0 walks every step in order; one from 1.0 to
// 0.7 walks the steps above 0.7 in reverse. A member a step does not name
// passes as it is, so each step says only its own release's changes.
//
// The 0.9 and 1.0 changes are one step: 0.9.x, VS Code's 0.10.x and 1.x
// hosts send one wire (protocol.WireOf).
type step struct {
	// to is the wire this step converts up to; the wire below it is the
	// previous step's (Wire06 for the first).
	to protocol.Wire
	// added are the action types the release added: the down direction
	// refuses them (ErrNotInVersion), and a peer below the step that
	// sends one is not speaking its version (Defined).
	added map[string]bool
	up    stepTables
	down  stepTables
}

// stepTables are one direction of a step.
type stepTables struct {
	// actions by type; the action is applied on the given channel ("" when
	// unknown).
	actions map[string]actionConv
	// states by channel kind (protocol.ChannelKind), with the channel.
	states map[string]stateConv
	// params of commands and notifications, by method, for what is not
	// inside an action envelope or a snapshot (those go through actions
	// and states).
	params map[string]conv
	// results of commands, by method, likewise.
	results map[string]conv
}

// actionConv converts one action object; channel is the channel it is
// applied on ("" when unknown).
type actionConv func(channel string, o *object) error

// stateConv converts one channel state; channel is its URI.
type stateConv func(channel string, raw json.RawMessage) (json.RawMessage, error)

// steps are the releases after 0.6, oldest first.
var steps = []*step{&step07, &step08, &step10}

// path is the steps a conversion between wire and 1.0 walks, in the
// order it walks them, and the action types any of them converts or
// refuses (so an action none of them touches is not read past its type).
type path struct {
	steps   []*step
	down    bool
	touched map[string]bool
}

// paths holds the path of every wire below 1.0, up and down.
var paths = map[protocol.Wire][2]*path{}

func init() {
	for _, w := range []protocol.Wire{protocol.Wire06, protocol.Wire07, protocol.Wire08} {
		var ps [2]*path
		for i, down := range []bool{false, true} {
			p := &path{down: down, touched: map[string]bool{}}
			for _, s := range steps {
				if s.to > w {
					p.steps = append(p.steps, s)
				}
			}
			if down {
				for l, r := 0, len(p.steps)-1; l < r; l, r = l+1, r-1 {
					p.steps[l], p.steps[r] = p.steps[r], p.steps[l]
				}
			}
			for _, s := range p.steps {
				for typ := range p.tables(s).actions {
					p.touched[typ] = true
				}
				if down {
					for typ := range s.added {
						p.touched[typ] = true
					}
				}
			}
			ps[i] = p
		}
		paths[w] = ps
	}
}

// pathOf is the path between w and 1.0 in the direction down; nil when
// there is nothing to convert (w is 1.0, or unknown: the caller never
// negotiated a wire it does not speak).
func pathOf(w protocol.Wire, down bool) *path {
	ps, ok := paths[w]
	if !ok {
		return nil
	}
	if down {
		return ps[1]
	}
	return ps[0]
}

func (p *path) tables(s *step) *stepTables {
	if p.down {
		return &s.down
	}
	return &s.up
}

// wire is the older end of the path, for messages.
func (p *path) wire() protocol.Wire {
	if len(p.steps) == 0 {
		return protocol.Wire10
	}
	if p.down {
		return below(p.steps[len(p.steps)-1])
	}
	return below(p.steps[0])
}

// below is the wire under step s.
func below(s *step) protocol.Wire {
	prev := protocol.Wire06
	for _, t := range steps {
		if t == s {
			return prev
		}
		prev = t.to
	}
	return prev
}

// Defined reports whether AHP on wire w defines the action type typ,
// which the 1.0 decoder knows: no release after w added it. A peer on w
// that sends such a type is not speaking w, and w's reducer would ignore
// it. Every type is defined on 1.0.
func Defined(w protocol.Wire, typ string) bool {
	p := pathOf(w, true)
	if p == nil {
		return true
	}
	for _, s := range p.steps {
		if s.added[typ] {
			return false
		}
	}
	return true
}

// action converts one action along p. The type is read without
// allocating, and an action no step touches is returned as is.
func (p *path) action(channel string, action json.RawMessage) (json.RawMessage, error) {
	typ, ok := discriminator(action, "type")
	if !ok {
		return action, nil // not an action; the decoder after us says so
	}
	if !p.touched[string(typ)] {
		return action, nil
	}
	if !json.Valid(action) {
		return nil, fmt.Errorf("convert action %q: not valid JSON", typ)
	}
	out := action
	for _, s := range p.steps {
		if p.down && s.added[string(typ)] {
			return nil, fmt.Errorf("%w (AHP %s): action %q", ErrNotInVersion, p.wire(), typ)
		}
		f, ok := p.tables(s).actions[string(typ)]
		if !ok {
			continue
		}
		var err error
		out, err = editObject(out, func(o *object) error { return f(channel, o) })
		if err != nil {
			return nil, fmt.Errorf("convert action %q: %w", typ, err)
		}
	}
	return out, nil
}

// state converts a channel state along p; the channel decides its kind.
func (p *path) state(channel string, state json.RawMessage) (json.RawMessage, error) {
	kind := protocol.ChannelKind(channel)
	out := state
	checked := false
	for _, s := range p.steps {
		f := p.tables(s).states[kind]
		if f == nil {
			continue
		}
		if !checked {
			if !json.Valid(state) {
				return nil, fmt.Errorf("convert %s state: not valid JSON", kind)
			}
			checked = true
		}
		var err error
		out, err = f(channel, out)
		if err != nil {
			return nil, fmt.Errorf("convert %s state: %w", kind, err)
		}
	}
	return out, nil
}

// envelope converts the action inside an ActionEnvelope or dispatchAction
// params, with the envelope's channel.
func (p *path) envelope(raw json.RawMessage) (json.RawMessage, error) {
	var out [2]json.RawMessage
	if !wirescan.ScanMembers(raw, out[:], "channel", "action") || out[1] == nil {
		return raw, nil
	}
	// Only an action that changes (or is refused) needs the channel; the
	// streaming ones return here without allocating.
	typ, ok := discriminator(out[1], "type")
	if !ok || !p.touched[string(typ)] {
		return raw, nil
	}
	channel, _ := wirescan.JSONString(out[0])
	action, err := p.action(channel, out[1])
	if err != nil || same(action, out[1]) {
		return raw, err
	}
	return editObject(raw, func(o *object) error {
		o.set("action", action)
		return nil
	})
}

// snapshot converts a Snapshot's state by its resource.
func (p *path) snapshot(raw json.RawMessage) (json.RawMessage, error) {
	var out [1]json.RawMessage
	if !wirescan.ScanMembers(raw, out[:], "resource") {
		return raw, nil
	}
	resource, _ := wirescan.JSONString(out[0])
	return fields(map[string]conv{"state": func(st json.RawMessage) (json.RawMessage, error) {
		return p.state(resource, st)
	}})(raw)
}

// replay converts a reconnect replay's envelopes; down, it leaves out the
// actions the older version does not define: its reducer would ignore
// them, and a gap in serverSeq is what a client sees when a host filters
// per version.
func (p *path) replay(raw json.RawMessage) (json.RawMessage, error) {
	return each(func(e json.RawMessage) (json.RawMessage, error) {
		out, err := p.envelope(e)
		if p.down && isNotInVersion(err) {
			return nil, errLeaveOut
		}
		return out, err
	})(raw)
}

// structural converts the params and results whose conversion is where
// their actions and states sit, the same for every step; ok is false for
// the others. Called directly, not through a func value: the streaming
// path must not allocate.
func (p *path) structural(what, method string, raw json.RawMessage) (out json.RawMessage, ok bool, err error) {
	switch {
	case what == "params" && (method == "action" || method == "dispatchAction"):
		out, err = p.envelope(raw)
		return out, true, err
	case what != "result":
		return nil, false, nil
	case method == "initialize":
		out, err = fields(map[string]conv{"snapshots": each(p.snapshot)})(raw)
	case method == "subscribe":
		out, err = fields(map[string]conv{"snapshot": p.snapshot})(raw)
	case method == "reconnect":
		out, err = fields(map[string]conv{"snapshots": each(p.snapshot), "actions": p.replay})(raw)
	default:
		return nil, false, nil
	}
	return out, true, err
}

// convert converts params or results (what) of method along p.
func (p *path) convert(what, method string, raw json.RawMessage) (json.RawMessage, error) {
	if p == nil || len(raw) == 0 {
		return raw, nil
	}
	out, ok, err := p.structural(what, method, raw)
	if !ok {
		out = raw
		for _, s := range p.steps {
			t := p.tables(s)
			table := t.params
			if what == "result" {
				table = t.results
			}
			f, ok := table[method]
			if !ok {
				continue
			}
			if out, err = f(out); err != nil {
				break
			}
		}
	}
	if err != nil {
		return nil, fmt.Errorf("convert %s %s: %w", method, what, err)
	}
	if !same(out, raw) && !json.Valid(raw) {
		return nil, fmt.Errorf("convert %s %s: not valid JSON", method, what)
	}
	return out, nil
}
