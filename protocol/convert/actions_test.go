package convert

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ahptui/ahptui/protocol/internal/wiretest"
)

// actionTypes reads the action types a schema's StateAction union names.
func actionTypes(t *testing.T, files ...string) map[string]bool {
	t.Helper()
	defs := map[string]json.RawMessage{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Defs map[string]json.RawMessage `json:"$defs"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for k, v := range doc.Defs {
			if _, ok := defs[k]; !ok {
				defs[k] = v
			}
		}
	}
	type def struct {
		OneOf []struct {
			Ref string `json:"$ref"`
		} `json:"oneOf"`
		Properties struct {
			Type struct {
				Const string `json:"const"`
			} `json:"type"`
		} `json:"properties"`
	}
	out := map[string]bool{}
	var walk func(name string)
	walk = func(name string) {
		var d def
		if err := json.Unmarshal(defs[name], &d); err != nil {
			t.Fatalf("$def %s: %v", name, err)
		}
		for _, b := range d.OneOf {
			if ref := strings.TrimPrefix(b.Ref, "#/$defs/"); ref != "" {
				walk(ref)
			}
		}
		if c := d.Properties.Type.Const; c != "" {
			out[c] = true
		}
	}
	walk("StateAction")
	if len(out) < 50 {
		t.Fatalf("only %d action types in %v; the schema layout changed", len(out), files)
	}
	return out
}

// TestActionTables: the steps' added types are exactly what each release
// added (0.7 against the 0.7.0 schema; 0.8 and 1.0 together against the
// 1.0 schema, which has no 0.8 schema beside it here), and every type a
// step's tables name exists on the side it converts from, so a renamed
// action cannot silently stop converting.
func TestActionTables(t *testing.T) {
	shared := filepath.Join(wiretest.RepoRoot(t), "..", "shared")
	a06 := actionTypes(t, filepath.Join(shared, "ahp", "schema", "actions.schema.json"))
	a07 := actionTypes(t, filepath.Join(shared, "ahp-0.7.0", "schema", "actions.schema.json"))
	a10 := actionTypes(t, filepath.Join(shared, "ahp-1.0", "schema", "errors.schema.json"))
	diff := func(newer, older map[string]bool) []string {
		var out []string
		for typ := range newer {
			if !older[typ] {
				out = append(out, typ)
			}
		}
		slices.Sort(out)
		return out
	}
	if got, want := slices.Sorted(maps.Keys(step07.added)), diff(a07, a06); !slices.Equal(got, want) {
		t.Errorf("step07.added = %q\nwant the 0.7 additions %q", got, want)
	}
	later := maps.Clone(step08.added)
	maps.Copy(later, step10.added)
	if got, want := slices.Sorted(maps.Keys(later)), diff(a10, a07); !slices.Equal(got, want) {
		t.Errorf("step08.added + step10.added = %q\nwant the 0.8 to 1.0 additions %q", got, want)
	}
	// What each wire has, as far as the schemas say (0.8: 0.7 and its
	// additions).
	a08 := maps.Clone(a07)
	maps.Copy(a08, step08.added)
	below := map[*step]map[string]bool{&step07: a06, &step08: a07, &step10: a08}
	above := map[*step]map[string]bool{&step07: a07, &step08: a08, &step10: a10}
	for _, s := range steps {
		for typ := range s.up.actions {
			if !below[s][typ] {
				t.Errorf("step to %v: up names %q, which the wire below does not have", s.to, typ)
			}
		}
		for typ := range s.down.actions {
			if !above[s][typ] {
				t.Errorf("step to %v: down names %q, which its wire does not have", s.to, typ)
			}
			if s.added[typ] {
				t.Errorf("step to %v: down converts %q, which the wire below cannot say at all", s.to, typ)
			}
		}
	}
}
