package protocol

// ReduceAnnotations applies one annotations/* action to an AnnotationsState
// and returns the new state. Any other action — unknown type, unknown
// annotation or entry id, another channel's kind — returns s unchanged.
// No annotations rule differs between versions, so it takes no Rules.
//
// The one-entry minimum is the producer's rule, not the reducer's: removing
// the last entry with annotations/entryRemoved leaves an empty annotation.
func ReduceAnnotations(s AnnotationsState, a StateAction) AnnotationsState {
	switch a := a.Variant.(type) {
	case AnnotationsSetAction:
		s.Annotations = cowUpsert(s.Annotations, a.Annotation, func(x Annotation) bool { return x.ID == a.Annotation.ID })
	case AnnotationsUpdatedAction:
		i := findAnnotation(s.Annotations, a.AnnotationID)
		if i < 0 {
			return s
		}
		x := s.Annotations[i]
		if a.Origin != nil {
			x.Origin = *a.Origin
		}
		if a.Resource != nil {
			x.Resource = *a.Resource
		}
		if a.Range != nil {
			x.Range = a.Range // this action can narrow a range but never clear one
		}
		if a.Resolved != nil {
			x.Resolved = *a.Resolved
		}
		s.Annotations = cowSet(s.Annotations, i, x)
	case AnnotationsRemovedAction:
		i := findAnnotation(s.Annotations, a.AnnotationID)
		if i < 0 {
			return s
		}
		s.Annotations = cowDelete(s.Annotations, i)
	case AnnotationsEntrySetAction:
		i := findAnnotation(s.Annotations, a.AnnotationID)
		if i < 0 {
			return s
		}
		x := s.Annotations[i]
		x.Entries = cowUpsert(x.Entries, a.Entry, func(e AnnotationEntry) bool { return e.ID == a.Entry.ID })
		s.Annotations = cowSet(s.Annotations, i, x)
	case AnnotationsEntryRemovedAction:
		i := findAnnotation(s.Annotations, a.AnnotationID)
		if i < 0 {
			return s
		}
		x := s.Annotations[i]
		j := indexOf(x.Entries, func(e AnnotationEntry) bool { return e.ID == a.EntryID })
		if j < 0 {
			return s
		}
		x.Entries = cowDelete(x.Entries, j)
		s.Annotations = cowSet(s.Annotations, i, x)
	}
	return s
}

func findAnnotation(list []Annotation, id string) int {
	return indexOf(list, func(x Annotation) bool { return x.ID == id })
}
