package protocol

import "strings"

// Tool call statuses as the wire spells them: the discriminator of each
// ToolCallState variant. They are the one copy of these words outside the
// generated types, so the UI compares against names, never literals.
const (
	ToolCallStatusStreaming                 = "streaming"
	ToolCallStatusPendingConfirmation       = "pending-confirmation"
	ToolCallStatusRunning                   = "running"
	ToolCallStatusAuthRequired              = "auth-required"
	ToolCallStatusPendingResultConfirmation = "pending-result-confirmation"
	ToolCallStatusCompleted                 = "completed"
	ToolCallStatusCancelled                 = "cancelled"
)

// ToolCallErrorCodeCancelled is the error code of a tool call the user
// refused to let go on (e.g. declined the sign-in it waited for), so the
// agent stops waiting rather than retrying.
const ToolCallErrorCodeCancelled = "cancelled"

// Status is the tool call's status discriminator, the variant's own for a
// state this client does not know (so a card can still name it).
func (x ToolCallState) Status() string { return x.Kind() }

// Name is what a person calls the tool: its display name, else its tool
// name ("" for an unknown state).
func (x ToolCallState) Name() string {
	c, _ := chatToolCallCommonOf(x.Variant)
	if strings.TrimSpace(c.DisplayName) != "" {
		return c.DisplayName
	}
	return c.ToolName
}

// ToolName is the tool's own name (not its display name), "" for an
// unknown state.
func (x ToolCallState) ToolName() string {
	c, _ := chatToolCallCommonOf(x.Variant)
	return c.ToolName
}

// McpServer is the customization id of the MCP server that contributes
// the tool, or "" when the tool is not an MCP server's.
func (x ToolCallState) McpServer() string {
	c, _ := chatToolCallCommonOf(x.Variant)
	if c.Contributor == nil {
		return ""
	}
	if mc, ok := c.Contributor.Variant.(ToolCallMcpContributor); ok {
		return mc.CustomizationID
	}
	return ""
}

// content is the call's result content so far: running, waiting for
// sign-in or for its result's confirmation, or completed.
func (x ToolCallState) content() []ToolResultContent {
	switch v := x.Variant.(type) {
	case ToolCallRunningState:
		return v.Content
	case ToolCallAuthRequiredState:
		return v.Content
	case ToolCallPendingResultConfirmationState:
		return v.Content
	case ToolCallCompletedState:
		return v.Content
	}
	return nil
}

// SubagentChat is the chat of the subagent the call runs (its result's
// subagent content), "" when it runs none.
func (x ToolCallState) SubagentChat() URI {
	for _, c := range x.content() {
		if s, ok := c.Variant.(ToolResultSubagentContent); ok {
			return s.Resource
		}
	}
	return ""
}

// AuthRequirement is the sign-in challenge of an auth-required tool call,
// nil in every other state.
func (x ToolCallState) AuthRequirement() *McpAuthRequirement {
	if v, ok := x.Variant.(ToolCallAuthRequiredState); ok {
		auth := v.Auth
		return &auth
	}
	return nil
}

// WaitsOnUser reports whether the call cannot go on without the user
// (approval of the call or its result, or sign-in). A running call whose
// MCP server needs sign-in waits too; the caller knows the servers, so it
// says so through serverNeedsSignIn.
func (x ToolCallState) WaitsOnUser(serverNeedsSignIn func(customizationID string) bool) bool {
	switch x.Status() {
	case ToolCallStatusPendingConfirmation, ToolCallStatusPendingResultConfirmation, ToolCallStatusAuthRequired:
		return true
	case ToolCallStatusRunning:
		s := x.McpServer()
		return s != "" && serverNeedsSignIn != nil && serverNeedsSignIn(s)
	}
	return false
}

// Terminal is the terminal a tool call runs in (its
// ToolResultTerminalContent, an agenthost-terminal:// reference), "" when
// its content names none.
func (x ToolCallState) Terminal() (uri URI, title string) {
	t, _ := x.TerminalRef()
	return t.Resource, t.Title
}

// TerminalRef is the terminal content a tool call's result references,
// with its outcome (exit code, output preview) once the command exited;
// false when it names none.
func (x ToolCallState) TerminalRef() (ToolResultTerminalContent, bool) {
	for _, c := range x.content() {
		if t, ok := c.Variant.(ToolResultTerminalContent); ok && t.Resource != "" {
			return t, true
		}
	}
	return ToolResultTerminalContent{}, false
}

// ChatTerminal is a terminal a chat's tool call ran in: its terminal
// content (with the outcome once the command exited), the call's id and
// the name a person calls the tool.
type ChatTerminal struct {
	Ref      ToolResultTerminalContent
	ToolCall string
	Tool     string
}

// ChatTerminals is every terminal chat's tool calls name, finished turns
// first, then the running one's, each terminal once (its first call):
// the one reading of them for the UI's terminals list and ahptui
// terminals list.
func ChatTerminals(chat ChatState) []ChatTerminal {
	var out []ChatTerminal
	seen := map[URI]bool{}
	add := func(parts []ResponsePart) {
		for _, p := range parts {
			tp, ok := p.Variant.(ToolCallResponsePart)
			if !ok {
				continue
			}
			if ref, ok := tp.ToolCall.TerminalRef(); ok && !seen[ref.Resource] {
				seen[ref.Resource] = true
				out = append(out, ChatTerminal{Ref: ref, ToolCall: tp.ToolCall.ID(), Tool: tp.ToolCall.Name()})
			}
		}
	}
	for _, t := range chat.Turns {
		add(t.ResponseParts)
	}
	if chat.ActiveTurn != nil {
		add(chat.ActiveTurn.ResponseParts)
	}
	return out
}
