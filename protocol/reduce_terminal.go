package protocol

// ReduceTerminal applies one terminal/* action to a TerminalState and
// returns the new state. Any other action — unknown type, another channel's
// kind, terminal/input (a side effect for the pty only) — returns s
// unchanged. No terminal rule differs between versions, so it takes no
// Rules; 0.6's exitCode arrives converted to the 1.0 lifecycle.
func ReduceTerminal(s TerminalState, a StateAction) TerminalState {
	switch a := a.Variant.(type) {
	case TerminalDataAction:
		s.Content = appendTerminalData(s.Content, a.Data)
	case TerminalResizedAction:
		cols, rows := a.Cols, a.Rows
		s.Cols, s.Rows = &cols, &rows
	case TerminalClaimedAction:
		s.Claim = a.Claim
	case TerminalTitleChangedAction:
		s.Title = a.Title
	case TerminalCwdChangedAction:
		cwd := a.Cwd
		s.Cwd = &cwd
	case TerminalExitedAction:
		// 1.0: lifecycle replaces exitCode; absent: killed without one.
		s.Lifecycle = TerminalLifecycleState{Variant: TerminalExitedLifecycleState{Status: "exited", ExitCode: a.ExitCode}}
	case TerminalClearedAction:
		s.Content = []TerminalContentPart{}
	case TerminalCommandDetectionAvailableAction:
		on := true
		s.SupportsCommandDetection = &on
	case TerminalCommandExecutedAction:
		s.Content = cowAppend(s.Content, TerminalContentPart{Variant: TerminalCommandPart{
			Type:        "command",
			CommandID:   a.CommandID,
			CommandLine: a.CommandLine,
			Timestamp:   a.Timestamp,
		}})
		// A command boundary proves shell integration is live.
		on := true
		s.SupportsCommandDetection = &on
	case TerminalCommandFinishedAction:
		var out []TerminalContentPart
		for i, p := range s.Content {
			cmd, ok := p.Variant.(TerminalCommandPart)
			if !ok || cmd.CommandID != a.CommandID {
				continue
			}
			if out == nil {
				out = cowSet(s.Content, i, p)
			}
			cmd.IsComplete = true
			cmd.ExitCode = a.ExitCode
			cmd.DurationMs = a.DurationMs
			out[i] = TerminalContentPart{Variant: cmd}
		}
		if out != nil {
			s.Content = out
		}
	}
	return s
}

// appendTerminalData routes pty output to the tail part: the running
// command's output, or the trailing unclassified run; otherwise it opens a
// new unclassified part (e.g. the prompt after a finished command).
func appendTerminalData(content []TerminalContentPart, data string) []TerminalContentPart {
	if n := len(content); n > 0 {
		switch tail := content[n-1].Variant.(type) {
		case TerminalCommandPart:
			if !tail.IsComplete {
				tail.Output = tail.Output.Append(data)
				return cowSet(content, n-1, TerminalContentPart{Variant: tail})
			}
		case TerminalUnclassifiedPart:
			tail.Value = tail.Value.Append(data)
			return cowSet(content, n-1, TerminalContentPart{Variant: tail})
		}
	}
	return cowAppend(content, TerminalContentPart{Variant: TerminalUnclassifiedPart{Type: "unclassified", Value: NewText(data)}})
}
