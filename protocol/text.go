package protocol

import (
	"encoding/json"
	"sync/atomic"
	"unsafe"
)

// Text is an immutable string that grows cheaply at the end. It holds the
// content of markdown and reasoning response parts, which chat/delta and
// chat/reasoning extend a few characters at a time: with a plain string every
// delta would copy the whole part, making a long answer quadratic.
//
// Values are snapshots. Appending returns a new Text and never changes what
// an existing Text (held by the UI, or by another goroutine) reads. Two
// Texts appended from the same base — write-ahead reconciliation replaying
// pending actions over a new confirmed state does exactly that — never write
// into one backing array: the bytes up to a shared "committed" length are
// frozen, and only the one value whose length equals it may claim the free
// capacity after it. Every other value copies first.
//
// The zero Text is empty and ready to use. Compare Texts with Equal or by
// their String; == and reflect.DeepEqual see the sharing bookkeeping.
type Text struct {
	buf []byte // buf[:len(buf)] is frozen; bytes past len may belong to a later Text
	// committed is shared by every Text on buf's backing array: the length of
	// the longest Text handed out on it. Only a Text of exactly that length
	// may extend the array in place.
	committed *atomic.Int64
}

// NewText returns a Text holding s.
func NewText(s string) Text {
	if s == "" {
		return Text{}
	}
	b := make([]byte, len(s), growCap(0, len(s)))
	copy(b, s)
	c := new(atomic.Int64)
	c.Store(int64(len(b)))
	return Text{buf: b, committed: c}
}

// String returns the content. It does not copy: the bytes it views are
// frozen for good.
func (t Text) String() string {
	if len(t.buf) == 0 {
		return ""
	}
	return unsafe.String(&t.buf[0], len(t.buf))
}

// Len returns the length in bytes.
func (t Text) Len() int { return len(t.buf) }

// Equal reports whether t and u hold the same content.
func (t Text) Equal(u Text) bool { return t.String() == u.String() }

// Append returns t followed by s. t itself is unchanged. In the common
// streaming case (t is the newest Text on its buffer) it costs O(len(s))
// amortized; otherwise it copies t once into a fresh buffer.
func (t Text) Append(s string) Text {
	if s == "" {
		return t
	}
	n := len(t.buf)
	if t.committed != nil && cap(t.buf)-n >= len(s) &&
		t.committed.CompareAndSwap(int64(n), int64(n+len(s))) {
		// This value owned the tail; the CAS moved ownership to the result.
		return Text{buf: append(t.buf, s...), committed: t.committed}
	}
	b := make([]byte, n+len(s), growCap(n, len(s)))
	copy(b, t.buf)
	copy(b[n:], s)
	c := new(atomic.Int64)
	c.Store(int64(len(b)))
	return Text{buf: b, committed: c}
}

// growCap leaves room for further deltas so appends amortize.
func growCap(n, extra int) int {
	need := n + extra
	if need < 64 {
		return 64
	}
	return need + need/2
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
