package schemacheck

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// The README of the schemas says that, with the three patches, all root,
// session and chat fixture states and actions validate except deliberately
// invalid inputs (235 of 237 actions, 264 of 266 states). This pins exactly
// which ones, so a lost patch or a stricter strip-nulls shows up by name.
// (Fixture 134 clears an activity with null; the patch for "undefined to
// clear" members makes it valid.)
func TestReducerFixturesValidate(t *testing.T) {
	v := MustLoad(t)
	files, err := filepath.Glob(filepath.Join(v.dir, "..", "test-cases", "reducers", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no reducer fixtures next to %s: %v", v.dir, err)
	}
	stateDef := map[string]string{"root": "RootState", "session": "SessionState", "chat": "ChatState"}
	wantInvalid := []string{
		"087-root-unknown-action-type-is-no-op.json action 0", // unknown action type
		"103-delta-skips-parts-without-id.json expected",      // response part without an id
		"103-delta-skips-parts-without-id.json initial",       // same
	}
	var invalid []string
	actions, states := 0, 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var fx struct {
			Reducer  string            `json:"reducer"`
			Initial  json.RawMessage   `json:"initial"`
			Expected json.RawMessage   `json:"expected"`
			Actions  []json.RawMessage `json:"actions"`
		}
		if err := json.Unmarshal(b, &fx); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		def := stateDef[fx.Reducer]
		if def == "" {
			continue
		}
		name := filepath.Base(f)
		for i, a := range fx.Actions {
			actions++
			if err := v.Validate("StateAction", a); err != nil {
				invalid = append(invalid, name+" action "+strconv.Itoa(i))
			}
		}
		for label, s := range map[string]json.RawMessage{"initial": fx.Initial, "expected": fx.Expected} {
			states++
			if err := v.Validate(def, s); err != nil {
				invalid = append(invalid, name+" "+label)
			}
		}
	}
	slices.Sort(invalid)
	if !slices.Equal(invalid, wantInvalid) {
		t.Errorf("invalid fixtures changed:\n got  %q\n want %q", invalid, wantInvalid)
	}
	t.Logf("%d actions, %d states checked", actions, states)
}
