package views

import "testing"

// TestStartRequests: an echoed start is marked on its server while the
// server stays starting; the host moving it on (ready, gone) forgets it,
// and other servers, or an unechoed start, are never marked.
func TestStartRequests(t *testing.T) {
	rows := []MCPServerRow{{ID: "a", StateKind: "starting"}, {ID: "b", StateKind: "starting"}, {ID: "c", StateKind: "ready"}}
	var r StartRequests
	if got := r.Mark(rows); got[0].StartRequested || got[1].StartRequested {
		t.Fatalf("nothing echoed, yet marked: %+v", got)
	}
	r.Echoed("a")
	r.Echoed("c")
	r.Observe(rows)
	got := r.Mark(rows)
	if !got[0].StartRequested || got[1].StartRequested || got[2].StartRequested {
		t.Fatalf("marks %+v, want a only (c is ready, b not echoed)", got)
	}
	if rows[0].StartRequested {
		t.Fatal("Mark changed the rows it was given")
	}
	if r["c"] {
		t.Fatal("a server the host moved on (ready) is still remembered")
	}
	moved := []MCPServerRow{{ID: "a", StateKind: "ready"}, {ID: "b", StateKind: "starting"}}
	r.Observe(moved)
	if len(r) != 0 || r.Mark(moved)[0].StartRequested {
		t.Fatalf("after a left starting: %v", r)
	}
	r.Echoed("gone")
	if r.Observe(moved); len(r) != 0 {
		t.Fatalf("a server no longer listed is remembered: %v", r)
	}
}
