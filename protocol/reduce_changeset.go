package protocol

// ReduceChangeset applies one action to a ChangesetState. (Not yet implemented: returns
// the state unchanged until its reducer lands.)
func ReduceChangeset(s ChangesetState, a StateAction, clock Clock) ChangesetState { return s }
