package protocol

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
)

func TestTextAppendKeepsSnapshots(t *testing.T) {
	var z Text
	if z.String() != "" || z.Len() != 0 {
		t.Fatalf("zero Text = %q", z.String())
	}
	a := NewText("hello")
	b := a.Append(", world")
	c := b.Append("!")
	if a.String() != "hello" || b.String() != "hello, world" || c.String() != "hello, world!" {
		t.Fatalf("snapshots changed: %q %q %q", a, b, c)
	}
	if c.Len() != len("hello, world!") {
		t.Fatalf("Len = %d", c.Len())
	}
	if !c.Equal(NewText("hello, world!")) || c.Equal(b) {
		t.Fatal("Equal compares content")
	}
	if z.Append("x").String() != "x" {
		t.Fatal("zero Text does not append")
	}
}

// Two branches appended from one base — what write-ahead replay does —
// must not see each other's bytes.
func TestTextBranchesDoNotShareTail(t *testing.T) {
	base := NewText("base:")
	base = base.Append("0") // base now owns its buffer's tail
	left := base.Append("LEFT")
	right := base.Append("RIGHT")
	if left.String() != "base:0LEFT" || right.String() != "base:0RIGHT" || base.String() != "base:0" {
		t.Fatalf("branches clobbered each other: base=%q left=%q right=%q", base, left, right)
	}
	// The loser of the race for the tail copies; extending either further
	// still leaves the other alone.
	left2 := left.Append("+l")
	right2 := right.Append("+r")
	if left2.String() != "base:0LEFT+l" || right2.String() != "base:0RIGHT+r" || left.String() != "base:0LEFT" {
		t.Fatalf("second generation clobbered: %q %q %q", left, left2, right2)
	}
}

// Run with -race: concurrent branches from one base, and readers of older
// snapshots while appends go on.
func TestTextConcurrentBranchesRace(t *testing.T) {
	base := NewText("shared prefix ")
	const branches, deltas = 8, 200
	results := make([]Text, branches)
	var wg sync.WaitGroup
	for i := range branches {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cur := base
			tag := string(rune('a' + i))
			for range deltas {
				cur = cur.Append(tag)
				_ = base.String() // read an older snapshot while others append
			}
			results[i] = cur
		}()
	}
	wg.Wait()
	if base.String() != "shared prefix " {
		t.Fatalf("base changed: %q", base)
	}
	for i, r := range results {
		want := "shared prefix " + strings.Repeat(string(rune('a'+i)), deltas)
		if r.String() != want {
			t.Fatalf("branch %d = %q…, want %q…", i, r.String()[:min(40, r.Len())], want[:40])
		}
	}
}

func TestTextJSON(t *testing.T) {
	var part MarkdownResponsePart
	in := `{"kind":"markdown","id":"p1","content":"# hi \u2603"}`
	if err := json.Unmarshal([]byte(in), &part); err != nil {
		t.Fatal(err)
	}
	part.Content = part.Content.Append(" more")
	out, err := json.Marshal(part)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"kind":"markdown","id":"p1","content":"# hi ☃ more"}`; string(out) != want {
		t.Fatalf("got %s, want %s", out, want)
	}
}

// BenchmarkTextAppendStream streams 20,000 five-byte deltas into one part
// and reads it back after each, like the UI rendering a chat/delta stream.
// Budget: linear — well under 100 ns and one amortized allocation per
// delta; a quadratic Append (copying the whole text) would cost ~50 µs per
// delta at the end of this stream.
func BenchmarkTextAppendStream(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		t := NewText("")
		for range 20000 {
			t = t.Append("delta")
			_ = t.String()
		}
		if t.Len() != 100000 {
			b.Fatal(t.Len())
		}
	}
}
