package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/keymap"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
	"github.com/ahptui/ahptui/views"
)

// openHistory opens the seeded history session, whose changesets the
// demo host advertises, and waits for its chat.
func (d *driver) openHistory() {
	d.t.Helper()
	d.until("session list", func() bool { return len(d.m.sessions.list) > 1 })
	for i, s := range d.m.sessions.list {
		if s.Resource == demohost.HistorySessionURI {
			d.m.sessions.sel = i
		}
	}
	d.keys("enter")
	d.until("history chat", func() bool {
		return d.m.hasChat && d.m.hasSess && d.m.openChat == demohost.HistoryChatURI && len(d.m.chat.Turns) > 0
	})
	d.rec.take()
}

// TestChangesViewFlow drives the changes view against the demo host: the
// catalogue with the turn expanded, opening subscribes, files show their
// change kinds, a diff is read and moves by hunk, review is a
// filesReviewChanged on the changeset channel, the unreviewed filter,
// an operation with its outcome and a destructive one that asks first,
// and closing unsubscribes.
func TestChangesViewFlow(t *testing.T) {
	d := newDriver(t, nil)
	d.openHistory()
	d.keys("C")
	if d.m.context() != keymap.ContextChanges {
		t.Fatalf("context = %v, want changes", d.m.context())
	}
	screen := ansi.Strip(d.m.Render())
	for _, want := range []string{"Session Changes", "Uncommitted Changes", "This Turn", "turn 1", "Compare Turns", "needs two turns"} {
		if !strings.Contains(screen, want) {
			t.Errorf("catalogue lacks %q:\n%s", want, screen)
		}
	}
	d.keys("enter")
	d.until("changeset files", func() bool { return d.m.changes.hasCS && len(d.m.changes.files) == 4 })
	if !slicesContains(d.rec.Channels(), demohost.ChangesetSessionURI) {
		t.Fatalf("not subscribed to %s: %v", demohost.ChangesetSessionURI, d.rec.Channels())
	}
	screen = ansi.Strip(d.m.Render())
	for _, want := range []string{"4 files", "docs/flaky.md → docs/testing.md", "A ", "D ", "[ ]", "1 Stage all", "2 Discard all"} {
		if !strings.Contains(screen, want) {
			t.Errorf("files view lacks %q:\n%s", want, screen)
		}
	}

	// The first file's diff, read from the host and moved by hunk.
	d.keys("enter")
	d.until("diff", func() bool { return d.m.changes.diff != nil && d.m.changes.diff.diff != nil })
	if d.m.context() != keymap.ContextDiff {
		t.Fatalf("context = %v, want diff", d.m.context())
	}
	df := d.m.changes.diff.diff
	if df.Added == 0 || df.Removed == 0 || len(df.Hunks) == 0 {
		t.Fatalf("diff of the modified file: +%d -%d, %d hunks", df.Added, df.Removed, len(df.Hunks))
	}
	if screen = ansi.Strip(d.m.Render()); !strings.Contains(screen, "+") || !strings.Contains(screen, "waitStatus") {
		t.Errorf("diff view:\n%s", screen)
	}
	// The wheel scrolls the diff, not the chat behind the sheet.
	d.m.height = 8
	chatBefore := d.m.chatPanel.scroll
	d.send(tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	if d.m.changes.diff.top != 3 || d.m.chatPanel.scroll != chatBefore {
		t.Errorf("wheel: diff top %d, chat scroll %d → %d", d.m.changes.diff.top, chatBefore, d.m.chatPanel.scroll)
	}
	d.send(tea.MouseWheelMsg{Button: tea.MouseWheelUp})
	d.send(tea.WindowSizeMsg{Width: 160, Height: 50})
	d.keys("v")
	sent := d.expectSent("changeset/filesReviewChanged")
	if sent[0].Channel != demohost.ChangesetSessionURI {
		t.Errorf("review sent on %s", sent[0].Channel)
	}
	d.until("reviewed", func() bool { return len(d.m.changes.files) > 0 && d.m.changes.files[0].Reviewed })
	d.keys("n")
	d.until("next file's diff", func() bool {
		return d.m.changes.diff != nil && d.m.changes.diff.diff != nil && d.m.changes.fileSel == 1
	})
	if d.m.changes.diff.diff.Removed != 0 {
		t.Errorf("a created file removes %d lines", d.m.changes.diff.diff.Removed)
	}
	d.keys("esc")

	// Unreviewed only: the reviewed file leaves the list.
	d.keys("u")
	if n := len(d.m.changes.shown()); n != 3 {
		t.Errorf("unreviewed filter shows %d files, want 3", n)
	}
	d.keys("u")

	// Revert file acts on the selected file (a resource target), after
	// its question.
	d.keys("down", "down")
	if f := d.m.changes.shown()[d.m.changes.fileSel]; f.Path != "scripts/retry.sh" {
		t.Fatalf("selected %q", f.Path)
	}
	if screen = ansi.Strip(d.m.Render()); !strings.Contains(screen, "3 Revert file (selected file)") {
		t.Errorf("the file's operation is not said as one:\n%s", screen)
	}
	d.keys("3")
	if d.m.context() != keymap.ContextConfirm {
		t.Fatal("revert did not ask")
	}
	d.keys("y")
	d.until("reverted", func() bool { return len(d.m.changes.files) == 3 })
	for _, f := range d.m.changes.files {
		if f.Path == "scripts/retry.sh" {
			t.Error("the wrong file was reverted")
		}
	}

	// Stage: no question; its message and follow-up are shown.
	d.keys("1")
	d.until("stage done", func() bool { return strings.Contains(d.m.changes.note, "Staged 3 files") })
	if !strings.Contains(d.m.changes.note, "follow-up") {
		t.Errorf("note = %q, want the follow-up", d.m.changes.note)
	}
	// Discard asks first; n keeps the files, y discards them.
	d.keys("2")
	if d.m.context() != keymap.ContextConfirm || !strings.Contains(ansi.Strip(d.m.Render()), "cannot be undone") {
		t.Fatalf("discard did not ask:\n%s", d.m.Render())
	}
	d.keys("n")
	if len(d.m.changes.files) != 3 {
		t.Fatal("no still discarded")
	}
	d.keys("2", "y")
	d.until("discarded", func() bool { return d.m.changes.hasCS && len(d.m.changes.files) == 0 })

	d.keys("esc", "esc")
	if d.m.changes.open {
		t.Fatal("esc esc left the view open")
	}
	d.until("unsubscribed", func() bool { return !slicesContains(d.rec.Channels(), demohost.ChangesetSessionURI) })
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// TestChangesetDropped: a changeset the client stops mirroring (the host
// dropped it on reconnect) takes the view back to the changesets, said.
func TestChangesetDropped(t *testing.T) {
	m := fxModel(protocol.ChatState{Resource: fxChat})
	m.openSession, m.hasSess = fxSession, true
	m.changes.open, m.changes.session, m.changes.channel, m.changes.hasCS = true, fxSession, "x:/cs", true
	m.changes.diff = &diffState{id: "1"}
	cmd := m.onEvent(client.ChannelDroppedEvent{Channel: "x:/cs", Reason: "gone"})
	if m.changes.channel != "" || m.changes.diff != nil || !m.changes.open || m.context() != keymap.ContextChanges {
		t.Errorf("after the drop: channel %q, diff %v, open %v, context %v", m.changes.channel, m.changes.diff, m.changes.open, m.context())
	}
	if cmd == nil {
		t.Error("the drop is not said")
	}
}

// TestChangesetFileRowsHostile: file names from the host stay inert, and
// rename, create and delete are told apart.
func TestChangesetFileRowsHostile(t *testing.T) {
	side := func(u string) *protocol.FileEditSide { return &protocol.FileEditSide{URI: protocol.URI(u)} }
	cs := protocol.ChangesetState{Files: []protocol.ChangesetFile{
		{ID: "a", Edit: protocol.FileEdit{After: side("file:///w/evil\x1b]8;;http://x\x07name\x1b[2J.go")}},
		{ID: "b", Edit: protocol.FileEdit{Before: side("file:///w/old.go"), After: side("file:///w/new.go")}},
		{ID: "c", Edit: protocol.FileEdit{Before: side("file:///w/gone.go")}},
	}}
	rows := views.ChangesetFileRows(cs, "file:///w")
	if strings.ContainsRune(rows[0].Path, '\x1b') || rows[0].Change != views.FileCreated {
		t.Errorf("row 0 = %+v", rows[0])
	}
	if rows[1].Change != views.FileRenamed || rows[1].OldPath != "old.go" || rows[1].Path != "new.go" {
		t.Errorf("row 1 = %+v", rows[1])
	}
	if rows[2].Change != views.FileDeleted {
		t.Errorf("row 2 = %+v", rows[2])
	}
}

// TestChangesetTemplateExpansion: {turnId} takes the picked turn (the
// latest by default), a comparison two turns, ids are escaped, and a
// variable the protocol does not define is said, not guessed.
func TestChangesetTemplateExpansion(t *testing.T) {
	// Issue 36: a turn is named by its message's first words too.
	turns := []protocol.Turn{{ID: "t1", Message: userMsg("Fix the\nflaky test")}, {ID: "t 2"},
		{ID: "t3", Message: userMsg("Now make the reconnect replay its whole backlog please")}}
	v := &changesView{app: &app{hasChat: true, chat: protocol.ChatState{Turns: turns}}, orig: 1}
	cases := []struct {
		tmpl, uri, how, missing string
		turn, orig              int
	}{
		{tmpl: "ahp-changeset:/s", uri: "ahp-changeset:/s"},
		{tmpl: "x:/turn/{turnId}", uri: "x:/turn/t3", how: "turn 3 “Now make the reconnect …”"},
		{tmpl: "x:/turn/{turnId}", turn: 1, uri: "x:/turn/t%202", how: "turn 2 (no text)"},
		{tmpl: "x:/c/{originalTurnId}/{modifiedTurnId}", orig: 1, uri: "x:/c/t%202/t3", how: "turn 2 (no text) → turn 3 “Now make the reconnect …”"},
		{tmpl: "x:/c/{originalTurnId}/{modifiedTurnId}", orig: 2, uri: "x:/c/t1/t3", how: "turn 1 “Fix the flaky test” → turn 3 “Now make the reconnect …”"},
		{tmpl: "x:/c/{originalTurnId}/{modifiedTurnId}", turn: 2, orig: 1, missing: "needs two turns"},
		{tmpl: "x:/{branch}", missing: "needs {branch}, which ahptui cannot fill"},
	}
	for _, c := range cases {
		v.turn, v.orig = c.turn, max(1, c.orig)
		uri, how, missing := v.expand(protocol.Changeset{URITemplate: c.tmpl})
		if uri != c.uri || how != c.how || missing != c.missing {
			t.Errorf("%s (turn %d, orig %d) = %q, %q, %q; want %q, %q, %q", c.tmpl, c.turn, c.orig, uri, how, missing, c.uri, c.how, c.missing)
		}
	}
	v.chat.Turns = nil
	if _, _, missing := v.expand(protocol.Changeset{URITemplate: "x:/{turnId}"}); missing != "no turn yet" {
		t.Errorf("no turns: %q", missing)
	}
}
