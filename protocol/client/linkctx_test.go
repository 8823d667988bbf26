package client

import (
	"testing"
)

// TestDroppedLinkReleased: a link the host dropped has its context
// cancelled when the client reconnects, so it leaves the client's
// context. It stayed a child of it, with its Done channel, for the
// client's life: a little more memory for every reconnect of a long day
// (ui's BenchmarkLongDay).
func TestDroppedLinkReleased(t *testing.T) {
	onBothWires(t, func(t *testing.T, version string) {
		r := startHostile(t, version, nil, nil)
		var old []*link
		for i := range 3 {
			r.client.mu.Lock()
			old = append(old, r.client.cur)
			r.client.mu.Unlock()
			from := r.events.len()
			r.conn.Close()
			r.events.waitFor(t, r.ctx, from, "Reconnecting", isStatus(StatusReconnecting))
			r.conn = r.nextConn(t)
			r.events.waitFor(t, r.ctx, from, "Ready again", isStatus(StatusReady))
			_ = i
		}
		for i, l := range old {
			if l == nil || l.ctx.Err() == nil {
				t.Errorf("link %d, dropped by the host, still has a live context after the reconnect", i)
			}
		}
	})
}
