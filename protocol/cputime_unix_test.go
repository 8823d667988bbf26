//go:build unix

package protocol

import (
	"syscall"
	"time"
)

// processCPU is the CPU time this process has used, all threads (the
// garbage collector's included). Benchmarks report it beside wall time:
// on a loaded machine wall time mostly measures the other processes.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
