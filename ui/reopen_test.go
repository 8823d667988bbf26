package ui

import (
	"fmt"
	"slices"
	"testing"

	"github.com/ahptui/ahptui/protocol/client"
	"github.com/ahptui/ahptui/views"
)

// TestDropMidSubscribeReopensOnReady: the connection drops while the chat
// is being opened. The status bar keeps saying why the link is down (no
// stale "could not open …" error over it), and the chat is subscribed
// again once the client is ready.
func TestDropMidSubscribeReopensOnReady(t *testing.T) {
	m := fxModel(fxChatState())
	stub := m.client.(*stubClient)
	m.hasChat = false
	m.status.reconnecting(1, fmt.Errorf("websocket read: failed"), m.clock())
	m.Update(subscribedMsg{channel: fxChat, err: fmt.Errorf("subscribe %s: connection dropped, retry: %w", fxChat, client.ErrNotConnected)})
	if m.status.isErr || m.status.text != "" {
		t.Fatalf("the drop is reported as an error over the reconnect: %q", m.status.text)
	}
	if m.status.conn.state != views.ConnReconnecting {
		t.Fatalf("conn state %v", m.status.conn.state)
	}
	_, cmd := m.Update(eventsMsg{evs: []client.Event{client.ConnectionEvent{Status: client.StatusReady, ProtocolVersion: "0.6.0"}}})
	pump(t, m, cmd, "the chat is subscribed again", func() bool {
		return slices.Contains(stub.subscriptions(), "+"+fxChat)
	})

	// A subscribe refused for another reason is still reported.
	stub.refuse = map[string]error{fxChat: fmt.Errorf("subscribe: not found")}
	m.reopen = nil
	_, cmd = m.Update(subscribedMsg{channel: fxChat, err: stub.refuse[fxChat]})
	pump(t, m, cmd, "the refusal shows", statusHas(m, "could not open"))
}
