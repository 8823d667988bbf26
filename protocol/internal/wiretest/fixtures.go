package wiretest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The reducer conformance fixtures (../shared/ahp/test-cases/reducers, the
// 0.7.0 set, ahptui's own 1.0 cases) share one format; the 0.6 run
// (protocol/convert) and the 1.0 run (protocol) read and judge them
// here, each with its own decode and reduce steps.

// ReducerFixture is one conformance fixture: apply Actions in order to
// Initial with the reducer named Reducer and compare with Expected.
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

// LoadReducerFixtures reads every *.json fixture in dir, sorted by name. A
// file that cannot be read or parsed is returned with its error rather
// than stopping the load, so one broken file fails only its own subtest.
// An empty or missing dir fails the test.
func LoadReducerFixtures(t testing.TB, dir string) []ReducerFixtureFile {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no reducer fixtures in %s (%v); set AHP_TEST_CASES to the AHP test-cases folder", dir, err)
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
	return out
}

// ParsedReducerFixtures returns the fixtures in dir that parsed (seed
// corpora use it; the fixture tests report the broken ones).
func ParsedReducerFixtures(t testing.TB, dir string) []ReducerFixture {
	var out []ReducerFixture
	for _, f := range LoadReducerFixtures(t, dir) {
		if f.Err == nil {
			out = append(out, f.Fixture)
		}
	}
	return out
}

// Reducer is what RunReducerFixture drives: decode a fixture state, apply
// one fixture action, encode a state in the fixture's wire. A run keeps
// the state as S between steps.
type Reducer[S any] struct {
	Decode func(kind string, state json.RawMessage) (S, error)
	Apply  func(state S, action json.RawMessage) (S, error)
	Encode func(S) ([]byte, error)
}

// RunReducerFixture applies fx with r and returns "" on success, or a
// readable account of what went wrong: a step that fails, a step that
// changed the encoding of the state it was given (reducers must copy on
// write: the UI keeps old snapshots), or a result that differs from
// Expected once null members are dropped on both sides (the fixtures spell
// absent as null; numbers compare by value).
func RunReducerFixture[S any](fx ReducerFixture, r Reducer[S]) string {
	state, err := r.Decode(fx.Reducer, fx.Initial)
	if err != nil {
		return fmt.Sprintf("decode initial as %s state: %v", fx.Reducer, err)
	}
	for i, action := range fx.Actions {
		before, err := r.Encode(state)
		if err != nil {
			return fmt.Sprintf("encode state before actions[%d]: %v", i, err)
		}
		next, err := r.Apply(state, action)
		if err != nil {
			return fmt.Sprintf("actions[%d]: %v", i, err)
		}
		after, err := r.Encode(state)
		if err != nil {
			return fmt.Sprintf("encode state after actions[%d]: %v", i, err)
		}
		if !bytes.Equal(before, after) {
			return fmt.Sprintf("actions[%d] (%.80s) mutated the state it was given (reducers must copy on write):\n%s",
				i, action, JSONDiff(before, after))
		}
		state = next
	}
	got, err := r.Encode(state)
	if err != nil {
		return fmt.Sprintf("encode result: %v", err)
	}
	return CompareExpected(fx.Expected, got)
}

// CompareExpected compares a fixture's expected value with got, null
// members dropped on both sides; "" when they match.
func CompareExpected(expected, got []byte) string {
	want, err := WithoutNulls(expected)
	if err != nil {
		return fmt.Sprintf("expected is not JSON: %v", err)
	}
	gotClean, err := WithoutNulls(got)
	if err != nil {
		return fmt.Sprintf("result is not JSON: %v", err)
	}
	if d := JSONDiff(want, gotClean); d != "" {
		var pretty bytes.Buffer
		_ = json.Indent(&pretty, gotClean, "  ", "  ")
		return fmt.Sprintf("result differs from expected (- missing, + unexpected, path: want/got):\n%s\n  got:\n  %s", d, pretty.String())
	}
	return ""
}

// FixtureDir returns the folder of the AHP conformance fixtures named sub
// (e.g. "round-trips", "reducers"). The root is $AHP_TEST_CASES, or else
// ../shared/ahp/test-cases; a relative root is resolved from the repository
// root (the folder that holds go.mod), not from the package folder where
// `go test` runs, so the path typed at the repository root means the same
// thing here. A missing folder fails the test: silently skipping would let
// a broken checkout pass.
func FixtureDir(t testing.TB, sub string) string {
	t.Helper()
	return fixtureDirOf(t, "AHP_TEST_CASES", filepath.Join("..", "shared", "ahp", "test-cases"), sub)
}

// FixtureDir07 is FixtureDir for the official 0.7.0 fixtures:
// $AHP07_TEST_CASES, or else ../shared/ahp-0.7.0/test-cases.
func FixtureDir07(t testing.TB, sub string) string {
	t.Helper()
	return fixtureDirOf(t, "AHP07_TEST_CASES", filepath.Join("..", "shared", "ahp-0.7.0", "test-cases"), sub)
}

func fixtureDirOf(t testing.TB, env, def, sub string) string {
	t.Helper()
	root := os.Getenv(env)
	if root == "" {
		root = def
	}
	if !filepath.IsAbs(root) {
		root = filepath.Join(RepoRoot(t), root)
	}
	dir := filepath.Join(root, sub)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Fatalf("fixtures: %s is not a folder (%v); set %s to the AHP test-cases folder (the one holding round-trips/ and reducers/), absolute or relative to the repository root", dir, err, env)
	}
	return dir
}

// RepoRoot returns the nearest folder at or above the working directory
// that holds go.mod.
func RepoRoot(t testing.TB) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatalf("fixtures: cannot read the working directory: %v", err)
	}
	repo := wd
	for {
		if _, err := os.Stat(filepath.Join(repo, "go.mod")); err == nil {
			return repo
		}
		parent := filepath.Dir(repo)
		if parent == repo {
			t.Fatalf("fixtures: no go.mod above %s; set AHP_TEST_CASES to the AHP test-cases folder (absolute path)", wd)
		}
		repo = parent
	}
}

// RunWithFixtures runs the tests of the current test binary that match
// run in a child process whose env variable (AHP_TEST_CASES,
// AHP10_TEST_CASES, …) names a fresh fixture folder holding files (path
// under the folder → content). The folder is
// given relative to the repository root, as a user types it there, so the
// child resolves it the way FixtureDir promises. It returns the child's
// output and whether it failed.
func RunWithFixtures(t *testing.T, env string, files map[string]string, run string) (out []byte, failed bool) {
	t.Helper()
	tmp := t.TempDir()
	for name, body := range files {
		path := filepath.Join(tmp, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rel, err := filepath.Rel(RepoRoot(t), tmp)
	if err != nil || filepath.IsAbs(rel) {
		t.Fatalf("no relative path from the repository root to %s: %v", tmp, err)
	}
	cmd := exec.Command(os.Args[0], "-test.run", run, "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), env+"="+rel)
	out, err = cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("run the child test process: %v\n%s", err, out)
	}
	return out, err != nil
}
