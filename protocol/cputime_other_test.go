//go:build !unix

package protocol

import "time"

// processCPU is not measured here; benchmarks then report wall time only.
func processCPU() (time.Duration, bool) { return 0, false }
