// Package demotest starts demo hosts for tests of other packages: no
// step delay, closed when the test ends.
package demotest

import (
	"testing"

	"github.com/ahptui/ahptui/demohost"
)

// Start runs a demo host with cfg, its scripted steps undelayed, until
// the test ends.
func Start(t testing.TB, cfg demohost.Config) *demohost.Host {
	t.Helper()
	cfg.StepDelay = -1
	h, err := demohost.Start(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	return h
}
