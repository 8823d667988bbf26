package views

import (
	"strconv"
	"strings"

	"github.com/ahptui/ahptui/keymap"
	"github.com/ahptui/ahptui/protocol"
)

// ChangesetRow is one advertised changeset in the changes view. Turn says
// how its template was expanded ("turn 2", "turn 1 → turn 2"); Missing
// why it cannot be (no turn yet). Files, Added and Removed are known only
// for the open changeset (Counted).
type ChangesetRow struct {
	Label, Description, Kind string
	Review                   bool
	Turn, Missing            string
	Counted                  bool
	Files, Added, Removed    int
}

// FileChange is what a changeset did to a file.
type FileChange int

const (
	FileModified FileChange = iota
	FileCreated
	FileDeleted
	FileRenamed
)

// ChangesetFileRow is one file of the open changeset.
type ChangesetFileRow struct {
	ID             string
	Path, OldPath  string // sanitized; OldPath only for a rename
	Change         FileChange
	Added, Removed int
	Counted        bool // the host sent the +/− counts (edit.diff)
	Reviewed       bool
}

// ChangesetFileRows derives the file rows from a changeset's state, once
// per snapshot: paths relative to the working directory dir (a URI) when
// under it, sanitized; +/− from each file's edit.diff.
func ChangesetFileRows(cs protocol.ChangesetState, dir string) []ChangesetFileRow {
	rows := make([]ChangesetFileRow, 0, len(cs.Files))
	for _, f := range cs.Files {
		r := ChangesetFileRow{ID: f.ID, Reviewed: f.Reviewed != nil && *f.Reviewed}
		e := f.Edit
		switch {
		case e.Before == nil && e.After != nil:
			r.Change, r.Path = FileCreated, changePath(string(e.After.URI), dir)
		case e.After == nil && e.Before != nil:
			r.Change, r.Path = FileDeleted, changePath(string(e.Before.URI), dir)
		case e.After != nil && e.Before != nil && e.Before.URI != e.After.URI:
			r.Change, r.Path, r.OldPath = FileRenamed, changePath(string(e.After.URI), dir), changePath(string(e.Before.URI), dir)
		case e.After != nil:
			r.Path = changePath(string(e.After.URI), dir)
		default:
			r.Path = SanitizeLine(f.ID)
		}
		if e.Diff != nil {
			r.Counted = e.Diff.Added != nil || e.Diff.Removed != nil
			if e.Diff.Added != nil {
				r.Added = int(max(0, *e.Diff.Added))
			}
			if e.Diff.Removed != nil {
				r.Removed = int(max(0, *e.Diff.Removed))
			}
		}
		rows = append(rows, r)
	}
	return rows
}

func changePath(uri, dir string) string {
	if dir != "" {
		if rest, ok := strings.CutPrefix(uri, strings.TrimSuffix(dir, "/")+"/"); ok {
			uri = rest
		}
	}
	uri = strings.TrimPrefix(uri, "file://")
	return SanitizeLine(uri)
}

// ChangesetOpRow is one of the host's operations on the open changeset.
type ChangesetOpRow struct {
	Label, Error string
	Status       protocol.ChangesetOperationStatus
	Destructive  bool
	OnFile       bool // acts on the selected file
}

// OpenChangeset is the changeset whose files are listed.
type OpenChangeset struct {
	Title          string // its label, sanitized
	Status         protocol.ChangesetStatus
	Error          string
	Files          []ChangesetFileRow // already filtered
	Total          int                // files before the filter
	Sel            int
	Review         bool
	UnreviewedOnly bool
	Ops            []ChangesetOpRow
	Note           string // the last operation's outcome and follow-up
}

// ChangesView is what the changes view draws: the changesets, or the
// open one's files.
type ChangesView struct {
	Session string
	Rows    []ChangesetRow
	Sel     int
	Open    *OpenChangeset
}

// RenderChanges is the changes view (C): a sheet over the panels, the
// whole screen, listing the session's changesets or, once one is open,
// its state, files and operations. Only the rows that fit are drawn, so
// a 2,000-file changeset costs a screen, not its length.
func RenderChanges(th Theme, k keymap.KeyMap, v ChangesView, width, height int) string {
	w, h := max(20, width), max(5, height)
	inner := w - 4
	rows := h - 2
	var body []string
	title := "Changes"
	if v.Open == nil {
		body = changesetRows(th, v, inner, rows-2)
		pairs := []any{k.Changes.Open, "open"}
		if v.Sel >= 0 && v.Sel < len(v.Rows) && v.Rows[v.Sel].Turn != "" {
			// Only a changeset of a turn moves between turns.
			pairs = append(pairs, k.Changes.TurnNext, "turn")
		}
		body = append(body, "", " "+KeyHints(th, true, append(pairs, k.Changes.Back, "close")...))
	} else {
		title = "Changes · " + v.Open.Title
		body = openChangesetRows(th, k, v.Open, inner, rows)
	}
	return RenderDialog(th, title, body, w, h)
}

func changesetRows(th Theme, v ChangesView, inner, rows int) []string {
	if len(v.Rows) == 0 {
		return []string{" " + th.Muted.Render("This session advertises no changesets.")}
	}
	var out []string
	for i, r := range v.Rows {
		if len(out)+2 > rows {
			break
		}
		label := SanitizeLine(r.Label)
		kind := th.Muted.Render(" [" + SanitizeLine(r.Kind) + "]")
		if r.Review {
			kind += th.Muted.Render(" review")
		}
		line := label + kind
		if r.Turn != "" {
			line += " " + th.Info.Render(r.Turn)
		}
		if r.Missing != "" {
			line += " " + th.Warning.Render(r.Missing)
		}
		if r.Counted {
			line += "  " + files(r.Files) + " " + diffStat(th, r.Added, r.Removed)
		}
		mark := "  "
		if i == v.Sel {
			mark = "▸ "
			line = th.Selected.Render(Truncate(SanitizeLine(r.Label), inner)) + strings.TrimPrefix(line, label)
		}
		out = append(out, Truncate(mark+line, inner))
		desc := ""
		if r.Description != "" {
			desc = SanitizeLine(r.Description)
		}
		out = append(out, "    "+th.Muted.Render(Truncate(desc, inner-4)))
	}
	return out
}

// files is "1 file", "2 files".
func files(n int) string { return strconv.Itoa(n) + " file" + plural(n) }

var changeWords = map[FileChange]string{FileModified: "M", FileCreated: "A", FileDeleted: "D", FileRenamed: "R"}

func openChangesetRows(th Theme, k keymap.KeyMap, o *OpenChangeset, inner, rows int) []string {
	var head []string
	added, removed := 0, 0
	for _, f := range o.Files {
		added += f.Added
		removed += f.Removed
	}
	state := ""
	switch o.Status {
	case protocol.ChangesetStatusComputing:
		state = th.Warning.Render(" computing…")
	case protocol.ChangesetStatusRecomputing:
		state = th.Warning.Render(" recomputing…")
	case protocol.ChangesetStatusError:
		state = th.Error.Render(" error: " + SanitizeLine(o.Error))
	}
	count := files(len(o.Files))
	if o.UnreviewedOnly {
		count = strconv.Itoa(len(o.Files)) + " of " + files(o.Total) + " unreviewed"
	}
	// The files' +/− are the host's (edit.diff), not counted here: said
	// so, as the diff view counts what it draws (issue 36).
	head = append(head, Truncate(" "+count+" "+diffStat(th, added, removed)+th.Muted.Render(" (the host's count)")+state, inner))
	var foot []string
	for i, op := range o.Ops {
		if i >= 9 {
			break
		}
		line := th.HelpKey.Render(strconv.Itoa(i+1)) + " " + SanitizeLine(op.Label)
		if op.OnFile {
			line += th.Muted.Render(" (selected file)")
		}
		if op.Destructive {
			line += th.Warning.Render(" (asks first)")
		}
		switch op.Status {
		case protocol.ChangesetOperationStatusRunning:
			line += th.Info.Render(" running…")
		case protocol.ChangesetOperationStatusDisabled:
			line += th.Muted.Render(" unavailable")
		case protocol.ChangesetOperationStatusError:
			line += th.Error.Render(" failed: " + SanitizeLine(op.Error))
		}
		foot = append(foot, " "+Truncate(line, inner-1))
	}
	if o.Note != "" {
		foot = append(foot, " "+Truncate(th.Info.Render(SanitizeLine(o.Note)), inner-1))
	}
	hints := []any{k.Changes.Open, "diff"}
	if o.Review {
		hints = append(hints, k.Changes.Reviewed, "reviewed", k.Changes.Unreviewed, "unreviewed only")
	}
	hints = append(hints, k.Changes.Back, "back")
	foot = append(foot, " "+KeyHints(th, true, hints...))
	list := max(1, rows-len(head)-len(foot)-1)
	top := max(0, min(o.Sel-list/2, len(o.Files)-list))
	body := head
	if len(o.Files) == 0 {
		msg := "No files changed."
		if o.Status == protocol.ChangesetStatusComputing {
			msg = "Computing the changes…"
		}
		body = append(body, " "+th.Muted.Render(msg))
	}
	for i := top; i < len(o.Files) && i < top+list; i++ {
		f := o.Files[i]
		mark := "  "
		if i == o.Sel {
			mark = "▸ "
		}
		rev := ""
		if o.Review {
			rev = "[ ] "
			if f.Reviewed {
				rev = th.Success.Render("[✓] ")
			}
		}
		name := f.Path
		if f.Change == FileRenamed {
			name = f.OldPath + " → " + f.Path
		}
		if i == o.Sel {
			name = th.Selected.Render(name)
		}
		tag := th.Muted.Render(changeWords[f.Change] + " ")
		switch f.Change {
		case FileCreated:
			tag = th.Success.Render("A ")
		case FileDeleted:
			tag = th.Error.Render("D ")
		case FileRenamed:
			tag = th.Info.Render("R ")
		}
		line := mark + rev + tag + name
		if f.Counted {
			line += "  " + diffStat(th, f.Added, f.Removed)
		}
		body = append(body, Truncate(line, inner))
	}
	for len(body) < rows-len(foot) {
		body = append(body, "")
	}
	return append(body, foot...)
}

// DiffView is what the diff view draws: one file of the open changeset.
type DiffView struct {
	File     ChangesetFileRow
	Review   bool
	Diff     *Diff // nil while its content is read
	Loading  bool
	Err      string
	Top      int
	Left     int // cells each line's text is scrolled sideways
	Index, N int // which file of how many
}

// RenderDiffView is the diff sheet: the file's name and change, then the
// diff's rows from Top.
func RenderDiffView(th Theme, k keymap.KeyMap, v DiffView, hl *DiffHighlight, width, height int) string {
	w, h := max(20, width), max(5, height)
	inner := w - 2
	rows := h - 2
	name := v.File.Path
	switch v.File.Change {
	case FileCreated:
		name += " (created)"
	case FileDeleted:
		name += " (deleted)"
	case FileRenamed:
		name = v.File.OldPath + " → " + v.File.Path + " (renamed)"
	}
	head := " " + strconv.Itoa(v.Index+1) + "/" + strconv.Itoa(v.N) + " " + name
	switch {
	case v.Diff != nil && !v.Diff.Binary:
		// What is drawn below, counted here; the host's count beside it
		// only where the two differ, named as the host's (issue 36).
		head += "  " + diffStat(th, v.Diff.Added, v.Diff.Removed)
		if v.File.Counted && (v.File.Added != v.Diff.Added || v.File.Removed != v.Diff.Removed) {
			head += th.Muted.Render(" in this diff (the host's count: ") + diffStat(th, v.File.Added, v.File.Removed) + th.Muted.Render(")")
		}
	case v.File.Counted:
		head += "  " + diffStat(th, v.File.Added, v.File.Removed) + th.Muted.Render(" (the host's count)")
	}
	if v.Review && v.File.Reviewed {
		head += th.Success.Render("  reviewed")
	}
	body := []string{Truncate(head, inner)}
	switch {
	case v.Err != "":
		body = append(body, " "+th.Error.Render(Truncate(SanitizeLine(v.Err), inner-1)))
	case v.Diff == nil || v.Loading:
		body = append(body, " "+th.Muted.Render("Reading the file's content…"))
	case v.Diff.Binary:
		body = append(body, " "+th.Muted.Render("Binary content: not shown as lines."))
	case len(v.Diff.Lines) == 0:
		body = append(body, " "+th.Muted.Render("No line changed."))
	default:
		body = append(body, RenderDiffAt(th, v.Diff, hl, v.Top, v.Left, inner, rows-2)...)
	}
	for len(body) < rows-1 {
		body = append(body, "")
	}
	hints := []any{k.Diff.NextHunk, "hunk", k.Diff.NextFile, "file", k.Diff.Sideways(), "sideways"}
	if v.Review {
		hints = append(hints, k.Diff.Reviewed, "reviewed")
	}
	hints = append(hints, k.Diff.Back, "back")
	body = append(body[:rows-1], " "+KeyHints(th, true, hints...))
	return RenderDialog(th, "Diff", body, w, h)
}

// RenderOperationConfirm asks before a destructive changeset operation:
// the host's own confirmation text, and yes/no.
func RenderOperationConfirm(th Theme, k keymap.KeyMap, label, text string, w int) string {
	inner := w - 4
	body := []string{""}
	for _, l := range wrapLines(Sanitize(text), inner) {
		body = append(body, " "+th.Warning.Render(l))
	}
	body = append(body, "", " "+KeyHints(th, true, k.Confirm.Yes, SanitizeLine(label), k.Confirm.No, "cancel"))
	return RenderDialog(th, Truncate(SanitizeLine(label)+"?", inner), body, w, len(body)+2)
}
