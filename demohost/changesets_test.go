package demohost

import (
	"strings"
	"testing"

	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

// TestChangesets: the history session advertises its changesets; each
// expands to a channel whose files carry contents resourceRead serves
// (applying the diff's sides gives the after text), review is accepted
// only where advertised, and the operations run.
func TestChangesets(t *testing.T) {
	h, v := startHost(t, Config{})
	c := dial(t, h, v, "changesets-test")
	c.initialize()
	var sub protocol.SubscribeResult
	c.mustCall("subscribe", protocol.SubscribeParams{Channel: HistorySessionURI}, &sub)
	sess := sub.Snapshot.State.Variant.(protocol.SessionState)
	if len(sess.Changesets) != 4 || sess.Changesets[0].Capabilities == nil || sess.Changesets[0].Capabilities.Review == nil {
		t.Fatalf("advertised changesets: %+v", sess.Changesets)
	}

	c.mustCall("subscribe", protocol.SubscribeParams{Channel: ChangesetSessionURI}, &sub)
	cs := sub.Snapshot.State.Variant.(protocol.ChangesetState)
	if cs.Status != protocol.ChangesetStatusReady || len(cs.Files) != 4 || len(cs.Operations) != 3 {
		t.Fatalf("session changeset: %+v", cs)
	}
	// The modified file: its two sides, read back, diff to its stats.
	f := cs.Files[0]
	var before, after protocol.ResourceReadResult
	c.mustCall("resourceRead", protocol.ResourceReadParams{URI: string(f.Edit.Before.Content.URI)}, &before)
	c.mustCall("resourceRead", protocol.ResourceReadParams{URI: string(f.Edit.After.Content.URI)}, &after)
	if got, err := udiff.Apply(before.Data, udiff.Lines(before.Data, after.Data)); err != nil || got != after.Data {
		t.Errorf("the sides do not diff into each other: %v", err)
	}
	if *f.Edit.Diff.Added == 0 || *f.Edit.Diff.Removed == 0 || !strings.Contains(after.Data, "waitStatus") {
		t.Errorf("modified file: %+v", f.Edit.Diff)
	}
	c.wantError("resourceRead", protocol.ResourceReadParams{URI: "file:///etc/passwd"}, jsonrpc.NotFound)

	// Per turn and compare expand from the history chat's turns only.
	c.mustCall("subscribe", protocol.SubscribeParams{Channel: "ahp-changeset:/history/turn/history-1"}, &sub)
	c.wantError("subscribe", protocol.SubscribeParams{Channel: "ahp-changeset:/history/turn/nope"}, jsonrpc.NotFound)

	// Review: accepted on the session changeset, refused on uncommitted.
	seq := c.dispatch(ChangesetSessionURI, protocol.ChangesetFilesReviewChangedAction{Files: []string{f.ID}, Reviewed: true})
	if e := c.waitEcho("review echo", ChangesetSessionURI, seq); e.RejectionReason != nil {
		t.Errorf("review rejected: %s", *e.RejectionReason)
	}
	c.mustCall("subscribe", protocol.SubscribeParams{Channel: ChangesetUncommittedURI}, &sub)
	seq = c.dispatch(ChangesetUncommittedURI, protocol.ChangesetFilesReviewChangedAction{Files: []string{f.ID}, Reviewed: true})
	if e := c.waitEcho("refused review", ChangesetUncommittedURI, seq); e.RejectionReason == nil {
		t.Error("review accepted where the changeset offers none")
	}

	// Stage answers with a message and a follow-up; discard clears.
	var res protocol.InvokeChangesetOperationResult
	c.mustCall("invokeChangesetOperation", protocol.InvokeChangesetOperationParams{Channel: ChangesetSessionURI, OperationID: OperationStage}, &res)
	if res.Message == nil || !strings.Contains(res.Message.Value, "Staged 4") || res.FollowUp == nil {
		t.Errorf("stage result: %+v", res)
	}
	c.wantError("invokeChangesetOperation", protocol.InvokeChangesetOperationParams{Channel: ChangesetSessionURI, OperationID: "nope"}, jsonrpc.InvalidParams)
	// Revert acts on the file its target names, and needs one.
	c.wantError("invokeChangesetOperation", protocol.InvokeChangesetOperationParams{Channel: ChangesetSessionURI, OperationID: OperationRevert}, jsonrpc.InvalidParams)
	gone := cs.Files[3] // the deleted script: its old side names it
	target := protocol.NewChangesetOperationTarget(protocol.ChangesetOperationResourceTarget{Resource: gone.Edit.Before.URI})
	c.mustCall("invokeChangesetOperation", protocol.InvokeChangesetOperationParams{Channel: ChangesetSessionURI, OperationID: OperationRevert, Target: &target}, &res)
	c.waitEnvelope("file removed", ChangesetSessionURI, func(e protocol.ActionEnvelope) bool {
		r, ok := e.Action.Variant.(protocol.ChangesetFileRemovedAction)
		return ok && r.FileID == gone.ID
	})
	c.mustCall("invokeChangesetOperation", protocol.InvokeChangesetOperationParams{Channel: ChangesetSessionURI, OperationID: OperationDiscard}, &res)
	c.waitEnvelope("cleared", ChangesetSessionURI, isType("changeset/cleared"))
}
