package protocol

import (
	"testing"

	"github.com/ahptui/ahptui/protocol/internal/wiretest"
)

// fixtureDir returns the folder of the AHP conformance fixtures named sub
// ($AHP_TEST_CASES or ../shared/ahp/test-cases; see wiretest.FixtureDir).
func fixtureDir(t testing.TB, sub string) string { return wiretest.FixtureDir(t, sub) }

// repoRoot returns the nearest folder at or above the working directory
// that holds go.mod.
func repoRoot(t testing.TB) string { return wiretest.RepoRoot(t) }
