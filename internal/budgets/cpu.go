package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The wall-clock ns/op of a benchmark is its CPU cost only when it has a
// core to itself. On the shared 2-core CI machine a busy neighbour can make
// every run of a benchmark several times slower without the code costing a
// nanosecond more (ApplySnapshot1000Turns measured 209 ms/op, best of 8,
// at a load average of 30, against 35 ms idle), so a wall-clock result
// over tolerance is confirmed by the CPU time the operation costs before
// it fails: load takes a process off the CPU but does not add to its CPU
// time, while a regression adds to both.
//
// The CPU time of one operation is measured from outside, so no benchmark
// has to change: the package's test binary runs the one benchmark for a
// fixed count of iterations (-test.benchtime=Nx), and again for 3N; the
// difference of the two processes' CPU times (user+system, every thread)
// is the cost of 2N operations. Start-up, the benchmark's setup and its
// b.N=1 warm-up run cancel out. Each count runs cpuReps times and the
// least CPU time of each is used, as a contended cache or a migration
// only ever adds to it. CPU time counts the garbage collector's
// background work too, which an idle wall clock partly hides on the
// second core, so it errs on the strict side.

// cpuReps is how many times each count runs.
const cpuReps = 2

// minCPUWork is the CPU time the 2N operations of a measurement are sized
// to take for an operation that costs its budget, well above the few
// milliseconds of noise in a process's CPU accounting. maxWallWork caps N
// by the wall clock instead, so an operation far over its budget (or a
// budget relative to another, which has no size of its own) does not run
// for minutes.
const (
	minCPUWork  = 200 * time.Millisecond
	maxWallWork = 20 * time.Second
)

// benchMeta is where a benchmark of the go test -bench output lives.
type benchMeta struct {
	pkg string // import path, from the "pkg:" line above its results
}

var pkgLine = regexp.MustCompile(`^pkg: (\S+)`)

// Meta reads the package of each benchmark in go test -bench output.
func Meta(r io.Reader) (map[string]benchMeta, error) {
	meta := map[string]benchMeta{}
	pkg := ""
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := pkgLine.FindStringSubmatch(line); m != nil {
			pkg = m[1]
			continue
		}
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		if _, err := strconv.Atoi(f[1]); err != nil {
			continue
		}
		meta[procsSuffix.ReplaceAllString(strings.TrimPrefix(f[0], "Benchmark"), "")] = benchMeta{pkg: pkg}
	}
	return meta, sc.Err()
}

// cpuCandidates are the benchmarks a CPU confirmation measures: those
// whose ns/op row failed over tolerance, and every benchmark whose budget
// is relative to one of them or which one of them is relative to, so a
// relative budget compares CPU time with CPU time. Budgets in a custom
// metric (ms/frame) keep their wall-clock verdict: their unit is not the
// benchmark's op.
func cpuCandidates(rows []Row, budgets []Budget, res Results) []string {
	relative := map[string]string{}
	for _, b := range budgets {
		if b.Relative != "" {
			relative[b.Name] = b.Relative
		}
	}
	set := map[string]bool{}
	for _, r := range rows {
		if r.Status == Fail && r.Metric == "ns/op" {
			set[r.Name] = true
		}
	}
	for name, ref := range relative {
		if set[name] || set[ref] {
			set[name], set[ref] = true, true
		}
	}
	var out []string
	for n := range set {
		if len(res[n]) > 0 {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// benchPattern selects exactly one benchmark (or sub-benchmark) by name.
func benchPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	parts[0] = "^Benchmark" + strings.TrimPrefix(parts[0], "^")
	return strings.Join(parts, "/")
}

// cpuProber builds each package's test binary once and measures CPU time.
type cpuProber struct {
	root string               // where the go command runs: the module's root
	dir  string               // where the test binaries go
	bins map[string][2]string // import path → binary, package directory
	log  io.Writer
	// minWork is minCPUWork unless a test sizes its measurements down.
	minWork time.Duration
}

func (p *cpuProber) binary(pkg string) (bin, dir string, err error) {
	if b, ok := p.bins[pkg]; ok {
		return b[0], b[1], nil
	}
	list := exec.Command("go", "list", "-f", "{{.Dir}}", pkg)
	list.Dir = p.root
	out, err := list.Output()
	if err != nil {
		return "", "", fmt.Errorf("go list %s: %w", pkg, err)
	}
	dir = strings.TrimSpace(string(out))
	bin = filepath.Join(p.dir, strings.ReplaceAll(pkg, "/", "_")+".test")
	build := exec.Command("go", "test", "-c", "-o", bin, pkg)
	build.Dir = p.root
	if out, err := build.CombinedOutput(); err != nil {
		return "", "", fmt.Errorf("go test -c %s: %w\n%s", pkg, err, out)
	}
	p.bins[pkg] = [2]string{bin, dir}
	return bin, dir, nil
}

// cpuOf is the least CPU time, over cpuReps runs, of the benchmark name
// run for n iterations. The binary runs in its package's folder, as go
// test runs it, so relative testdata paths hold.
func (p *cpuProber) cpuOf(bin, dir, name string, n int) (time.Duration, error) {
	least := time.Duration(math.MaxInt64)
	for range cpuReps {
		cmd := exec.Command(bin, "-test.run=^$", "-test.bench="+benchPattern(name),
			fmt.Sprintf("-test.benchtime=%dx", n), "-test.count=1")
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			return 0, fmt.Errorf("benchmark %s (%d iterations): %w\n%s", name, n, err, out)
		}
		if !strings.Contains(string(out), "Benchmark"+name) {
			return 0, fmt.Errorf("benchmark %s did not run:\n%s", name, out)
		}
		least = min(least, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
	}
	return least, nil
}

// iterations is N for an operation with the given budget (0 for none)
// whose best wall-clock time was wall, both in ns: 2N operations at the
// budget take minWork, and 4N (both counts) at the wall-clock time at
// most maxWallWork.
func iterations(limit, wall float64, minWork time.Duration) int {
	perOp := limit
	if perOp <= 0 {
		perOp = wall
	}
	n := int(math.Ceil(float64(minWork) / (2 * math.Max(perOp, 1))))
	if wall > 0 {
		n = min(n, int(float64(maxWallWork)/(4*wall)))
	}
	return max(n, 1)
}

// cpuPerOp measures the CPU time of one operation of name.
func (p *cpuProber) cpuPerOp(name string, m benchMeta, limit, wall float64) (float64, error) {
	bin, dir, err := p.binary(m.pkg)
	if err != nil {
		return 0, err
	}
	n := iterations(limit, wall, p.minWork)
	a, err := p.cpuOf(bin, dir, name, n)
	if err != nil {
		return 0, err
	}
	b, err := p.cpuOf(bin, dir, name, 3*n)
	if err != nil {
		return 0, err
	}
	perOp := float64(b-a) / float64(2*n)
	fmt.Fprintf(p.log, "  %s: CPU %s for %d iterations, %s for %d: %.0f ns/op\n", name, a, n, b, 3*n, perOp)
	return math.Max(perOp, 0), nil
}

// ConfirmByCPU replaces the wall-clock ns/op of the failing benchmarks
// (see cpuCandidates) with their CPU time per operation and checks again.
// It returns the new rows, or the original ones when nothing qualified.
// root is the module's root, where the go command runs.
func ConfirmByCPU(root string, res Results, meta map[string]benchMeta, rows []Row, budgets []Budget, tolerance float64, log io.Writer) ([]Row, error) {
	return confirmByCPU(root, res, meta, rows, budgets, tolerance, log, minCPUWork)
}

func confirmByCPU(root string, res Results, meta map[string]benchMeta, rows []Row, budgets []Budget, tolerance float64, log io.Writer, minWork time.Duration) ([]Row, error) {
	names := cpuCandidates(rows, budgets, res)
	if len(names) == 0 {
		return rows, nil
	}
	dir, err := os.MkdirTemp("", "budgets-cpu-")
	if err != nil {
		return nil, fmt.Errorf("confirm by CPU time: %w", err)
	}
	defer os.RemoveAll(dir)
	p := &cpuProber{root: root, dir: dir, bins: map[string][2]string{}, log: log, minWork: minWork}
	limits := map[string]float64{}
	for _, b := range budgets {
		if b.Relative == "" {
			limits[strings.TrimSuffix(b.Name, "/*")] = b.Limit
		}
	}
	fmt.Fprintf(log, "confirming by CPU time per op (load can slow a wall clock, not add CPU time): %s\n", strings.Join(names, ", "))
	confirmed := Results{}
	for n, runs := range res {
		confirmed[n] = runs
	}
	for _, name := range names {
		base, _, _ := strings.Cut(name, "/")
		m, ok := meta[name]
		if !ok || m.pkg == "" {
			return nil, fmt.Errorf("confirm %s by CPU time: its package is not in the benchmark output", name)
		}
		wall, _ := res.Best(name, "ns/op")
		cpu, err := p.cpuPerOp(name, m, limits[base], wall)
		if err != nil {
			return nil, fmt.Errorf("confirm %s by CPU time: %w", name, err)
		}
		confirmed[name] = []map[string]float64{{"ns/op": cpu}}
	}
	out := Check(confirmed, budgets, tolerance)
	for i := range out {
		for _, n := range names {
			if out[i].Name == n {
				out[i].Note = "CPU time per op; " + out[i].Note
			}
		}
	}
	return out, nil
}
