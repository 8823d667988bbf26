package hostilehost

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

// TestClaimedTerminalSurvivesAdvertise: the claimed-terminal scenario
// lists a terminal held by the connecting client, and the advertisement
// that follows adds the agents' protected resource without dropping it
// (a later snapshot still lists the terminal); initialize's clientId and
// a dispatched terminal/input are read back.
func TestClaimedTerminalSurvivesAdvertise(t *testing.T) {
	h, err := Start(Config{States: map[string]json.RawMessage{RootChannel: SampleRoot}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	req := &jsonrpc.Request{Method: "initialize", Params: json.RawMessage(`{"protocolVersion":"0.6.0","clientId":"me-1"}`)}
	if id := InitializeClientID(req); id != "me-1" {
		t.Fatalf("InitializeClientID = %q", id)
	}
	if err := h.ClaimTerminalFor(InitializeClientID(req)); err != nil {
		t.Fatal(err)
	}
	if err := h.AdvertiseProtectedResource(context.Background(), "https://mcp.example.com/api", "https://issuer.example.com"); err != nil {
		t.Fatal(err)
	}
	snaps := h.snapshots([]string{RootChannel, ClaimedTerminalURI})
	if len(snaps) != 2 {
		t.Fatalf("snapshots %v, want the root and the terminal", snaps)
	}
	var root struct {
		ActiveSessions int `json:"activeSessions"`
		Agents         []struct {
			ProtectedResources []struct {
				Resource string `json:"resource"`
			} `json:"protectedResources"`
		} `json:"agents"`
		Terminals []struct {
			Resource string `json:"resource"`
			Claim    struct {
				ClientID string `json:"clientId"`
			} `json:"claim"`
		} `json:"terminals"`
	}
	if err := json.Unmarshal(snaps[0].State, &root); err != nil {
		t.Fatal(err)
	}
	if len(root.Terminals) != 1 || root.Terminals[0].Resource != ClaimedTerminalURI || root.Terminals[0].Claim.ClientID != "me-1" {
		t.Fatalf("root terminals %+v, want ours held by me-1", root.Terminals)
	}
	if len(root.Agents) != 1 || len(root.Agents[0].ProtectedResources) != 1 || root.ActiveSessions != 1 {
		t.Fatalf("root %s: the advertisement or the rest of the root is missing", snaps[0].State)
	}
	var term struct {
		Claim struct {
			ClientID string `json:"clientId"`
		} `json:"claim"`
	}
	if err := json.Unmarshal(snaps[1].State, &term); err != nil || term.Claim.ClientID != "me-1" {
		t.Fatalf("terminal state %s (%v), want held by me-1", snaps[1].State, err)
	}

	frame := []byte(`{"jsonrpc":"2.0","method":"dispatchAction","params":{"channel":"` + ClaimedTerminalURI +
		`","clientSeq":1,"action":{"type":"terminal/input","data":"y"}}}`)
	if ch, data, ok := TerminalInput(frame); !ok || ch != ClaimedTerminalURI || data != "y" {
		t.Fatalf("TerminalInput = %q %q %v", ch, data, ok)
	}
	if _, _, ok := TerminalInput([]byte(`{"jsonrpc":"2.0","method":"dispatchAction","params":{"action":{"type":"chat/turnStarted"}}}`)); ok {
		t.Fatal("TerminalInput read another action as input")
	}
}
