package client

import (
	"encoding/json"
	"testing"

	"github.com/ahptui/ahptui/protocol/internal/hostilehost"
)

// TestHostileEndlessSessionList: a host whose listSessions pages forever
// with fresh cursors (issue 21, finding 4) gets a bounded list: the client
// stops at its item cap or byte cap, keeps what fits, and says the list is
// truncated.
func TestHostileEndlessSessionList(t *testing.T) {
	cases := []struct {
		name       string
		perPage    int
		titleBytes int
	}{
		// Many small sessions: the item cap ends the paging.
		{"items", 300, 16},
		// Few big sessions: the byte cap ends it before the item cap.
		{"bytes", 4, 64 << 10},
	}
	// Lower caps keep the test quick under -race; the code path is the same.
	defer func(n, b int) { maxListedSessions, maxListedSessionBytes = n, b }(maxListedSessions, maxListedSessionBytes)
	maxListedSessions, maxListedSessionBytes = 2000, 2<<20
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			host := &hostilehost.EndlessSessions{PerPage: tc.perPage, TitleBytes: tc.titleBytes}
			r := startHostileConfig(t, hostilehost.Config{Answer: host.Answer, ProtocolVersion: "1.0.0"})
			e, _ := r.events.waitFor(t, r.ctx, 0, "the session list", func(e Event) bool {
				_, ok := e.(SessionsListedEvent)
				return ok
			})
			listed := e.(SessionsListedEvent)
			if !listed.Truncated {
				t.Errorf("the list of an endless host is not marked truncated (%d sessions)", len(listed.Sessions))
			}
			if len(listed.Sessions) > maxListedSessions {
				t.Errorf("kept %d sessions, over the cap of %d", len(listed.Sessions), maxListedSessions)
			}
			kept := 0
			for _, s := range listed.Sessions {
				b, err := json.Marshal(s)
				if err != nil {
					t.Fatal(err)
				}
				kept += len(b)
			}
			if kept > maxListedSessionBytes {
				t.Errorf("kept %d bytes of sessions, over the cap of %d", kept, maxListedSessionBytes)
			}
			if len(listed.Sessions) == 0 {
				t.Error("kept nothing: past the cap the list keeps what fits")
			}
			// The host served at most one page past the caps.
			if served, limit := host.Bytes(), int64(maxListedSessionBytes)+int64(tc.perPage*(tc.titleBytes+200)); served > limit {
				t.Errorf("the client read %d bytes of pages, more than the cap allows (%d)", served, limit)
			}
			r.assertUp(t)
		})
	}
}
