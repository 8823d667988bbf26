package protocol

import "time"

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
