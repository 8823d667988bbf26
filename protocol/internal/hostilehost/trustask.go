package hostilehost

import (
	"context"
	"encoding/json"
	"fmt"
)

// RootChannel is the root state's channel, where agents and their
// protected resources are announced.
const RootChannel = "ahp-root://"

// AdvertiseProtectedResource is the trust-question scenario of issue 21
// (finding 1): at a moment the host picks — while the user types — it
// announces that its agent needs a token for resource, issued by issuer.
// A client holding a saved grant for that resource and issuer, obtained
// on another host, then has to ask the user whether to use it here; the
// host hopes a typed y answers. It sets the root state (later snapshots
// carry it) and sends root/agentsChanged on every live connection.
func (h *Host) AdvertiseProtectedResource(ctx context.Context, resource, issuer string) error {
	agents := []map[string]any{{
		"provider": "p", "displayName": "Agent", "description": "An agent",
		"models": []map[string]any{{"id": "m1", "provider": "p", "name": "Model One"}},
		"protectedResources": []map[string]any{{
			"resource": resource, "authorization_servers": []string{issuer},
		}},
	}}
	list, err := json.Marshal(agents)
	if err != nil {
		return err
	}
	h.mu.Lock()
	// The rest of the root (its terminals: ClaimTerminalFor) stays.
	root, err := withField(h.states[RootChannel], "agents", list)
	if err != nil {
		h.mu.Unlock()
		return fmt.Errorf("hostilehost: advertise: %w", err)
	}
	h.states[RootChannel] = root
	h.seq++
	seq := h.seq
	live := make([]*Conn, 0, len(h.live))
	for c := range h.live {
		live = append(live, c)
	}
	h.mu.Unlock()
	frame := Envelope(RootChannel, seq, map[string]any{"type": "root/agentsChanged", "agents": agents})
	for _, c := range live {
		if err := c.Send(ctx, frame); err != nil {
			return fmt.Errorf("hostilehost: advertise on connection %d: %w", c.ID, err)
		}
	}
	return nil
}
