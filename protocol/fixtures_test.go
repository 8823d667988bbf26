package protocol

import (
	"os"
	"path/filepath"
	"testing"
)

// fixtureDir returns the folder of the AHP conformance fixtures named sub
// (e.g. "round-trips", "reducers"). The root is $AHP_TEST_CASES, or else
// ../shared/ahp/test-cases; a relative root is resolved from the repository
// root (the folder that holds go.mod), not from protocol/ where `go test`
// runs, so the path typed at the repository root means the same thing here.
// A missing folder fails the test: silently skipping would let a broken
// checkout pass.
func fixtureDir(t testing.TB, sub string) string {
	t.Helper()
	root := os.Getenv("AHP_TEST_CASES")
	if root == "" {
		root = filepath.Join("..", "shared", "ahp", "test-cases")
	}
	if !filepath.IsAbs(root) {
		root = filepath.Join(repoRoot(t), root)
	}
	dir := filepath.Join(root, sub)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Fatalf("fixtures: %s is not a folder (%v); set AHP_TEST_CASES to the AHP test-cases folder (the one holding round-trips/ and reducers/), absolute or relative to the repository root", dir, err)
	}
	return dir
}

// repoRoot returns the nearest folder at or above the working directory
// that holds go.mod.
func repoRoot(t testing.TB) string {
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
