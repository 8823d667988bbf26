package main

import (
	"bytes"
	"strings"
	"testing"
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
	for _, name := range []string{"DecodeActionEnvelope", "ChatDelta10k", "ChatDelta100k", "ApplySnapshot1000Turns", "TranscriptStreaming/color", "TranscriptStreaming/nocolor", "KeyToFrame/approve", "KeyToFrame/next-card"} {
		base, _, _ := strings.Cut(name, "/")
		for _, v := range vals[name] {
			if unit[base] == "ms/frame" {
				b.WriteString("Benchmark" + name + "-2    \t    1002\t    235523 ns/op\t         " + v + " ms/frame\t  135857 B/op\t     744 allocs/op\n")
			} else {
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
		"ChatDelta10k":                {"2022770", "2230614", "2206514"},
		"ChatDelta100k":               {"26789192", "28129875", "26893312"},
		"ApplySnapshot1000Turns":      {"35182939", "33864419", "33974142"},
		"TranscriptStreaming/color":   {"0.2355", "0.2393", "0.2454"},
		"TranscriptStreaming/nocolor": {"0.1041", "0.09802", "0.09792"},
		"KeyToFrame/approve":          {"251282", "266074", "305844"},
		"KeyToFrame/next-card":        {"402258", "379085", "387964"},
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
			v["ApplySnapshot1000Turns"] = []string{"90000000", "70000000"}
		}, status: map[string]Status{"ApplySnapshot1000Turns": Warn}},
		{name: "over tolerance fails", fail: true, change: func(v map[string][]string) {
			v["ApplySnapshot1000Turns"] = []string{"120000000", "101000000"}
		}, status: map[string]Status{"ApplySnapshot1000Turns": Fail, "DecodeActionEnvelope": OK}},
		{name: "one sub-benchmark over tolerance fails", fail: true, change: func(v map[string][]string) {
			v["KeyToFrame/next-card"] = []string{"2500000"}
		}, status: map[string]Status{"KeyToFrame/next-card": Fail, "KeyToFrame/approve": OK}},
		{name: "the custom metric is read, not ns/op", fail: true, change: func(v map[string][]string) {
			v["TranscriptStreaming/nocolor"] = []string{"8.5"}
		}, status: map[string]Status{"TranscriptStreaming/nocolor": Fail, "TranscriptStreaming/color": OK}},
		{name: "quadratic streaming fails the relative budget", fail: true, change: func(v map[string][]string) {
			v["ChatDelta100k"] = []string{"202000000"} // 100x the 10k run
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows := checkChanged(t, tt.change)
			var table bytes.Buffer
			Print(&table, rows, 2)
			if got := Failed(rows); got != tt.fail {
				t.Errorf("Failed = %v, want %v\n%s", got, tt.fail, table.String())
			}
			byName := map[string]Status{}
			for _, r := range rows {
				byName[r.Name] = r.Status
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

func TestRerunPattern(t *testing.T) {
	tests := []struct {
		name   string
		change func(map[string][]string)
		want   string
	}{
		{name: "nothing over tolerance", change: func(map[string][]string) {}, want: ""},
		{name: "a warning is not re-measured", change: func(v map[string][]string) {
			v["ApplySnapshot1000Turns"] = []string{"90000000"}
		}, want: ""},
		{name: "one over tolerance", change: func(v map[string][]string) {
			v["ApplySnapshot1000Turns"] = []string{"120000000"}
		}, want: "^Benchmark(ApplySnapshot1000Turns)$"},
		{name: "a sub-benchmark is re-measured through its parent", change: func(v map[string][]string) {
			v["KeyToFrame/next-card"] = []string{"2500000"}
		}, want: "^Benchmark(KeyToFrame)$"},
		{name: "a relative budget brings its reference", change: func(v map[string][]string) {
			v["ChatDelta100k"] = []string{"202000000"}
		}, want: "^Benchmark(ChatDelta100k|ChatDelta10k)$"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RerunPattern(checkChanged(t, tt.change), Budgets); got != tt.want {
				t.Errorf("RerunPattern = %q, want %q", got, tt.want)
			}
		})
	}
}

// A re-measurement appended to the first output is judged on the best of
// all runs: load in the first runs is forgiven, a regression in every run
// is not.
func TestRemeasureAppended(t *testing.T) {
	first := good()
	first["ApplySnapshot1000Turns"] = []string{"120000000", "130000000", "125000000"}
	for _, tt := range []struct {
		name  string
		again []string
		fail  bool
	}{
		{"load in the first runs only", []string{"36000000", "90000000"}, false},
		{"slow in every run", []string{"110000000", "105000000"}, true},
	} {
		again := map[string][]string{"ApplySnapshot1000Turns": tt.again}
		res, err := Parse(strings.NewReader(sample(first) + sample(again)))
		if err != nil {
			t.Fatal(err)
		}
		if got := Failed(Check(res, Budgets, 2)); got != tt.fail {
			t.Errorf("%s: Failed = %v, want %v", tt.name, got, tt.fail)
		}
	}
}
