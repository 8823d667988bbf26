package convert

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"

	"github.com/ahptui/ahptui/protocol/internal/wirescan"
)

// object is a JSON object opened for editing: its members in order, each
// with its raw key and raw value. Members the conversion does not touch are
// written back byte for byte, so a host's key order, number spelling and
// unknown members survive the conversion.
type object struct {
	members []member
	dirty   bool
}

type member struct {
	rawKey []byte // between the quotes, as written
	key    string // unescaped
	val    json.RawMessage
}

// openObject splits raw into its members; ok is false when raw is not a
// JSON object with a sound outline. Values are not validated here: every
// public entry checks json.Valid before a conversion starts.
func openObject(raw json.RawMessage) (*object, bool) {
	o := &object{}
	ok := wirescan.ScanPlainObject(raw, func(key, val []byte) bool {
		k := string(key)
		if bytes.IndexByte(key, '\\') >= 0 {
			var s string
			q := make([]byte, 0, len(key)+2)
			q = append(append(append(q, '"'), key...), '"')
			if json.Unmarshal(q, &s) != nil {
				return false
			}
			k = s
		}
		o.members = append(o.members, member{rawKey: key, key: k, val: val})
		return true
	})
	if !ok {
		return nil, false
	}
	return o, true
}

// index is the position of the last member named key (encoding/json keeps
// the last of duplicate keys), or -1.
func (o *object) index(key string) int {
	for i := len(o.members) - 1; i >= 0; i-- {
		if o.members[i].key == key {
			return i
		}
	}
	return -1
}

func (o *object) get(key string) (json.RawMessage, bool) {
	if i := o.index(key); i >= 0 {
		return o.members[i].val, true
	}
	return nil, false
}

// set replaces the value of key, or appends the member when it is absent.
func (o *object) set(key string, val json.RawMessage) {
	o.dirty = true
	if i := o.index(key); i >= 0 {
		o.members[i].val = val
		return
	}
	o.members = append(o.members, member{rawKey: []byte(key), key: key, val: val})
}

// del removes every member named key.
func (o *object) del(key string) {
	n := len(o.members)
	o.members = slices.DeleteFunc(o.members, func(m member) bool { return m.key == key })
	if len(o.members) != n {
		o.dirty = true
	}
}

// rename gives the member old the name new (and value val), in old's place,
// dropping any member already named new.
func (o *object) rename(old, new string, val json.RawMessage) {
	i := o.index(old)
	if i < 0 {
		return
	}
	o.del(new)
	i = o.index(old)
	o.members[i] = member{rawKey: []byte(new), key: new, val: val}
	o.dirty = true
}

// edit applies f to the value of key when present; a value f returns
// unchanged (same bytes) leaves the object clean.
func (o *object) edit(key string, f conv) error {
	if i := o.index(key); i >= 0 {
		return o.editAt(i, f)
	}
	return nil
}

func (o *object) editAt(i int, f conv) error {
	out, err := f(o.members[i].val)
	if err != nil {
		return err
	}
	if !same(out, o.members[i].val) {
		o.members[i].val = out
		o.dirty = true
	}
	return nil
}

// bytes encodes the object; orig is returned as is when nothing changed.
func (o *object) bytes(orig json.RawMessage) json.RawMessage {
	if !o.dirty {
		return orig
	}
	n := 2
	for _, m := range o.members {
		n += len(m.rawKey) + len(m.val) + 4
	}
	out := make([]byte, 0, n)
	out = append(out, '{')
	for i, m := range o.members {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, '"')
		out = append(out, m.rawKey...)
		out = append(out, '"', ':')
		out = append(out, m.val...)
	}
	return append(out, '}')
}

// conv converts one JSON value. It returns its input (the same slice) when
// the value needs no change, so callers can tell "unchanged" without
// comparing bytes.
type conv func(json.RawMessage) (json.RawMessage, error)

// same reports whether a and b are the same slice (not merely equal bytes).
func same(a, b json.RawMessage) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// editObject opens raw as an object, lets f edit it and encodes the result.
// A value that is not an object is returned unchanged: the typed decoder
// after the conversion reports it, with a better message than ours.
func editObject(raw json.RawMessage, f func(o *object) error) (json.RawMessage, error) {
	o, ok := openObject(raw)
	if !ok {
		return raw, nil
	}
	if err := f(o); err != nil {
		return nil, err
	}
	return o.bytes(raw), nil
}

// fields is a conv that applies a conv to each named member of an object.
func fields(fs map[string]conv) conv {
	return func(raw json.RawMessage) (json.RawMessage, error) {
		return editObject(raw, func(o *object) error {
			for i := range o.members {
				if f, ok := fs[o.members[i].key]; ok {
					if err := o.editAt(i, f); err != nil {
						return err
					}
				}
			}
			return nil
		})
	}
}

// errLeaveOut, from the conv given to each, leaves the element out of the
// array.
var errLeaveOut = errors.New("leave the element out")

// each is a conv that applies f to every element of an array. null and
// non-arrays pass unchanged.
func each(f conv) conv {
	return func(raw json.RawMessage) (json.RawMessage, error) {
		var elems []json.RawMessage
		changed := false
		var err error
		ok := wirescan.ScanArray(raw, func(e []byte) bool {
			out, ferr := f(e)
			if errors.Is(ferr, errLeaveOut) {
				changed = true
				return true
			}
			if ferr != nil {
				err = ferr
				return false
			}
			if !same(out, e) {
				changed = true
			}
			elems = append(elems, out)
			return true
		})
		if err != nil {
			return nil, err
		}
		if !ok || !changed {
			return raw, nil
		}
		return joinArray(elems), nil
	}
}

func joinArray(elems []json.RawMessage) json.RawMessage {
	n := 2
	for _, e := range elems {
		n += len(e) + 1
	}
	out := make([]byte, 0, n)
	out = append(out, '[')
	for i, e := range elems {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, e...)
	}
	return append(out, ']')
}

// discriminator returns the text of the string member key of the object
// raw ("type", "kind"); ok is false when raw is not an object or the member
// is absent or not a string. For plain text the bytes are a window into raw
// (no allocation: the streaming hot path goes through here); escaped keys or
// values are decoded by encoding/json.
func discriminator(raw json.RawMessage, key string) ([]byte, bool) {
	var out [1]json.RawMessage
	if wirescan.ScanMembers(raw, out[:], key) {
		v := out[0]
		if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' && bytes.IndexByte(v[1:len(v)-1], '\\') < 0 {
			return v[1 : len(v)-1], true
		}
		if v == nil {
			return nil, false
		}
		s, ok := wirescan.JSONString(v)
		return []byte(s), ok
	}
	// An escaped or non-ASCII key, or not an object: ask encoding/json.
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil, false
	}
	v, ok := m[key]
	if !ok {
		return nil, false
	}
	s, ok := wirescan.JSONString(v)
	return []byte(s), ok
}

// around is prefix + v + suffix, in one allocation.
func around(prefix string, v json.RawMessage, suffix string) json.RawMessage {
	out := make([]byte, 0, len(prefix)+len(v)+len(suffix))
	out = append(out, prefix...)
	out = append(out, v...)
	return append(out, suffix...)
}

// isNull reports whether raw is the JSON literal null (or empty).
func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}

// mustJSON encodes v; only values that always encode are passed.
func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic("convert: " + err.Error())
	}
	return b
}
