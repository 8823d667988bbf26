package protocol

// ReduceSession applies one action to a SessionState. (Not yet implemented: returns
// the state unchanged until its reducer lands.)
func ReduceSession(s SessionState, a StateAction, clock Clock) SessionState { return s }
