package protocol

import (
	"os"
	"path/filepath"
	"testing"
)

// fixtureDir returns the folder of the AHP conformance fixtures named sub
// (e.g. "round-trips", "reducers"). The root is $AHP_TEST_CASES, or else
// ../shared/ahp/test-cases relative to the repository root (the folder that
// holds go.mod). A missing folder fails the test: silently skipping would let
// a broken checkout pass.
func fixtureDir(t testing.TB, sub string) string {
	t.Helper()
	root := os.Getenv("AHP_TEST_CASES")
	if root == "" {
		wd, err := os.Getwd()
		if err != nil {
			t.Fatalf("fixtures: cannot read the working directory: %v", err)
		}
		repo := wd
		for {
			if _, err := os.Stat(filepath.Join(repo, "go.mod")); err == nil {
				break
			}
			parent := filepath.Dir(repo)
			if parent == repo {
				t.Fatalf("fixtures: no go.mod above %s; set AHP_TEST_CASES to the AHP test-cases folder", wd)
			}
			repo = parent
		}
		root = filepath.Join(repo, "..", "shared", "ahp", "test-cases")
	}
	dir := filepath.Join(root, sub)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Fatalf("fixtures: %s is not a folder (%v); set AHP_TEST_CASES to the AHP test-cases folder (the one holding round-trips/ and reducers/)", dir, err)
	}
	return dir
}
