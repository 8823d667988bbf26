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
