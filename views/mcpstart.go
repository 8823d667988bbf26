package views

// StartRequests is the one rule, shared by the UI's MCP panel and
// `ahptui mcp start`, for a start the host took but did not act on: the
// servers (by id) whose session/mcpServerStartRequested this client sent
// and the host echoed, and that have not left starting since. VS Code's
// host does exactly that before a session's first message: the echo
// (which the reducer reads as starting) and then no state change until
// the session runs. The zero value is empty and ready to use.
type StartRequests map[string]bool

// Echoed notes that the host echoed this client's start request for id.
func (r *StartRequests) Echoed(id string) {
	if *r == nil {
		*r = StartRequests{}
	}
	(*r)[id] = true
}

// Observe forgets every server the host has moved on: one no longer
// starting (ready, failed, waiting for sign-in, stopped) or gone. rows
// is the session's current servers.
func (r StartRequests) Observe(rows []MCPServerRow) {
	starting := map[string]bool{}
	for _, row := range rows {
		if row.StateKind == "starting" {
			starting[row.ID] = true
		}
	}
	for id := range r {
		if !starting[id] {
			delete(r, id)
		}
	}
}

// Mark returns rows with StartRequested set on the servers still
// waiting on a start the host took; rows itself is left as it is.
func (r StartRequests) Mark(rows []MCPServerRow) []MCPServerRow {
	if len(r) == 0 {
		return rows
	}
	out := append([]MCPServerRow(nil), rows...)
	for i := range out {
		out[i].StartRequested = r[out[i].ID] && out[i].StateKind == "starting"
	}
	return out
}
