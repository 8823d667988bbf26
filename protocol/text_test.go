package protocol

import (
	"encoding/json"
	"fmt"
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

// textOf is the content a Text built from these deltas must hold.
func textOf(parts ...string) string { return strings.Join(parts, "") }

// pattern returns n bytes that differ from chunk to chunk and within one,
// so a byte read from the wrong chunk or offset shows.
func pattern(tag byte, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = "0123456789abcdefghijklmnopqrstuvwxyz"[(i*7+i/textChunkSize)%36]
	}
	if n > 0 {
		b[0] = tag
	}
	return string(b)
}

// Branches taken after the text spans several chunks share the full chunks
// but must not write into the partial one, whichever wins the tail.
func TestTextBranchesAfterChunkBoundary(t *testing.T) {
	for _, baseLen := range []int{textChunkSize, textChunkSize + 1, 2*textChunkSize + 100, 3*textChunkSize - 1} {
		t.Run(fmt.Sprint(baseLen), func(t *testing.T) {
			prefix := pattern('P', baseLen)
			var base Text
			for i := 0; i < baseLen; i += 1000 {
				base = base.Append(prefix[i:min(i+1000, baseLen)])
			}
			left := base.Append("LEFT")
			right := base.Append("RIGHT")
			// Extend both far enough to cross the next chunk boundary.
			more := pattern('m', textChunkSize+10)
			left2 := left.Append(more)
			right2 := right.Append(more).Append("!")
			checks := []struct {
				name string
				got  Text
				want string
			}{
				{"base", base, prefix},
				{"left", left, textOf(prefix, "LEFT")},
				{"right", right, textOf(prefix, "RIGHT")},
				{"left2", left2, textOf(prefix, "LEFT", more)},
				{"right2", right2, textOf(prefix, "RIGHT", more, "!")},
			}
			for _, c := range checks {
				if c.got.Len() != len(c.want) || c.got.String() != c.want {
					t.Errorf("%s: len %d, want %d; content differs: %v", c.name, c.got.Len(), len(c.want), c.got.String() != c.want)
				}
				if !c.got.Equal(NewText(c.want)) {
					t.Errorf("%s: not Equal to NewText of its content", c.name)
				}
			}
			if left.Equal(right) || left2.Equal(base) {
				t.Error("Equal ignores content")
			}
			// The loser of the tail copied only its partial last chunk: the
			// full chunks are the base's own.
			full := baseLen / textChunkSize
			lc, rc, bc := left.st.list.Load().chunks, right.st.list.Load().chunks, base.st.list.Load().chunks
			for i := range full {
				if &lc[i][0] != &bc[i][0] || &rc[i][0] != &bc[i][0] {
					t.Errorf("full chunk %d was copied", i)
				}
			}
		})
	}
}

// Run with -race: readers of older values while the owner streams across
// several chunk boundaries and readers of the newest values build the
// joined string.
func TestTextReadOldWhileOwnerAppendsRace(t *testing.T) {
	const delta = 16
	total := 5*textChunkSize + 123
	want := pattern('S', total)
	cur := NewText(want[:delta])
	old := []Text{cur}
	for i := delta; i < textChunkSize+delta*3; i += delta {
		cur = cur.Append(want[i:min(i+delta, total)])
	}
	old = append(old, cur) // spans two chunks, String builds the mirror
	stop := make(chan struct{})
	newest := make(chan Text, 64)
	var wg sync.WaitGroup
	for _, o := range old {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				if o.String() != want[:o.Len()] {
					t.Errorf("old value of length %d changed", o.Len())
					return
				}
				select {
				case <-stop:
					return
				default:
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for v := range newest {
			if v.String() != want[:v.Len()] {
				t.Errorf("value of length %d reads wrong bytes", v.Len())
			}
		}
	}()
	for i := cur.Len(); i < total; i += delta {
		cur = cur.Append(want[i:min(i+delta, total)])
		if i%(textChunkSize/4) < delta {
			newest <- cur
		}
	}
	close(newest)
	close(stop)
	wg.Wait()
	if cur.String() != want {
		t.Fatalf("final text differs (len %d, want %d)", cur.Len(), total)
	}
}

// Repeated String on a long value must not join the chunks again.
func TestTextStringCached(t *testing.T) {
	want := pattern('C', 3*textChunkSize+5)
	var v Text
	for i := 0; i < len(want); i += 100 {
		v = v.Append(want[i:min(i+100, len(want))])
	}
	if v.String() != want {
		t.Fatal("content differs")
	}
	if a := testing.AllocsPerRun(100, func() { _ = v.String() }); a != 0 {
		t.Errorf("String allocates %.1f times per call once built", a)
	}
	short := NewText(want[:textChunkSize+1])
	if short.String() != want[:textChunkSize+1] || short.String() != want[:textChunkSize+1] {
		t.Error("NewText of more than one chunk differs")
	}
	// Older values of the same store read from the same joined copy.
	older := v
	v = v.Append("tail")
	if v.String() != want+"tail" || older.String() != want {
		t.Error("older value changed after the store's joined copy grew")
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
	long := NewText(pattern('J', 2*textChunkSize+7))
	raw, err := json.Marshal(long)
	if err != nil {
		t.Fatal(err)
	}
	var back Text
	if err := json.Unmarshal(raw, &back); err != nil || !back.Equal(long) {
		t.Fatalf("multi-chunk round trip: err %v, equal %v", err, back.Equal(long))
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

// Slice reads any range of a long Text, across chunk boundaries and past
// its ends, the same with or without String's joined mirror.
func TestTextSlice(t *testing.T) {
	var want strings.Builder
	var txt Text
	for i := 0; want.Len() < 3*textChunkSize+100; i++ {
		piece := fmt.Sprintf("line %d of a long terminal run\r\n", i)
		want.WriteString(piece)
		txt = txt.Append(piece)
	}
	w := want.String()
	old := txt // an earlier snapshot reads only its own bytes
	txt = txt.Append("more")
	ranges := [][2]int{{0, 0}, {0, 10}, {5, textChunkSize}, {textChunkSize - 3, textChunkSize + 3},
		{10, 2*textChunkSize + 7}, {len(w) - 5, len(w) + 50}, {-4, 3}, {20, 10}}
	check := func(label string) {
		for _, r := range ranges {
			lo, hi := max(0, min(r[0], len(w))), min(r[1], len(w))
			exp := ""
			if lo < hi {
				exp = w[lo:hi]
			}
			if got := old.Slice(r[0], r[1]); got != exp {
				t.Errorf("%s: Slice(%d, %d) = %q…, want %q…", label, r[0], r[1], got[:min(len(got), 20)], exp[:min(len(exp), 20)])
			}
		}
	}
	check("no mirror")
	_ = txt.String() // builds the mirror past old's end
	check("with the mirror")
	if got := txt.Slice(len(w), len(w)+10); got != "more" {
		t.Errorf("the newer snapshot's end = %q, want \"more\"", got)
	}
}
