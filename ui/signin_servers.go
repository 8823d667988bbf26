package ui

import (
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

// customizationsID identifies what a session's MCP servers come from: its
// customizations and its active clients' (client plugins add servers).
// Snapshots are immutable, so their backing arrays and lengths identify
// them without comparing contents.
type customizationsID struct {
	first   *protocol.Customization
	n       int
	clients *protocol.SessionActiveClient
	nc      int
}

func customizationsOf(sess protocol.SessionState) customizationsID {
	id := customizationsID{n: len(sess.Customizations), nc: len(sess.ActiveClients)}
	if id.n > 0 {
		id.first = &sess.Customizations[0]
	}
	if id.nc > 0 {
		id.clients = &sess.ActiveClients[0]
	}
	return id
}

// serversMemo is the open session's MCP servers, derived once per session
// snapshot.
type serversMemo struct {
	id      customizationsID
	rows    []mcpRow
	waiting map[string]bool
	valid   bool
}

// servers is the open session's MCP servers, the rows the MCP panel
// shows and its keys index into.
func (si *signIn) servers() []mcpRow {
	si.refreshServers()
	return si.serversMemo.rows
}

// waitingServers maps the id of every MCP server waiting for sign-in
// (authRequired) to true: a running tool call against one waits on the
// user and grows a grant prompt.
func (si *signIn) waitingServers() map[string]bool {
	si.refreshServers()
	return si.serversMemo.waiting
}

// serverAuth is the sign-in challenge of MCP server id, if it has one.
func (si *signIn) serverAuth(id string) *protocol.McpAuthRequirement {
	return serverAuth(si.servers(), id)
}

func (si *signIn) refreshServers() {
	id := customizationsOf(si.sess)
	mm := &si.serversMemo
	if mm.valid && mm.id == id {
		return
	}
	rows := mcpRows(si.sess)
	*mm = serversMemo{id: id, rows: rows, waiting: authRequiredServers(rows), valid: true}
}

// mcpRow is one row of the MCP panel. mcpRows (views.MCPServerRows) is the
// ONE derivation of the panel: rendering and key handling both index into
// its result, so the row a key acts on is the row the user sees highlighted.
type mcpRow = views.MCPServerRow

func mcpRows(sess protocol.SessionState) []mcpRow {
	return views.MCPServerRows(views.SessionCustomizations(sess))
}

// authRequiredServers maps MCP server ids in authRequired to true, so a
// running tool call against one grows a grant prompt.
func authRequiredServers(rows []mcpRow) map[string]bool {
	out := map[string]bool{}
	for _, r := range rows {
		if r.StateKind == "authRequired" {
			out[r.ID] = true
		}
	}
	return out
}

func serverAuth(rows []mcpRow, id string) *protocol.McpAuthRequirement {
	for _, r := range rows {
		if r.ID == id && r.Auth != nil {
			return r.Auth
		}
	}
	return nil
}
