package protocol

// ReduceRoot applies one action to a RootState. (Not yet implemented: returns
// the state unchanged until its reducer lands.)
func ReduceRoot(s RootState, a StateAction, clock Clock) RootState { return s }
