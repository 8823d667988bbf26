package cli

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
	"github.com/spf13/cobra"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

// maxDiffContent caps each side of a file changes diff reads, as the
// UI's diff view does.
const maxDiffContent = 4 << 20

// changesetJSON is one changeset in `ahptui changes list --json`.
type changesetJSON struct {
	Session     string `json:"session"`
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
	// URI is the changeset's channel, its template filled with the
	// default chat's turns; absent (with Missing saying why) when it
	// cannot be.
	URI     string `json:"uri,omitempty"`
	Missing string `json:"missing,omitempty"`
	// Turn says which turns filled it ("turn 2", "turn 1 → turn 2").
	Turn   string           `json:"turn,omitempty"`
	Status string           `json:"status,omitempty"`
	Error  string           `json:"error,omitempty"`
	Files  []changeFileJSON `json:"files"`
}

type changeFileJSON struct {
	ID string `json:"id"`
	// Path is the file's, relative to the session's working directory
	// when under it; Change is modified, created, deleted or renamed.
	Path     string `json:"path"`
	OldPath  string `json:"oldPath,omitempty"`
	Change   string `json:"change"`
	Added    *int   `json:"added,omitempty"`
	Removed  *int   `json:"removed,omitempty"`
	Reviewed bool   `json:"reviewed"`
}

// changeDiffJSON is `ahptui changes diff --json`: both sides as the host
// sent them and their unified diff.
type changeDiffJSON struct {
	Session   string `json:"session"`
	Changeset string `json:"changeset"`
	File      string `json:"file"`
	Path      string `json:"path"`
	Before    string `json:"before"`
	After     string `json:"after"`
	Diff      string `json:"diff"`
	Binary    bool   `json:"binary,omitempty"`
}

var changeWords = map[views.FileChange]string{views.FileModified: "modified", views.FileCreated: "created",
	views.FileDeleted: "deleted", views.FileRenamed: "renamed"}

func changesCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "changes",
		Short: "list the files a session's changesets changed, or print one's diff",
	}
	cmd.AddCommand(changesListCmd(a), changesDiffCmd(a))
	return cmd
}

// expandChangeset fills a changeset's URI template with chat's turns, as
// the UI's changes view does on opening: {turnId} and {modifiedTurnId}
// the latest, {originalTurnId} the one before. Any other variable is
// said, not guessed.
func expandChangeset(c protocol.Changeset, chat protocol.ChatState) (uri, how, missing string) {
	turns := chat.Turns
	uri = c.URITemplate
	vars := map[string]bool{}
	for t := uri; ; {
		i := strings.IndexByte(t, '{')
		if i < 0 {
			break
		}
		j := strings.IndexByte(t[i:], '}')
		if j < 0 {
			break
		}
		vars[t[i+1:i+j]] = true
		t = t[i+j+1:]
	}
	for name := range vars {
		if name != "turnId" && name != "originalTurnId" && name != "modifiedTurnId" {
			return "", "", "needs {" + name + "}, which ahptui cannot fill"
		}
	}
	n := len(turns)
	switch {
	case vars["turnId"]:
		if n == 0 {
			return "", "", "no turn yet"
		}
		return strings.ReplaceAll(uri, "{turnId}", url.PathEscape(turns[n-1].ID)), fmt.Sprintf("turn %d", n), ""
	case vars["originalTurnId"] || vars["modifiedTurnId"]:
		if n < 2 {
			return "", "", "needs two turns"
		}
		uri = strings.ReplaceAll(uri, "{originalTurnId}", url.PathEscape(turns[n-2].ID))
		return strings.ReplaceAll(uri, "{modifiedTurnId}", url.PathEscape(turns[n-1].ID)), fmt.Sprintf("turn %d → turn %d", n-1, n), ""
	}
	return uri, "", ""
}

// openChangesets subscribes to each of the session's changesets the
// default chat's turns fill, and reads their state.
func openChangesets(ctx context.Context, c *conn, sess protocol.SessionState, uri string, chat protocol.ChatState) ([]changesetJSON, map[string]protocol.ChangesetState, error) {
	out := []changesetJSON{}
	states := map[string]protocol.ChangesetState{}
	dir := ""
	if len(sess.WorkingDirectories) > 0 {
		dir = string(sess.WorkingDirectories[0])
	}
	for _, cs := range sess.Changesets {
		j := changesetJSON{Session: uri, Label: cs.Label, Files: []changeFileJSON{}}
		if cs.Description != nil {
			j.Description = *cs.Description
		}
		j.URI, j.Turn, j.Missing = expandChangeset(cs, chat)
		if j.URI != "" {
			if err := c.Subscribe(ctx, j.URI); err != nil {
				return nil, nil, fmt.Errorf("subscribe to changeset %s: %w", views_quote(cs.Label), err)
			}
			raw, _ := c.State(j.URI)
			st, ok := raw.(protocol.ChangesetState)
			if !ok {
				return nil, nil, withCode(ExitHostError, fmt.Errorf("the host sent no changeset state for %s", views_quote(cs.Label)))
			}
			states[j.URI] = st
			j.Status = string(st.Status)
			if st.Error != nil {
				j.Error = st.Error.Message
			}
			for i, r := range views.ChangesetFileRows(st, dir) {
				f := st.Files[i]
				fj := changeFileJSON{ID: f.ID, Path: rawPath(f.Edit, dir, false), Change: changeWords[r.Change], Reviewed: r.Reviewed}
				if r.Change == views.FileRenamed {
					fj.OldPath = rawPath(f.Edit, dir, true)
				}
				if r.Counted {
					fj.Added, fj.Removed = &r.Added, &r.Removed
				}
				j.Files = append(j.Files, fj)
			}
		}
		out = append(out, j)
	}
	return out, states, nil
}

// rawPath is a file's path as the host named it (the after side's, else
// the before side's; before when old), relative to dir when under it.
func rawPath(e protocol.FileEdit, dir string, old bool) string {
	var uri string
	switch {
	case old && e.Before != nil:
		uri = string(e.Before.URI)
	case e.After != nil:
		uri = string(e.After.URI)
	case e.Before != nil:
		uri = string(e.Before.URI)
	}
	if dir != "" {
		if rest, ok := strings.CutPrefix(uri, strings.TrimSuffix(dir, "/")+"/"); ok {
			return rest
		}
	}
	return strings.TrimPrefix(uri, "file://")
}

func changesListCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "list SESSION",
		Short: "the session's changesets and the files each changed",
		Long: `Lists the session's changesets, each filled with its default chat's
turns as the UI's changes view opens it (the latest turn, or the one
before → the latest), and the files each changed with +/− counts.`,
		Args: args(1, 1, "SESSION"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			return a.connected(cmd.Context(), func(ctx context.Context, c *conn) error {
				sess, uri, chat, err := c.session(ctx, argv[0])
				if err != nil {
					return err
				}
				out, _, err := openChangesets(ctx, c, sess, uri, chat)
				if err != nil {
					return err
				}
				return a.emit(out, func(w io.Writer) { a.printChangesets(w, uri, out) })
			})
		},
	}
}

func (a *app) printChangesets(w io.Writer, session string, out []changesetJSON) {
	if len(out) == 0 {
		fmt.Fprintln(w, "no changesets in "+hostText(session))
		return
	}
	for i, cs := range out {
		if i > 0 {
			fmt.Fprintln(w)
		}
		head := a.paint(sgrBold, hostText(cs.Label))
		if cs.Turn != "" {
			head += "  " + cs.Turn
		}
		if cs.Status != "" {
			head += "  " + hostText(cs.Status)
		}
		fmt.Fprintln(w, head)
		switch {
		case cs.Missing != "":
			fmt.Fprintln(w, "  ("+hostText(cs.Missing)+")")
			continue
		case cs.Error != "":
			fmt.Fprintln(w, "  error: "+hostText(cs.Error))
		case len(cs.Files) == 0:
			fmt.Fprintln(w, "  no files")
		}
		rows := make([][]string, len(cs.Files))
		for j, f := range cs.Files {
			counts := ""
			if f.Added != nil {
				counts = fmt.Sprintf("+%d −%d", *f.Added, *f.Removed)
			}
			path := hostText(f.Path)
			if f.OldPath != "" {
				path = hostText(f.OldPath) + " → " + path
			}
			rows[j] = []string{"  " + f.Change, counts, path}
		}
		if len(rows) > 0 {
			a.tableRows(w, []string{"", "", ""}, rows)
		}
	}
}

func changesDiffCmd(a *app) *cobra.Command {
	var changeset string
	cmd := &cobra.Command{
		Use:   "diff SESSION FILE",
		Short: "a changed file's diff, read from the host",
		Long: `Prints a changed file's unified diff. FILE is its path as changes list
prints it, or its id; --changeset LABEL picks the changeset when several
changed it (default: the first). Both sides are read from the host, each
up to 4 MiB. As text, host text is stripped of escapes; --json keeps
both sides and the diff as the host's data.`,
		Args: args(2, 2, "SESSION FILE"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			return a.connected(cmd.Context(), func(ctx context.Context, c *conn) error {
				sess, uri, chat, err := c.session(ctx, argv[0])
				if err != nil {
					return err
				}
				sets, states, err := openChangesets(ctx, c, sess, uri, chat)
				if err != nil {
					return err
				}
				cs, f, err := findChangedFile(sets, changeset, argv[1])
				if err != nil {
					return err
				}
				var edit protocol.FileEdit
				for _, sf := range states[cs.URI].Files {
					if sf.ID == f.ID {
						edit = sf.Edit
					}
				}
				read := func(side *protocol.FileEditSide, which string) (string, error) {
					if side == nil {
						return "", nil
					}
					s, err := c.ReadContent(ctx, side.Content, maxDiffContent)
					if err != nil {
						return "", fmt.Errorf("read the %s content of %s: %w", which, hostText(f.Path), err)
					}
					return s, nil
				}
				before, err := read(edit.Before, "old")
				if err != nil {
					return err
				}
				after, err := read(edit.After, "new")
				if err != nil {
					return err
				}
				j := changeDiffJSON{Session: uri, Changeset: cs.Label, File: f.ID, Path: f.Path, Before: before, After: after}
				j.Binary = strings.IndexByte(before, 0) >= 0 || strings.IndexByte(after, 0) >= 0
				if !j.Binary {
					j.Diff = udiff.Unified("a/"+f.Path, "b/"+f.Path, before, after)
				}
				return a.emit(j, func(w io.Writer) { a.printDiff(w, j) })
			})
		},
	}
	cmd.Flags().StringVar(&changeset, "changeset", "", "the changeset's `LABEL` (default: the first that changed FILE)")
	return cmd
}

func findChangedFile(sets []changesetJSON, label, arg string) (changesetJSON, changeFileJSON, error) {
	known := false
	for _, cs := range sets {
		if label != "" && cs.Label != label {
			continue
		}
		known = true
		for _, f := range cs.Files {
			if f.ID == arg || f.Path == arg || f.OldPath == arg {
				return cs, f, nil
			}
		}
	}
	if label != "" && !known {
		return changesetJSON{}, changeFileJSON{}, notFoundf("no changeset %s in this session (ahptui changes list shows them)", views_quote(label))
	}
	return changesetJSON{}, changeFileJSON{}, notFoundf("no changed file %s (ahptui changes list SESSION shows them)", views_quote(arg))
}

// printDiff prints j's diff line by line, each line's host text made
// inert (views.BuildDiff sanitizes it), coloured on a terminal.
func (a *app) printDiff(w io.Writer, j changeDiffJSON) {
	fmt.Fprintf(w, "%s\n", a.paint(sgrBold, hostText(j.Changeset)+": "+hostText(j.Path)))
	d := views.BuildDiff(j.Path, j.Before, j.After)
	switch {
	case d.Binary:
		fmt.Fprintln(w, "binary content differs")
		return
	case len(d.Lines) == 0:
		fmt.Fprintln(w, "no difference")
		return
	}
	fmt.Fprintf(w, "--- a/%s\n+++ b/%s\n", hostText(j.Path), hostText(j.Path))
	for _, l := range d.Lines {
		switch l.Kind {
		case views.DiffHunk:
			fmt.Fprintln(w, a.paint(sgrCyan, l.Text))
		case views.DiffAdd:
			fmt.Fprintln(w, a.paint(sgrGreen, "+"+l.Text))
		case views.DiffDel:
			fmt.Fprintln(w, a.paint(sgrRed, "-"+l.Text))
		default:
			fmt.Fprintln(w, " "+l.Text)
		}
	}
}
