package demohost

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

// The history session's changesets (issue 23): what the earlier turn
// changed, so --demo shows the changes view, its diffs, review and an
// operation. Their channels are created on first subscribe from the
// templates the session advertises.
const (
	ChangesetSessionURI     = "ahp-changeset:/history/session"
	ChangesetUncommittedURI = "ahp-changeset:/history/uncommitted"
	changesetTurnPrefix     = "ahp-changeset:/history/turn/"
	changesetComparePrefix  = "ahp-changeset:/history/compare/"
	// OperationStage and OperationDiscard are the session changeset's
	// operations; discard asks for confirmation (it is destructive).
	OperationStage    = "stage"
	OperationDiscard  = "discard"
	OperationRevert   = "revert" // one file: its target
	demoContentScheme = "ahp-demo-content:/"
)

type demoFile struct {
	before, after    string // paths; "" for a create or a delete
	oldText, newText string
}

// demoChangeFiles is the earlier turn's work: a modified test, a created
// helper, a renamed doc and a deleted script.
var demoChangeFiles = []demoFile{
	{before: "protocol/conn_test.go", after: "protocol/conn_test.go",
		oldText: "package protocol\n\nimport (\n\t\"testing\"\n\t\"time\"\n)\n\nfunc TestReconnect(t *testing.T) {\n\tc := dialTest(t)\n\tc.Drop()\n\t// Give the client time to come back.\n\ttime.Sleep(200 * time.Millisecond)\n\tif c.Status() != StatusReady {\n\t\tt.Fatalf(\"status %v, want ready\", c.Status())\n\t}\n}\n",
		newText: "package protocol\n\nimport (\n\t\"testing\"\n\t\"time\"\n)\n\nfunc TestReconnect(t *testing.T) {\n\tc := dialTest(t)\n\tc.Drop()\n\t// Wait on the reconnect event, not a fixed sleep.\n\tif err := waitStatus(c, StatusReady, 5*time.Second); err != nil {\n\t\tt.Fatal(err)\n\t}\n}\n"},
	{after: "protocol/wait.go",
		newText: "package protocol\n\nimport (\n\t\"fmt\"\n\t\"time\"\n)\n\n// waitStatus waits for c to reach want, or gives up after d.\nfunc waitStatus(c *Conn, want Status, d time.Duration) error {\n\tdeadline := time.After(d)\n\tfor c.Status() != want {\n\t\tselect {\n\t\tcase <-c.Changed():\n\t\tcase <-deadline:\n\t\t\treturn fmt.Errorf(\"status %v after %v, want %v\", c.Status(), d, want)\n\t\t}\n\t}\n\treturn nil\n}\n"},
	{before: "docs/flaky.md", after: "docs/testing.md",
		oldText: "# Flaky tests\n\nRetry them with scripts/retry.sh.\n",
		newText: "# Testing\n\nWait on events, never on a fixed sleep.\n"},
	{before: "scripts/retry.sh",
		oldText: "#!/bin/sh\nfor i in 1 2 3; do go test ./... && exit 0; done\nexit 1\n"},
}

func demoChangesets() []protocol.Changeset {
	desc := func(s string) *string { return &s }
	return []protocol.Changeset{
		{Label: "Session Changes", URITemplate: ChangesetSessionURI, ChangeKind: "session",
			Description:  desc("Everything the agent changed in this session"),
			Capabilities: &protocol.ChangesetCapabilities{Review: map[string]json.RawMessage{}}},
		{Label: "Uncommitted Changes", URITemplate: ChangesetUncommittedURI, ChangeKind: "uncommitted"},
		{Label: "This Turn", URITemplate: changesetTurnPrefix + "{turnId}", ChangeKind: "turn"},
		{Label: "Compare Turns", URITemplate: changesetComparePrefix + "{originalTurnId}/{modifiedTurnId}", ChangeKind: "compare-turns"},
	}
}

// seedChangesetsLocked advertises the changesets on s and keeps the
// files' contents for resourceRead.
func (h *Host) seedChangesetsLocked(s *session) {
	if h.wire.older() {
		return // changesets as this host serves them are 1.0's
	}
	s.state.Changesets = demoChangesets()
	h.changesets = map[string]*protocol.ChangesetState{}
	h.contents = map[string]string{}
}

// changesetFiles builds the demo's files, keeping their contents.
func (h *Host) changesetFiles(only int) []protocol.ChangesetFile {
	var out []protocol.ChangesetFile
	for i, f := range demoChangeFiles {
		if only >= 0 && i != only {
			continue
		}
		var e protocol.FileEdit
		side := func(path, text, which string) *protocol.FileEditSide {
			uri := protocol.URI("file:///demo/" + path)
			ref := demoContentScheme + path + "@" + which
			n := int64(len(text))
			h.contents[ref] = text
			ct := "text/plain"
			return &protocol.FileEditSide{URI: uri, Content: protocol.ContentRef{URI: protocol.URI(ref), SizeHint: &n, ContentType: &ct}}
		}
		if f.before != "" {
			e.Before = side(f.before, f.oldText, "before")
		}
		if f.after != "" {
			e.After = side(f.after, f.newText, "after")
		}
		var add, del int64
		for _, ed := range udiff.Lines(f.oldText, f.newText) {
			del += int64(strings.Count(f.oldText[ed.Start:ed.End], "\n"))
			add += int64(strings.Count(ed.New, "\n"))
		}
		e.Diff = &protocol.FileEditDiffStats{Added: &add, Removed: &del}
		id := "file:///demo/" + f.after
		if f.after == "" {
			id = "file:///demo/" + f.before
		}
		out = append(out, protocol.ChangesetFile{ID: id, Edit: e})
	}
	return out
}

// changesetLocked is the state of an advertised changeset channel,
// created on first use; nil when uri names none.
func (h *Host) changesetLocked(uri string) *protocol.ChangesetState {
	if h.changesets == nil {
		return nil
	}
	if cs := h.changesets[uri]; cs != nil {
		return cs
	}
	hist := h.chats[HistoryChatURI]
	turn := func(id string) bool { return hist != nil && hasTurn(hist.state.Turns, id) }
	cs := &protocol.ChangesetState{Status: protocol.ChangesetStatusReady}
	switch {
	case uri == ChangesetSessionURI:
		cs.Files = h.changesetFiles(-1)
		stage := "Stage every file for commit"
		cs.Operations = []protocol.ChangesetOperation{
			{ID: OperationStage, Label: "Stage all", Description: &stage, Scopes: []protocol.ChangesetOperationScope{protocol.ChangesetOperationScopeChangeset}, Status: protocol.ChangesetOperationStatusIdle},
			{ID: OperationDiscard, Label: "Discard all", Scopes: []protocol.ChangesetOperationScope{protocol.ChangesetOperationScopeChangeset}, Status: protocol.ChangesetOperationStatusIdle,
				Confirmation: &protocol.StringOrMarkdown{Value: "Discard every change of this session? This cannot be undone."}},
			{ID: OperationRevert, Label: "Revert file", Scopes: []protocol.ChangesetOperationScope{protocol.ChangesetOperationScopeResource}, Status: protocol.ChangesetOperationStatusIdle,
				Confirmation: &protocol.StringOrMarkdown{Value: "Revert this file's changes?"}},
		}
	case uri == ChangesetUncommittedURI:
		cs.Files = h.changesetFiles(0)
	case strings.HasPrefix(uri, changesetTurnPrefix) && turn(strings.TrimPrefix(uri, changesetTurnPrefix)):
		cs.Files = h.changesetFiles(-1)
	case strings.HasPrefix(uri, changesetComparePrefix):
		a, b, ok := strings.Cut(strings.TrimPrefix(uri, changesetComparePrefix), "/")
		if !ok || !turn(a) || !turn(b) {
			return nil
		}
		cs.Files = []protocol.ChangesetFile{}
	default:
		return nil
	}
	h.changesets[uri] = cs
	return cs
}

var errNeedChangeset = errors.New("this action belongs on a changeset channel")

// checkChangesetAction allows the one changeset action a client may
// dispatch: marking files reviewed, where the changeset offers review.
func (h *Host) checkChangesetAction(channel string, v protocol.StateActionVariant) error {
	cs := h.changesetLocked(channel)
	if cs == nil {
		return errNeedChangeset
	}
	a, ok := v.(protocol.ChangesetFilesReviewChangedAction)
	if !ok {
		return notDispatchable(v)
	}
	if channel != ChangesetSessionURI {
		return errors.New("this changeset does not offer review")
	}
	for _, id := range a.Files {
		if indexFile(cs.Files, id) < 0 {
			return errors.New("no file " + clip(id) + " in this changeset")
		}
	}
	return nil
}

func indexFile(fs []protocol.ChangesetFile, id string) int {
	for i, f := range fs {
		if f.ID == id {
			return i
		}
	}
	return -1
}

func (h *Host) resourceReadLocked(raw json.RawMessage) (any, rpcError) {
	var p protocol.ResourceReadParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	text, ok := h.contents[p.URI]
	if !ok {
		return nil, jsonrpc.NewError(jsonrpc.NotFound, "the demo host has no content "+clip(p.URI))
	}
	ct := "text/plain"
	return protocol.ResourceReadResult{Data: text, Encoding: protocol.ContentEncodingUtf8, ContentType: &ct}, nil
}

// invokeChangesetOperationLocked runs stage (running, then idle, with a
// message and a follow-up) or discard (clears the changeset).
func (h *Host) invokeChangesetOperationLocked(raw json.RawMessage) (any, rpcError) {
	var p protocol.InvokeChangesetOperationParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	cs := h.changesetLocked(string(p.Channel))
	if cs == nil {
		return nil, jsonrpc.NewError(jsonrpc.NotFound, "no changeset "+clip(string(p.Channel)))
	}
	found := false
	for _, op := range cs.Operations {
		found = found || op.ID == p.OperationID
	}
	if !found {
		return nil, invalidParams("this changeset has no operation %q", clip(p.OperationID))
	}
	ch := string(p.Channel)
	n := len(cs.Files)
	switch p.OperationID {
	case OperationStage:
		h.applyLocked(ch, protocol.ChangesetOperationStatusChangedAction{OperationID: OperationStage, Status: protocol.ChangesetOperationStatusRunning}, nil)
		h.after(func() {
			h.applyLocked(ch, protocol.ChangesetOperationStatusChangedAction{OperationID: OperationStage, Status: protocol.ChangesetOperationStatusIdle}, nil)
		})
		ext := false
		h.contents[demoContentScheme+"staged"] = "Staged for commit.\n"
		return protocol.InvokeChangesetOperationResult{
			Message:  &protocol.StringOrMarkdown{Value: "Staged " + strconv.Itoa(n) + " files"},
			FollowUp: &protocol.ChangesetOperationFollowUp{Content: protocol.ContentRef{URI: demoContentScheme + "staged"}, External: &ext},
		}, nil
	case OperationRevert:
		t, ok := targetResource(p.Target)
		i := -1
		for j, f := range cs.Files {
			if ok && (f.Edit.After != nil && f.Edit.After.URI == t || f.Edit.After == nil && f.Edit.Before != nil && f.Edit.Before.URI == t) {
				i = j
			}
		}
		if i < 0 {
			return nil, invalidParams("revert needs a resource target naming a file of the changeset")
		}
		h.applyLocked(ch, protocol.ChangesetFileRemovedAction{FileID: cs.Files[i].ID}, nil)
		return protocol.InvokeChangesetOperationResult{Message: &protocol.StringOrMarkdown{Value: "Reverted " + clip(string(t))}}, nil
	default:
		h.applyLocked(ch, protocol.ChangesetClearedAction{}, nil)
		return protocol.InvokeChangesetOperationResult{Message: &protocol.StringOrMarkdown{Value: "Discarded " + strconv.Itoa(n) + " files"}}, nil
	}
}

// targetResource is a resource target's URI.
func targetResource(t *protocol.ChangesetOperationTarget) (protocol.URI, bool) {
	if t == nil {
		return "", false
	}
	r, ok := t.Variant.(protocol.ChangesetOperationResourceTarget)
	return r.Resource, ok
}
