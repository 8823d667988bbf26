package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// sample builds go test -bench output for the budgeted benchmarks; each
// value is in the budget's own metric, and each benchmark gets the runs
// given (several runs test the best-of selection).
func sample(vals map[string][]string) string {
	var b strings.Builder
	b.WriteString("goos: linux\ngoarch: amd64\npkg: github.com/ahptui/ahptui/protocol\ncpu: Intel(R) Xeon(R) Processor\n")
	unit := map[string]string{}
	for _, bg := range Budgets {
		unit[strings.TrimSuffix(bg.Name, "/*")] = bg.Metric
	}
	names := make([]string, 0, len(vals))
	for name := range vals {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		base, _, _ := strings.Cut(name, "/")
		for _, v := range vals[name] {
			switch {
			case strings.Contains(v, " "): // metrics written out: "1.2 ns/turn 30 MiB-live"
				b.WriteString("Benchmark" + name + "-2    \t    1\t    235523 ns/op\t " + v + "\t  135857 B/op\t     744 allocs/op\n")
			case unit[base] == "ms/frame":
				b.WriteString("Benchmark" + name + "-2    \t    1002\t    235523 ns/op\t         " + v + " ms/frame\t  135857 B/op\t     744 allocs/op\n")
			default:
				b.WriteString("Benchmark" + name + "-2    \t    100\t  " + v + " ns/op\t  87.22 MB/s\t     568 B/op\t      16 allocs/op\n")
			}
		}
	}
	b.WriteString("PASS\nok  \tgithub.com/ahptui/ahptui/protocol\t2.928s\n")
	return b.String()
}

func good() map[string][]string {
	return map[string][]string{
		"DecodeActionEnvelope":        {"2603", "2494", "2537"},
		"ChatDelta10k":                {"2022770 cpu-ns/op", "2230614 cpu-ns/op", "2206514 cpu-ns/op"},
		"ChatDelta100k":               {"26789192 cpu-ns/op", "28129875 cpu-ns/op", "26893312 cpu-ns/op"},
		"ApplySnapshot1000Turns":      {"1.6 x-valid 5.4 old-x-valid", "1.7 x-valid 5.2 old-x-valid", "1.9 x-valid 5.6 old-x-valid"},
		"ListSessions10k":             {"1.3 x-valid 2.9 old-x-valid", "1.3 x-valid 3.0 old-x-valid", "1.4 x-valid 2.9 old-x-valid"},
		"RootSnapshot1MB":             {"1.6 x-valid 7.6 old-x-valid", "1.8 x-valid 7.9 old-x-valid", "1.8 x-valid 7.8 old-x-valid"},
		"TranscriptStreaming/color":   {"0.2355", "0.2393", "0.2454"},
		"TranscriptStreaming/nocolor": {"0.1041", "0.09802", "0.09792"},
		"KeyToFrame/approve":          {"251282", "266074", "305844"},
		"KeyToFrame/next-card":        {"402258", "379085", "387964"},
		// Measured on a loaded 2-core machine, 2026-12-01.
		"ChatTurns/1k":             {"127470 ns/turn 3.1 MiB-live", "137522 ns/turn 3.1 MiB-live", "161497 ns/turn 3.1 MiB-live"},
		"ChatTurns/10k":            {"53893 ns/turn 32.06 MiB-live", "69829 ns/turn 32.06 MiB-live", "113799 ns/turn 32.07 MiB-live"},
		"StreamingCodeBlock/4K":    {"1.9", "2.2", "7.5"},
		"StreamingCodeBlock/64K":   {"2.04", "2.3", "2.5"},
		"StreamingCodeBlock/256K":  {"2.1", "3.7", "3.9"},
		"StreamingProse/4K":        {"0.59", "0.61", "0.7"},
		"StreamingProse/256K":      {"0.48", "0.5", "0.52"},
		"MCPPanel/wide/10":         {"260000", "300000", "2490608"},
		"MCPPanel/wide/1000":       {"1700000", "2000000", "12500316"},
		"MCPPanel/narrow/10":       {"220000", "250000", "2223993"},
		"MCPPanel/narrow/1000":     {"1500000", "1800000", "10831401"},
		"AuthRequiredUnadvertised": {"5635", "6000", "7359"},
		"InboundDelta/1.0":         {"3900", "4200", "4500"},
		"InboundDelta/0.6":         {"5100", "5500", "5900"},
		// Measured on the shared 2-core machine, 2026-12-02.
		"DiffScroll/160x50":        {"1018848", "1445606", "3110363"},
		"DiffScroll/120x40":        {"991175", "1200000", "2370856"},
		"ChangesetFiles2000/rows":  {"635280", "900000", "2254074"},
		"ChangesetFiles2000/frame": {"759820", "900000", "1113079"},
		"TerminalStream10MB":       {"2.364 ms/frame 898735 B/frame 44.86 MiB-live", "2.269 ms/frame 898734 B/frame 44.86 MiB-live", "2.5 ms/frame 898734 B/frame 44.86 MiB-live"},
		"TerminalData10MB":         {"52861845", "48000000", "61000000"},
		"ManyHosts/20x500":         {"0.85 ms/frame 2.99 MiB-live", "0.9 ms/frame 2.99 MiB-live", "1.1 ms/frame 3.0 MiB-live"},
		// Issue 33's first-frame target met (7 floors, about 50 ms).
		"FirstFrame": {"6.1 frame-x-floor 7 floor-ms", "6.6 frame-x-floor 7.2 floor-ms", "7.2 frame-x-floor 6.9 floor-ms"},
		// Measured on the shared 2-core machine, 2026-12-05 (load 8).
		"LongDay": {"1.09 heap-x-fresh 6.10 MiB-day 5.60 MiB-fresh 157 MiB-rss", "1.09 heap-x-fresh", "1.09 heap-x-fresh"},
		// Issue 32's start-up budget met (not yet measured so: the
		// machine's 2026-12-05 runs were 3.4 to 5.2, see TestCLIStartupBudget).
		"CLIStartup": {"1.7 status-x-floor 25 floor-ms", "1.9 status-x-floor 24 floor-ms", "2.4 status-x-floor 20 floor-ms"},
	}
}

// checkChanged checks the good sample after change, at tolerance 2.
func checkChanged(t *testing.T, change func(map[string][]string)) []Row {
	t.Helper()
	v := good()
	change(v)
	res, err := Parse(strings.NewReader(sample(v)))
	if err != nil {
		t.Fatal(err)
	}
	return Check(res, Budgets, 2)
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name   string
		change func(map[string][]string)
		fail   bool
		status map[string]Status // rows whose status is asserted
	}{
		{name: "measured on CI 2026-11-29", change: func(map[string][]string) {},
			status: map[string]Status{"DecodeActionEnvelope": OK, "ChatDelta100k": Warn, "KeyToFrame/next-card": OK}},
		{name: "best of runs, not the mean or the last", change: func(v map[string][]string) {
			v["DecodeActionEnvelope"] = []string{"50000", "4900", "90000"}
		}, status: map[string]Status{"DecodeActionEnvelope": OK}},
		{name: "over budget within tolerance warns", change: func(v map[string][]string) {
			v["TerminalData10MB"] = []string{"180000000", "140000000"}
		}, status: map[string]Status{"TerminalData10MB": Warn}},
		{name: "over tolerance fails", fail: true, change: func(v map[string][]string) {
			v["TerminalData10MB"] = []string{"240000000", "202000000"}
		}, status: map[string]Status{"TerminalData10MB": Fail, "DecodeActionEnvelope": OK}},
		{name: "a snapshot decoded as slowly as before fails its ratio to json.Valid", fail: true, change: func(v map[string][]string) {
			v["ApplySnapshot1000Turns"] = []string{"5.0 x-valid", "5.6 x-valid", "5.3 x-valid"}
		}, status: map[string]Status{"ApplySnapshot1000Turns": Fail, "ListSessions10k": OK}},
		{name: "a ratio to json.Valid is judged on its median", change: func(v map[string][]string) {
			v["RootSnapshot1MB"] = []string{"1.2 x-valid", "1.9 x-valid", "4.5 x-valid"}
		}, status: map[string]Status{"RootSnapshot1MB": OK}},
		{name: "one sub-benchmark over tolerance fails", fail: true, change: func(v map[string][]string) {
			v["KeyToFrame/next-card"] = []string{"2500000"}
		}, status: map[string]Status{"KeyToFrame/next-card": Fail, "KeyToFrame/approve": OK}},
		{name: "the custom metric is read, not ns/op", fail: true, change: func(v map[string][]string) {
			v["TranscriptStreaming/nocolor"] = []string{"8.5"}
		}, status: map[string]Status{"TranscriptStreaming/nocolor": Fail, "TranscriptStreaming/color": OK}},
		{name: "quadratic streaming fails the relative budget", fail: true, change: func(v map[string][]string) {
			v["ChatDelta100k"] = []string{"202000000 cpu-ns/op"} // 100x the 10k run
		}, status: map[string]Status{"ChatDelta100k": Fail, "ChatDelta10k": OK}},
		{name: "a missing benchmark fails", fail: true, change: func(v map[string][]string) {
			delete(v, "ApplySnapshot1000Turns")
		}, status: map[string]Status{"ApplySnapshot1000Turns": Missing}},
		{name: "missing sub-benchmarks fail", fail: true, change: func(v map[string][]string) {
			delete(v, "KeyToFrame/approve")
			delete(v, "KeyToFrame/next-card")
		}, status: map[string]Status{"KeyToFrame/*": Missing}},
		{name: "missing reference of a relative budget fails", fail: true, change: func(v map[string][]string) {
			delete(v, "ChatDelta10k")
		}, status: map[string]Status{"ChatDelta100k": Missing}},
		{name: "a median ratio ignores one lucky run", change: func(v map[string][]string) {
			// Best 100k over best 10k would be 13x; the medians are 10.5x.
			v["ChatDelta10k"] = []string{"1500000 cpu-ns/op", "2000000 cpu-ns/op", "2100000 cpu-ns/op"}
			v["ChatDelta100k"] = []string{"20000000 cpu-ns/op", "21000000 cpu-ns/op", "30000000 cpu-ns/op"}
		}, status: map[string]Status{"ChatDelta100k": OK}},
		{name: "a median ratio over budget warns", change: func(v map[string][]string) {
			v["ChatDelta10k"] = []string{"2000000 cpu-ns/op", "2000000 cpu-ns/op", "2000000 cpu-ns/op"}
			v["ChatDelta100k"] = []string{"21000000 cpu-ns/op", "23000000 cpu-ns/op", "24000000 cpu-ns/op"} // 11.5x
		}, status: map[string]Status{"ChatDelta100k": Warn}},
		{name: "a code block whose frame grows with the block fails", fail: true, change: func(v map[string][]string) {
			v["StreamingCodeBlock/256K"] = []string{"3.9"} // under 4 ms, but…
			v["StreamingCodeBlock/4K"] = []string{"0.9"}   // …4.3x, over 2x tolerance of 2x
		}, status: map[string]Status{"StreamingCodeBlock/256K": Fail, "StreamingCodeBlock/4K": OK}},
		{name: "turns that cost more per turn at 10k fail", fail: true, change: func(v map[string][]string) {
			v["ChatTurns/10k"] = []string{"582000 ns/turn 32 MiB-live"}
			v["ChatTurns/1k"] = []string{"143000 ns/turn 3.1 MiB-live"}
		}, status: map[string]Status{"ChatTurns/10k": Fail}},
		{name: "a 10k chat far over its heap budget fails", fail: true, change: func(v map[string][]string) {
			v["ChatTurns/10k"] = []string{"60000 ns/turn 90 MiB-live"}
		}, status: map[string]Status{"ChatTurns/10k": Fail}},
		{name: "a diff frame that draws the whole file fails", fail: true, change: func(v map[string][]string) {
			v["DiffScroll/160x50"] = []string{"45000000"}
		}, status: map[string]Status{"DiffScroll/160x50": Fail, "DiffScroll/120x40": OK}},
		{name: "a 2,000-file list over twice its budget fails", fail: true, change: func(v map[string][]string) {
			v["ChangesetFiles2000/frame"] = []string{"9000000"}
		}, status: map[string]Status{"ChangesetFiles2000/frame": Fail, "ChangesetFiles2000/rows": OK}},
		{name: "a quadratic MCP panel fails its ratio", fail: true, change: func(v map[string][]string) {
			v["MCPPanel/narrow/1000"] = []string{"3900000"} // under 4 ms, but…
			v["MCPPanel/narrow/10"] = []string{"90000"}     // …43x, over 2x tolerance of 20x
		}, status: map[string]Status{"MCPPanel/narrow/1000": Fail, "MCPPanel/wide/1000": OK}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows := checkChanged(t, tt.change)
			var table bytes.Buffer
			Print(&table, rows, 2)
			if got := Failed(rows); got != tt.fail {
				t.Errorf("Failed = %v, want %v\n%s", got, tt.fail, table.String())
			}
			// A benchmark with budgets on two metrics shows its worst row.
			rank := map[Status]int{OK: 0, Warn: 1, Fail: 2, Missing: 3}
			byName := map[string]Status{}
			for _, r := range rows {
				if old, seen := byName[r.Name]; !seen || rank[r.Status] > rank[old] {
					byName[r.Name] = r.Status
				}
			}
			for n, want := range tt.status {
				if byName[n] != want {
					t.Errorf("%s: status %q, want %q\n%s", n, byName[n], want, table.String())
				}
			}
		})
	}
}

func TestParse(t *testing.T) {
	res, err := Parse(strings.NewReader(sample(good())))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(res["DecodeActionEnvelope"]); n != 3 {
		t.Errorf("DecodeActionEnvelope: %d runs, want 3", n)
	}
	if v, _ := res.Best("KeyToFrame/next-card", "ns/op"); v != 379085 {
		t.Errorf("best next-card = %v, want 379085", v)
	}
	if v, _ := res.Best("TranscriptStreaming/nocolor", "ms/frame"); v != 0.09792 {
		t.Errorf("best nocolor ms/frame = %v, want 0.09792", v)
	}
	if v, _ := res.Best("DecodeActionEnvelope", "allocs/op"); v != 16 {
		t.Errorf("allocs/op = %v, want 16", v)
	}

	for _, bad := range []string{
		"BenchmarkX-2 \t 100\t 12 ns/op\n--- FAIL: BenchmarkY\nFAIL\tgithub.com/ahptui/ahptui/ui\t1.0s\n",
		"FAIL\tgithub.com/ahptui/ahptui/views [build failed]\n",
		"BenchmarkX-2 \t 100\t twelve ns/op\n",
	} {
		if _, err := Parse(strings.NewReader(bad)); err == nil {
			t.Errorf("Parse(%q) accepted a failed or garbled run", bad)
		}
	}
}

func TestBenchPattern(t *testing.T) {
	for name, want := range map[string]string{
		"ApplySnapshot1000Turns": "^BenchmarkApplySnapshot1000Turns$",
		"KeyToFrame/next-card":   "^BenchmarkKeyToFrame$/^next-card$",
		"X/a.b":                  `^BenchmarkX$/^a\.b$`,
	} {
		if got := benchPattern(name); got != want {
			t.Errorf("benchPattern(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestCPUCandidates(t *testing.T) {
	tests := []struct {
		name   string
		change func(map[string][]string)
		want   []string
	}{
		{name: "nothing over tolerance", change: func(map[string][]string) {}},
		{name: "a warning is not measured", change: func(v map[string][]string) {
			v["TerminalData10MB"] = []string{"180000000"}
		}},
		{name: "one over tolerance", change: func(v map[string][]string) {
			v["TerminalData10MB"] = []string{"240000000"}
		}, want: []string{"TerminalData10MB"}},
		{name: "a sub-benchmark by its own name", change: func(v map[string][]string) {
			v["KeyToFrame/next-card"] = []string{"2500000"}
		}, want: []string{"KeyToFrame/next-card"}},
		{name: "a relative budget brings its reference", change: func(v map[string][]string) {
			v["MCPPanel/wide/1000"] = []string{"100000000"}
		}, want: []string{"MCPPanel/wide/10", "MCPPanel/wide/1000"}},
		{name: "a reference brings what is relative to it", change: func(v map[string][]string) {
			v["ChatDelta10k"] = []string{"25000000"}
		}, want: []string{"ChatDelta100k", "ChatDelta10k"}},
		{name: "a custom metric keeps its wall-clock verdict", change: func(v map[string][]string) {
			v["TranscriptStreaming/color"] = []string{"9.5"}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := good()
			tt.change(v)
			res, err := Parse(strings.NewReader(sample(v)))
			if err != nil {
				t.Fatal(err)
			}
			got := cpuCandidates(Check(res, Budgets, 2), Budgets, res)
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("cpuCandidates = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestMeta(t *testing.T) {
	out := "pkg: example.com/a\nBenchmarkX-2 \t 100\t 12 ns/op\nBenchmarkX-2 \t 300\t 11 ns/op\npkg: example.com/b\nBenchmarkY/sub-2 \t 7\t 5 ns/op\n"
	meta, err := Meta(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if m := meta["X"]; m.pkg != "example.com/a" {
		t.Errorf("X: %+v, want example.com/a", m)
	}
	if m := meta["Y/sub"]; m.pkg != "example.com/b" {
		t.Errorf("Y/sub: %+v, want example.com/b", m)
	}
}

func TestIterations(t *testing.T) {
	for _, tt := range []struct {
		limit, wall float64
		want        int
	}{
		{limit: 50_000_000, wall: 35_000_000, want: 2},     // ApplySnapshot1000Turns: 200 ms of work at its budget
		{limit: 5_000, wall: 2_500, want: 20_000},          // DecodeActionEnvelope
		{limit: 5_000, wall: 1_000_000, want: 5_000},       // far over budget: capped at 20 s of wall clock
		{limit: 0, wall: 30_000_000, want: 4},              // a relative budget: sized by its wall clock
		{limit: 50_000_000, wall: 20_000_000_000, want: 1}, // never below one
	} {
		if got := iterations(tt.limit, tt.wall, minCPUWork); got != tt.want {
			t.Errorf("iterations(%g, %g) = %d, want %d", tt.limit, tt.wall, got, tt.want)
		}
	}
}

// TestConfirmByCPU runs the confirmation on a real module: a benchmark
// whose wall clock is slow while it costs almost no CPU (it sleeps, as a
// benchmark does while a busy neighbour holds the cores) is cleared, one
// that burns the CPU it is charged for still fails.
func TestConfirmByCPU(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a throwaway module's benchmarks; skipped under -short")
	}
	root := t.TempDir()
	for name, content := range map[string]string{
		"go.mod": "module budgetstest.example/m\n\ngo 1.26\n",
		"p/p_test.go": `package p

import (
	"testing"
	"time"
)

var sink int

func BenchmarkSleepy(b *testing.B) {
	for b.Loop() {
		time.Sleep(time.Millisecond)
	}
}

func BenchmarkBusy(b *testing.B) {
	for b.Loop() {
		for i := range 4_000_000 {
			sink += i * i
		}
	}
}
`,
	} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	budgets := []Budget{
		{Name: "Sleepy", Metric: "ns/op", Limit: 200_000, Source: "test"},
		{Name: "Busy", Metric: "ns/op", Limit: 200_000, Source: "test"},
	}
	// The wall clock said 1 ms/op for both: 5x over, a failure at 2x.
	// Busy costs several times its budget in CPU time as well: its
	// loop is sized so that a fast core still spends well over 2x (1.5M
	// turns measured 255 µs a op on CI's core once, under the 400 µs a
	// FAIL needs).
	wall := "pkg: budgetstest.example/m/p\nBenchmarkSleepy-2 \t 10\t 1000000 ns/op\nBenchmarkBusy-2 \t 10\t 1000000 ns/op\n"
	res, err := Parse(strings.NewReader(wall))
	if err != nil {
		t.Fatal(err)
	}
	meta, err := Meta(strings.NewReader(wall))
	if err != nil {
		t.Fatal(err)
	}
	rows := Check(res, budgets, 2)
	if !Failed(rows) {
		t.Fatal("the wall-clock sample should fail before confirmation")
	}
	var log bytes.Buffer
	// 50 ms of work per measurement keeps the test short.
	rows, err = confirmByCPU(root, res, meta, rows, budgets, 2, &log, 50*time.Millisecond)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	var table bytes.Buffer
	Print(&table, rows, 2)
	t.Logf("%s%s", log.String(), table.String())
	status := map[string]Status{}
	for _, r := range rows {
		status[r.Name] = r.Status
	}
	if status["Sleepy"] != OK || status["Busy"] != Fail {
		t.Errorf("after CPU confirmation Sleepy is %s, Busy %s; want ok and FAIL\n%s%s", status["Sleepy"], status["Busy"], log.String(), table.String())
	}
}

// TestManyHostsBudget: issue 25's budget reads both of its metrics, and
// either one over tolerance fails.
func TestManyHostsBudget(t *testing.T) {
	for _, tc := range []struct{ val, why string }{
		{"9 ms/frame 3 MiB-live", "frame"},
		{"1 ms/frame 450 MiB-live", "memory"},
	} {
		rows := checkChanged(t, func(v map[string][]string) { v["ManyHosts/20x500"] = []string{tc.val} })
		failed := false
		for _, r := range rows {
			failed = failed || (r.Status == Fail && strings.HasPrefix(r.Name, "ManyHosts"))
		}
		if !failed {
			t.Errorf("%s over budget (%s) does not fail", tc.why, tc.val)
		}
	}
}

// TestLongDayBudget: issue 33's memory budget is the day's live heap
// over a fresh start's, read as the median of the runs: a model that
// keeps what the day closed (2.5x) warns, one that keeps four times it
// fails, and a day that did not run fails.
func TestLongDayBudget(t *testing.T) {
	for _, tc := range []struct {
		runs []string
		want Status
	}{
		{[]string{"1.3 heap-x-fresh", "1.4 heap-x-fresh", "6 heap-x-fresh"}, OK},
		{[]string{"2.4 heap-x-fresh", "2.5 heap-x-fresh", "2.6 heap-x-fresh"}, Warn},
		{[]string{"4.1 heap-x-fresh", "4.2 heap-x-fresh", "1.2 heap-x-fresh"}, Fail},
	} {
		rows := checkChanged(t, func(v map[string][]string) { v["LongDay"] = tc.runs })
		got := Status("")
		for _, r := range rows {
			if r.Name == "LongDay" {
				got = r.Status
			}
		}
		if got != tc.want {
			t.Errorf("runs %v: status %q, want %q", tc.runs, got, tc.want)
		}
	}
	if rows := checkChanged(t, func(v map[string][]string) { delete(v, "LongDay") }); !Failed(rows) {
		t.Error("a long day that did not run does not fail")
	}
}

// TestCLIStartupBudget: the start-up budget is a ratio the benchmark
// measures itself (status --json over the floor process, pair by pair),
// read as the median of the runs: one slow run does not fail it, a
// command that starts 12x slower than the floor does (the 6x guard, at
// the tolerance of 2; issue 32's 2x target is not met yet).
func TestCLIStartupBudget(t *testing.T) {
	for _, tc := range []struct {
		runs []string
		want Status
	}{
		{[]string{"3.4 status-x-floor", "4.9 status-x-floor", "13.0 status-x-floor"}, OK},
		{[]string{"5.4 status-x-floor", "7.8 status-x-floor", "15.2 status-x-floor"}, Warn},
		{[]string{"9.8 status-x-floor", "12.3 status-x-floor", "15.2 status-x-floor"}, Fail},
	} {
		rows := checkChanged(t, func(v map[string][]string) { v["CLIStartup"] = tc.runs })
		got := Status("")
		for _, r := range rows {
			if r.Name == "CLIStartup" {
				got = r.Status
			}
		}
		if got != tc.want {
			t.Errorf("runs %v: status %q, want %q", tc.runs, got, tc.want)
		}
	}
	rows := checkChanged(t, func(v map[string][]string) { delete(v, "CLIStartup") })
	if !Failed(rows) {
		t.Error("a start-up benchmark that did not run does not fail")
	}
}

// TestFirstFrameBudget: the TUI's first frame is judged as the median of
// the runs' frame-x-floor ratios; the guard of 15 fails past 30 floors
// at the tolerance of 2, and a benchmark that did not run fails.
func TestFirstFrameBudget(t *testing.T) {
	for _, tc := range []struct {
		runs []string
		want Status
	}{
		{[]string{"11.9 frame-x-floor", "13.0 frame-x-floor", "40 frame-x-floor"}, OK},
		{[]string{"14.0 frame-x-floor", "18.9 frame-x-floor", "35 frame-x-floor"}, Warn},
		{[]string{"31 frame-x-floor", "33 frame-x-floor", "12 frame-x-floor"}, Fail},
	} {
		rows := checkChanged(t, func(v map[string][]string) { v["FirstFrame"] = tc.runs })
		got := Status("")
		for _, r := range rows {
			if r.Name == "FirstFrame" {
				got = r.Status
			}
		}
		if got != tc.want {
			t.Errorf("runs %v: status %q, want %q", tc.runs, got, tc.want)
		}
	}
	if rows := checkChanged(t, func(v map[string][]string) { delete(v, "FirstFrame") }); !Failed(rows) {
		t.Error("a first-frame benchmark that did not run does not fail")
	}
}
