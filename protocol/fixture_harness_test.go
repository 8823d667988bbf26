package protocol

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// TestFixtureHarnessIsolatesBrokenFiles runs the fixture tests in a child
// test process over a fixture set with one unparseable file per folder,
// named by a relative AHP_TEST_CASES (relative to the repository root, as a
// user types it there). The broken file must fail only its own subtest,
// naming the file, and the good files next to it must still run and pass.
func TestFixtureHarnessIsolatesBrokenFiles(t *testing.T) {
	real := fixtureDir(t, "")
	tmp := t.TempDir()
	copyFixture := func(sub, from, to string) {
		t.Helper()
		files, _ := filepath.Glob(filepath.Join(real, sub, from))
		if len(files) == 0 {
			t.Fatalf("no %s/%s fixture to copy", sub, from)
		}
		data, err := os.ReadFile(files[0])
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(tmp, sub), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tmp, sub, to), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	copyFixture("reducers", "*.json", "z_good.json")
	copyFixture("round-trips", "*.json", "z_good.json")
	for _, sub := range []string{"reducers", "round-trips"} {
		if err := os.WriteFile(filepath.Join(tmp, sub, "a_broken.json"), []byte(`{"description": "cut off`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rel, err := filepath.Rel(repoRoot(t), tmp)
	if err != nil || filepath.IsAbs(rel) {
		t.Fatalf("no relative path from the repository root to %s: %v", tmp, err)
	}

	cmd := exec.Command(os.Args[0], "-test.run", "^(TestReducerFixtures|TestRoundTripFixtures|TestRoundTripReducerFixtureShapes)$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), "AHP_TEST_CASES="+rel)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("child test run should fail on the broken files, got err=%v\n%s", err, out)
	}
	for _, test := range []string{"TestReducerFixtures", "TestRoundTripFixtures", "TestRoundTripReducerFixtureShapes"} {
		for _, want := range []string{
			`--- FAIL: ` + test + `/a_broken `,
			`--- PASS: ` + test + `/z_good `,
		} {
			if !regexp.MustCompile(regexp.QuoteMeta(want)).Match(out) {
				t.Errorf("child output lacks %q", want)
			}
		}
	}
	if !regexp.MustCompile(`a_broken\.json[^\n]*not a`).Match(out) {
		t.Errorf("the failure should name a_broken.json and say it is not a fixture")
	}
	if t.Failed() {
		t.Logf("child output:\n%s", out)
	}
}
