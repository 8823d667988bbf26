package protocol

import (
	"runtime"
	"sync"
	"weak"
)

// appendTurn returns turns followed by t, in amortized O(1), without
// changing what any existing slice of turns reads.
//
// Completed turns are shared by every snapshot of a chat (the UI keeps old
// ones), so the reducer may never write into a backing array another
// snapshot reads. It may write past their length, though: that is how a
// chat of many turns grows without copying them all on every completed turn
// (it did, and 10k turns cost 8.9 GB of copying). The rule is the one Text
// follows: a backing array this function allocated has a committed length,
// the longest slice handed out over it, and only a slice of exactly that
// length may extend it in place. Any other slice — an older snapshot, or a
// second branch appended from the same base when write-ahead
// reconciliation replays pending actions — copies first. Arrays allocated
// elsewhere (decoded, built by tests, prepended by chat/turnsLoaded) are
// never written into: their first append copies them into an array of
// ours.
//
// The type stays the generated []Turn, so the committed length lives in a
// side table keyed by a weak pointer to the array's first element: the
// table never keeps a chat alive, and an entry goes when its array does.
func appendTurn(turns []Turn, t Turn) []Turn {
	n := len(turns)
	if n < cap(turns) && turnArrays.claim(&turns[:1][0], n) {
		turns = turns[:n+1]
		turns[n] = t
		return turns
	}
	grown := make([]Turn, n+1, max(2*n, 8))
	copy(grown, turns)
	grown[n] = t
	turnArrays.register(&grown[0], n+1)
	return grown
}

// turnArrays holds the committed length of every turn array appendTurn
// allocated and that is still reachable.
var turnArrays = turnTable{committed: map[weak.Pointer[Turn]]int{}}

type turnTable struct {
	mu        sync.Mutex
	committed map[weak.Pointer[Turn]]int
}

// claim moves the committed length of first's array from n to n+1 and
// reports whether it did: false when the array is not ours or a slice
// longer than n was already handed out.
func (tt *turnTable) claim(first *Turn, n int) bool {
	k := weak.Make(first)
	tt.mu.Lock()
	defer tt.mu.Unlock()
	if c, ok := tt.committed[k]; ok && c == n {
		tt.committed[k] = n + 1
		return true
	}
	return false
}

func (tt *turnTable) register(first *Turn, n int) {
	k := weak.Make(first)
	tt.mu.Lock()
	tt.committed[k] = n
	tt.mu.Unlock()
	runtime.AddCleanup(first, func(k weak.Pointer[Turn]) {
		tt.mu.Lock()
		delete(tt.committed, k)
		tt.mu.Unlock()
	}, k)
}
