package protocol

import (
	"fmt"
	"runtime"
	"testing"
	"weak"
)

// TestAppendTurnSnapshots holds every intermediate snapshot of a growing
// turn list, branches from some of them, and checks that no append ever
// changes what another slice reads — the property the UI's old snapshots
// and write-ahead reconciliation's replays rely on.
func TestAppendTurnSnapshots(t *testing.T) {
	turn := func(id string) Turn { return Turn{ID: id, State: TurnStateComplete} }
	ids := func(ts []Turn) string {
		s := ""
		for _, t := range ts {
			s += t.ID + " "
		}
		return s
	}
	var snaps [][]Turn
	var want []string
	var ts []Turn
	for i := range 40 {
		ts = appendTurn(ts, turn(fmt.Sprint(i)))
		snaps = append(snaps, ts)
		want = append(want, ids(ts))
	}
	// Branch from old snapshots, some twice from the same base: the first
	// may extend in place, every later one must copy.
	for _, base := range []int{3, 3, 17, 39, 39, 0} {
		b := appendTurn(snaps[base], turn(fmt.Sprintf("b%d", base)))
		snaps = append(snaps, b)
		want = append(want, ids(b))
	}
	for i, s := range snaps {
		if got := ids(s); got != want[i] {
			t.Fatalf("snapshot %d changed after later appends:\n got %s\nwant %s", i, got, want[i])
		}
	}
	// A foreign array with spare capacity is never written into.
	foreign := make([]Turn, 1, 4)
	foreign[0] = turn("f")
	next := appendTurn(foreign, turn("g"))
	if &next[0] == &foreign[0] || foreign[:2][1].ID != "" {
		t.Fatal("appendTurn extended an array it did not allocate")
	}
}

// TestAppendTurnAmortized checks the point of the table: a chat of n turns
// grown one at a time allocates O(log n) arrays, not n.
func TestAppendTurnAmortized(t *testing.T) {
	var ts []Turn
	arrays := 0
	for i := range 10_000 {
		before := ts
		ts = appendTurn(ts, Turn{ID: fmt.Sprint(i)})
		if len(before) == 0 || &ts[0] != &before[0] {
			arrays++
		}
	}
	if arrays > 20 {
		t.Fatalf("10k appends allocated %d arrays, want O(log n)", arrays)
	}
}

// TestAppendTurnTableForgets checks that the ownership table holds no
// array alive and drops its entry once the array is gone.
func TestAppendTurnTableForgets(t *testing.T) {
	ts := appendTurn(nil, Turn{ID: "x"})
	wp := weak.Make(&ts[0])
	ts = nil
	// Cleanups run on their own goroutine after a collection: give it a
	// bounded number of collections and yields to get there.
	for range 100 {
		runtime.GC()
		runtime.Gosched()
		turnArrays.mu.Lock()
		_, held := turnArrays.committed[wp]
		turnArrays.mu.Unlock()
		if !held && wp.Value() == nil {
			return
		}
	}
	t.Fatal("the turn table kept an entry (or the array) after the array became unreachable")
}
