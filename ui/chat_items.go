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
// immutable, so the turns' backing array and their count identify the
// finished turns' items, and the active turn pointer the running turn's.
// A streamed chunk replaces only the active turn, so it re-scans only
// that turn's parts; a key press on a long chat re-scans nothing.
type itemsMemo struct {
	first  *protocol.Turn
	n      int
	done   []chatItem // the finished turns' items
	active *protocol.ActiveTurn
	items  []chatItem // done, then the active turn's
	valid  bool
}

func (cp *chatPanel) items() []chatItem {
	var first *protocol.Turn
	if len(cp.chat.Turns) > 0 {
		first = &cp.chat.Turns[0]
	}
	mm := &cp.itemsMemo
	if !mm.valid || mm.first != first || mm.n != len(cp.chat.Turns) {
		var done []chatItem
		for _, t := range cp.chat.Turns {
			done = appendItems(done, t.ID, t.ResponseParts, false)
		}
		*mm = itemsMemo{first: first, n: len(cp.chat.Turns), done: done}
	}
	if !mm.valid || mm.active != cp.chat.ActiveTurn {
		mm.active, mm.valid = cp.chat.ActiveTurn, true
		// The running turn's items go after the finished ones, into the
		// same backing array when it has room: nothing keeps a previous
		// snapshot's items past the update that replaced the snapshot.
		mm.items = mm.done
		if at := cp.chat.ActiveTurn; at != nil {
			mm.items = appendItems(mm.items, at.ID, at.ResponseParts, true)
		}
	}
	return mm.items
}

// chatItems lists every selectable item of chat, finished turns first.
func chatItems(chat protocol.ChatState) []chatItem {
	var out []chatItem
	for _, t := range chat.Turns {
		out = appendItems(out, t.ID, t.ResponseParts, false)
	}
	if at := chat.ActiveTurn; at != nil {
		out = appendItems(out, at.ID, at.ResponseParts, true)
	}
	return out
}

// appendItems appends the selectable parts of one turn to out.
func appendItems(out []chatItem, turnID string, parts []protocol.ResponsePart, active bool) []chatItem {
	asks := views.HasInputRequest(parts)
	for _, p := range parts {
		switch v := p.Variant.(type) {
		case protocol.ToolCallResponsePart:
			id := v.ToolCall.ID()
			if id == "" || asks && views.AskedAsQuestion(p) {
				continue // not drawn: the question's card stands for it
			}
			out = append(out, chatItem{Kind: itemToolCall, ID: id, TurnID: turnID, Active: active, Tool: v.ToolCall})
		case protocol.InputRequestResponsePart:
			out = append(out, chatItem{Kind: itemInput, ID: v.Request.ID, TurnID: turnID, Active: active, Input: v})
		}
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

// closedInput says why input request id of chat can no longer be
// answered: its turn ended (cancelled, failed or complete) without an
// answer to it, so its card is closed and its keys do nothing. It is ""
// while the request can be answered, and for a chat not open (this
// client does not hold its turns).
func (a *app) closedInput(chat, id string) string {
	if chat != a.openChat || !a.hasChat {
		return ""
	}
	if at := a.chat.ActiveTurn; at != nil {
		for _, p := range at.ResponseParts {
			if v, ok := p.Variant.(protocol.InputRequestResponsePart); ok && v.Request.ID == id {
				return ""
			}
		}
	}
	for i := len(a.chat.Turns) - 1; i >= 0; i-- {
		t := a.chat.Turns[i]
		for _, p := range t.ResponseParts {
			if v, ok := p.Variant.(protocol.InputRequestResponsePart); ok && v.Request.ID == id && v.Response == nil {
				return "that question is closed, " + views.UnansweredText(t.State)
			}
		}
	}
	return ""
}
