// Package wirescan is the JSON scanning the generated union decoders of
// every AHP wire version share (protocol and protocol/ahp10): reading a
// union's discriminator and a plain object's members in one pass, with a
// fallback to encoding/json for anything unusual so results never differ
// from it. The generated files call it through small unexported wrappers.
package wirescan

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// Generated union decoders used to call json.Unmarshal twice on their bytes:
// once into a peek struct to read the discriminator, once into the variant.
// Unions nest (response part → tool call state → result content), so a
// snapshot was validated and scanned several times per level. ScanMembers
// replaces the peek for ordinary input; anything unusual falls back to the
// peek through encoding/json, so the result is always the one encoding/json
// would give.

// ScanMembers finds the top-level members named keys in the JSON object b
// and stores each one's raw value (the last one, as encoding/json keeps the
// last of duplicate keys) in the out slot of the same index; a member that is
// absent leaves its slot nil. Keys match ASCII case-insensitively, as
// encoding/json matches struct fields; keys must be ASCII.
//
// It reports false when it cannot answer exactly what encoding/json would:
// b is not an object, a top-level key is escaped or not ASCII (it could fold
// to a key, e.g. the Kelvin sign to "k"), or the object's outline is broken.
// Nested values are skipped by bracket and string structure only, without
// validation: callers must decode b with encoding/json afterwards (which
// validates) or check json.Valid before trusting it.
func ScanMembers(b []byte, out []json.RawMessage, keys ...string) bool {
	clear(out)
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return skipSpace(b, i+1) == len(b)
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return false
		}
		// The key: plain printable ASCII only; anything else takes the exact path.
		ks := i + 1
		i = ks
		for i < len(b) && b[i] != '"' {
			if c := b[i]; c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
				return false
			}
			i++
		}
		if i >= len(b) {
			return false
		}
		key := b[ks:i]
		i = skipSpace(b, i+1)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		vs := skipSpace(b, i+1)
		ve, ok := skipValue(b, vs)
		if !ok {
			return false
		}
		for k, want := range keys {
			if asciiEqualFold(key, want) {
				out[k] = b[vs:ve:ve]
				break
			}
		}
		i = skipSpace(b, ve)
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return skipSpace(b, i+1) == len(b)
		default:
			return false
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// skipValue returns the index just past the JSON value starting at b[i]. It
// follows strings and bracket depth only; it does not check that brackets
// pair up by kind or that literals are well formed. It never recurses, so
// deep nesting cannot exhaust the stack.
func skipValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return i, false
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				var ok bool
				if i, ok = skipString(b, i); !ok {
					return i, false
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, true
				}
			}
			i++
		}
		return i, false
	case ',', '}', ']', ':':
		return i, false
	}
	// A literal: number, true, false or null.
	s := i
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return i, i > s
		case '"', '{', '[', ':':
			return i, false
		}
		i++
	}
	return i, i > s
}

// skipString returns the index just past the string whose opening quote is
// at b[i].
func skipString(b []byte, i int) (int, bool) {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++ // the escaped byte cannot end the string
		case '"':
			return i + 1, true
		}
	}
	return i, false
}

// asciiEqualFold reports whether key equals want ignoring ASCII case, the
// way encoding/json folds field names made of ASCII letters.
func asciiEqualFold(key []byte, want string) bool {
	if len(key) != len(want) {
		return false
	}
	for i := range len(key) {
		a, b := key[i], want[i]
		if a == b {
			continue
		}
		if 'A' <= a && a <= 'Z' {
			a += 'a' - 'A'
		}
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		if a != b {
			return false
		}
	}
	return true
}

// PlainJSONString returns the text of the JSON string literal raw when it
// needs no unescaping: quoted at both ends, no backslash, quote or control
// byte inside, valid UTF-8. Such a literal is valid JSON and encoding/json
// would decode it to exactly these bytes. ok is false otherwise; the caller
// then decodes it with encoding/json.
func PlainJSONString(raw []byte) (s string, ok bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	in := raw[1 : len(raw)-1]
	ascii := true
	for _, c := range in {
		if c == '\\' || c == '"' || c < 0x20 {
			return "", false
		}
		if c >= utf8.RuneSelf {
			ascii = false
		}
	}
	if !ascii && !utf8.Valid(in) {
		return "", false // encoding/json replaces bad bytes with U+FFFD
	}
	return string(in), true
}

// PlainMarkdownObject returns the text of b when b is exactly
// `{"markdown":"..."}` (any whitespace, key in any ASCII case as
// encoding/json matches it) with a plain string value, which is valid JSON
// by construction. ok is false for every other shape.
func PlainMarkdownObject(b []byte) (s string, ok bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return "", false
	}
	i = skipSpace(b, i+1)
	const key = `"markdown"`
	if len(b)-i < len(key) || !asciiEqualFold(b[i:i+len(key)], key) {
		return "", false
	}
	i = skipSpace(b, i+len(key))
	if i >= len(b) || b[i] != ':' {
		return "", false
	}
	vs := skipSpace(b, i+1)
	if vs >= len(b) || b[vs] != '"' {
		return "", false
	}
	ve, ok := skipString(b, vs)
	if !ok {
		return "", false
	}
	if i = skipSpace(b, ve); i >= len(b) || b[i] != '}' || skipSpace(b, i+1) != len(b) {
		return "", false
	}
	return PlainJSONString(b[vs:ve])
}

// UnionError wraps the error of decoding the variant chosen by d. When b is
// not even valid JSON, the error is worded as the old two-pass decoder
// worded it (its first pass failed before a variant was chosen), so the
// faster discriminator scan changes no error a caller sees.
func UnionError(union, d string, b []byte, err error) error {
	if !json.Valid(b) {
		return fmt.Errorf("decode %s: %w", union, err)
	}
	return fmt.Errorf("decode %s %q: %w", union, d, err)
}

// ScanPlainObject calls set with each member of the JSON object b, in order:
// the raw key (between its quotes, neither unescaped nor case-folded) and
// the raw value (never empty). It reports false when b is not an object
// with a sound outline or when set refuses a member; the caller then decodes
// b with encoding/json instead. Values are only skipped over here, so set
// must accept a value only after checking it is valid (PlainJSONString, or
// a union decoder that succeeded), and must accept only its exact ASCII
// field names: an escaped, differently cased or invalid key is refused and
// goes through encoding/json's matching instead. Then an accepted b is
// valid JSON.
func ScanPlainObject(b []byte, set func(key, raw []byte) bool) bool {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return skipSpace(b, i+1) == len(b)
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return false
		}
		ke, ok := skipString(b, i)
		if !ok {
			return false
		}
		key := b[i+1 : ke-1]
		i = skipSpace(b, ke)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		vs := skipSpace(b, i+1)
		ve, ok := skipValue(b, vs)
		if !ok || ve <= vs || !set(key, b[vs:ve:ve]) {
			return false
		}
		i = skipSpace(b, ve)
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return skipSpace(b, i+1) == len(b)
		default:
			return false
		}
	}
}

// JSONString decodes a JSON string literal: directly when it needs no
// unescaping, through encoding/json (which validates it) otherwise. ok is
// false for anything but a valid string literal, null included: a null
// leaves a Go string unchanged in encoding/json, which the caller's
// fallback reproduces.
func JSONString(raw []byte) (string, bool) {
	if s, ok := PlainJSONString(raw); ok {
		return s, true
	}
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// JSONBool decodes exactly `true` or `false`.
func JSONBool(raw []byte) (v, ok bool) {
	switch string(raw) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// ScanArray calls elem with each raw element (never empty) of the JSON
// array raw, in order. Like ScanPlainObject it only skips over values:
// elem must accept an element only after checking it is valid. It reports
// false on a broken outline or the first refused element.
func ScanArray(raw []byte, elem func(e []byte) bool) bool {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return false
	}
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == ']' {
		return skipSpace(raw, i+1) == len(raw)
	}
	for {
		ve, ok := skipValue(raw, i)
		if !ok || ve <= i || !elem(raw[i:ve:ve]) {
			return false
		}
		i = skipSpace(raw, ve)
		if i >= len(raw) {
			return false
		}
		switch raw[i] {
		case ',':
			i = skipSpace(raw, i+1)
		case ']':
			return skipSpace(raw, i+1) == len(raw)
		default:
			return false
		}
	}
}
