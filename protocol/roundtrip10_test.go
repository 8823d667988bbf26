package protocol

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ahptui/ahptui/protocol/internal/wiretest"
)

// The official 0.7.0 round-trip fixtures, run against the 1.0 types: the
// 0.7 changes (ContentRef tool input, side chats, terminal result, chat
// sources with a kind) carried into 1.0 unchanged (DELTA), so a fixture
// holds on the 1.0 wire unless skipped10 says why not.
var skipped10 = map[string]string{}

// roundTrip10 decodes in as the named 1.0 type and encodes it again.
func roundTrip10(typ string, in []byte) ([]byte, error) {
	mk, ok := wireTypes[typ]
	switch {
	case ok:
	case typ == "StringOrMarkdown":
		mk = func() any { return new(StringOrMarkdown) }
	case typ == "JsonRpcMessage":
		mk = func() any { return new(JsonRpcMessage) }
	case typ == "PartialSessionSummary":
		mk = func() any { return new(PartialSessionSummary) }
	case typ == "SessionAddedParams":
		mk = func() any { return new(SessionAddedParams) }
	default:
		return nil, fmt.Errorf("no 1.0 Go type for wire type %q", typ)
	}
	v := mk()
	if err := json.Unmarshal(in, v); err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

func TestRoundTrip07FixturesOn10Types(t *testing.T) {
	dir := fixtures07.dir(t, "round-trips")
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no 0.7.0 round-trip fixtures under %s (set AHP07_TEST_CASES): %v", dir, err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var fx struct {
				Type              string            `json:"type"`
				Input             json.RawMessage   `json:"input"`
				AcceptableOutputs []json.RawMessage `json:"acceptableOutputs"`
			}
			if err := json.Unmarshal(data, &fx); err != nil || len(fx.AcceptableOutputs) == 0 {
				t.Fatalf("not a round-trip fixture: %v", err)
			}
			problem := ""
			out, err := roundTrip10(fx.Type, fx.Input)
			switch {
			case err != nil:
				problem = err.Error()
			case !slices.ContainsFunc(fx.AcceptableOutputs, func(want json.RawMessage) bool { return sameJSON(t, want, out) }):
				problem = fmt.Sprintf("%s re-encoded as\n%s\nwant\n%s", fx.Type, out, fx.AcceptableOutputs[0])
			}
			// A listed fixture must really fail, so the list cannot hide a
			// regression or outlive the reason it names.
			why, skipped := skipped10[name]
			switch {
			case skipped && problem == "":
				t.Errorf("listed in skipped10 (%s) but round-trips on 1.0: drop it from the list", why)
			case skipped:
				t.Skip(why)
			case problem != "":
				t.Error(problem)
			}
		})
	}
}

// sameJSON compares two documents structurally, numbers by value.
func sameJSON(t *testing.T, want, got []byte) bool {
	t.Helper()
	return wiretest.JSONDiff(want, got) == ""
}

// The states and actions of the official 0.7.0 reducer fixtures decode into
// the 1.0 types and re-encode unchanged (nulls dropped, as the reducer
// harness compares them), except where a later release changed the shape:
// those are listed with the DELTA item, and each listed one must really
// fail, so the list cannot hide a regression.
func TestReducer07FixtureShapesOn10Types(t *testing.T) {
	dir := fixtures07.dir(t, "reducers")
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no 0.7.0 reducer fixtures under %s (set AHP07_TEST_CASES): %v", dir, err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var fx struct {
				Reducer           string
				Initial, Expected json.RawMessage
				Actions           []json.RawMessage
			}
			if err := json.Unmarshal(data, &fx); err != nil {
				t.Fatalf("not a reducer fixture: %v", err)
			}
			st, ok := reducerStateDefs[fx.Reducer]
			if !ok {
				t.Fatalf("unknown reducer %q", fx.Reducer)
			}
			var problems []string
			check := func(what, typ string, raw json.RawMessage) {
				clean, err := wiretest.WithoutNulls(raw)
				if err != nil {
					problems = append(problems, what+": "+err.Error())
					return
				}
				out, err := roundTrip10(typ, clean)
				if err != nil {
					problems = append(problems, fmt.Sprintf("%s (%s): %v", what, typ, err))
					return
				}
				if !sameJSON(t, clean, out) {
					problems = append(problems, fmt.Sprintf("%s (%s) re-encoded as %s", what, typ, out))
				}
			}
			check("initial", st, fx.Initial)
			check("expected", st, fx.Expected)
			for i, a := range fx.Actions {
				check(fmt.Sprintf("actions[%d]", i), "StateAction", a)
			}
			why, skipped := changedAfter07[name]
			switch {
			case skipped && len(problems) == 0:
				t.Errorf("listed as changed after 0.7 (%s) but decodes unchanged: drop it from changedAfter07", why)
			case skipped:
				t.Skipf("shape changed after 0.7: %s", why)
			case len(problems) > 0:
				t.Error(strings.Join(problems, "\n"))
			}
		})
	}
}

// changedAfter07 lists the 0.7.0 reducer fixtures whose states or actions
// use a shape a later release changed, with the DELTA item.
var changedAfter07 = map[string]string{
	"058-session-customizationschanged-replaces-entire-list":                  after07Enablement,
	"059-session-customizationschanged-replaces-existing-customizations":      after07Enablement,
	"060-session-customizationtoggled-toggles-by-id":                          after07Enablement,
	"062-session-customizationtoggled-is-no-op-when-customizations-undefined": after07Enablement,
	"071-root-terminalschanged":                                               after07Terminal,
	"072-terminal-data-appends":                                               after07Terminal,
	"074-terminal-resized":                                                    after07Terminal,
	"078-terminal-titlechanged":                                               after07Terminal,
	"079-terminal-cwdchanged":                                                 after07Terminal,
	"081-terminal-exited":                                                     after07Terminal,
	"082-terminal-cleared":                                                    after07Terminal,
	"083-terminal-full-lifecycle":                                             after07Terminal,
	"089-terminal-unknown-action-type-is-no-op":                               after07Terminal,
	"119-terminal-commandexecuted-appends-part":                               after07Terminal,
	"120-terminal-data-appends-to-command-output":                             after07Terminal,
	"121-terminal-commandfinished-completes-part":                             after07Terminal,
	"122-terminal-data-after-complete-creates-unclassified":                   after07Terminal,
	"123-terminal-command-full-lifecycle":                                     after07Terminal,
	"124-terminal-cleared-resets-content-parts":                               after07Terminal,
	"125-terminal-commanddetectionavailable":                                  after07Terminal,
	"137-session-customizationupdated-replaces-existing-container":            after07Enablement,
	"138-session-customizationupdated-appends-unknown-id":                     after07Enablement,
	"152-session-customizationremoved-removes-container-and-children":         after07Enablement,
	"153-session-customizationremoved-removes-child":                          after07Enablement,
	"154-session-customizationremoved-noop-unknown-id":                        after07Enablement,
	"159-session-mcpserverstatechanged-upserts-top-level-server":              after07Enablement,
	"160-session-mcpserverstatechanged-upserts-container-child":               after07Enablement,
	"161-session-mcpserverstatechanged-noop-unknown-id":                       after07Enablement,
	"162-session-mcpserverstatechanged-noop-non-mcp-id":                       after07Enablement,
	"210-annotations-set-appends-new-annotation":                              after07Annotations,
	"211-annotations-set-replaces-existing-annotation":                        after07Annotations,
	"212-annotations-removed-drops-matching-annotation":                       after07Annotations,
	"213-annotations-entryset-appends-and-replaces":                           after07Annotations,
	"214-annotations-entryset-unknown-annotation-is-no-op":                    after07Annotations,
	"215-annotations-entryremoved-drops-matching-entry":                       after07Annotations,
	"216-annotations-updated-resolves-and-preserves-entries":                  after07Annotations,
	"218-annotations-updated-reanchors-turn-and-range":                        after07Annotations,
	"219-annotations-updated-unknown-annotation-is-no-op":                     after07Annotations,
	"225-session-customizationtoggled-toggles-child-by-id":                    after07Enablement,
	"226-session-customizationtoggled-is-no-op-for-unknown-child-id":          after07Enablement,
	"235-session-mcpserverstartrequested-starts-top-level-server":             after07Enablement,
	"237-session-mcpserverstoprequested-stops-container-child":                after07Enablement,
}

const (
	after07Enablement  = "§6.2: customization `enabled` became `enablement[]` (0.8)"
	after07Terminal    = "§5.3/§8: terminal `exitCode` became the required `lifecycle`, a session claim requires `chat` (0.9)"
	after07Annotations = "§9: Annotation.turnId became `origin` (0.9)"
)
