package protocol

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ahptui/ahptui/protocol/internal/wiretest"
)

// fixtureSet is one folder of fixtures in the AHP test-cases layout
// (round-trips/, reducers/): where it lives by default and the variable
// that names another copy.
type fixtureSet struct {
	env  string // variable naming another copy
	def  string // default root, relative to the repository root
	what string // what the folder is, for the error message
}

var (
	// fixtures06 are the official 0.6.0 fixtures (the 0.6 wire's judge).
	fixtures06 = fixtureSet{"AHP_TEST_CASES", filepath.Join("..", "shared", "ahp", "test-cases"), "the AHP 0.6.0 test-cases folder"}
	// fixtures07 are the official 0.7.0 fixtures, run on the 1.0 model
	// where their semantics still hold.
	fixtures07 = fixtureSet{"AHP07_TEST_CASES", filepath.Join("..", "shared", "ahp-0.7.0", "test-cases"), "the AHP 0.7.0 test-cases folder"}
	// fixtures10 are ours: 1.0 cases in the same format, one or more per
	// DELTA §13 item a reducer sees and per action 1.0 added.
	fixtures10 = fixtureSet{"AHP10_TEST_CASES", filepath.Join("testdata", "ahp10-cases"), "the 1.0 cases folder (testdata/ahp10-cases)"}
)

// dir returns the folder sub (e.g. "round-trips", "reducers") of the set.
// A relative root is resolved from the repository root (the folder that
// holds go.mod), not from protocol/ where `go test` runs, so the path typed
// at the repository root means the same thing here. A missing folder fails
// the test: silently skipping would let a broken checkout pass.
func (fs fixtureSet) dir(t testing.TB, sub string) string {
	t.Helper()
	root := os.Getenv(fs.env)
	if root == "" {
		root = fs.def
	}
	if !filepath.IsAbs(root) {
		root = filepath.Join(repoRoot(t), root)
	}
	dir := filepath.Join(root, sub)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Fatalf("fixtures: %s is not a folder (%v); set %s to %s (the one holding round-trips/ or reducers/), absolute or relative to the repository root", dir, err, fs.env, fs.what)
	}
	return dir
}

// fixtureDir is the folder sub of the 0.6.0 fixtures ($AHP_TEST_CASES or
// ../shared/ahp/test-cases; see wiretest.FixtureDir).
func fixtureDir(t testing.TB, sub string) string { return wiretest.FixtureDir(t, sub) }

// repoRoot returns the nearest folder at or above the working directory
// that holds go.mod.
func repoRoot(t testing.TB) string { return wiretest.RepoRoot(t) }
