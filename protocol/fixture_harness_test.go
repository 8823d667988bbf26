package protocol

import (
	"regexp"
	"testing"

	"github.com/ahptui/ahptui/protocol/internal/wiretest"
)

// TestFixtureHarnessIsolatesBrokenFiles runs the 1.0 reducer fixture test
// in a child test process over a case set with one unparseable file, named
// by a relative AHP10_TEST_CASES (relative to the repository root, as a
// user types it there). The broken file must fail only its own subtest,
// naming the file, and the good files next to it must still run and pass.
func TestFixtureHarnessIsolatesBrokenFiles(t *testing.T) {
	// The good files are written here, not copied from the fixture set, so
	// this test stays meaningful when AHP_TEST_CASES names a broken set.
	out, failed := wiretest.RunWithFixtures(t, "AHP10_TEST_CASES", map[string]string{
		"reducers/z_good.json": `{"description":"agents replaced","reducer":"root","initial":{"agents":[]},` +
			`"actions":[{"type":"root/agentsChanged","agents":[]}],"expected":{"agents":[]}}`,
		"reducers/a_broken.json": `{"description": "cut off`,
	}, "^TestReducerFixtures10$")
	if !failed {
		t.Fatalf("child test run should fail on the broken files\n%s", out)
	}
	for _, test := range []string{"TestReducerFixtures10"} {
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
