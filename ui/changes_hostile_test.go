package ui

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

// TestHostileChangesetsRender: a changeset whose every text field, file
// name, diff line, operation, confirmation and outcome carries the
// hostile host's escape payloads (as recorded in ../testdata/hostile:
// a tainted chat title holds all of them) draws inert in the changes view, the
// diff (unified and side by side, colour and not) and the question.
func TestHostileChangesetsRender(t *testing.T) {
	var tainted protocol.ChatState
	readTainted(t, "tainted-demo-stream-chat.json", &tainted)
	bad := tainted.Title
	if !strings.Contains(bad, " | ") {
		t.Fatalf("the tainted title %q holds no payload list", bad)
	}
	desc := "Everything" + bad
	cat := []protocol.Changeset{{Label: "Session" + bad, URITemplate: "x:/s", ChangeKind: "session" + bad, Description: &desc,
		Capabilities: &protocol.ChangesetCapabilities{Review: map[string]json.RawMessage{}}}}
	side := func(name string) *protocol.FileEditSide {
		return &protocol.FileEditSide{URI: protocol.URI("file:///w/" + name + bad)}
	}
	conf := protocol.StringOrMarkdown{Value: "Really?" + bad}
	cs := protocol.ChangesetState{Status: protocol.ChangesetStatusError, Error: &protocol.ErrorInfo{ErrorType: "e", Message: "failed" + bad},
		Files: []protocol.ChangesetFile{
			{ID: "1", Edit: protocol.FileEdit{Before: side("a.go"), After: side("a.go")}},
			{ID: "2", Edit: protocol.FileEdit{Before: side("old.md"), After: side("new.md")}},
			{ID: "3", Edit: protocol.FileEdit{After: side("created.go")}},
		},
		Operations: []protocol.ChangesetOperation{{ID: "op", Label: "Discard" + bad, Status: protocol.ChangesetOperationStatusError,
			Error: &protocol.ErrorInfo{Message: "no" + bad}, Confirmation: &conf, Scopes: []protocol.ChangesetOperationScope{protocol.ChangesetOperationScopeChangeset}}},
	}
	before := "package a\n\nfunc A() {" + bad + "\n\treturn\n}\n"
	after := "package a\n\nfunc A() {\n\tprintln(\"" + bad + "\")\n\treturn\n}\n"
	eachChangesLayout(t, cat, func(t *testing.T, m *Model, sz struct{ w, h int }) {
		draw := func(what string) {
			t.Helper()
			out := m.Render()
			assertInert(t, out)
			if !strings.Contains(ansi.Strip(out), " | ") {
				t.Fatalf("%s: no poisoned text reached the screen; the test would prove nothing", what)
			}
		}
		draw("catalogue")
		m.changes.channel, m.changes.entry, m.changes.cs, m.changes.hasCS = "x:/s", cat[0], cs, true
		m.changes.files = views.ChangesetFileRows(cs, "file:///w")
		m.changes.note = "Discard: " + bad
		draw("files")
		m.changes.confirm = 0
		draw("question")
		m.changes.confirm = -1
		d := views.BuildDiff("a.go", before, after)
		m.changes.diff = &diffState{id: "1", diff: d, hl: views.NewDiffHighlight(m.th, "a.go")}
		draw("diff")
	})
}

// TestHostileHostChangesetInert: the hostile host's changeset (its file
// names, in their URIs, carrying every escape, bidi controls and a name
// of tens of kilobytes; absurd counts and size hints; tainted labels and
// confirmations) and its files' contents (an escape on every line) stay
// inert in the changes view's catalogue, files, question and every
// file's diff, at 80x24 and 160x40, in colour and without, and no line
// of the screen grows past its width.
func TestHostileHostChangesetInert(t *testing.T) {
	var cs protocol.ChangesetState
	var cat []protocol.Changeset
	var contents map[string]string
	readTainted(t, "tainted-changeset.json", &cs)
	readTainted(t, "tainted-changeset-catalogue.json", &cat)
	readTainted(t, "changeset-contents.json", &contents)
	if len(cs.Files) != 4 || len(cat) != 1 {
		t.Fatalf("the hostile changeset has %d files and %d catalogue entries", len(cs.Files), len(cat))
	}
	eachChangesLayout(t, cat, func(t *testing.T, m *Model, sz struct{ w, h int }) {
		draw := func(what, want string) {
			t.Helper()
			out := m.Render()
			assertInert(t, out)
			if !strings.Contains(ansi.Strip(out), want) {
				t.Fatalf("%s: no poisoned text reached the screen; the test would prove nothing:\n%s", what, ansi.Strip(out))
			}
			for i, l := range strings.Split(out, "\n") {
				if w := ansi.StringWidth(l); w > sz.w {
					t.Fatalf("%s: line %d is %d cells wide on a %d-column screen", what, i, w, sz.w)
				}
			}
		}
		draw("catalogue", " | ")
		m.changes.channel, m.changes.entry, m.changes.cs, m.changes.hasCS = "x:/h", cat[0], cs, true
		m.changes.files = views.ChangesetFileRows(cs, "file:///w")
		draw("files", " | ")
		m.changes.confirm = 0
		draw("question", " | ")
		m.changes.confirm = -1
		for _, f := range cs.Files {
			var before, after string
			path := ""
			if f.Edit.Before != nil {
				before, path = contents[string(f.Edit.Before.Content.URI)], string(f.Edit.Before.URI)
			}
			if f.Edit.After != nil {
				after, path = contents[string(f.Edit.After.Content.URI)], string(f.Edit.After.URI)
			}
			if before == "" && after == "" {
				t.Fatalf("file %s has no hostile content", f.ID)
			}
			d := views.BuildDiff(path, before, after)
			m.changes.diff = &diffState{id: f.ID, diff: d, hl: views.NewDiffHighlight(m.th, path)}
			draw("diff of "+f.ID, "var x")
			m.changes.diff.top = views.DiffRowCount(d, m.changes.diffWidth()) / 2
			draw("diff of "+f.ID+", scrolled", "var x")
		}
	})
}

// eachChangesLayout runs f on a model with the changes view open on cat,
// at 80x24 and 160x40, in colour and without.
func eachChangesLayout(t *testing.T, cat []protocol.Changeset, f func(t *testing.T, m *Model, sz struct{ w, h int })) {
	for _, sz := range []struct{ w, h int }{{80, 24}, {160, 40}} {
		for _, noColor := range []bool{false, true} {
			t.Run(fmt.Sprintf("%dx%d/noColor=%v", sz.w, sz.h, noColor), func(t *testing.T) {
				m := fxModel(protocol.ChatState{Resource: fxChat, Turns: []protocol.Turn{{ID: "t1"}}})
				m.cfg.NoColor = noColor
				m.applyTheme()
				m.Update(tea.WindowSizeMsg{Width: sz.w, Height: sz.h})
				m.openSession, m.hasSess = fxSession, true
				m.sess.Changesets = cat
				m.changes.open, m.changes.session = true, fxSession
				f(t, m, sz)
			})
		}
	}
}
