package protocol

// WithSessionEnablement is the decision list a client sends with
// session/customizationToggled to turn a plugin or MCP server on or off for
// this session: the session-scoped decision first (the most specific wins,
// DELTA §6.2), then every other decision the host published, unchanged.
// The action replaces the whole list, so sending the session decision
// alone would erase the workspace and global ones the host keeps.
func WithSessionEnablement(decisions []CustomizationEnablement, enabled bool) []CustomizationEnablement {
	out := make([]CustomizationEnablement, 0, len(decisions)+1)
	out = append(out, SessionEnablement(enabled)...)
	for _, d := range decisions {
		if d.Kind() == "session" {
			continue // replaced by the new decision
		}
		out = append(out, d)
	}
	return out
}
