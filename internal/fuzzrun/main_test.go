package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Outputs as go test -fuzz prints them (testing/fuzz.go, internal/fuzz),
// one per way a run ends.
const (
	outDeadline = `fuzz: elapsed: 0s, gathering baseline coverage: 0/12 completed
fuzz: elapsed: 0s, gathering baseline coverage: 12/12 completed, now fuzzing with 1 workers
fuzz: elapsed: 3s, execs: 40304 (13431/sec), new interesting: 4 (total: 16)
fuzz: elapsed: 10s, execs: 130304 (0/sec), new interesting: 4 (total: 16)
--- FAIL: FuzzX (10.02s)
    context deadline exceeded
FAIL
exit status 1
FAIL	example.com/m/p	10.110s
`
	outHung = `fuzz: elapsed: 9s, execs: 29 (1/sec), new interesting: 0 (total: 5)
--- FAIL: FuzzX (19.88s)
    fuzzing process hung or terminated unexpectedly: exit status 2
    Failing input written to testdata/fuzz/FuzzX/a601188e72616176
    To re-run:
    go test -run=FuzzX/a601188e72616176
FAIL
exit status 1
FAIL	example.com/m/p	20.1s
`
	outFatal = `fuzz: elapsed: 0s, gathering baseline coverage: 1/1 completed, now fuzzing with 1 workers
fuzz: minimizing 38-byte failing input file
fuzz: elapsed: 0s, minimizing
--- FAIL: FuzzX (0.05s)
    --- FAIL: FuzzX (0.00s)
        x_test.go:12: longer than 3: "abcd"
    
    Failing input written to testdata/fuzz/FuzzX/582528ddfad69eb5
    To re-run:
    go test -run=FuzzX/582528ddfad69eb5
FAIL
exit status 1
FAIL	example.com/m/p	0.071s
`
	outSeed = `fuzz: elapsed: 0s, gathering baseline coverage: 0/3 completed
failure while testing seed corpus entry: FuzzX/seed#1
fuzz: elapsed: 1s, gathering baseline coverage: 1/3 completed
--- FAIL: FuzzX (1.20s)
    fuzzing process hung or terminated unexpectedly: exit status 2
FAIL
exit status 1
FAIL	example.com/m/p	1.3s
`
	outBuild = `# example.com/m/p [example.com/m/p.test]
./x_test.go:9:2: undefined: nope
FAIL	example.com/m/p [build failed]
`
	outPass = `fuzz: elapsed: 0s, gathering baseline coverage: 0/300 completed
fuzz: elapsed: 2s, gathering baseline coverage: 300/300 completed, now fuzzing with 1 workers
fuzz: elapsed: 10s, execs: 123456 (12345/sec), new interesting: 3 (total: 303)
PASS
ok  	example.com/m/p	10.2s
`
)

func TestFailureMessage(t *testing.T) {
	for _, tt := range []struct {
		name, out, want string
	}{
		{"deadline", outDeadline, "context deadline exceeded"},
		{"hung", outHung, "fuzzing process hung or terminated unexpectedly: exit status 2"},
		{"t.Fatal", outFatal, "--- FAIL: FuzzX (0.00s)\nx_test.go:12: longer than 3: \"abcd\""},
		{"build", outBuild, ""},
		{"pass", outPass, ""},
		{"another target's failure", strings.ReplaceAll(outDeadline, "FuzzX", "FuzzY"), ""},
	} {
		if got := FailureMessage([]byte(tt.out), "FuzzX"); got != tt.want {
			t.Errorf("%s: FailureMessage = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestClassify(t *testing.T) {
	exit1 := errors.New("exit status 1")
	passed := Replay{Input: Input{ID: "a601188e72616176", Path: "p/testdata/fuzz/FuzzX/a601188e72616176"}, Fastest: 2 * time.Millisecond}
	failed := passed
	failed.Failed = true
	slow := passed
	slow.Fastest = 11 * time.Second
	for _, tt := range []struct {
		name    string
		err     error
		out     string
		replays []Replay
		want    Verdict
	}{
		{"a clean run passes", nil, outPass, nil, Pass},
		{"deadline race, nothing written: infrastructure", exit1, outDeadline, nil, Infra},
		{"hung worker whose input passes quickly: infrastructure", exit1, outHung, []Replay{passed}, Infra},
		{"hung worker whose input fails again: finding", exit1, outHung, []Replay{failed}, Finding},
		{"hung worker whose input is slow alone: finding", exit1, outHung, []Replay{slow}, Finding},
		{"the target's own failure, reproducible: finding", exit1, outFatal, []Replay{failed}, Finding},
		{"the target's own failure, not reproducible: still a finding", exit1, outFatal, []Replay{passed}, Finding},
		{"a worker lost on a seed that passes alone: infrastructure", exit1, outSeed, []Replay{{Input: Input{ID: "seed#1"}}}, Infra},
		{"a seed that fails alone: finding", exit1, outSeed, []Replay{{Input: Input{ID: "seed#1"}, Failed: true}}, Finding},
		{"a build failure: finding", exit1, outBuild, nil, Finding},
		{"deadline text inside the target's own failure: finding", exit1,
			strings.Replace(outFatal, `longer than 3: "abcd"`, "context deadline exceeded", 1), []Replay{passed}, Finding},
		{"an unknown fuzzer error with nothing written: finding", exit1,
			strings.Replace(outDeadline, "context deadline exceeded", "something new", 1), nil, Finding},
	} {
		got, reason := Classify("FuzzX", tt.err, []byte(tt.out), tt.replays)
		if got != tt.want {
			t.Errorf("%s: %v (%s), want %v", tt.name, got, reason, tt.want)
		}
		if got != Pass && reason == "" {
			t.Errorf("%s: %v without a reason", tt.name, got)
		}
	}
}

func TestFastestRun(t *testing.T) {
	out := `=== RUN   FuzzX
=== RUN   FuzzX/a601188e72616176
--- PASS: FuzzX (4.20s)
    --- PASS: FuzzX/a601188e72616176 (4.20s)
=== RUN   FuzzX
=== RUN   FuzzX/a601188e72616176
--- PASS: FuzzX (3.50s)
    --- PASS: FuzzX/a601188e72616176 (3.50s)
=== RUN   FuzzX
=== RUN   FuzzX/a601188e72616176
--- FAIL: FuzzX (9.10s)
    --- FAIL: FuzzX/a601188e72616176 (9.10s)
FAIL
`
	if got := fastestRun([]byte(out)); got != 3500*time.Millisecond {
		t.Errorf("fastestRun = %v, want 3.5s (the parent's line does not count)", got)
	}
	if got := fastestRun([]byte("ok  \texample.com/m/p\t0.01s\n")); got != 0 {
		t.Errorf("fastestRun without -v lines = %v, want 0", got)
	}
}

func TestSummary(t *testing.T) {
	got := Summary(Result{Target: Target{Pkg: "./p", Name: "FuzzX"}, Output: []byte(outPass)})
	for _, want := range []string{"FuzzX", "./p", "elapsed: 10s, execs: 123456 (12345/sec)", "300 seeds loaded in 2s"} {
		if !strings.Contains(got, want) {
			t.Errorf("summary %q lacks %q", got, want)
		}
	}
	baselineOnly := "fuzz: elapsed: 0s, gathering baseline coverage: 0/342 completed\nfuzz: elapsed: 10s, gathering baseline coverage: 342/342 completed, now fuzzing with 1 workers\nPASS\n"
	if got := Summary(Result{Target: Target{Pkg: "./p", Name: "FuzzX"}, Output: []byte(baselineOnly)}); !strings.Contains(got, "NOT FUZZED") {
		t.Errorf("a run that only gathered its baseline does not say so: %q", got)
	}
	got = Summary(Result{Target: Target{Pkg: "./p", Name: "FuzzX"}, Output: []byte(outPass), Infra: []string{`"context deadline exceeded" with no input written`}})
	if !strings.Contains(got, "RETRIED") {
		t.Errorf("a retried target's summary does not say so: %q", got)
	}
}

func TestDiscover(t *testing.T) {
	root := t.TempDir()
	write(t, root, "a/x_test.go", "package a\n\nimport \"testing\"\n\nfunc FuzzB(f *testing.F) {}\nfunc FuzzA(f *testing.F) {}\nfunc FuzzHelper(x int) {}\n// func FuzzComment(f *testing.F) {}\nvar src = `\nfunc FuzzInAString(f *testing.F) {}\n`\nfunc (T) FuzzMethod(f *testing.F) {}\n")
	write(t, root, "a/testdata/y_test.go", "package y\nfunc FuzzInTestdata(f *testing.F) {}\n")
	write(t, root, ".hidden/z_test.go", "package z\nfunc FuzzHidden(f *testing.F) {}\n")
	write(t, root, "b/c/z_test.go", "package c\nimport \"testing\"\nfunc FuzzC(f *testing.F) {}\n")
	write(t, root, "b/c/z.go", "package c\nfunc FuzzNotATest(f *testing.F) {}\n")
	got, err := Discover(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []Target{{"./a", "FuzzA"}, {"./a", "FuzzB"}, {"./b/c", "FuzzC"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Discover = %v, want %v", got, want)
	}
}

func TestDiscoverFindsThisRepositorysTargets(t *testing.T) {
	got, err := Discover("../..")
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, tg := range got {
		found[tg.Pkg+" "+tg.Name] = true
	}
	for _, want := range []string{"./protocol/jsonrpc FuzzDecode", "./views FuzzSanitize"} {
		if !found[want] {
			t.Errorf("Discover(repo) misses %s: %v", want, got)
		}
	}
	if found["./internal/fuzzrun FuzzX"] {
		t.Errorf("Discover(repo) took the throwaway module's FuzzX in this package's tests for a target")
	}
}

func write(t *testing.T, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// module writes a one-package module whose fuzz target has body; each
// gets its own module path so the fuzz cache (keyed by package) of one
// test run cannot seed another.
func module(t *testing.T, body string) string {
	t.Helper()
	root := t.TempDir()
	write(t, root, "go.mod", fmt.Sprintf("module fuzzruntest.example/m%d\n\ngo 1.26\n", time.Now().UnixNano()))
	write(t, root, "p/x_test.go", `package p

import (
	"os"
	"slices"
	"testing"
)

var _ = os.Exit
var _ = slices.Contains[[]string]

// inWorker is true in the fuzzer's worker processes, never in a plain go test.
var inWorker = slices.Contains(os.Args, "-test.fuzzworker")

func FuzzX(f *testing.F) {
	f.Add("ab")
	f.Fuzz(func(t *testing.T, s string) {
`+body+`
	})
}
`)
	return root
}

// fuzz runs the stage's Runner on FuzzX of a module built from body,
// bounded by fuzztime, and returns the result, the log and the module.
func fuzz(t *testing.T, body, fuzztime string) (Result, string, string) {
	t.Helper()
	root := module(t, body)
	var log bytes.Buffer
	r := &Runner{Root: root, FuzzTime: fuzztime, MinimizeTime: "1s", Parallel: 1, Retries: 1, ReplayCount: 2, Log: &log, GoTest: goTest}
	res, err := r.Run(Target{Pkg: "./p", Name: "FuzzX"})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	return res, log.String(), root
}

// The end-to-end cases run the real go command on a real fuzz target: the
// runner exists for the go fuzzer's real behaviour, which a fake would
// only restate.
func needGo(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and fuzzes throwaway modules; skipped under -short")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
}

func TestRunReportsAFindingInFull(t *testing.T) {
	needGo(t)
	res, log, root := fuzz(t, `		if len(s) > 3 {
			t.Fatalf("longer than 3: %q", s)
		}`, "20s")
	if res.Verdict != Finding || res.Attempts != 1 {
		t.Fatalf("verdict %v after %d attempts (%s), want a finding at once\n%s", res.Verdict, res.Attempts, res.Reason, log)
	}
	files, _ := filepath.Glob(filepath.Join(root, "p", "testdata", "fuzz", "FuzzX", "*"))
	if len(files) != 1 {
		t.Fatalf("the finding's input was not kept: %v", files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	id := filepath.Base(files[0])
	for _, want := range []string{
		"FINDING: FuzzX in ./p",
		"fails again under a plain go test -run",
		"longer than 3",                                        // the error
		"-----BEGIN " + id + "-----\n" + string(data),          // the input, in full
		"go test '-run=^FuzzX$/^" + id + "$' '-count=1' './p'", // the command
	} {
		if !strings.Contains(log, want) {
			t.Errorf("the report lacks %q:\n%s", want, log)
		}
	}
	// The printed command reproduces it.
	cmd := exec.Command("go", "test", "-run=^FuzzX$/^"+id+"$", "-count=1", "./p")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Errorf("the printed command passes:\n%s", out)
	}
}

// A worker that dies once, on an input that passes alone, is the fuzzer's
// trouble: retried, reported, its input removed.
func TestRunRetriesAWorkerLostOnce(t *testing.T) {
	needGo(t)
	marker := filepath.Join(t.TempDir(), "died")
	res, log, root := fuzz(t, fmt.Sprintf(`		if inWorker && s != "ab" {
			if _, err := os.Stat(%q); err != nil {
				os.WriteFile(%[1]q, nil, 0o644)
				os.Exit(2) // as a worker killed mid-input looks to the coordinator
			}
		}`, marker), "300x")
	if res.Verdict != Pass || res.Attempts != 2 || len(res.Infra) != 1 {
		t.Fatalf("verdict %v after %d attempts, infra %q; want a pass on the retry\n%s", res.Verdict, res.Attempts, res.Infra, log)
	}
	for _, want := range []string{"FUZZER INFRASTRUCTURE FAILURE: FuzzX", "fuzzing process hung or terminated unexpectedly", "-----BEGIN ", "retrying once"} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %q:\n%s", want, log)
		}
	}
	if files, _ := filepath.Glob(filepath.Join(root, "p", "testdata", "fuzz", "FuzzX", "*")); len(files) != 0 {
		t.Errorf("the innocent input was left behind: %v", files)
	}
}

func TestRunFailsWhenEveryWorkerDies(t *testing.T) {
	needGo(t)
	res, log, _ := fuzz(t, `		if inWorker && s != "ab" {
			os.Exit(2)
		}`, "300x")
	if res.Verdict != Finding || res.Attempts != 2 {
		t.Fatalf("verdict %v after %d attempts (%s); want a failure after one retry\n%s", res.Verdict, res.Attempts, res.Reason, log)
	}
}

// A failure the target reports itself is a finding even when its input
// passes alone: that is a bug depending on state or timing.
func TestRunKeepsANondeterministicFailure(t *testing.T) {
	needGo(t)
	res, log, _ := fuzz(t, `		if inWorker && s != "ab" {
			t.Fatalf("only in the worker: %q", s)
		}`, "300x")
	if res.Verdict != Finding || res.Attempts != 1 {
		t.Fatalf("verdict %v after %d attempts (%s); want a finding at once\n%s", res.Verdict, res.Attempts, res.Reason, log)
	}
	if !strings.Contains(res.Reason, "depends on state or timing") {
		t.Errorf("reason %q does not say the input passes alone", res.Reason)
	}
}
