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
	}
}
