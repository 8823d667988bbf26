package protocol

import (
	"encoding/json"
	"time"
)

// Clock reads the current time. Reducers that stamp times (chat modifiedAt,
// numeric session timestamps) take one so tests and the conformance fixtures
// can pin it; hosts and clients pass time.Now.
type Clock func() time.Time

// Reduce applies action to a channel state of any kind and returns the new
// state. It is the single entry the mirror and the demo host call. A state
// kind it does not know, or an action the state's reducer does not apply, is
// returned unchanged.
//
// Reducers are pure: they never mutate the state they are given (slices and
// maps included), because the UI may still be reading an older snapshot.
func Reduce(state SnapshotStateVariant, action StateAction, clock Clock) SnapshotStateVariant {
	if clock == nil {
		clock = time.Now
	}
	switch s := state.(type) {
	case RootState:
		return ReduceRoot(s, action, clock)
	case SessionState:
		return ReduceSession(s, action, clock)
	case ChatState:
		return ReduceChat(s, action, clock)
	case TerminalState:
		return ReduceTerminal(s, action, clock)
	case ChangesetState:
		return ReduceChangeset(s, action, clock)
	case AnnotationsState:
		return ReduceAnnotations(s, action, clock)
	case ResourceWatchState:
		return ReduceResourceWatch(s, action, clock)
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
