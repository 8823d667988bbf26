package protocol

// ReduceAnnotations applies one action to a AnnotationsState. (Not yet implemented: returns
// the state unchanged until its reducer lands.)
func ReduceAnnotations(s AnnotationsState, a StateAction, clock Clock) AnnotationsState { return s }
