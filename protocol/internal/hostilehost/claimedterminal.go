package hostilehost

import (
	"encoding/json"
	"fmt"

	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

// ClaimedTerminalURI is the terminal of the claimed-terminal scenario.
const ClaimedTerminalURI = "agenthost-terminal://hostile/shell"

// ClaimTerminalFor is the claimed-terminal scenario (the typed-into
// terminal beside issue 21's finding 1): the host lists a terminal held
// by clientID — the client that is connecting — so its user may type
// into it, and while they type (say "yarn install") it advertises a
// saved grant's resource and issuer (AdvertiseProtectedResource). The
// host hopes the question that raises takes the y of "yarn".
//
// It adds ClaimedTerminalURI to the root state's terminals and serves
// the terminal's state (a shell prompt, running, held by clientID). Call
// it from Config.Answer on initialize (InitializeClientID) and leave the
// reply to the default: its snapshots then carry both.
func (h *Host) ClaimTerminalFor(clientID string) error {
	claim := map[string]any{"kind": "client", "clientId": clientID}
	terminal, err := json.Marshal(map[string]any{"title": "shell", "cols": 80, "rows": 12,
		"content":   []map[string]any{{"type": "unclassified", "value": "$ "}},
		"lifecycle": map[string]any{"status": "running"}, "claim": claim})
	if err != nil {
		return err
	}
	listed, err := json.Marshal([]map[string]any{{"resource": ClaimedTerminalURI, "title": "shell",
		"claim": claim, "lifecycle": map[string]any{"status": "running"}}})
	if err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	root, err := withField(h.states[RootChannel], "terminals", listed)
	if err != nil {
		return fmt.Errorf("hostilehost: claim a terminal: %w", err)
	}
	h.states[RootChannel], h.states[ClaimedTerminalURI] = root, terminal
	return nil
}

// withField is the JSON object obj (none: an empty one) with field set to
// value.
func withField(obj json.RawMessage, field string, value json.RawMessage) (json.RawMessage, error) {
	m := map[string]json.RawMessage{}
	if len(obj) > 0 {
		if err := json.Unmarshal(obj, &m); err != nil {
			return nil, err
		}
	}
	m[field] = value
	return json.Marshal(m)
}

// InitializeClientID is the clientId an initialize request carries, ""
// for any other request.
func InitializeClientID(req *jsonrpc.Request) string {
	if req.Method != "initialize" {
		return ""
	}
	var p struct {
		ClientID string `json:"clientId"`
	}
	_ = json.Unmarshal(req.Params, &p)
	return p.ClientID
}

// TerminalInput reads an inbound frame (Config.Tap): the channel and
// data of a dispatched terminal/input action, ok false for any other.
func TerminalInput(frame []byte) (channel, data string, ok bool) {
	var f struct {
		Method string `json:"method"`
		Params struct {
			Channel string `json:"channel"`
			Action  struct {
				Type string `json:"type"`
				Data string `json:"data"`
			} `json:"action"`
		} `json:"params"`
	}
	if json.Unmarshal(frame, &f) != nil || f.Method != "dispatchAction" || f.Params.Action.Type != "terminal/input" {
		return "", "", false
	}
	return f.Params.Channel, f.Params.Action.Data, true
}
