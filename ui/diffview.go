package ui

import (
	"errors"
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

// diffState is the diff view of one file of the open changeset: its
// diff, once both sides are read (and diffed off the event loop), the
// highlighter that caches its coloured lines, and the scroll.
type diffState struct {
	id      string
	diff    *views.Diff
	hl      *views.DiffHighlight
	err     string
	loading bool
	top     int
	left    int // the sideways scroll, in cells
}

// diffReadMsg carries a file's diff, built from both sides' content.
type diffReadMsg struct {
	channel, id string
	diff        *views.Diff
	err         error
}

// openDiff shows file id's diff, reading both sides' content (each
// bounded by maxDiffContent) in a command.
func (v *changesView) openDiff(id string) tea.Cmd {
	f, ok := v.fileByID(id)
	if !ok {
		return nil
	}
	v.diff = &diffState{id: id, loading: true}
	c, ok := v.csClient()
	if !ok {
		v.diff.err, v.diff.loading = "this client cannot read file contents", false
		return nil
	}
	ch, ctx := v.channel, v.ctx
	edit, path := f.Edit, views.SanitizeLine(id)
	if edit.After != nil {
		path = string(edit.After.URI)
	} else if edit.Before != nil {
		path = string(edit.Before.URI)
	}
	return func() tea.Msg {
		read := func(side *protocol.FileEditSide) (string, error) {
			if side == nil {
				return "", nil
			}
			return c.ReadContent(ctx, side.Content, maxDiffContent)
		}
		before, err := read(edit.Before)
		if err != nil {
			return diffReadMsg{channel: ch, id: id, err: fmt.Errorf("could not read the old content: %w", err)}
		}
		after, err := read(edit.After)
		if err != nil {
			return diffReadMsg{channel: ch, id: id, err: fmt.Errorf("could not read the new content: %w", err)}
		}
		return diffReadMsg{channel: ch, id: id, diff: views.BuildDiff(path, before, after)}
	}
}

func (v *changesView) fileByID(id string) (protocol.ChangesetFile, bool) {
	for _, f := range v.cs.Files {
		if f.ID == id {
			return f, true
		}
	}
	return protocol.ChangesetFile{}, false
}

func (v *changesView) onDiffRead(msg diffReadMsg) tea.Cmd {
	d := v.diff
	if d == nil || msg.channel != v.channel || msg.id != d.id {
		return nil
	}
	d.loading = false
	if msg.err != nil {
		d.err = msg.err.Error()
		return nil
	}
	d.diff = msg.diff
	d.hl = views.NewDiffHighlight(v.th, msg.diff.Path)
	return nil
}

// diffWidth is the width the diff is drawn at inside the sheet.
func (v *changesView) diffWidth() int { return max(20, v.width) - 2 }

// diffRows is how many diff rows the sheet shows.
func (v *changesView) diffRows() int { return max(1, v.height-4) }

// wheel scrolls the open diff three rows.
func (v *changesView) wheel(down bool) {
	d := v.diff
	if d == nil {
		return
	}
	by := -3
	if down {
		by = 3
	}
	rows := views.DiffRowCount(d.diff, v.diffWidth())
	d.top = max(0, min(d.top+by, rows-v.diffRows()))
}

func (v *changesView) keyDiff(msg tea.KeyPressMsg, quit, help func() tea.Cmd) tea.Cmd {
	g, k := v.keys.Global, v.keys.Diff
	d := v.diff
	rows := views.DiffRowCount(d.diff, v.diffWidth())
	page := v.diffRows()
	scroll := func(to int) { d.top = max(0, min(to, rows-page)) }
	switch {
	case key.Matches(msg, g.Quit):
		return quit()
	case key.Matches(msg, g.Help):
		return help()
	case key.Matches(msg, g.Changes):
		return v.close()
	case key.Matches(msg, k.Back):
		v.diff = nil
	case key.Matches(msg, k.Up):
		scroll(d.top - 1)
	case key.Matches(msg, k.Down):
		scroll(d.top + 1)
	case key.Matches(msg, k.PageUp):
		scroll(d.top - page)
	case key.Matches(msg, k.PageDown):
		scroll(d.top + page)
	case key.Matches(msg, k.Left), key.Matches(msg, k.Right):
		step := max(8, v.diffWidth()/4)
		by := step
		if key.Matches(msg, k.Left) {
			by = -step
		}
		// At most to where the longest line's last cells still show.
		d.left = max(0, min(d.left+by, views.DiffLongest(d.diff)-step/2))
	case key.Matches(msg, k.NextHunk), key.Matches(msg, k.PrevHunk):
		starts := views.DiffHunkStarts(d.diff, v.diffWidth())
		next := key.Matches(msg, k.NextHunk)
		for i := range starts {
			h := starts[i]
			if !next {
				h = starts[len(starts)-1-i]
			}
			if next && h > d.top || !next && h < d.top {
				d.top = h // a hunk is put at the top even where the end would clamp
				return nil
			}
		}
		return reportInfo(map[bool]string{true: "no hunk after this one", false: "no hunk before this one"}[next])
	case key.Matches(msg, k.NextFile), key.Matches(msg, k.PrevFile):
		files := v.shown()
		by := 1
		if key.Matches(msg, k.PrevFile) {
			by = -1
		}
		i := v.fileSel + by
		if i < 0 || i >= len(files) {
			return reportInfo("no more files this way")
		}
		v.fileSel = i
		return v.openDiff(files[i].ID)
	case key.Matches(msg, k.Reviewed):
		if f, ok := v.rowByID(d.id); ok {
			return v.toggleReviewed(f)
		}
		return reportError(errors.New("the file is no longer in the changeset"))
	}
	return nil
}

// selectedURI is the selected file's URI (its new side, or its old one
// for a deletion): what a file's operation targets.
func (v *changesView) selectedURI() (protocol.URI, bool) {
	files := v.shown()
	if v.fileSel >= len(files) {
		return "", false
	}
	f, ok := v.fileByID(files[v.fileSel].ID)
	switch {
	case !ok:
		return "", false
	case f.Edit.After != nil:
		return f.Edit.After.URI, true
	case f.Edit.Before != nil:
		return f.Edit.Before.URI, true
	}
	return "", false
}

func (v *changesView) rowByID(id string) (views.ChangesetFileRow, bool) {
	for _, f := range v.files {
		if f.ID == id {
			return f, true
		}
	}
	return views.ChangesetFileRow{}, false
}

func (v *changesView) diffView(width, height int) string {
	d := v.diff
	row, ok := v.rowByID(d.id)
	if !ok {
		row = views.ChangesetFileRow{ID: d.id, Path: views.SanitizeLine(d.id)}
		if d.err == "" && !d.loading {
			d.err = "the file is no longer in the changeset"
		}
	}
	dv := views.DiffView{File: row, Review: reviewable(v.entry), Diff: d.diff, Loading: d.loading, Err: d.err,
		Top: d.top, Left: d.left, Index: v.fileSel, N: len(v.shown())}
	return views.RenderDiffView(v.th, v.keys, dv, d.hl, width, height)
}
