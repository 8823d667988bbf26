package protocol

// ReduceChangeset applies one changeset/* action to a ChangesetState and
// returns the new state. Any other action — unknown type, unknown file or
// operation id, another channel's kind — returns s unchanged. The rules
// differ in one place: under 0.6, changeset/contentChanged also sets (or,
// absent, clears) the error, a member 0.9 removed. 1.0's recomputing status
// is one more value of the open ChangesetStatus.
func ReduceChangeset(s ChangesetState, a StateAction, r Rules) ChangesetState {
	switch a := a.Variant.(type) {
	case ChangesetStatusChangedAction:
		s.Status = a.Status
		// error accompanies Error only: a recovered changeset keeps no stale cause.
		s.Error = nil
		if a.Status == ChangesetStatusError {
			s.Error = a.Error
		}
	case ChangesetFileSetAction:
		s.Files = cowUpsert(s.Files, a.File, func(f ChangesetFile) bool { return f.ID == a.File.ID })
	case ChangesetFileRemovedAction:
		i := indexOf(s.Files, func(f ChangesetFile) bool { return f.ID == a.FileID })
		if i < 0 {
			return s
		}
		s.Files = cowDelete(s.Files, i)
	case ChangesetFilesReviewChangedAction:
		want := make(map[string]bool, len(a.Files))
		for _, id := range a.Files {
			want[id] = true
		}
		var out []ChangesetFile
		for i, f := range s.Files {
			if !want[f.ID] {
				continue
			}
			if out == nil {
				out = cowSet(s.Files, i, f)
			}
			// Only the flag changes; edit and _meta are the server's.
			reviewed := a.Reviewed
			f.Reviewed = &reviewed
			out[i] = f
		}
		if out == nil {
			return s
		}
		s.Files = out
	case ChangesetContentChangedAction:
		s.Files = a.Files
		if s.Files == nil {
			s.Files = []ChangesetFile{} // required array on the wire
		}
		if a.Operations != nil {
			s.Operations = a.Operations
		}
		if r.changesetError() {
			s.Error = a.Error
		}
	case ChangesetOperationsChangedAction:
		s.Operations = a.Operations // absent clears
	case ChangesetOperationStatusChangedAction:
		i := indexOf(s.Operations, func(o ChangesetOperation) bool { return o.ID == a.OperationID })
		if i < 0 {
			return s
		}
		op := s.Operations[i]
		op.Status = a.Status
		op.Error = nil
		if a.Status == ChangesetOperationStatusError {
			op.Error = a.Error
		}
		s.Operations = cowSet(s.Operations, i, op)
	case ChangesetClearedAction:
		if len(s.Files) == 0 {
			return s
		}
		s.Files = []ChangesetFile{}
	}
	return s
}
