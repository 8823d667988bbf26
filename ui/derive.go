package ui

import (
	"strings"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

// toolCall is the flattened view of a ToolCallState variant: the fields every
// status shares plus what the UI acts on. Deriving it in one place keeps the
// renderer and the key handler agreeing on what a card is.
type toolCall struct {
	ID, Name, Display, Status string
	Invocation                string
	Input                     string
	Failed                    bool
	Result                    string // past-tense message and text content
	ErrMsg                    string
	Server                    string // MCP customization id of the contributor, if any
	Auth                      *protocol.McpAuthRequirement
}

func sm(s protocol.StringOrMarkdown) string { return s.Value }

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func contributorServer(c *protocol.ToolCallContributor) string {
	if c == nil {
		return ""
	}
	if mc, ok := c.Variant.(protocol.ToolCallMcpContributor); ok {
		return mc.CustomizationID
	}
	return ""
}

func resultText(content []protocol.ToolResultContent) string {
	var b strings.Builder
	for _, c := range content {
		if t, ok := c.Variant.(protocol.ToolResultTextContent); ok {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// resultToolCall is the card of a tool call that has its result, whether
// the result awaits the user's confirmation or the call has completed.
func resultToolCall(status string, v protocol.ToolCallCompletedState) toolCall {
	tc := toolCall{ID: v.ToolCallID, Name: v.ToolName, Display: v.DisplayName, Status: status,
		Invocation: sm(v.InvocationMessage), Input: deref(v.ToolInput), Failed: !v.Success,
		Result: joinNonEmpty(sm(v.PastTenseMessage), resultText(v.Content)), Server: contributorServer(v.Contributor)}
	if v.Error != nil {
		tc.ErrMsg = v.Error.Message
	}
	return tc
}

func flattenToolCall(s protocol.ToolCallState) toolCall {
	switch v := s.Variant.(type) {
	case protocol.ToolCallStreamingState:
		return toolCall{ID: v.ToolCallID, Name: v.ToolName, Display: v.DisplayName, Status: "streaming",
			Invocation: sm(deref(v.InvocationMessage)), Input: deref(v.PartialInput), Server: contributorServer(v.Contributor)}
	case protocol.ToolCallPendingConfirmationState:
		inv := sm(v.InvocationMessage)
		if v.ConfirmationTitle != nil && v.ConfirmationTitle.Value != "" {
			inv = v.ConfirmationTitle.Value
		}
		return toolCall{ID: v.ToolCallID, Name: v.ToolName, Display: v.DisplayName, Status: "pending-confirmation",
			Invocation: inv, Input: deref(v.ToolInput), Server: contributorServer(v.Contributor)}
	case protocol.ToolCallRunningState:
		return toolCall{ID: v.ToolCallID, Name: v.ToolName, Display: v.DisplayName, Status: "running",
			Invocation: sm(v.InvocationMessage), Input: deref(v.ToolInput), Result: resultText(v.Content),
			Server: contributorServer(v.Contributor)}
	case protocol.ToolCallAuthRequiredState:
		auth := v.Auth
		return toolCall{ID: v.ToolCallID, Name: v.ToolName, Display: v.DisplayName, Status: "auth-required",
			Invocation: sm(v.InvocationMessage), Input: deref(v.ToolInput), Server: v.Contributor.CustomizationID,
			Auth: &auth}
	case protocol.ToolCallPendingResultConfirmationState:
		// The schema gives both result-bearing states the same fields, so
		// the conversion compiles only while one card builder fits both.
		return resultToolCall("pending-result-confirmation", protocol.ToolCallCompletedState(v))
	case protocol.ToolCallCompletedState:
		return resultToolCall("completed", v)
	case protocol.ToolCallCancelledState:
		return toolCall{ID: v.ToolCallID, Name: v.ToolName, Display: v.DisplayName, Status: "cancelled",
			Invocation: sm(v.InvocationMessage), Input: deref(v.ToolInput),
			Result: sm(deref(v.ReasonMessage)), Server: contributorServer(v.Contributor)}
	case protocol.UnknownToolCallState:
		return toolCall{ID: "", Status: v.Discriminator}
	}
	return toolCall{}
}

func joinNonEmpty(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, "\n")
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
	Tool   toolCall
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
				tc := flattenToolCall(v.ToolCall)
				if tc.ID == "" {
					continue
				}
				out = append(out, chatItem{Kind: itemToolCall, ID: tc.ID, TurnID: turnID, Active: active, Tool: tc})
			case protocol.InputRequestResponsePart:
				out = append(out, chatItem{Kind: itemInput, ID: v.Request.ID, TurnID: turnID, Active: active, Input: v})
			}
		}
	}
	for _, t := range chat.Turns {
		add(t.ID, t.ResponseParts, false)
	}
	if chat.ActiveTurn != nil {
		add(chat.ActiveTurn.ID, chat.ActiveTurn.ResponseParts, true)
	}
	return out
}

// needsUser reports whether the item blocks on this user right now.
func (it chatItem) needsUser(authServers map[string]bool) bool {
	switch it.Kind {
	case itemInput:
		return it.Input.Response == nil && it.Active
	case itemToolCall:
		switch it.Tool.Status {
		case "pending-confirmation", "pending-result-confirmation", "auth-required":
			return true
		case "running":
			return authServers[it.Tool.Server]
		}
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
