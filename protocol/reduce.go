package protocol

import (
	"encoding/json"
	"time"
)

// Clock reads the current time. Only the 0.6 rules read it (chat
// modifiedAt); tests and the 0.6 conformance fixtures pin it.
type Clock func() time.Time

// Rules says which version's reducer semantics apply. The model is the 1.0
// one whatever the wire (older traffic is converted at the client
// boundary, protocol/convert), but three older rules are not a matter of
// shape:
//   - chat modifiedAt: 0.6 to 0.8 stamp it from the reducer's clock when a
//     turn starts, ends or is truncated and when input requests change;
//     0.9 and 1.0 derive it from action data (a turn's startedAt, plus its
//     duration when it ends) and never read a clock (DELTA §7.2);
//   - a toolClientExecution input request raises the session's InputNeeded
//     bit in 0.6 and 0.7, not since 0.8 (DELTA §6.1);
//   - changeset/contentChanged sets or clears the changeset's error in 0.6
//     to 0.8; 0.9 removed that member (DELTA §9), so 1.0 ignores it.
//
// The zero value is the 1.0 rules.
type Rules struct {
	// Wire selects the rules; WireUnknown means Wire10.
	Wire Wire
	// Clock stamps chat modifiedAt before Wire10 (time.Now when nil).
	Clock Clock
}

// Rules06 is the 0.6 rules with clock (time.Now when nil).
func Rules06(clock Clock) Rules { return Rules{Wire: Wire06, Clock: clock} }

// RulesFor is the rules of a negotiated wire, with clock for the wires
// before 1.0.
func RulesFor(w Wire, clock Clock) Rules { return Rules{Wire: w, Clock: clock} }

// before reports whether the rules are those of a wire older than w.
func (r Rules) before(w Wire) bool { return r.Wire != WireUnknown && r.Wire < w }

// clockStamped: chat modifiedAt comes from the clock (before 0.9).
func (r Rules) clockStamped() bool { return r.before(Wire10) }

// changesetError: changeset/contentChanged carries the error (before 0.9).
func (r Rules) changesetError() bool { return r.before(Wire10) }

// clientExecutionNeedsInput: a toolClientExecution request raises
// InputNeeded (before 0.8).
func (r Rules) clientExecutionNeedsInput() bool { return r.before(Wire08) }

// stamp06 is the clock stamp of the rules before 0.9, or derived under
// 1.0 (ok false: leave modifiedAt as it is).
func (r Rules) stamp06() (string, bool) {
	if !r.clockStamped() {
		return "", false
	}
	clock := r.Clock
	if clock == nil {
		clock = time.Now
	}
	return Timestamp(clock()), true
}

// Reduce applies action to a channel state of any kind and returns the new
// state. It is the single entry the mirror and the demo host call. A state
// kind it does not know, or an action the state's reducer does not apply, is
// returned unchanged.
//
// Reducers are pure: they never mutate the state they are given (slices and
// maps included), because the UI may still be reading an older snapshot.
func Reduce(state SnapshotStateVariant, action StateAction, r Rules) SnapshotStateVariant {
	switch s := state.(type) {
	case RootState:
		return ReduceRoot(s, action)
	case SessionState:
		return ReduceSession(s, action, r)
	case ChatState:
		return ReduceChat(s, action, r)
	case TerminalState:
		return ReduceTerminal(s, action)
	case ChangesetState:
		return ReduceChangeset(s, action, r)
	case AnnotationsState:
		return ReduceAnnotations(s, action)
	case ResourceWatchState:
		return ReduceResourceWatch(s, action)
	case CanvasState:
		return ReduceCanvas(s, action)
	}
	return state
}

// Copy-on-write slice helpers shared by the reducers. Each returns a new
// backing array and never writes into the one it was given: an older
// snapshot (or a second reconciliation branch built on the same base) may
// still hold it. Results are never nil, so required wire arrays stay `[]`.

// cowAppend returns s followed by v in a fresh backing array.
func cowAppend[T any](s []T, v ...T) []T {
	out := make([]T, len(s), len(s)+len(v))
	copy(out, s)
	return append(out, v...)
}

// cowSet returns a copy of s with element i replaced by v.
func cowSet[T any](s []T, i int, v T) []T {
	out := make([]T, len(s))
	copy(out, s)
	out[i] = v
	return out
}

// cowDelete returns a copy of s without element i.
func cowDelete[T any](s []T, i int) []T {
	out := make([]T, 0, len(s)-1)
	out = append(out, s[:i]...)
	return append(out, s[i+1:]...)
}

// cowUpsert replaces the first element of s for which match is true with v,
// or appends v when none matches.
func cowUpsert[T any](s []T, v T, match func(T) bool) []T {
	for i := range s {
		if match(s[i]) {
			return cowSet(s, i, v)
		}
	}
	return cowAppend(s, v)
}

// mergeConfigValues implements the configChanged rule shared by root and
// session: merge update over old, or start from nothing when replace is set.
// The result is a new map so the old snapshot's values stay as they were.
func mergeConfigValues(old, update map[string]json.RawMessage, replace bool) map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(old)+len(update))
	if !replace {
		for k, v := range old {
			out[k] = v
		}
	}
	for k, v := range update {
		out[k] = v
	}
	return out
}
