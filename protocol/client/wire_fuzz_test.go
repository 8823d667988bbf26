package client

import (
	"encoding/json"
	"testing"

	"github.com/ahptui/ahptui/protocol"
)

// FuzzInboundAction06 sends arbitrary action params from a 0.6 host
// through the client's whole inbound path (conversion up, decoding, the
// version filter, reconciliation into a session and a chat). Bad input
// may be refused, never crash the client or break a state already held.
func FuzzInboundAction06(f *testing.F) {
	for _, seed := range []string{
		`{"channel":"ahp-chat:/f","serverSeq":1,"action":{"type":"chat/delta","turnId":"t1","partId":"p1","content":"x"}}`,
		`{"channel":"ahp-session:/f","serverSeq":2,"action":{"type":"session/customizationToggled","id":"srv","enabled":false}}`,
		`{"channel":"ahp-session:/f","serverSeq":3,"action":{"type":"session/customizationsChanged","customizations":[{"type":"mcpServer","id":"srv","uri":"file:///m","name":"m","enabled":true,"state":{"kind":"ready"}}]}}`,
		`{"channel":"ahp-chat:/f","serverSeq":4,"action":{"type":"chat/toolCallReady","turnId":"t1","toolCallId":"tc","invocationMessage":"run","toolInput":"{}"}}`,
		`{"channel":"ahp-chat:/f","serverSeq":5,"action":{"type":"chat/error","turnId":"t1","error":{"errorType":"x","message":"boom"}}}`,
		`{"channel":"ahp-chat:/f","serverSeq":6,"action":{"type":"chat/turnResume","turnId":"t1"}}`,
		`{"channel":"ahp-chat:/f","serverSeq":7,"action":{"type":"x-acme/thing"}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		m := newMirror(fixedClock)
		m.rules = protocol.Rules06(fixedClock)
		m.setSnapshot("ahp-session:/f", mSessionState("s"), 0)
		m.setSnapshot("ahp-chat:/f", protocol.ChatState{Resource: "ahp-chat:/f", ModifiedAt: "2026-01-01T00:00:00Z",
			Turns: []protocol.Turn{}, ActiveTurn: &protocol.ActiveTurn{ID: "t1", StartedAt: "2026-01-01T00:00:00Z",
				ResponseParts: []protocol.ResponsePart{protocol.NewResponsePart(protocol.MarkdownResponsePart{ID: "p1", Content: protocol.NewText("")})}}}, 0)
		params, err := upParams(protocol.Wire06, "action", raw)
		if err != nil {
			return
		}
		var env protocol.ActionEnvelope
		if json.Unmarshal(params, &env) != nil {
			return
		}
		onlyDefined(protocol.Wire06, &env)
		m.applyEnvelope(env, me)
		for _, ch := range []string{"ahp-session:/f", "ahp-chat:/f"} {
			if st, ok := m.state(ch); !ok || st == nil {
				t.Fatalf("%s lost its state", ch)
			}
		}
	})
}
