package ui

import (
	"strings"
	"testing"

	"github.com/ahptui/ahptui/protocol/client"
)

// TestHistoryHoldsHostErrorWhole is issue 36 item 13: README says the
// message history (L) holds the whole text, but a host error's message
// was cut at about 300 bytes with "…" there too. The bar may cut it;
// the history keeps it to its last word (and, for a host that sends its
// stack, the message without the stack, which goes to the log).
func TestHistoryHoldsHostErrorWhole(t *testing.T) {
	long := "Error: Malformed AHP chat URI: " + strings.Repeat("abcdefghij", 60) + " THE-LAST-WORD"
	for _, tc := range []struct{ name, msg string }{
		{"plain", long},
		{"with a stack", long + "\n    at parse (file:///x.js:1:2)\n    at run (file:///x.js:3:4)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := fxModel(fxChatState())
			m.Update(statusMsg{err: &client.HostError{Code: -32603, Message: tc.msg}})
			if len(m.status.history) == 0 {
				t.Fatal("nothing in the history")
			}
			h := m.status.history[len(m.status.history)-1].Text
			if !strings.Contains(h, "THE-LAST-WORD") {
				t.Errorf("the history cuts the host's message: %q", h)
			}
			if strings.Contains(h, "at parse") {
				t.Errorf("the history shows the host's stack: %q", h)
			}
		})
	}
}
