package protocol

// ReduceRoot applies one root/* action to a RootState and returns the new
// state. Any other action — unknown type, another channel's kind — returns s
// unchanged. No root rule differs between versions, so it takes no Rules.
func ReduceRoot(s RootState, a StateAction) RootState {
	switch a := a.Variant.(type) {
	case RootAgentsChangedAction:
		s.Agents = a.Agents
		if s.Agents == nil {
			// agents is a required array: never let a missing list encode as null.
			s.Agents = []AgentInfo{}
		}
	case RootActiveSessionsChangedAction:
		n := a.ActiveSessions
		s.ActiveSessions = &n
	case RootTerminalsChangedAction:
		s.Terminals = a.Terminals
	case RootConfigChangedAction:
		// Without a config there is no schema the values could belong to.
		if s.Config == nil {
			return s
		}
		cfg := *s.Config
		cfg.Values = mergeConfigValues(cfg.Values, a.Config, a.Replace != nil && *a.Replace)
		s.Config = &cfg
	}
	return s
}
