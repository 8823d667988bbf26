package views

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ahptui/ahptui/keymap"
	"github.com/ahptui/ahptui/protocol"
)

// benchDiffSides is a Go file of n lines and its edit: one line in ten
// changed, one in fifty added, so the diff has ~10,000 rows at n = 7,000.
func benchDiffSides(n int) (string, string) {
	var before, after strings.Builder
	for i := range n {
		line := fmt.Sprintf("\tx%d := compute(%d, \"value %d\") // step %d\n", i, i, i*7, i)
		before.WriteString(line)
		switch {
		case i%10 == 3:
			fmt.Fprintf(&after, "\tx%d := computeFaster(%d, \"value %d\")\n", i, i, i*7)
		case i%50 == 7:
			after.WriteString(line)
			fmt.Fprintf(&after, "\tlog.Printf(\"step %%d\", %d)\n", i)
		default:
			after.WriteString(line)
		}
	}
	return before.String(), after.String()
}

// BenchmarkDiffScroll measures one frame of the diff view while
// scrolling a diff of 10,000+ lines: the 160×50 sheet (side by side) and
// the 120×40 one (unified), one row further down each frame, the rows
// new to the window highlighted with chroma as they come in.
//
// Budget: < 4 ms per frame (ns/op < 4,000,000) at both sizes: only the
// rows shown are styled, and each line is highlighted once.
func BenchmarkDiffScroll(b *testing.B) {
	before, after := benchDiffSides(7_000)
	d := BuildDiff("main.go", before, after)
	if len(d.Lines) < 10_000 {
		b.Fatalf("the benchmark diff has %d lines, want 10,000 or more", len(d.Lines))
	}
	th, k := NewTheme(true, false), keymap.DefaultKeyMap()
	for _, sz := range [][2]int{{160, 50}, {120, 40}} {
		b.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(b *testing.B) {
			hl := NewDiffHighlight(th, d.Path)
			rows := DiffRowCount(d, sz[0]-2)
			v := DiffView{File: ChangesetFileRow{Path: "main.go", Added: d.Added, Removed: d.Removed}, Diff: d, N: 1}
			_ = RenderDiffView(th, k, v, hl, sz[0], sz[1])
			top := 0
			for b.Loop() {
				top = (top + 1) % rows
				v.Top = top
				if out := RenderDiffView(th, k, v, hl, sz[0], sz[1]); len(out) == 0 {
					b.Fatal("empty frame")
				}
			}
		})
	}
}

// BenchmarkChangesetFiles2000 measures the changes view of a changeset of
// 2,000 files: "rows", deriving the file rows from a new snapshot (once
// per snapshot), and "frame", drawing the 120×40 list with the selection
// moving.
//
// Budget: < 4 ms each (ns/op < 4,000,000): a frame draws the rows that
// fit, not the 2,000.
func BenchmarkChangesetFiles2000(b *testing.B) {
	cs := protocol.ChangesetState{Status: protocol.ChangesetStatusReady}
	for i := range 2_000 {
		u := protocol.URI(fmt.Sprintf("file:///w/pkg%d/file%d.go", i%40, i))
		add, del := int64(i%17), int64(i%5)
		cs.Files = append(cs.Files, protocol.ChangesetFile{ID: string(u), Edit: protocol.FileEdit{
			Before: &protocol.FileEditSide{URI: u}, After: &protocol.FileEditSide{URI: u},
			Diff: &protocol.FileEditDiffStats{Added: &add, Removed: &del}}})
	}
	th, k := NewTheme(true, false), keymap.DefaultKeyMap()
	b.Run("rows", func(b *testing.B) {
		for b.Loop() {
			if rows := ChangesetFileRows(cs, "file:///w"); len(rows) != 2_000 {
				b.Fatal("rows lost")
			}
		}
	})
	b.Run("frame", func(b *testing.B) {
		rows := ChangesetFileRows(cs, "file:///w")
		v := ChangesView{Rows: []ChangesetRow{{Label: "Session Changes"}}, Open: &OpenChangeset{Title: "Session Changes",
			Status: cs.Status, Files: rows, Total: len(rows), Review: true}}
		i := 0
		for b.Loop() {
			v.Open.Sel = i % len(rows)
			if out := RenderChanges(th, k, v, 120, 40); len(out) == 0 {
				b.Fatal("empty frame")
			}
			i += 37
		}
	})
}
