package views

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/keymap"
	"github.com/ahptui/ahptui/protocol"
)

// changesSizes are the screens the changes view's goldens cover.
var changesSizes = [][2]int{{80, 24}, {120, 40}}

func i64(n int64) *int64 { return &n }

// sampleChangeset has each kind of change, a hostile file name and a
// failed operation.
func sampleChangeset() protocol.ChangesetState {
	side := func(u string) *protocol.FileEditSide { return &protocol.FileEditSide{URI: protocol.URI(u)} }
	yes := true
	stats := func(a, r int64) *protocol.FileEditDiffStats {
		return &protocol.FileEditDiffStats{Added: i64(a), Removed: i64(r)}
	}
	return protocol.ChangesetState{Status: protocol.ChangesetStatusRecomputing, Files: []protocol.ChangesetFile{
		{ID: "1", Edit: protocol.FileEdit{Before: side("file:///w/main.go"), After: side("file:///w/main.go"), Diff: stats(3, 1)}, Reviewed: &yes},
		{ID: "2", Edit: protocol.FileEdit{After: side("file:///w/new\x1b[2J\x1b]8;;http://evil\x07.go"), Diff: stats(10, 0)}},
		{ID: "3", Edit: protocol.FileEdit{Before: side("file:///w/a.md"), After: side("file:///w/b.md"), Diff: stats(1, 1)}},
		{ID: "4", Edit: protocol.FileEdit{Before: side("file:///w/old.sh"), Diff: stats(0, 4)}},
	}}
}

func sampleChangesView(open bool) ChangesView {
	v := ChangesView{Session: "s", Rows: []ChangesetRow{
		{Label: "Session Changes", Description: "Everything\x1b[31m the agent changed", Kind: "session", Review: true, Counted: open, Files: 4, Added: 14, Removed: 6},
		{Label: "This Turn", Kind: "turn", Turn: "turn 2"},
		{Label: "Compare Turns", Kind: "compare-turns", Missing: "needs two turns"},
	}}
	if open {
		cs := sampleChangeset()
		v.Open = &OpenChangeset{Title: "Session Changes", Status: cs.Status, Files: ChangesetFileRows(cs, "file:///w"), Total: 4, Sel: 1, Review: true,
			Ops:  []ChangesetOpRow{{Label: "Stage all", Status: protocol.ChangesetOperationStatusRunning}, {Label: "Discard all", Status: protocol.ChangesetOperationStatusError, Error: "git said no", Destructive: true}},
			Note: "Stage all: Staged 4 files"}
	}
	return v
}

const sampleBefore = "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello\")\n\tfmt.Println(\"bye\")\n}\n"
const sampleAfter = "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello, world\")\n\tfmt.Println(\"\x1b[2Jbye\")\n\tfmt.Println(\"more\")\n}\n"

func TestChangesGolden(t *testing.T) {
	k := keymap.DefaultKeyMap()
	for _, sz := range changesSizes {
		w, h := sz[0], sz[1]
		for _, th := range []struct {
			name string
			th   Theme
		}{{"", noColorTheme}, {"_color", colorTheme}} {
			screens := map[string]string{
				"changes_list":  RenderChanges(th.th, k, sampleChangesView(false), w, h),
				"changes_files": RenderChanges(th.th, k, sampleChangesView(true), w, h),
			}
			d := BuildDiff("main.go", sampleBefore, sampleAfter)
			dv := DiffView{File: ChangesetFileRow{Path: "main.go", Added: d.Added, Removed: d.Removed, Reviewed: true}, Review: true, Diff: d, N: 4}
			screens["changes_diff"] = RenderDiffView(th.th, k, dv, NewDiffHighlight(th.th, "main.go"), w, h)
			for name, out := range screens {
				checkScreen(t, th.th, out, w)
				if lines := strings.Count(out, "\n") + 1; lines != h {
					t.Errorf("%s at %dx%d has %d lines", name, w, h, lines)
				}
				checkGolden(t, fmt.Sprintf("%s_x%d%s", name, h, th.name), w, out)
			}
		}
	}
}

// TestDiffSideBySide: from 160 columns deletions meet their insertions on
// one row; below it the diff is unified.
func TestDiffSideBySide(t *testing.T) {
	d := BuildDiff("main.go", sampleBefore, sampleAfter)
	if d.Added != 3 || d.Removed != 2 || len(d.Hunks) != 1 {
		t.Fatalf("diff: +%d -%d, %d hunks", d.Added, d.Removed, len(d.Hunks))
	}
	if DiffRowCount(d, 159) != len(d.Lines) || DiffRowCount(d, 160) >= len(d.Lines) {
		t.Errorf("rows: unified %d, split %d, lines %d", DiffRowCount(d, 159), DiffRowCount(d, 160), len(d.Lines))
	}
	out := strings.Join(RenderDiff(noColorTheme, d, nil, 0, 160, 20), "\n")
	checkScreen(t, noColorTheme, out, 160)
	paired := false
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, `"hello")`) && strings.Contains(l, `"hello, world")`) {
			paired = true
		}
	}
	if !paired {
		t.Errorf("the changed line is not paired with its replacement:\n%s", out)
	}
	checkGolden(t, "changes_diff_split", 160, out)
	// Hostile diff text is inert: no escape but SGR, no control left.
	if strings.Contains(out, "\x1b[2J") {
		t.Error("a host escape reached the diff")
	}
}

// TestDiffBinary: content with a NUL byte is said to be binary, not
// drawn as lines.
func TestDiffBinary(t *testing.T) {
	d := BuildDiff("img.png", "\x89PNG\x00\x01", "\x89PNG\x00\x02")
	if !d.Binary || len(d.Lines) != 0 {
		t.Fatalf("binary diff: %+v", d)
	}
	out := RenderDiffView(noColorTheme, keymap.DefaultKeyMap(), DiffView{File: ChangesetFileRow{Path: "img.png"}, Diff: d, N: 1}, nil, 80, 24)
	checkScreen(t, noColorTheme, out, 80)
	if !strings.Contains(out, "Binary content") {
		t.Errorf("binary not said:\n%s", out)
	}
}

// TestDiffHunksAndNumbers: line numbers follow each side, and a second
// hunk starts where its header says.
func TestDiffHunksAndNumbers(t *testing.T) {
	var before, after strings.Builder
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&before, "line %d\n", i)
		switch i {
		case 5:
			after.WriteString("changed 5\n")
		case 30:
			after.WriteString("line 30\nadded after 30\n")
		default:
			fmt.Fprintf(&after, "line %d\n", i)
		}
	}
	d := BuildDiff("x.txt", before.String(), after.String())
	if len(d.Hunks) != 2 {
		t.Fatalf("%d hunks, want 2", len(d.Hunks))
	}
	h2 := d.Lines[d.Hunks[1]]
	if h2.Text != "@@ -28,6 +28,7 @@" {
		t.Errorf("second hunk header = %q", h2.Text)
	}
	for _, l := range d.Lines {
		if l.Kind == DiffAdd && l.Text == "added after 30" && l.New != 31 {
			t.Errorf("added line numbered %d, want 31", l.New)
		}
	}
}

// TestChangesetStates: computing, recomputing and error are said, and an
// error's host text stays inert.
func TestChangesetStates(t *testing.T) {
	k := keymap.DefaultKeyMap()
	for _, tc := range []struct {
		status protocol.ChangesetStatus
		err    string
		want   string
	}{
		{protocol.ChangesetStatusComputing, "", "Computing the changes…"},
		{protocol.ChangesetStatusRecomputing, "", "recomputing…"},
		{protocol.ChangesetStatusError, "git \x1b[31mfailed\x1b]0;pwned\x07", "error: git failed"},
		{protocol.ChangesetStatusReady, "", "No files changed."},
	} {
		v := ChangesView{Rows: []ChangesetRow{{Label: "S"}}, Open: &OpenChangeset{Title: "S", Status: tc.status, Error: tc.err}}
		out := RenderChanges(noColorTheme, k, v, 80, 24)
		checkScreen(t, noColorTheme, out, 80)
		if plain := ansi.Strip(out); !strings.Contains(plain, tc.want) || strings.Contains(plain, "pwned") {
			t.Errorf("%s: screen lacks %q or keeps the host's escape:\n%s", tc.status, tc.want, plain)
		}
	}
}

// TestUncountedFileSaysNoCount: a file the host sent without edit.diff
// shows no "+0 −0" it does not know.
func TestUncountedFileSaysNoCount(t *testing.T) {
	cs := protocol.ChangesetState{Files: []protocol.ChangesetFile{{ID: "1", Edit: protocol.FileEdit{After: &protocol.FileEditSide{URI: "file:///w/x.go"}}}}}
	rows := ChangesetFileRows(cs, "file:///w")
	if rows[0].Counted {
		t.Fatal("counted without edit.diff")
	}
	v := ChangesView{Open: &OpenChangeset{Title: "S", Status: protocol.ChangesetStatusReady, Files: rows, Total: 1}}
	out := ansi.Strip(RenderChanges(noColorTheme, keymap.DefaultKeyMap(), v, 80, 24))
	if strings.Contains(out, "x.go  +0") {
		t.Errorf("an unknown count is drawn as zero:\n%s", out)
	}
}

// TestChangeCountsSaySource is issue 36 item 11: one file showed +2 −1
// in the list (the host's count), +1 −0 in its diff (counted from what
// is drawn), and "1 files". The list says its numbers are the host's;
// the diff says its own and, where the host's differ, the host's beside
// them, named; one file is "1 file".
func TestChangeCountsSaySource(t *testing.T) {
	k := keymap.DefaultKeyMap()
	d := BuildDiff("a.txt", "one\n", "one\ntwo\n") // +1 −0 drawn
	host := ChangesetFileRow{Path: "a.txt", Change: FileModified, Added: 2, Removed: 1, Counted: true}
	diff := ansi.Strip(RenderDiffView(noColorTheme, k, DiffView{File: host, Diff: d, N: 1}, nil, 100, 20))
	if !strings.Contains(diff, "+1 −0 in this diff (the host's count: +2 −1)") {
		t.Errorf("the diff does not say whose counts differ:\n%s", diff)
	}
	host.Added, host.Removed = 1, 0
	diff = ansi.Strip(RenderDiffView(noColorTheme, k, DiffView{File: host, Diff: d, N: 1}, nil, 100, 20))
	if !strings.Contains(diff, "+1 −0") || strings.Contains(diff, "host's count") {
		t.Errorf("agreeing counts are not said once:\n%s", diff)
	}
	list := ansi.Strip(RenderChanges(noColorTheme, k, ChangesView{Session: "s", Rows: []ChangesetRow{{Label: "This Turn", Kind: "turn", Counted: true, Files: 1, Added: 2, Removed: 1}},
		Open: &OpenChangeset{Title: "This Turn", Files: []ChangesetFileRow{host}, Total: 1}}, 100, 20))
	if strings.Contains(list, "1 files") || !strings.Contains(list, "1 file +1 −0 (the host's count)") {
		t.Errorf("the list miscounts its file or does not say whose count:\n%s", list)
	}
}

// TestDiffSideways is issue 36 item 12: a diff line longer than its
// column was cut with "…" and its end could not be reached. Scrolled
// sideways (DiffView.Left, the ←/→ keys), the end shows, the line
// numbers stay, and the sheet's hints name the keys.
func TestDiffSideways(t *testing.T) {
	k := keymap.DefaultKeyMap()
	long := "func f() { return compute(alpha, beta, gamma, delta, epsilon, zeta, eta, theta, iota) } // THE-END"
	d := BuildDiff("a.go", "package a\n", "package a\n"+long+"\n")
	v := DiffView{File: ChangesetFileRow{Path: "a.go"}, Diff: d, N: 1}
	at := func(left int) string {
		v.Left = left
		return ansi.Strip(RenderDiffView(noColorTheme, k, v, nil, 80, 12))
	}
	if s := at(0); strings.Contains(s, "THE-END") || !strings.Contains(s, "…") {
		t.Fatalf("the long line is not cut at 80 columns:\n%s", s)
	}
	s := at(DiffLongest(d) - 20)
	if !strings.Contains(s, "THE-END") {
		t.Errorf("scrolled sideways, the line's end does not show:\n%s", s)
	}
	if !strings.Contains(s, "2 +") {
		t.Errorf("scrolled sideways, the line number is gone:\n%s", s)
	}
	if sw := k.Diff.Sideways().Help(); !strings.Contains(s, sw.Key+" sideways") {
		t.Errorf("the sheet does not name the sideways keys:\n%s", s)
	}
	if DiffLongest(d) != len(long) {
		t.Errorf("DiffLongest = %d, want %d", DiffLongest(d), len(long))
	}
}
