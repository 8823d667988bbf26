package ui

import "github.com/ahptui/ahptui/protocol"

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

func (cp *chatPanel) items() []chatItem {
	var first *protocol.Turn
	if len(cp.chat.Turns) > 0 {
		first = &cp.chat.Turns[0]
	}
	mm := &cp.itemsMemo
	if !mm.valid || mm.first != first || mm.n != len(cp.chat.Turns) || mm.active != cp.chat.ActiveTurn {
		*mm = itemsMemo{first: first, n: len(cp.chat.Turns), active: cp.chat.ActiveTurn, items: chatItems(cp.chat), valid: true}
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
