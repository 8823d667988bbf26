package protocol

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"
)

// vsValidPairs is how many json.Valid/path/legacy triples one operation
// of benchVsValid times: enough for a median however few operations the
// bench time allows (a 2.3 MB frame gets one or two at 200ms).
const vsValidPairs = 5

// benchVsValid times json.Valid of frame, then the client's path for it
// (path), then the path as it was before the one-pass decoder (legacy),
// vsValidPairs times per operation. The collector runs when allocation
// calls for it, as in the client, whose live heap (the mirror's states)
// keeps it rarer than here; a collection paced by legacy's garbage can
// land in either side, which the median absorbs. It reports each
// path's time over Valid's in the same triple (x-valid and old-x-valid,
// medians), so a machine that slows down mid-run slows both sides of a
// ratio; ms-valid, ms and old-ms are the medians of the times themselves.
func benchVsValid(b *testing.B, frame []byte, path, legacy func([]byte) error) {
	b.Helper()
	for _, f := range []func([]byte) error{path, legacy} { // the plans, the heap's size
		if err := f(frame); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(len(frame)))
	b.ReportAllocs()
	var valid, now, old []float64
	for b.Loop() {
		for range vsValidPairs {
			t0 := time.Now()
			if !json.Valid(frame) {
				b.Fatal("the frame is not valid JSON")
			}
			t1 := time.Now()
			if err := path(frame); err != nil {
				b.Fatal(err)
			}
			t2 := time.Now()
			if err := legacy(frame); err != nil {
				b.Fatal(err)
			}
			t3 := time.Now()
			valid = append(valid, float64(t1.Sub(t0)))
			now = append(now, float64(t2.Sub(t1)))
			old = append(old, float64(t3.Sub(t2)))
		}
	}
	ratio := func(xs []float64) float64 {
		rs := make([]float64, len(xs))
		for i := range xs {
			rs[i] = xs[i] / max(valid[i], 1)
		}
		return medianOf(rs)
	}
	b.ReportMetric(ratio(now), "x-valid")
	b.ReportMetric(ratio(old), "old-x-valid")
	b.ReportMetric(medianOf(valid)/1e6, "ms-valid")
	b.ReportMetric(medianOf(now)/1e6, "ms")
	b.ReportMetric(medianOf(old)/1e6, "old-ms")
}

func medianOf(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else if n > 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return 0
}

// applySnapshot is the client's path for a snapshot frame: the Snapshot
// (its state decoded as its channel's type) and the first action after
// it, reduced onto the state.
func applySnapshot(frame []byte, first StateAction, check func(SnapshotStateVariant) error) error {
	var s Snapshot
	if err := UnmarshalWire(frame, &s); err != nil {
		return err
	}
	return check(Reduce(s.State.Variant, first, Rules{}))
}

// legacySnapshot is applySnapshot as it was before the one-pass decoder:
// the envelope by encoding/json with the state kept raw, then the state by
// encoding/json (what DecodeSnapshotState did).
func legacySnapshot[T SnapshotStateVariant](frame []byte, first StateAction, check func(SnapshotStateVariant) error) error {
	var wire struct {
		Resource string          `json:"resource"`
		State    json.RawMessage `json:"state"`
		FromSeq  int64           `json:"fromSeq"`
	}
	if err := json.Unmarshal(frame, &wire); err != nil {
		return err
	}
	var st T
	if err := json.Unmarshal(wire.State, &st); err != nil {
		return err
	}
	return check(Reduce(st, first, Rules{}))
}

// sessionsPageJSON is a listSessions result of n session summaries, each
// with a project, change counts, an annotations summary, a working
// directory and a chat.
func sessionsPageJSON(tb testing.TB, n int) []byte {
	tb.Helper()
	res := ListSessionsResult{Items: make([]SessionSummary, n)}
	for i := range res.Items {
		add, del, files := int64(i%300), int64(i%70), int64(i%12)
		act := "Running tests"
		id := fmt.Sprintf("6f1c2a9e-3b7d-4c1e-9a52-%012d", i)
		res.Items[i] = SessionSummary{
			Provider:           "copilot",
			Title:              fmt.Sprintf("Fix the flaky reconnect test in package %d", i),
			Status:             SessionStatusIdle | SessionStatusIsRead,
			Activity:           &act,
			Project:            &ProjectInfo{URI: "file:///home/dev/src/ahptui", DisplayName: "ahptui"},
			WorkingDirectories: []URI{fmt.Sprintf("file:///home/dev/src/ahptui/wt/%d", i)},
			Annotations:        &AnnotationsSummary{Resource: "ahp-session:/" + id + "/annotations", AnnotationCount: 3, EntryCount: 7},
			Resource:           "ahp-session:/" + id,
			CreatedAt:          "2026-07-20T09:00:00.000Z",
			ModifiedAt:         "2026-07-20T10:00:00.000Z",
			Changes:            &ChangesSummary{Additions: &add, Deletions: &del, Files: &files},
			Chats:              []SessionChatSummary{{Resource: "ahp-chat:/" + id, Title: "Main"}},
		}
	}
	b, err := json.Marshal(res)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// rootSnapshotJSON is the Snapshot of a root state of about size bytes:
// agents with many models (each with a config schema), terminals and a
// config.
func rootSnapshotJSON(tb testing.TB, size int) []byte {
	tb.Helper()
	desc := "Reasoning effort: higher is slower and more thorough."
	model := func(a, m int) SessionModelInfo {
		ctx, out := int64(200_000), int64(64_000)
		vision := m%2 == 0
		policy := PolicyStateEnabled
		lo, hi := JSONPrimitive{Raw: json.RawMessage(`"low"`)}, JSONPrimitive{Raw: json.RawMessage(`"high"`)}
		return SessionModelInfo{
			ID: fmt.Sprintf("model-%d-%d", a, m), Provider: fmt.Sprintf("agent-%d", a), Name: fmt.Sprintf("Model %d of agent %d", m, a),
			MaxContextWindow: &ctx, MaxOutputTokens: &out, SupportsVision: &vision, PolicyState: &policy,
			ConfigSchema: &ConfigSchema{Type: "object", Properties: map[string]ConfigPropertySchema{
				"effort": {Type: "string", Title: "Effort", Description: &desc, Default: json.RawMessage(`"low"`),
					Enum: []JSONPrimitive{lo, hi}, EnumLabels: []string{"Low", "High"}},
			}},
		}
	}
	var st RootState
	exit := int64(0)
	for a := 0; ; a++ {
		ag := AgentInfo{Provider: fmt.Sprintf("agent-%d", a), DisplayName: fmt.Sprintf("Agent %d", a), Description: "An agent of the benchmark"}
		for m := range 50 {
			ag.Models = append(ag.Models, model(a, m))
		}
		st.Agents = append(st.Agents, ag)
		for t := range 20 {
			term := TerminalInfo{Resource: fmt.Sprintf("ahp-terminal:/%d-%d", a, t), Title: "bash",
				Claim:     TerminalClaim{Variant: TerminalClientClaim{Kind: "client", ClientID: fmt.Sprintf("client-%d", t)}},
				Lifecycle: TerminalLifecycleState{Variant: TerminalRunningLifecycleState{Status: "running"}}}
			if t%3 == 0 {
				term.Lifecycle = TerminalLifecycleState{Variant: TerminalExitedLifecycleState{Status: "exited", ExitCode: &exit}}
			}
			st.Terminals = append(st.Terminals, term)
		}
		b, err := json.Marshal(Snapshot{Resource: RootChannel, State: SnapshotState{Variant: st}, FromSeq: 7})
		if err != nil {
			tb.Fatal(err)
		}
		if len(b) >= size {
			return b
		}
	}
}

func wantChat(turns int) func(SnapshotStateVariant) error {
	return func(v SnapshotStateVariant) error {
		if c, ok := v.(ChatState); !ok || len(c.Turns) != turns || c.ActiveTurn == nil {
			return fmt.Errorf("installed %T", v)
		}
		return nil
	}
}

func wantRoot(v SnapshotStateVariant) error {
	if r, ok := v.(RootState); !ok || r.ActiveSessions == nil || *r.ActiveSessions != 3 || len(r.Agents) == 0 {
		return fmt.Errorf("installed %T", v)
	}
	return nil
}

var rootFirst = StateAction{Variant: RootActiveSessionsChangedAction{Type: "root/activeSessionsChanged", ActiveSessions: 3}}

// BenchmarkListSessions10k decodes a listSessions result of 10,000 session
// summaries (about 6 MB), as the client does with every page.
//
// Budget: x-valid < 2, median of 3: the decode costs under twice
// json.Valid of the same bytes, measured pair by pair in the same run
// (benchVsValid; old-x-valid is encoding/json's decode beside it).
//
// Measured 2026-12-05 on the shared 2-core machine at load 10-11 (-count 3):
// x-valid 1.03, 1.10, 1.26; old-x-valid 1.7, 3.1, 3.3 (57 to 83 ms against
// 142 to 248 ms).
func BenchmarkListSessions10k(b *testing.B) {
	frame := sessionsPageJSON(b, 10_000)
	check := func(r ListSessionsResult) error {
		if len(r.Items) != 10_000 || r.Items[9_999].Changes == nil {
			return fmt.Errorf("decoded %d sessions", len(r.Items))
		}
		return nil
	}
	benchVsValid(b, frame, func(f []byte) error {
		var r ListSessionsResult
		if err := UnmarshalWire(f, &r); err != nil {
			return err
		}
		return check(r)
	}, func(f []byte) error {
		var r ListSessionsResult
		if err := json.Unmarshal(f, &r); err != nil {
			return err
		}
		return check(r)
	})
}

// BenchmarkRootSnapshot1MB decodes the Snapshot of a root state of about
// 1 MB (agents with 50 models each, terminals) and reduces the first
// action after it (root/activeSessionsChanged).
//
// Budget: x-valid < 2, median of 3 (see BenchmarkListSessions10k).
//
// Measured 2026-12-05 on the shared 2-core machine at load 10-11 (-count 3):
// x-valid 1.11, 1.45, 2.44; old-x-valid 8.5, 9.4, 20.6 (6 to 8 ms against
// 30 to 95 ms).
func BenchmarkRootSnapshot1MB(b *testing.B) {
	frame := rootSnapshotJSON(b, 1<<20)
	benchVsValid(b, frame, func(f []byte) error {
		return applySnapshot(f, rootFirst, wantRoot)
	}, func(f []byte) error {
		return legacySnapshot[RootState](f, rootFirst, wantRoot)
	})
}
