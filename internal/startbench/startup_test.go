package startbench

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ahptui/ahptui/demohost"
)

// pairs is how many floor/ahptui pairs one benchmark operation times,
// after one warm-up pair that is not counted (page cache, the host's
// first connection).
const pairs = 7

// BenchmarkCLIStartup times `ahptui status --json --host ws://127.0.0.1:PORT/`
// and `ahptui --version` as whole processes against a floor: a minimal Go
// program (testdata/floor) that opens the WebSocket to the same demo host,
// sends initialize and reads the answer. The three run in turn, floor,
// status, version, floor, …, and each command's time is divided by its
// pair's floor, so a machine that slows down mid-run slows both sides of a
// ratio; the figures are the medians of the round.
//
// The floor is a Go program built here rather than curl: curl may not be
// installed on CI, speaks no WebSocket frames past the upgrade, and starts
// as C does; the floor pays the same Go runtime start and the same
// connect, upgrade and round trip as the command, so the ratio is what
// ahptui adds: its package initialisation, its flag and config handling,
// its client. (curl-ms is reported beside them when curl is on PATH, for
// the reader; nothing is judged on it.)
//
// Target (issues 32, 33): a one-shot command against a local host under
// 2x curl's time to the same port, about 2x the floor too: curl takes
// 1.0x to 1.5x the floor here. Budget, until the target is met:
// status-x-floor < 6, median of 3 — a guard against start-up growing
// further, not the target.
//
// The target is not met yet (2026-12-05, the shared 2-core machine:
// idle, status --json 79 ms, 3.8x curl's 21 ms, 97 ms and 4.1x before
// fosite left the binary; loaded by other builds, status-x-floor 3.6 to
// 4.7, floor 19 to 33 ms, status --json 76 to 125 ms). Package
// initialisation is most of it, and nearly all of that is in linked libraries whose init
// runs whether or not a command uses them (GODEBUG=inittrace=1, perf):
// chroma's lexer and style registries, parsed from XML at init (a third
// of `ahptui --version`'s CPU time, linked by glamour's code blocks and
// views' diff highlighting), goldmark's extensions and bluemonday
// (glamour). ahptui's own init is under 1 ms. The demo authorization
// server's ory/fosite tree (gRPC, protobuf, OpenTelemetry, an ORM) is
// gone since issue 33 (46 modules fewer, the binary 11 MB smaller):
// its init was 1 to 2 ms of CPU, yet commands run 12 to 20% sooner
// without it, paired in one run. A build without glamour and chroma's registries (an
// experiment, not code here) measured status --json at 2.0x curl: the
// target needs the markdown and highlighting stack out of the binary's
// start, see DESIGN.md.
//
// Metrics: status-x-floor and version-x-floor (wall-clock ratios, median
// of the pairs), status-cpu-x-floor (the same in CPU time, user+system,
// which a loaded machine does not inflate), floor-ms, status-ms,
// version-ms and curl-ms (medians, wall clock), and when curl is on PATH
// status-x-curl, the issue's own measure, pair by pair like the others
// (curl fetching the host's port over HTTP; reported, not judged, as CI
// may lack curl).
func BenchmarkCLIStartup(b *testing.B) {
	ahptui := build(b, "ahptui", "github.com/ahptui/ahptui")
	floor := build(b, "floor", "./testdata/floor")
	curl, _ := exec.LookPath("curl")

	h, err := demohost.Start(b.Context(), demohost.Config{StepDelay: -1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { h.Close() })
	url := h.URL()
	env := cleanEnv(b)

	type sample struct{ floor, status, version, statusCPU, floorCPU, curl time.Duration }
	var got []sample
	b.ResetTimer()
	for range b.N {
		got = got[:0]
		for i := range pairs + 1 {
			var s sample
			s.floor, s.floorCPU = run(b, env, floor, url)
			s.status, s.statusCPU = run(b, env, ahptui, "status", "--json", "--host", url)
			s.version, _ = run(b, env, ahptui, "--version")
			if curl != "" {
				s.curl, _ = runAny(b, env, curl, "-s", "-o", "/dev/null", strings.Replace(url, "ws://", "http://", 1))
			}
			if i > 0 {
				got = append(got, s)
			}
		}
	}
	b.StopTimer()

	ms := func(f func(sample) time.Duration) float64 {
		vs := make([]float64, len(got))
		for i, s := range got {
			vs[i] = float64(f(s)) / float64(time.Millisecond)
		}
		return median(vs)
	}
	ratio := func(num, den func(sample) time.Duration) float64 {
		vs := make([]float64, len(got))
		for i, s := range got {
			vs[i] = float64(num(s)) / float64(max(den(s), time.Microsecond))
		}
		return median(vs)
	}
	b.ReportMetric(ratio(func(s sample) time.Duration { return s.status }, func(s sample) time.Duration { return s.floor }), "status-x-floor")
	b.ReportMetric(ratio(func(s sample) time.Duration { return s.version }, func(s sample) time.Duration { return s.floor }), "version-x-floor")
	b.ReportMetric(ratio(func(s sample) time.Duration { return s.statusCPU }, func(s sample) time.Duration { return s.floorCPU }), "status-cpu-x-floor")
	b.ReportMetric(ms(func(s sample) time.Duration { return s.floor }), "floor-ms")
	b.ReportMetric(ms(func(s sample) time.Duration { return s.status }), "status-ms")
	b.ReportMetric(ms(func(s sample) time.Duration { return s.version }), "version-ms")
	if curl != "" {
		b.ReportMetric(ms(func(s sample) time.Duration { return s.curl }), "curl-ms")
		b.ReportMetric(ratio(func(s sample) time.Duration { return s.status }, func(s sample) time.Duration { return s.curl }), "status-x-curl")
	}
}

// builds holds the binaries this process built, once each: go test
// calls the benchmark once per -count, and linking ahptui takes seconds.
var (
	buildDir   string
	buildMu    sync.Mutex
	buildsDone = map[string]string{}
)

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// build compiles pkg into a binary called name with the go command
// running the test, the first time it is asked for.
func build(b *testing.B, name, pkg string) string {
	b.Helper()
	buildMu.Lock()
	defer buildMu.Unlock()
	if out, ok := buildsDone[name]; ok {
		return out
	}
	if buildDir == "" {
		dir, err := os.MkdirTemp("", "startbench")
		if err != nil {
			b.Fatal(err)
		}
		buildDir = dir
	}
	out := filepath.Join(buildDir, name)
	cmd := exec.Command("go", "build", "-o", out, pkg)
	if msg, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build %s: %v\n%s", pkg, err, msg)
	}
	buildsDone[name] = out
	return out
}

// cleanEnv is the environment without the user's hosts, tokens or
// settings: a fresh HOME and config directory, no AHPTUI_ variable.
func cleanEnv(b *testing.B) []string {
	home := b.TempDir()
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "HOME" || k == "XDG_CONFIG_HOME" || strings.HasPrefix(k, "AHPTUI_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))
}

// run times one process that must exit 0: its wall clock as the parent
// sees it, and its CPU time (user+system).
func run(b *testing.B, env []string, bin string, args ...string) (wall, cpu time.Duration) {
	b.Helper()
	wall, cpu, err := start(env, bin, args...)
	if err != nil {
		b.Fatal(err)
	}
	return wall, cpu
}

// runAny times a process whatever its exit status (curl against a
// WebSocket endpoint gets an HTTP error answer, which is the point).
func runAny(b *testing.B, env []string, bin string, args ...string) (wall, cpu time.Duration) {
	b.Helper()
	wall, cpu, _ = start(env, bin, args...)
	return wall, cpu
}

func start(env []string, bin string, args ...string) (wall, cpu time.Duration, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	t0 := time.Now()
	err = cmd.Run()
	wall = time.Since(t0)
	if cmd.ProcessState != nil {
		cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	if err != nil {
		err = &runError{bin: filepath.Base(bin), args: args, err: err, stderr: stderr.String()}
	}
	return wall, cpu, err
}

type runError struct {
	bin    string
	args   []string
	err    error
	stderr string
}

func (e *runError) Error() string {
	return e.bin + " " + strings.Join(e.args, " ") + ": " + e.err.Error() + "\n" + e.stderr
}

func median(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	vs = slices.Clone(vs)
	slices.Sort(vs)
	if len(vs)%2 == 1 {
		return vs[len(vs)/2]
	}
	return (vs[len(vs)/2-1] + vs[len(vs)/2]) / 2
}
