//go:build race

package client

// raceEnabled scales down the tests whose cost is dominated by per-message
// overhead the race detector multiplies.
const raceEnabled = true
