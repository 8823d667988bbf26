// Package startbench holds the start-up budgets, timed as whole processes
// of ahptui's real binary beside a floor measured in the same run, pair by
// pair: BenchmarkCLIStartup, a one-shot command against a demo host on
// 127.0.0.1 over a floor process doing the same network work
// (testdata/floor; issues 32 and 33), and BenchmarkFirstFrame, the TUI's
// first frame in a pseudo-terminal over a bare Go binary's
// (testdata/floorframe; issue 33). It has no code of its own; the
// benchmarks run in scripts/test.sh's budgets stage and internal/budgets
// holds their budgets.
package startbench
