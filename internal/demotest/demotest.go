// Package demotest starts demo hosts for tests of other packages: no
// step delay, closed when the test ends.
package demotest

import (
	"bytes"
	"sync"
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

// Log is a bytes.Buffer that a logger's goroutines and the test may
// share: what a host or client logged while the test ran.
type Log struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *Log) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *Log) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
