// Command fuzzrun is the fuzz stage of scripts/test.sh: a short
// coverage-guided run of every fuzz target in the repository, which must
// fail for a real finding and only for a real finding.
//
// A fresh CI clone is deleted after the run, so when a target fails the log
// is all that is left: fuzzrun prints the target and package, the fuzzer's
// full output, every input file the fuzzer wrote under
// testdata/fuzz/<Target>/ (in full: the file is the input) and the command
// that reproduces it.
//
// Go's fuzzer also fails for reasons of its own, most often on a loaded
// machine, and those must not fail CI by chance:
//   - "context deadline exceeded" with no input written: the coordinator
//     races its own -fuzztime deadline against the cancellation of its
//     workers and reports the deadline as the run's error
//     (go.dev/issue/75804, unfixed in Go 1.26). The run fuzzed its whole
//     time and found nothing.
//   - "fuzzing process hung or terminated unexpectedly": a worker that did
//     not answer in time (go.dev/issue/56238) is reported with the input it
//     held, which is written as a failing input although it may be innocent.
//   - a worker killed by a signal no input causes (the OOM killer), or a
//     broken pipe to a worker.
//
// fuzzrun tells the two apart by the evidence, not by the message alone:
// every input the fuzzer wrote is replayed with a plain `go test -run`
// (several times, timed). An input that fails again, or that takes longer
// alone than slowInput, is a finding, and so is a failure the target itself
// reported (a t.Fatal or panic message), reproducible or not. Only a
// fuzzer-infrastructure message whose input, if any, passes quickly on
// replay counts as the fuzzer's trouble: it is reported loudly, its
// innocent input removed, and the target run once more; a second such
// failure in a row fails the stage too, since a machine that cannot fuzz
// cannot vouch for the code either.
//
// Usage:
//
//	go run ./internal/fuzzrun [-fuzztime 10s] [-parallel 1] [-run regexp]
//
// run from the repository root.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Target is one fuzz function: Pkg is the package's directory relative to
// the repository root, in `go test` form ("./protocol/jsonrpc").
type Target struct {
	Pkg, Name string
}

// corpusDir is where the fuzzer writes a failing input for t.
func (t Target) corpusDir() string {
	return filepath.Join(t.Pkg, "testdata", "fuzz", t.Name)
}

// fuzzTargets lists the fuzz targets a test file declares: top-level
// functions named Fuzz… taking one *testing.F. The file is parsed, not
// grepped, so a fuzz target written inside a string (as this command's own
// tests write throwaway modules) is not taken for one.
func fuzzTargets(path string, src []byte) ([]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	var names []string
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Fuzz") || len(fn.Type.Params.List) != 1 {
			continue
		}
		star, ok := fn.Type.Params.List[0].Type.(*ast.StarExpr)
		if !ok {
			continue
		}
		if sel, ok := star.X.(*ast.SelectorExpr); ok && sel.Sel.Name == "F" {
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == "testing" {
				names = append(names, fn.Name.Name)
			}
		}
	}
	return names, nil
}

// Discover lists the fuzz targets of every package under root, sorted by
// package then name. Hidden folders and testdata are skipped, as the go
// command skips them.
func Discover(root string) ([]Target, error) {
	var out []Target
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("discover fuzz targets: %w", err)
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return fmt.Errorf("discover fuzz targets: %w", err)
		}
		names, err := fuzzTargets(path, src)
		if err != nil {
			return fmt.Errorf("discover fuzz targets: %w", err)
		}
		for _, n := range names {
			out = append(out, Target{Pkg: "./" + filepath.ToSlash(rel), Name: n})
		}
		return nil
	})
	slices.SortFunc(out, func(a, b Target) int {
		return strings.Compare(a.Pkg+" "+a.Name, b.Pkg+" "+b.Name)
	})
	return slices.Compact(out), err
}

// Input is one file the fuzzer wrote, or a seed it named as failing.
type Input struct {
	ID   string // the name `go test -run=Target/ID` selects it by
	Path string // relative to the repository root; "" for a seed
	Data []byte
}

// Replay is what a plain `go test -run` made of one written input.
type Replay struct {
	Input
	Failed bool
	// Fastest is the quickest of the replays: load only ever slows a
	// run down, so a slow path is one that is slow every time.
	Fastest time.Duration
	Output  []byte
}

// Verdict of one fuzz attempt.
type Verdict int

const (
	Pass    Verdict = iota
	Finding         // a real failure: fails the stage
	Infra           // the fuzzer's own trouble: retried
)

func (v Verdict) String() string {
	return [...]string{"pass", "FINDING", "fuzzer infrastructure failure"}[v]
}

// infraMessages are the errors Go's fuzz coordinator reports for its own
// trouble rather than for an input (internal/fuzz/worker.go, fuzz.go).
// Each is only trusted as infrastructure when its input, if one was
// written, passes on replay.
var infraMessages = []string{
	"context deadline exceeded",                       // go.dev/issue/75804; must be the whole message
	"fuzzing process hung or terminated unexpectedly", // go.dev/issue/56238; also "…while minimizing"
	"fuzzing process terminated by unexpected signal", // e.g. the OOM killer; no input is written
	"fuzzing process terminated without fuzzing",
	"communicating with fuzzing process",
}

// slowInput is how long one input may take alone before it counts as a
// finding even though it passes: the fuzzer declares a worker hung after
// 10 s on one input, and every target here handles one input in
// milliseconds, so an input that needs seconds on its own is a real
// performance bug (a quadratic path, a wait with no end) and not a slow
// machine.
const slowInput = 3 * time.Second

// FailureMessage is what go test printed under "--- FAIL: <target>",
// without the fuzzer's own "Failing input written to"/"To re-run" lines.
func FailureMessage(output []byte, target string) string {
	var msg []string
	in := false
	sc := bufio.NewScanner(bytes.NewReader(output))
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "--- FAIL: "+target+" ") {
			in = true
			continue
		}
		if !in {
			continue
		}
		if line != "" && !strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "\t") {
			break // FAIL, exit status, ok/FAIL package line
		}
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "Failing input written to ") || t == "To re-run:" || strings.HasPrefix(t, "go test -run=") {
			continue
		}
		msg = append(msg, t)
	}
	return strings.Join(msg, "\n")
}

// infraMessage reports which fuzzer-infrastructure error msg is, if any.
// A message with more in it (a nested "--- FAIL" of the target, a panic,
// a t.Fatal line) is the target's own and never infrastructure.
func infraMessage(msg string) (string, bool) {
	if strings.Contains(msg, "\n") {
		return "", false
	}
	if msg == infraMessages[0] {
		return msg, true
	}
	for _, m := range infraMessages[1:] {
		if strings.HasPrefix(msg, m) {
			return m, true
		}
	}
	return "", false
}

// Classify decides what one failed or passed attempt means, from the
// fuzzer's exit, its output and the replays of the inputs it wrote. The
// reason is one line for the log.
func Classify(target string, exitErr error, output []byte, replays []Replay) (Verdict, string) {
	if exitErr == nil {
		if len(replays) > 0 {
			return Finding, fmt.Sprintf("the fuzzer passed but wrote %d input(s); see above", len(replays))
		}
		return Pass, ""
	}
	for _, r := range replays {
		if r.Failed {
			return Finding, fmt.Sprintf("input %s fails again under a plain go test -run: a reproducible bug", r.ID)
		}
	}
	for _, r := range replays {
		if r.Fastest > slowInput {
			return Finding, fmt.Sprintf("input %s passes but takes %s alone, every time (more than %s): the fuzzer saw it hang; a real slow path", r.ID, r.Fastest.Round(time.Millisecond), slowInput)
		}
	}
	msg := FailureMessage(output, target)
	which, infra := infraMessage(msg)
	switch {
	case infra && len(replays) > 0:
		return Infra, fmt.Sprintf("%q, and the input it held passes quickly on replay", which)
	case infra:
		return Infra, fmt.Sprintf("%q with no input written", which)
	case len(replays) > 0:
		return Finding, fmt.Sprintf("the target itself failed (%s) and its input passes alone: a bug that depends on state or timing, still a bug", firstLine(msg))
	case msg == "":
		return Finding, "go test failed without a fuzz failure message (build error, seed failure, or timeout); see the output"
	default:
		return Finding, fmt.Sprintf("the target failed (%s) and no input was written", firstLine(msg))
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if s == "" {
		return "no message"
	}
	return s
}

// Runner runs the fuzz stage.
type Runner struct {
	Root         string // repository root
	FuzzTime     string // -fuzztime
	MinimizeTime string // -fuzzminimizetime
	Parallel     int    // -parallel: fuzz workers
	Retries      int    // infrastructure failures retried per target
	ReplayCount  int    // -count of each replay
	Log          io.Writer
	// GoTest runs `go test args…` in dir and returns its combined output;
	// the real go command unless a test replaces it.
	GoTest func(dir string, args ...string) ([]byte, error)
}

// Result of one target.
type Result struct {
	Target
	Verdict  Verdict
	Reason   string
	Infra    []string // infrastructure failures that were retried
	Output   []byte   // the last attempt's output
	Attempts int
}

func goTest(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command("go", append([]string{"test"}, args...)...)
	cmd.Dir = dir
	return cmd.CombinedOutput()
}

func (r *Runner) listCorpus(t Target) (map[string]bool, error) {
	ents, err := os.ReadDir(filepath.Join(r.Root, t.corpusDir()))
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]bool{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list the corpus of %s: %w", t.Name, err)
	}
	names := map[string]bool{}
	for _, e := range ents {
		names[e.Name()] = true
	}
	return names, nil
}

var (
	writtenTo   = regexp.MustCompile(`Failing input written to (\S+)`)
	seedFailure = regexp.MustCompile(`failure while testing seed corpus entry: (\w+)/(\S+)`)
)

// newInputs are the files in t's corpus that were not there before, and
// any the fuzzer names as written (relative to the package).
func (r *Runner) newInputs(t Target, before map[string]bool, output []byte) ([]Input, error) {
	after, err := r.listCorpus(t)
	if err != nil {
		return nil, err
	}
	paths := map[string]bool{}
	for name := range after {
		if !before[name] {
			paths[filepath.Join(t.corpusDir(), name)] = true
		}
	}
	for _, m := range writtenTo.FindAllSubmatch(output, -1) {
		paths[filepath.Join(t.Pkg, string(m[1]))] = true
	}
	var ins []Input
	for _, p := range slices.Sorted(maps.Keys(paths)) {
		data, err := os.ReadFile(filepath.Join(r.Root, p))
		if err != nil {
			return nil, fmt.Errorf("read the input the fuzzer wrote for %s: %w", t.Name, err)
		}
		ins = append(ins, Input{ID: filepath.Base(p), Path: p, Data: data})
	}
	return ins, nil
}

// passLine matches the -v result line of one replayed input.
var passLine = regexp.MustCompile(`--- (?:PASS|FAIL): \S+/\S+ \(([0-9.]+)s\)`)

// replayRun is the -run pattern that selects one written input.
func replayRun(t Target, id string) string {
	return "-run=^" + t.Name + "$/^" + regexp.QuoteMeta(id) + "$"
}

func (r *Runner) replay(t Target, in Input) Replay {
	out, err := r.GoTest(r.Root, "-v", fmt.Sprintf("-count=%d", r.ReplayCount), replayRun(t, in.ID), t.Pkg)
	return Replay{Input: in, Failed: err != nil, Fastest: fastestRun(out), Output: out}
}

// fastestRun is the quickest "--- PASS/FAIL: Target/id (1.23s)" time in
// go test -v output, 0 when there is none.
func fastestRun(out []byte) time.Duration {
	var fastest time.Duration
	for _, m := range passLine.FindAllSubmatch(out, -1) {
		if d, err := time.ParseDuration(string(m[1]) + "s"); err == nil && (fastest == 0 || d < fastest) {
			fastest = d
		}
	}
	return fastest
}

// attempt runs one fuzz run of t and judges it.
func (r *Runner) attempt(t Target) (Verdict, string, []byte, []Input, error) {
	before, err := r.listCorpus(t)
	if err != nil {
		return Finding, "", nil, nil, err
	}
	out, runErr := r.GoTest(r.Root, "-run=^$", "-fuzz=^"+t.Name+"$",
		"-fuzztime="+r.FuzzTime, "-fuzzminimizetime="+r.MinimizeTime,
		fmt.Sprintf("-parallel=%d", r.Parallel), t.Pkg)
	ins, err := r.newInputs(t, before, out)
	if err != nil {
		return Finding, "", out, nil, err
	}
	var replays []Replay
	for _, in := range ins {
		replays = append(replays, r.replay(t, in))
	}
	// A seed that fails while the fuzzer gathers its baseline is named,
	// not written: replay it by name, so that a worker lost on a seed is
	// judged by the same evidence as one lost on a new input.
	for _, m := range seedFailure.FindAllSubmatch(out, -1) {
		if string(m[1]) == t.Name {
			replays = append(replays, r.replay(t, Input{ID: string(m[2])}))
		}
	}
	v, reason := Classify(t.Name, runErr, out, replays)
	if v != Pass {
		r.report(t, v, reason, runErr, out, replays)
	}
	return v, reason, out, ins, nil
}

// report prints everything a reader of a CI log needs to reproduce a
// failed attempt: the clone it ran in is gone by the time anyone reads it.
func (r *Runner) report(t Target, v Verdict, reason string, runErr error, out []byte, replays []Replay) {
	w := r.Log
	bar := strings.Repeat("=", 72)
	fmt.Fprintf(w, "%s\n%s: %s in %s\n  %s\n  go test: %v\n%s\n", bar, strings.ToUpper(v.String()), t.Name, t.Pkg, reason, runErr, bar)
	fmt.Fprintf(w, "--- fuzzer output (go test -run='^$' -fuzz='^%s$' -fuzztime=%s -fuzzminimizetime=%s -parallel=%d %s):\n",
		t.Name, r.FuzzTime, r.MinimizeTime, r.Parallel, t.Pkg)
	w.Write(out)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		fmt.Fprintln(w)
	}
	if len(replays) == 0 {
		fmt.Fprintf(w, "--- no input file was written under %s/\n", t.corpusDir())
	}
	for _, rp := range replays {
		if rp.Path == "" {
			fmt.Fprintf(w, "--- seed corpus entry %s (from f.Add or a committed file; nothing new was written)\n", rp.ID)
		} else {
			fmt.Fprintf(w, "--- input %s (%d bytes), in full between the markers:\n", rp.Path, len(rp.Data))
			fmt.Fprintf(w, "-----BEGIN %s-----\n", rp.ID)
			w.Write(rp.Data)
			if len(rp.Data) > 0 && rp.Data[len(rp.Data)-1] != '\n' {
				fmt.Fprintln(w)
			}
			fmt.Fprintf(w, "-----END %s-----\n", rp.ID)
		}
		verdict := "passes"
		if rp.Failed {
			verdict = "FAILS"
		}
		fmt.Fprintf(w, "--- replayed %d× with go test -v: %s (fastest %s):\n", r.ReplayCount, verdict, rp.Fastest)
		w.Write(rp.Output)
		cmd := "go test " + shellJoin([]string{replayRun(t, rp.ID), "-count=1", t.Pkg})
		if rp.Path == "" {
			fmt.Fprintf(w, "--- to reproduce: %s\n", cmd)
		} else {
			fmt.Fprintf(w, "--- to reproduce: save the input above as %s, then run\n    %s\n", rp.Path, cmd)
		}
	}
	fmt.Fprintln(w, bar)
}

func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}

// Run fuzzes one target, retrying infrastructure failures.
func (r *Runner) Run(t Target) (Result, error) {
	res := Result{Target: t}
	for {
		res.Attempts++
		v, reason, out, ins, err := r.attempt(t)
		res.Verdict, res.Reason, res.Output = v, reason, out
		if err != nil || v != Infra {
			return res, err
		}
		res.Infra = append(res.Infra, reason)
		// The input of an infrastructure failure passed its replays: it is
		// no finding and must not linger as an untracked seed.
		for _, in := range ins {
			if err := os.Remove(filepath.Join(r.Root, in.Path)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return res, fmt.Errorf("remove the innocent input %s: %w", in.Path, err)
			}
		}
		if len(res.Infra) > r.Retries {
			res.Verdict = Finding
			res.Reason = fmt.Sprintf("%d fuzzer infrastructure failures in a row (%s); the machine could not fuzz %s, so it cannot vouch for it",
				len(res.Infra), strings.Join(res.Infra, "; "), t.Name)
			return res, nil
		}
		fmt.Fprintf(r.Log, "fuzzrun: %s: %s — retrying once (attempt %d)\n", t.Name, reason, res.Attempts+1)
	}
}

// Summary is the one line per target the stage ends with: the fuzzer's
// last status line and the size of the seed corpus it started from.
func Summary(res Result) string {
	last, seeds := "no execs line", "seed count unknown"
	sc := bufio.NewScanner(bytes.NewReader(res.Output))
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for sc.Scan() {
		line := strings.TrimPrefix(sc.Text(), "fuzz: ")
		if strings.Contains(line, "execs:") {
			last = line
		}
		// "elapsed: 2s, gathering baseline coverage: 300/300 completed, …"
		if e, rest, ok := strings.Cut(line, ", gathering baseline coverage: "); ok && strings.Contains(rest, " completed") {
			n, _, _ := strings.Cut(rest, "/")
			seeds = fmt.Sprintf("%s seeds loaded in %s", n, strings.TrimPrefix(e, "elapsed: "))
		}
	}
	s := fmt.Sprintf("%-24s %-20s %s; %s", res.Name, res.Pkg, last, seeds)
	if last == "no execs line" && res.Verdict == Pass {
		// -fuzztime counts the baseline run over the seeds, which on a
		// busy machine can use all of it: the run passed without fuzzing.
		s += " [NOT FUZZED: the seed baseline took the whole -fuzztime]"
	}
	if len(res.Infra) > 0 {
		s += fmt.Sprintf(" [RETRIED after: %s]", strings.Join(res.Infra, "; "))
	}
	if res.Verdict == Finding {
		s += " [FAILED: " + res.Reason + "]"
	}
	return s
}

func main() {
	r := &Runner{Root: ".", Log: os.Stdout, GoTest: goTest}
	flag.StringVar(&r.FuzzTime, "fuzztime", "10s", "go test -fuzztime per target")
	flag.StringVar(&r.MinimizeTime, "fuzzminimizetime", "3s", "go test -fuzzminimizetime")
	flag.IntVar(&r.Parallel, "parallel", 1, "fuzz workers per target (go test -parallel)")
	flag.IntVar(&r.Retries, "retries", 1, "fuzzer infrastructure failures retried per target")
	flag.IntVar(&r.ReplayCount, "replaycount", 3, "times each written input is replayed with go test -run")
	run := flag.String("run", "", "fuzz only the targets whose name matches this regexp")
	flag.Parse()
	if err := mainErr(r, *run); err != nil {
		fmt.Fprintf(os.Stderr, "fuzzrun: %v\n", err)
		os.Exit(1)
	}
}

func mainErr(r *Runner, run string) error {
	if r.Parallel < 1 || r.Retries < 0 || r.ReplayCount < 1 {
		return errors.New("-parallel and -replaycount must be at least 1, -retries at least 0")
	}
	match, err := regexp.Compile(run)
	if err != nil {
		return fmt.Errorf("-run: %w", err)
	}
	targets, err := Discover(r.Root)
	if err != nil {
		return err
	}
	var results []Result
	for _, t := range targets {
		if !match.MatchString(t.Name) {
			continue
		}
		res, err := r.Run(t)
		if err != nil {
			return fmt.Errorf("%s in %s: %w", t.Name, t.Pkg, err)
		}
		results = append(results, res)
	}
	if len(results) == 0 {
		return fmt.Errorf("no fuzz target matches %q", run)
	}
	fmt.Fprintf(r.Log, "== fuzz summary (-fuzztime=%s, -parallel=%d)\n", r.FuzzTime, r.Parallel)
	var failed, retried []string
	for _, res := range results {
		fmt.Fprintln(r.Log, Summary(res))
		if res.Verdict == Finding {
			failed = append(failed, res.Name)
		}
		if len(res.Infra) > 0 {
			retried = append(retried, res.Name)
		}
	}
	if len(retried) > 0 {
		fmt.Fprintf(r.Log, "!! fuzzer infrastructure failures, retried (not findings; their inputs passed on replay): %s\n", strings.Join(retried, ", "))
	}
	if len(failed) > 0 {
		return fmt.Errorf("fuzz failures in %s; each is reported in full above", strings.Join(failed, ", "))
	}
	return nil
}
