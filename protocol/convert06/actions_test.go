package convert06

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

// TestActionTables: not06Actions is exactly the set of action types 1.0
// added, and every type the conversion tables name exists on the side it
// converts from, so a renamed action cannot silently stop converting.
func TestActionTables(t *testing.T) {
	shared := filepath.Join(wiretest.RepoRoot(t), "..", "shared")
	a06 := actionTypes(t, filepath.Join(shared, "ahp", "schema", "actions.schema.json"))
	a10 := actionTypes(t, filepath.Join(shared, "ahp-1.0", "schema", "errors.schema.json"))
	var added []string
	for typ := range a10 {
		if !a06[typ] {
			added = append(added, typ)
		}
	}
	slices.Sort(added)
	if got := slices.Sorted(maps.Keys(not06Actions)); !slices.Equal(got, added) {
		t.Errorf("not06Actions = %q\nwant the 1.0 additions %q", got, added)
	}
	for typ := range upActions {
		if !a06[typ] {
			t.Errorf("upActions names %q, which 0.6 does not have", typ)
		}
	}
	for typ := range downActions {
		if !a10[typ] {
			t.Errorf("downActions names %q, which 1.0 does not have", typ)
		}
		if not06Actions[typ] {
			t.Errorf("downActions converts %q, which 0.6 cannot say at all", typ)
		}
	}
}
