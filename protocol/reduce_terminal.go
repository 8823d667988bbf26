package protocol

// ReduceTerminal applies one action to a TerminalState. (Not yet implemented: returns
// the state unchanged until its reducer lands.)
func ReduceTerminal(s TerminalState, a StateAction, clock Clock) TerminalState { return s }
