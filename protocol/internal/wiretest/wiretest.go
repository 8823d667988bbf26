// Package wiretest holds what the tests of every wire version share: the
// checks each generated set of types must pass (protocol for 1.0,
// protocol/ahp06 for 0.6), JSON compared by value, and the reading and
// judging of the conformance fixtures (fixtures.go) for the 1.0 run in
// protocol and the 0.6 run in protocol/convert. Test-only; it imports
// nothing of ahptui, so package protocol's own tests can use it.
package wiretest

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

// UnknownUnionVariantsKept: every generated union (name → discriminator
// property) decodes a discriminator it does not know into UnknownName,
// reports it from Kind(), and re-encodes the input byte for byte.
func UnknownUnionVariantsKept(t *testing.T, unions map[string]string, newValue func(string) (any, bool)) {
	t.Helper()
	if len(unions) < 20 {
		t.Fatalf("only %d unions generated; the generator lost some", len(unions))
	}
	for name, disc := range unions {
		t.Run(name, func(t *testing.T) {
			in := fmt.Sprintf(`{"%s":"future/unknown-%s","extra":{"nested":[1,2.5,null]},"big":1700000000000}`, disc, name)
			v, ok := newValue(name)
			if !ok {
				t.Fatalf("no Go type for union %s", name)
			}
			if err := json.Unmarshal([]byte(in), v); err != nil {
				t.Fatalf("decode unknown %s: %v", name, err)
			}
			variant := reflect.ValueOf(v).Elem().FieldByName("Variant").Interface()
			if got := reflect.TypeOf(variant).Name(); got != "Unknown"+name {
				t.Fatalf("unknown %s decoded as %s, want Unknown%s", name, got, name)
			}
			if k := reflect.ValueOf(v).Elem().Interface().(interface{ Kind() string }).Kind(); k != "future/unknown-"+name {
				t.Errorf("Kind() = %q, want the unknown discriminator", k)
			}
			out, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != in {
				t.Errorf("unknown %s re-encoded as\n%s\nwant byte-exact\n%s", name, out, in)
			}
		})
	}
}

// StringEnumsOpen: every generated string enum (a named string type among
// the wire types) keeps a value it does not know, as @nonexhaustive enums
// must (DELTA §11). It returns how many enums it checked.
func StringEnumsOpen(t *testing.T, wireTypes map[string]func() any) int {
	t.Helper()
	n := 0
	for name, mk := range wireTypes {
		v := mk()
		rt := reflect.TypeOf(v).Elem()
		if rt.Kind() != reflect.String || rt.Name() == "string" {
			continue
		}
		n++
		in := `"x-future-` + name + `"`
		if err := json.Unmarshal([]byte(in), v); err != nil {
			t.Errorf("%s refused an unknown value: %v", name, err)
			continue
		}
		out, err := json.Marshal(v)
		if err != nil || string(out) != in {
			t.Errorf("%s re-encoded %s as %s (%v)", name, in, out, err)
		}
	}
	return n
}
