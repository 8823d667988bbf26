package ui

import (
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// itemKind is what a selectable transcript item is.
type itemKind int

const (
	itemToolCall itemKind = iota
	itemInput
)

// chatItem is one selectable thing in the transcript: a tool-call card or an
// input request. chatItems derives the list once per frame for both the
// renderer (highlight) and the keys (what approve acts on).
type chatItem struct {
	Kind   itemKind
	ID     string // toolCallId or input request id
	TurnID string
	Active bool // in the running turn
	Tool   protocol.ToolCallState
	Input  protocol.InputRequestResponsePart
}

// itemsMemo remembers chatItems for one chat snapshot. Snapshots are
// immutable, so the turns' backing array, their count and the active turn
// pointer identify one; a key press on a long chat then costs no re-scan.
type itemsMemo struct {
	first  *protocol.Turn
	n      int
	active *protocol.ActiveTurn
	items  []chatItem
	valid  bool
}

func (m *Model) items() []chatItem {
	var first *protocol.Turn
	if len(m.chat.Turns) > 0 {
		first = &m.chat.Turns[0]
	}
	mm := &m.itemsMemo
	if !mm.valid || mm.first != first || mm.n != len(m.chat.Turns) || mm.active != m.chat.ActiveTurn {
		*mm = itemsMemo{first: first, n: len(m.chat.Turns), active: m.chat.ActiveTurn, items: chatItems(m.chat), valid: true}
	}
	return mm.items
}

func chatItems(chat protocol.ChatState) []chatItem {
	var out []chatItem
	add := func(turnID string, parts []protocol.ResponsePart, active bool) {
		for _, p := range parts {
			switch v := p.Variant.(type) {
			case protocol.ToolCallResponsePart:
				id := v.ToolCall.ID()
				if id == "" {
					continue
				}
				out = append(out, chatItem{Kind: itemToolCall, ID: id, TurnID: turnID, Active: active, Tool: v.ToolCall})
			case protocol.InputRequestResponsePart:
				out = append(out, chatItem{Kind: itemInput, ID: v.Request.Id, TurnID: turnID, Active: active, Input: v})
			}
		}
	}
	for _, t := range chat.Turns {
		add(t.Id, t.ResponseParts, false)
	}
	if chat.ActiveTurn != nil {
		add(chat.ActiveTurn.Id, chat.ActiveTurn.ResponseParts, true)
	}
	return out
}

// needsUser reports whether the item blocks on this user right now.
func (it chatItem) needsUser(authServers map[string]bool) bool {
	switch it.Kind {
	case itemInput:
		return it.Input.Response == nil && it.Active
	case itemToolCall:
		return it.Tool.WaitsOnUser(func(id string) bool { return authServers[id] })
	}
	return false
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
