package protocol

// ReduceResourceWatch applies one action to a ResourceWatchState. (Not yet implemented: returns
// the state unchanged until its reducer lands.)
func ReduceResourceWatch(s ResourceWatchState, a StateAction, clock Clock) ResourceWatchState { return s }
