package ui

import (
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

// serversMemo is the open session's MCP servers, derived once per session
// snapshot. Snapshots are immutable, so the customizations' and active
// clients' backing arrays and lengths identify what the rows come from.
type serversMemo struct {
	first   *protocol.Customization
	n       int
	clients *protocol.SessionActiveClient
	nc      int
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
	var first *protocol.Customization
	if len(si.sess.Customizations) > 0 {
		first = &si.sess.Customizations[0]
	}
	var clients *protocol.SessionActiveClient
	if len(si.sess.ActiveClients) > 0 {
		clients = &si.sess.ActiveClients[0]
	}
	mm := &si.serversMemo
	if mm.valid && mm.first == first && mm.n == len(si.sess.Customizations) && mm.clients == clients && mm.nc == len(si.sess.ActiveClients) {
		return
	}
	rows := mcpRows(si.sess)
	*mm = serversMemo{first: first, n: len(si.sess.Customizations), clients: clients, nc: len(si.sess.ActiveClients),
		rows: rows, waiting: authRequiredServers(rows), valid: true}
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
