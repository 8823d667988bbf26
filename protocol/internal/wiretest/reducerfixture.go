package wiretest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// ReducerFixture is one reducer conformance case in the AHP test-cases
// format: apply Actions in order to Initial with the reducer named Reducer
// ("root", "session", "chat", …) and compare the result with Expected.
type ReducerFixture struct {
	Description string            `json:"description"`
	Reducer     string            `json:"reducer"`
	Initial     json.RawMessage   `json:"initial"`
	Actions     []json.RawMessage `json:"actions"`
	Expected    json.RawMessage   `json:"expected"`
}

// ReducerFixtureFile is one fixture file: its name without .json, and
// either the parsed fixture or why it could not be read.
type ReducerFixtureFile struct {
	Name    string
	Fixture ReducerFixture
	Err     error
}

// LoadReducerFixtures reads every *.json in dir, sorted by name. A file
// that cannot be read or parsed comes back with its Err set instead of
// stopping the load, so one broken file fails only its own subtest; err is
// for a folder that holds no fixtures at all.
func LoadReducerFixtures(dir string) ([]ReducerFixtureFile, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, fmt.Errorf("list reducer fixtures in %s: %w", dir, err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no reducer fixtures in %s", dir)
	}
	sort.Strings(files)
	out := make([]ReducerFixtureFile, 0, len(files))
	for _, file := range files {
		f := ReducerFixtureFile{Name: strings.TrimSuffix(filepath.Base(file), ".json")}
		data, err := os.ReadFile(file)
		if err != nil {
			f.Err = fmt.Errorf("read %s: %w", file, err)
		} else if err := json.Unmarshal(data, &f.Fixture); err != nil {
			f.Err = fmt.Errorf("%s is not a reducer fixture (fix or remove the file): %w", filepath.Base(file), err)
		}
		out = append(out, f)
	}
	return out, nil
}

// StateDiff compares a reducer's encoded result with a fixture's expected
// state the way the spec's harness does: null members are dropped on both
// sides (the fixtures spell absent as null) and numbers compare by value.
// It returns "" when they match, else one line per difference.
func StateDiff(expected, got []byte) string {
	want, err := WithoutNulls(expected)
	if err != nil {
		return "expected is not JSON: " + err.Error()
	}
	clean, err := WithoutNulls(got)
	if err != nil {
		return "result is not JSON: " + err.Error()
	}
	return JSONDiff(want, clean)
}
