package ui

import (
	"slices"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

// view draws the sheet: the confirmation, the diff, or the list.
func (v *changesView) view(width, height int) string {
	if v.confirm >= 0 && v.confirm < len(v.cs.Operations) {
		op := v.cs.Operations[v.confirm]
		return views.RenderOperationConfirm(v.th, v.keys, op.Label, op.Confirmation.Value, views.DialogWidth(width))
	}
	if v.diff != nil {
		return v.diffView(width, height)
	}
	cv := views.ChangesView{Session: v.session, Sel: v.sel}
	for i, c := range v.catalogue() {
		r := views.ChangesetRow{Label: c.Label, Kind: c.ChangeKind, Review: reviewable(c)}
		if c.Description != nil {
			r.Description = *c.Description
		}
		_, r.Turn, r.Missing = v.expand(c)
		if i == v.sel && v.channel != "" && v.hasCS {
			r.Counted, r.Files = true, len(v.files)
			for _, f := range v.files {
				r.Added += f.Added
				r.Removed += f.Removed
			}
		}
		cv.Rows = append(cv.Rows, r)
	}
	if v.channel != "" {
		o := &views.OpenChangeset{Title: views.SanitizeLine(v.entry.Label), Status: protocol.ChangesetStatusComputing,
			Files: v.shown(), Total: len(v.files), Sel: v.fileSel, Review: reviewable(v.entry), UnreviewedOnly: v.unreviewed, Note: v.note}
		if v.hasCS {
			o.Status = v.cs.Status
			if v.cs.Error != nil {
				o.Error = v.cs.Error.Message
			}
			for _, op := range v.cs.Operations {
				r := views.ChangesetOpRow{Label: op.Label, Status: op.Status, Destructive: op.Confirmation != nil,
					OnFile: !slices.Contains(op.Scopes, protocol.ChangesetOperationScopeChangeset)}
				if op.Error != nil {
					r.Error = op.Error.Message
				}
				o.Ops = append(o.Ops, r)
			}
		}
		cv.Open = o
	}
	return views.RenderChanges(v.th, v.keys, cv, width, height)
}
