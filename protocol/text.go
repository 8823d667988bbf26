package protocol

import (
	"encoding/json"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Text is an immutable string that grows cheaply at the end. It holds the
// content of markdown and reasoning response parts, which chat/delta and
// chat/reasoning extend a few characters at a time: with a plain string every
// delta would copy the whole part, making a long answer quadratic.
//
// The bytes live in fixed-size chunks (textChunkSize, a small-object size
// class) rather than one contiguous buffer: growing a multi-megabyte buffer
// means fresh large-object allocations (page faults, zeroing, scavenging)
// and copying everything written so far, which made 100k deltas cost well
// over 10x of 10k. With chunks an append never moves bytes already written.
//
// Values are snapshots. Appending returns a new Text and never changes what
// an existing Text (held by the UI, or by another goroutine) reads. Two
// Texts appended from the same base — write-ahead reconciliation replaying
// pending actions over a new confirmed state does exactly that — never write
// into one chunk: the bytes up to a shared "committed" length are frozen,
// and only the one value whose length equals it may write after it. Every
// other value starts a new store, sharing the full (frozen) chunks and
// copying only the partial last one.
//
// The zero Text is empty and ready to use. Compare Texts with Equal or by
// their String; == and reflect.DeepEqual see the sharing bookkeeping.
type Text struct {
	st *textStore // nil for the empty Text
	n  int        // this value is st's bytes [0, n)
}

// textChunkSize is a small-object size class: chunks never take the
// large-object path of the allocator.
const (
	textChunkShift = 14
	textChunkSize  = 1 << textChunkShift
	textChunkMask  = textChunkSize - 1
)

// textStore is shared by every Text written through it. All of them are
// prefixes of the same content, so one joined copy (mirror) serves them all.
type textStore struct {
	// committed is the length of the longest Text handed out on this store.
	// Only a Text of exactly that length may write past it.
	committed atomic.Int64
	// list is replaced (never changed in place below its length) whenever a
	// chunk is added or the first chunk grows, so readers of an older Text
	// can load it while the owner appends.
	list  atomic.Pointer[textList]
	list0 textList // the first list, co-allocated with the store

	// mirror is the content joined into one buffer, built lazily by String
	// for Texts longer than one chunk; mu serializes extending it.
	mu     sync.Mutex
	mirror atomic.Pointer[textMirror]
}

// textMirror is a joined copy of a store's content: b[:n] is valid and
// frozen; the bytes after n are written (under the store's mu) before n is
// raised past them.
type textMirror struct {
	b []byte
	n atomic.Int64
}

// textList: chunk i holds bytes [i*textChunkSize, (i+1)*textChunkSize).
// Every chunk but the last is full; only the first may be shorter than
// textChunkSize, so short texts stay small.
type textList struct {
	chunks [][]byte
	one    [1][]byte // backing array for a single-chunk list
}

// NewText returns a Text holding s.
func NewText(s string) Text {
	if s == "" {
		return Text{}
	}
	return Text{}.Append(s)
}

// String returns the content. Texts of up to one chunk view the chunk's
// frozen bytes; longer ones view a joined copy kept on the store and
// extended only by what was appended since, so repeated calls — on this or
// any other Text of the store — are O(1) amortized.
func (t Text) String() string {
	if t.n == 0 {
		return ""
	}
	if t.n <= textChunkSize {
		l := t.st.list.Load()
		return unsafe.String(&l.chunks[0][0], t.n)
	}
	if m := t.st.mirror.Load(); m != nil && m.n.Load() >= int64(t.n) {
		return unsafe.String(&m.b[0], t.n)
	}
	return t.st.extendMirror(t.n)
}

// extendMirror joins the content up to n into the store's mirror. Bytes
// below the mirror's published length are never rewritten, so readers of
// it never race with the extension.
func (st *textStore) extendMirror(n int) string {
	st.mu.Lock()
	defer st.mu.Unlock()
	m := st.mirror.Load()
	have := 0
	if m != nil {
		have = int(m.n.Load())
		if have >= n {
			return unsafe.String(&m.b[0], n)
		}
	}
	if m == nil || len(m.b) < n {
		nm := &textMirror{b: make([]byte, n+n/2)}
		if m != nil {
			copy(nm.b, m.b[:have])
		}
		m = nm
		st.copyRange(m.b[have:n], have, n)
		m.n.Store(int64(n))
		st.mirror.Store(m)
	} else {
		st.copyRange(m.b[have:n], have, n)
		m.n.Store(int64(n))
	}
	return unsafe.String(&m.b[0], n)
}

// copyRange copies the content [from, to) into dst.
func (st *textStore) copyRange(dst []byte, from, to int) {
	chunks := st.list.Load().chunks
	for from < to {
		c := chunks[from>>textChunkShift]
		off := from & textChunkMask
		w := copy(dst, c[off:min(len(c), off+to-from)])
		dst = dst[w:]
		from += w
	}
}

// Len returns the length in bytes.
func (t Text) Len() int { return t.n }

// Slice returns bytes [from, to) of the content, clamped to it, without
// joining the whole (String's mirror doubles the memory of a long text,
// which a reader that wants only the new end, like a terminal pane, need
// not pay). A range inside one chunk is a view of it; a longer one is a
// copy, or a view of the mirror when String has built it that far.
func (t Text) Slice(from, to int) string {
	to = min(to, t.n)
	from = max(0, min(from, to))
	if from == to {
		return ""
	}
	if i := from >> textChunkShift; (to-1)>>textChunkShift == i {
		c := t.st.list.Load().chunks[i]
		return unsafe.String(&c[from&textChunkMask], to-from)
	}
	if m := t.st.mirror.Load(); m != nil && m.n.Load() >= int64(to) {
		return unsafe.String(&m.b[from], to-from)
	}
	b := make([]byte, to-from)
	t.st.copyRange(b, from, to)
	return unsafe.String(&b[0], len(b))
}

// Equal reports whether t and u hold the same content.
func (t Text) Equal(u Text) bool {
	if t.n != u.n {
		return false
	}
	if t.n == 0 || t.st == u.st {
		return true
	}
	// Chunk boundaries sit at the same offsets in every Text.
	a, b := t.st.list.Load().chunks, u.st.list.Load().chunks
	for i := 0; i<<textChunkShift < t.n; i++ {
		end := min(t.n-i<<textChunkShift, textChunkSize)
		if string(a[i][:end]) != string(b[i][:end]) {
			return false
		}
	}
	return true
}

// Append returns t followed by s. t itself is unchanged. In the common
// streaming case (t is the newest Text on its store) it costs O(len(s))
// amortized; otherwise it copies the chunk list and t's partial last chunk,
// never the whole text.
func (t Text) Append(s string) Text {
	if s == "" {
		return t
	}
	n := t.n
	end := n + len(s)
	if st := t.st; st != nil && st.committed.CompareAndSwap(int64(n), int64(end)) {
		// This value owned the tail; the CAS moved ownership to the result.
		st.write(n, s)
		return Text{st: st, n: end}
	}
	st := t.branch(end)
	st.write(n, s)
	st.committed.Store(int64(end))
	return Text{st: st, n: end}
}

// branch returns a new store holding t's content, with room for need bytes
// in its first chunk when that is the last one.
func (t Text) branch(need int) *textStore {
	st := new(textStore)
	full := t.n >> textChunkShift
	partial := t.n & textChunkMask
	var src [][]byte
	if t.st != nil {
		src = t.st.list.Load().chunks
	}
	if full == 0 {
		c := make([]byte, firstChunkCap(need))
		copy(c, src0(src)[:partial])
		st.list0.one[0] = c
		st.list0.chunks = st.list0.one[:]
		st.list.Store(&st.list0)
		return st
	}
	// Full chunks are frozen for good: share them.
	chunks := make([][]byte, full, full+2)
	copy(chunks, src[:full])
	if partial > 0 {
		c := make([]byte, textChunkSize)
		copy(c, src[full][:partial])
		chunks = append(chunks, c)
	}
	st.list0.chunks = chunks
	st.list.Store(&st.list0)
	return st
}

func src0(src [][]byte) []byte {
	if len(src) == 0 {
		return nil
	}
	return src[0]
}

// write stores s at offset n. Only the owner of the tail calls it.
func (st *textStore) write(n int, s string) {
	l := st.list.Load()
	if i, off := n>>textChunkShift, n&textChunkMask; i < len(l.chunks) && off+len(s) <= len(l.chunks[i]) {
		copy(l.chunks[i][off:], s)
		return
	}
	for len(s) > 0 {
		i, off := n>>textChunkShift, n&textChunkMask
		switch {
		case i == len(l.chunks):
			// Appending in place writes past every published list's length.
			l = &textList{chunks: append(l.chunks, make([]byte, textChunkSize))}
			st.list.Store(l)
		case off+len(s) > len(l.chunks[i]) && len(l.chunks[i]) < textChunkSize:
			// Only the first chunk grows; readers may hold the old list,
			// so publish a new one rather than replacing in place.
			c := make([]byte, firstChunkCap(off+len(s)))
			copy(c, l.chunks[i][:off])
			nl := &textList{}
			nl.one[0] = c
			nl.chunks = nl.one[:]
			l = nl
			st.list.Store(l)
		}
		w := copy(l.chunks[i][off:], s)
		s = s[w:]
		n += w
	}
}

// firstChunkCap leaves room for further deltas so appends amortize, up to
// one full chunk.
func firstChunkCap(need int) int {
	c := 64
	for c < need && c < textChunkSize {
		c *= 2
	}
	return c
}

// MarshalJSON encodes the Text as a JSON string.
func (t Text) MarshalJSON() ([]byte, error) { return json.Marshal(t.String()) }

// UnmarshalJSON decodes a JSON string.
func (t *Text) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*t = NewText(s)
	return nil
}
