package protocol

// ReduceChat applies one action to a ChatState. (Not yet implemented: returns
// the state unchanged until its reducer lands.)
func ReduceChat(s ChatState, a StateAction, clock Clock) ChatState { return s }
