package wiretest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"sort"
	"strings"
)

// JSONDiff compares two JSON documents structurally: key order is free,
// key presence and values are strict (null is not absent). It returns one
// line per difference, or "" when they match.
func JSONDiff(want, got []byte) string {
	var w, g any
	if err := DecodeNumbers(want, &w); err != nil {
		return "want is not JSON: " + err.Error()
	}
	if err := DecodeNumbers(got, &g); err != nil {
		return "got is not JSON: " + err.Error()
	}
	var lines []string
	diffValue("$", w, g, &lines)
	return strings.Join(lines, "\n")
}

// DecodeNumbers decodes b into v keeping numbers as json.Number, so that
// they compare by value without float64 rounding.
func DecodeNumbers(b []byte, v *any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode(v)
}

func diffValue(path string, w, g any, lines *[]string) {
	switch wv := w.(type) {
	case map[string]any:
		gv, ok := g.(map[string]any)
		if !ok {
			*lines = append(*lines, fmt.Sprintf("  %s: want object, got %s", path, short(g)))
			return
		}
		keys := map[string]bool{}
		for k := range wv {
			keys[k] = true
		}
		for k := range gv {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			wc, inW := wv[k]
			gc, inG := gv[k]
			switch {
			case !inG:
				*lines = append(*lines, fmt.Sprintf("- %s.%s: missing (want %s)", path, k, short(wc)))
			case !inW:
				*lines = append(*lines, fmt.Sprintf("+ %s.%s: unexpected key (got %s)", path, k, short(gc)))
			default:
				diffValue(path+"."+k, wc, gc, lines)
			}
		}
	case []any:
		gv, ok := g.([]any)
		if !ok {
			*lines = append(*lines, fmt.Sprintf("  %s: want array, got %s", path, short(g)))
			return
		}
		if len(wv) != len(gv) {
			*lines = append(*lines, fmt.Sprintf("  %s: want %d elements, got %d", path, len(wv), len(gv)))
		}
		for i := 0; i < len(wv) && i < len(gv); i++ {
			diffValue(fmt.Sprintf("%s[%d]", path, i), wv[i], gv[i], lines)
		}
	case json.Number:
		// Numbers compare by value, exactly: 0, 0.0 and 0e0 are one number
		// in every JSON implementation the spec's harness uses, so a fixture
		// spelling a number differently from Go's encoder is not a failure;
		// big.Rat keeps integers past 2^53 distinct where float64 would not.
		gv, ok := g.(json.Number)
		if !ok || !sameNumber(wv, gv) {
			*lines = append(*lines, fmt.Sprintf("  %s: want %s, got %s", path, short(w), short(g)))
		}
	default:
		if !reflect.DeepEqual(w, g) {
			*lines = append(*lines, fmt.Sprintf("  %s: want %s, got %s", path, short(w), short(g)))
		}
	}
}

func sameNumber(a, b json.Number) bool {
	x, okX := new(big.Rat).SetString(string(a))
	y, okY := new(big.Rat).SetString(string(b))
	if !okX || !okY {
		return a == b
	}
	return x.Cmp(y) == 0
}

func short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 120 {
		return string(b[:117]) + "..."
	}
	return string(b)
}

// WithoutNulls re-encodes raw with every null object member removed.
func WithoutNulls(raw []byte) ([]byte, error) {
	var v any
	if err := DecodeNumbers(raw, &v); err != nil {
		return nil, err
	}
	return json.Marshal(DropNulls(v))
}

// DropNulls removes null object members at every depth of a decoded
// value (array elements stay): the fixtures spell absent as null.
func DropNulls(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, c := range t {
			if c != nil {
				out[k] = DropNulls(c)
			}
		}
		return out
	case []any:
		for i := range t {
			t[i] = DropNulls(t[i])
		}
	}
	return v
}
