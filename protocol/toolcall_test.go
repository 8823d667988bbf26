package protocol

import (
	"testing"
	"time"
)

func TestToolCallAccessors(t *testing.T) {
	mcp := &ToolCallContributor{Variant: ToolCallMcpContributor{Kind: "mcp", CustomizationID: "srv"}}
	auth := McpAuthRequirement{Reason: "required"}
	authServers := map[string]bool{"srv": true}
	needs := func(id string) bool { return authServers[id] }
	tests := []struct {
		name       string
		tc         ToolCallState
		id, status string
		display    string
		server     string
		hasAuth    bool
		waits      bool
	}{
		{"streaming", NewToolCallState(ToolCallStreamingState{ToolCallID: "a", ToolName: "t"}), "a", ToolCallStatusStreaming, "t", "", false, false},
		{"pending", NewToolCallState(ToolCallPendingConfirmationState{ToolCallID: "b", ToolName: "t", DisplayName: "T"}), "b", ToolCallStatusPendingConfirmation, "T", "", false, true},
		{"blank display name", NewToolCallState(ToolCallPendingConfirmationState{ToolCallID: "b", ToolName: "t", DisplayName: "  "}), "b", ToolCallStatusPendingConfirmation, "t", "", false, true},
		{"running on a server needing sign-in", NewToolCallState(ToolCallRunningState{ToolCallID: "c", ToolName: "t", Contributor: mcp}), "c", ToolCallStatusRunning, "t", "srv", false, true},
		{"running elsewhere", NewToolCallState(ToolCallRunningState{ToolCallID: "c", ToolName: "t"}), "c", ToolCallStatusRunning, "t", "", false, false},
		{"auth-required", NewToolCallState(ToolCallAuthRequiredState{ToolCallID: "d", ToolName: "t", Auth: auth, Contributor: ToolCallMcpContributor{Kind: "mcp", CustomizationID: "srv"}}), "d", ToolCallStatusAuthRequired, "t", "srv", true, true},
		{"result to confirm", NewToolCallState(ToolCallPendingResultConfirmationState{ToolCallID: "e", ToolName: "t"}), "e", ToolCallStatusPendingResultConfirmation, "t", "", false, true},
		{"completed", NewToolCallState(ToolCallCompletedState{ToolCallID: "f", ToolName: "t"}), "f", ToolCallStatusCompleted, "t", "", false, false},
		{"cancelled", NewToolCallState(ToolCallCancelledState{ToolCallID: "g", ToolName: "t"}), "g", ToolCallStatusCancelled, "t", "", false, false},
		{"unknown", ToolCallState{Variant: UnknownToolCallState{Discriminator: "paused"}}, "", "paused", "", "", false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.tc.ID(); got != tc.id {
				t.Errorf("ID = %q, want %q", got, tc.id)
			}
			if got := tc.tc.Status(); got != tc.status {
				t.Errorf("Status = %q, want %q", got, tc.status)
			}
			if got := tc.tc.Name(); got != tc.display {
				t.Errorf("Name = %q, want %q", got, tc.display)
			}
			if got := tc.tc.McpServer(); got != tc.server {
				t.Errorf("McpServer = %q, want %q", got, tc.server)
			}
			if got := tc.tc.AuthRequirement() != nil; got != tc.hasAuth {
				t.Errorf("AuthRequirement present = %v, want %v", got, tc.hasAuth)
			}
			if got := tc.tc.WaitsOnUser(needs); got != tc.waits {
				t.Errorf("WaitsOnUser = %v, want %v", got, tc.waits)
			}
		})
	}
}

func TestTimestamp(t *testing.T) {
	at := time.Date(2026, 3, 4, 5, 6, 7, 891_000_000, time.FixedZone("x", 3600))
	if got, want := Timestamp(at), "2026-03-04T04:06:07.891Z"; got != want {
		t.Fatalf("Timestamp = %q, want %q", got, want)
	}
}

// TestToolCallTerminal: a running or finished call names the terminal its
// content references; a call without one names none.
func TestToolCallTerminal(t *testing.T) {
	term := NewToolResultContent(ToolResultTerminalContent{Resource: "agenthost-terminal://s/1", Title: "Run make"})
	text := NewToolResultContent(ToolResultTextContent{Text: "hi"})
	running := NewToolCallState(ToolCallRunningState{ToolCallID: "a", Content: []ToolResultContent{text, term}})
	done := NewToolCallState(ToolCallCompletedState{ToolCallID: "b", Content: []ToolResultContent{term}})
	none := NewToolCallState(ToolCallCompletedState{ToolCallID: "c", Content: []ToolResultContent{text}})
	for _, tc := range []struct {
		x    ToolCallState
		want URI
	}{{running, "agenthost-terminal://s/1"}, {done, "agenthost-terminal://s/1"}, {none, ""}} {
		if got, title := tc.x.Terminal(); got != tc.want || (got != "" && title != "Run make") {
			t.Errorf("Terminal() = %q, %q; want %q", got, title, tc.want)
		}
	}
}
