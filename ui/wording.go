package ui

import (
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

// userDid says in words what the user did that sent action a ("start
// GitHub", "approve the tool call"), for a message about it: the status
// line never names a protocol method. The server is named from the open
// session's MCP rows (host text, sanitized).
func (m *Model) userDid(a protocol.StateAction) string {
	server := func(id string) string {
		for _, r := range m.signin.servers() {
			if r.ID == id {
				return views.SanitizeLine(r.Name)
			}
		}
		return "the MCP server"
	}
	switch v := a.Variant.(type) {
	case protocol.SessionMcpServerStartRequestedAction:
		return "start " + server(v.ID)
	case protocol.SessionMcpServerStopRequestedAction:
		return "stop " + server(v.ID)
	case protocol.SessionMcpServerBackgroundRequestedAction:
		return "move " + server(v.ID) + "'s start to the background"
	case protocol.SessionCustomizationToggledAction:
		return "turn " + server(v.ID) + " on or off"
	case protocol.SessionMcpServerStateChangedAction:
		return "change " + server(v.ID)
	case protocol.ChatToolCallApprovedAction:
		if !v.Approved {
			return "deny the tool call"
		}
		return "approve the tool call"
	case protocol.ChatToolCallDeniedAction:
		return "deny the tool call"
	case protocol.ChatToolCallResultConfirmedAction:
		return "review the tool result"
	case protocol.ChatInputCompletedAction, protocol.ChatInputAnswerChangedAction:
		return "answer the question"
	case protocol.ChatTurnStartedAction:
		return "send the message"
	case protocol.ChatPendingMessageSetAction:
		return "queue the message"
	case protocol.ChatTurnCancelledAction:
		return "cancel the turn"
	case protocol.ChatTurnResumeAction:
		return "resume the turn"
	case protocol.ChatToolCallCompleteAction:
		return "finish the tool call"
	case protocol.SessionConfigChangedAction:
		return "change the session's settings"
	case protocol.RootConfigChangedAction:
		return "change the host's settings"
	}
	return "do that" // an action this client does not send
}

// doneText is what a finished session command says ("session created"),
// by its opDoneMsg.what.
func doneText(what string) string {
	switch what {
	case "create session":
		return "session created"
	case "dispose session":
		return "session disposed"
	}
	return what + ": done"
}
