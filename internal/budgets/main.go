// Command budgets turns the speed budgets that benchmarks state in their
// doc comments into a check that can fail: scripts/test.sh runs the key
// benchmarks a few times (go test -bench … -count=3) and pipes the output
// here, which compares the best run of each to its budget and prints a
// table of measured against budget.
//
// The best of several runs is compared, not the mean, because the CI
// machine is a loaded 2-core box: noise only ever makes a run slower, so
// the fastest run is the closest to the code's real cost. For the same
// reason a result between the budget and tolerance×budget is only a
// warning; above tolerance×budget (default 2) the check fails, which still
// catches the regressions that matter (an accidental quadratic, a lost
// cache) without failing on a busy machine.
//
// A busy machine can still push the best of three runs past the
// tolerance, without the code costing more: load takes the process off
// the CPU, it does not add CPU time. So with -confirm-cpu a ns/op result
// over tolerance is measured again as CPU time per operation (cpu.go)
// before it fails, and the check judges that; a regression costs CPU
// time and still fails. Missing results are not re-measured: a renamed
// or skipped benchmark stays missing.
//
// Usage:
//
//	go test -run '^$' -bench … -count=3 ./protocol/ ./views/ ./ui/ > bench.txt
//	go run ./internal/budgets [-tolerance 2] [-confirm-cpu] bench.txt
//
// With no file it reads standard input.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Budget is one stated target. Name matches a benchmark exactly, or, when
// it ends in "/*", every sub-benchmark under that name (each must meet the
// budget on its own). Limit is in Metric's unit; when Relative names
// another benchmark, the limit is Limit times that benchmark's value (a
// ratio budget: "256K under 2x the 4K figure").
//
// Values are the best of the runs unless Median is set: a ratio of two
// bests can swing with one lucky run of either side, so a ratio stated
// "median of 3" compares the medians of both.
type Budget struct {
	Name     string
	Metric   string
	Limit    float64
	Relative string
	Median   bool
	Source   string // where the budget is stated, for the reader of a failure
}

// Budgets mirrors the doc comments of the benchmarks it names; change both
// together.
var Budgets = []Budget{
	{Name: "DecodeActionEnvelope", Metric: "ns/op", Limit: 5_000, Source: "protocol/bench_test.go"},
	{Name: "ChatDelta10k", Metric: "ns/op", Limit: 10_000_000, Source: "protocol/bench_test.go"},
	{Name: "ChatDelta100k", Metric: "cpu-ns/op", Limit: 11, Relative: "ChatDelta10k", Median: true, Source: "protocol/bench_test.go (linear streaming)"},
	{Name: "TerminalData10MB", Metric: "ns/op", Limit: 100_000_000, Source: "protocol/bench_test.go (linear terminal output)"},
	{Name: "ApplySnapshot1000Turns", Metric: "x-valid", Limit: 2, Median: true, Source: "protocol/bench_test.go (the snapshot's path over json.Valid of the frame, pair by pair)"},
	{Name: "ListSessions10k", Metric: "x-valid", Limit: 2, Median: true, Source: "protocol/wire_bench_test.go (10,000 session summaries over json.Valid of the page)"},
	{Name: "RootSnapshot1MB", Metric: "x-valid", Limit: 2, Median: true, Source: "protocol/wire_bench_test.go (a 1 MB root state over json.Valid of the frame)"},
	{Name: "ChatTurns/10k", Metric: "ns/turn", Limit: 1.5, Relative: "ChatTurns/1k", Source: "protocol/bench_test.go (amortized O(1) turn append)"},
	{Name: "ChatTurns/10k", Metric: "MiB-live", Limit: 40, Source: "protocol/bench_test.go"},
	{Name: "TranscriptStreaming/*", Metric: "ms/frame", Limit: 4, Source: "views/bench_test.go"},
	{Name: "StreamingCodeBlock/*", Metric: "ms/frame", Limit: 4, Source: "views/bench_test.go"},
	{Name: "StreamingCodeBlock/256K", Metric: "ms/frame", Limit: 2, Relative: "StreamingCodeBlock/4K", Source: "views/bench_test.go (segments highlighted once)"},
	{Name: "StreamingProse/*", Metric: "ms/frame", Limit: 1, Source: "views/bench_test.go"},
	{Name: "MCPPanel/*", Metric: "ns/op", Limit: 4_000_000, Source: "views/bench_test.go"},
	{Name: "MCPPanel/wide/1000", Metric: "ns/op", Limit: 20, Relative: "MCPPanel/wide/10", Source: "views/bench_test.go (linear layout)"},
	{Name: "MCPPanel/narrow/1000", Metric: "ns/op", Limit: 20, Relative: "MCPPanel/narrow/10", Source: "views/bench_test.go (linear layout)"},
	{Name: "DiffScroll/*", Metric: "ns/op", Limit: 4_000_000, Source: "views/changes_bench_test.go"},
	{Name: "ChangesetFiles2000/*", Metric: "ns/op", Limit: 4_000_000, Source: "views/changes_bench_test.go"},
	{Name: "KeyToFrame/*", Metric: "ns/op", Limit: 1_000_000, Source: "ui/bench_test.go"},
	{Name: "TerminalStream10MB", Metric: "ms/frame", Limit: 4, Source: "ui/terminal_bench_test.go"},
	{Name: "TerminalStream10MB", Metric: "MiB-live", Limit: 64, Source: "ui/terminal_bench_test.go (the scrollback, plus the 10 MB state the pane holds)"},
	{Name: "AuthRequiredUnadvertised", Metric: "ns/op", Limit: 50_000, Source: "ui/authflood_test.go"},
	{Name: "ManyHosts/20x500", Metric: "ms/frame", Limit: 4, Source: "ui/hosts_bench_test.go (a frame of 20 hosts × 500 sessions, inbox updated in it)"},
	{Name: "ManyHosts/20x500", Metric: "MiB-live", Limit: 200, Source: "ui/hosts_bench_test.go"},
	{Name: "LongDay", Metric: "heap-x-fresh", Limit: 2, Median: true, Source: "ui/longday_bench_test.go (the live heap after a compressed working day over a fresh start with the same open state)"},
	{Name: "InboundDelta/1.0", Metric: "ns/op", Limit: 10_000, Source: "protocol/client/bench_test.go"},
	{Name: "InboundDelta/0.6", Metric: "ns/op", Limit: 1.5, Relative: "InboundDelta/1.0", Median: true, Source: "protocol/client/bench_test.go (0.6 conversion)"},
	{Name: "CLIStartup", Metric: "status-x-floor", Limit: 6, Median: true, Source: "internal/startbench/startup_test.go (status --json against a local host, as whole processes, over a floor process doing its network work, pair by pair)"},
	{Name: "FirstFrame", Metric: "frame-x-floor", Limit: 15, Median: true, Source: "internal/startbench/firstframe_test.go (the TUI's first frame after exec, in a pseudo-terminal, over a bare Go binary's, pair by pair)"},
}

// Results maps a benchmark name (without the "Benchmark" prefix and the
// -GOMAXPROCS suffix) to one metrics map per run.
type Results map[string][]map[string]float64

var procsSuffix = regexp.MustCompile(`-\d+$`)

// Parse reads `go test -bench` output. Lines that are not benchmark
// results are ignored, except a package FAIL, which is returned as an
// error: a benchmark that crashed must not read as "missing" only.
func Parse(r io.Reader) (Results, error) {
	res := Results{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "FAIL") || strings.HasPrefix(line, "--- FAIL") {
			return nil, fmt.Errorf("benchmark run failed: %s", line)
		}
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		if _, err := strconv.ParseInt(f[1], 10, 64); err != nil {
			continue // a "BenchmarkX" log line, not a result
		}
		name := procsSuffix.ReplaceAllString(strings.TrimPrefix(f[0], "Benchmark"), "")
		m := map[string]float64{}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return nil, fmt.Errorf("benchmark line %q: value %q is not a number", line, f[i])
			}
			m[f[i+1]] = v
		}
		res[name] = append(res[name], m)
	}
	return res, sc.Err()
}

// Best is the smallest value of metric across the runs of name.
func (r Results) Best(name, metric string) (float64, bool) {
	best, found := 0.0, false
	for _, m := range r[name] {
		if v, ok := m[metric]; ok && (!found || v < best) {
			best, found = v, true
		}
	}
	return best, found
}

// Median is the median value of metric across the runs of name (the mean
// of the middle two for an even count).
func (r Results) Median(name, metric string) (float64, bool) {
	var vs []float64
	for _, m := range r[name] {
		if v, ok := m[metric]; ok {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		return 0, false
	}
	sort.Float64s(vs)
	if len(vs)%2 == 1 {
		return vs[len(vs)/2], true
	}
	return (vs[len(vs)/2-1] + vs[len(vs)/2]) / 2, true
}

// value is the figure a budget compares for name: the best run, or the
// median when the budget asks for it.
func (r Results) value(b Budget, name string) (float64, bool) {
	if b.Median {
		return r.Median(name, b.Metric)
	}
	return r.Best(name, b.Metric)
}

// Status of one row.
type Status string

const (
	OK      Status = "ok"
	Warn    Status = "WARN" // over budget, within tolerance
	Fail    Status = "FAIL" // over tolerance×budget, or not measured
	Missing Status = "MISSING"
)

// Row is one line of the table.
type Row struct {
	Name, Metric string
	Runs         int
	Best, Limit  float64
	Status       Status
	Note         string
}

// Check compares results against budgets with the given tolerance factor.
func Check(res Results, budgets []Budget, tolerance float64) []Row {
	var rows []Row
	for _, b := range budgets {
		names := []string{b.Name}
		if base, ok := strings.CutSuffix(b.Name, "/*"); ok {
			names = nil
			for n := range res {
				if strings.HasPrefix(n, base+"/") {
					names = append(names, n)
				}
			}
			sort.Strings(names)
			if len(names) == 0 {
				names = []string{b.Name}
			}
		}
		for _, n := range names {
			row := Row{Name: n, Metric: b.Metric, Runs: len(res[n]), Limit: b.Limit, Note: b.Source}
			stat := "best"
			if b.Median {
				stat = "median"
			}
			if b.Relative != "" {
				ref, ok := res.value(b, b.Relative)
				if !ok {
					row.Status, row.Note = Missing, "no result for "+b.Relative+", which the budget is relative to"
					rows = append(rows, row)
					continue
				}
				row.Limit = b.Limit * ref
				row.Note = fmt.Sprintf("%g× %s %s; %s", b.Limit, stat, b.Relative, b.Source)
			}
			best, ok := res.value(b, n)
			if b.Relative != "" && ok {
				// The ratio is the figure the budget states; say it.
				row.Note = fmt.Sprintf("ratio %.2f, budget %g× %s %s; %s", b.Limit*best/row.Limit, b.Limit, stat, b.Relative, b.Source)
			}
			switch {
			case !ok:
				row.Status, row.Note = Missing, "no "+b.Metric+" result: renamed, skipped or not run? "+b.Source
			case best <= row.Limit:
				row.Best, row.Status = best, OK
			case best <= row.Limit*tolerance:
				row.Best, row.Status = best, Warn
			default:
				row.Best, row.Status = best, Fail
			}
			rows = append(rows, row)
		}
	}
	return rows
}

// Failed reports whether any row fails the check.
func Failed(rows []Row) bool {
	for _, r := range rows {
		if r.Status == Fail || r.Status == Missing {
			return true
		}
	}
	return false
}

// Print writes the table.
func Print(w io.Writer, rows []Row, tolerance float64) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "benchmark\tbest (or median) of runs\tbudget\t%%budget\tstatus\tnote\n")
	for _, r := range rows {
		best, pct := "-", "-"
		if r.Status != Missing {
			best = fmt.Sprintf("%s %s (n=%d)", human(r.Best), r.Metric, r.Runs)
			pct = fmt.Sprintf("%.0f%%", 100*r.Best/r.Limit)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s %s\t%s\t%s\t%s\n", r.Name, best, human(r.Limit), r.Metric, pct, r.Status, r.Note)
	}
	tw.Flush()
	fmt.Fprintf(w, "(WARN: over budget but within %g× — a loaded machine can do that; FAIL: over %g× budget or not measured)\n", tolerance, tolerance)
}

func human(v float64) string {
	if v >= 100 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

func main() {
	tolerance := flag.Float64("tolerance", 2, "fail only above this multiple of a budget (warn above 1×)")
	confirm := flag.Bool("confirm-cpu", false, "confirm a ns/op result over tolerance by the benchmark's CPU time per op before failing")
	flag.Parse()
	if *tolerance < 1 {
		fmt.Fprintln(os.Stderr, "budgets: -tolerance must be at least 1")
		os.Exit(2)
	}
	var in io.Reader = os.Stdin
	if flag.NArg() > 0 {
		f, err := os.Open(flag.Arg(0))
		if err != nil {
			fmt.Fprintf(os.Stderr, "budgets: %v\n", err)
			os.Exit(2)
		}
		defer f.Close()
		in = f
	}
	out, err := io.ReadAll(in)
	if err != nil {
		fmt.Fprintf(os.Stderr, "budgets: %v\n", err)
		os.Exit(2)
	}
	res, err := Parse(bytes.NewReader(out))
	if err != nil {
		fmt.Fprintf(os.Stderr, "budgets: %v\n", err)
		os.Exit(1)
	}
	rows := Check(res, Budgets, *tolerance)
	Print(os.Stdout, rows, *tolerance)
	if Failed(rows) && *confirm && !missing(rows) {
		meta, err := Meta(bytes.NewReader(out))
		if err == nil {
			rows, err = ConfirmByCPU(".", res, meta, rows, Budgets, *tolerance, os.Stdout)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "budgets: %v\n", err)
			os.Exit(1)
		}
		Print(os.Stdout, rows, *tolerance)
	}
	if Failed(rows) {
		fmt.Fprintln(os.Stderr, "budgets: a benchmark is over its budget beyond the tolerance (or was not measured); see the table above and the benchmark's doc comment")
		os.Exit(1)
	}
}

func missing(rows []Row) bool {
	for _, r := range rows {
		if r.Status == Missing {
			return true
		}
	}
	return false
}
