// Package startbench holds BenchmarkCLIStartup, the start-up budget of a
// one-shot command (issue 32, item 16): ahptui's real binary against a
// demo host on 127.0.0.1, timed as whole processes beside a floor process
// doing the same network work (testdata/floor), pair by pair. It has no
// code of its own; the benchmark runs in scripts/test.sh's budgets stage
// and internal/budgets holds its budget.
package startbench
