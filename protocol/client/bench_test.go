package client

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/ahptui/ahptui/protocol"
)

// BenchmarkInboundDelta is the client's work for one streamed chat/delta
// notification, from its params as they are on the socket to the
// mirror's new optimistic state: conversion (none on 1.0), decoding, the
// version's action filter and reconciliation. The 1.0 wire's budget is
// 10 µs per delta (a host streaming 10,000 deltas a second costs a tenth
// of a core); the 0.6 wire pays a scan for the action's type on top and
// must stay within 1.5x of 1.0.
func BenchmarkInboundDelta(b *testing.B) {
	for _, tt := range []struct {
		name string
		wire protocol.Wire
	}{{"1.0", protocol.Wire10}, {"0.6", protocol.Wire06}} {
		b.Run(tt.name, func(b *testing.B) {
			const chat = "ahp-chat:/bench"
			m := newMirror(time.Now)
			m.rules = protocol.RulesFor(tt.wire, time.Now)
			m.setSnapshot(chat, protocol.ChatState{Resource: chat, Status: protocol.SessionStatusIdle,
				ModifiedAt: "2026-01-01T00:00:00Z", Turns: []protocol.Turn{},
				ActiveTurn: &protocol.ActiveTurn{ID: "t1", StartedAt: "2026-01-01T00:00:00Z",
					Message:       protocol.Message{Text: "hi", Origin: protocol.MessageOrigin{Kind: protocol.MessageKindUser}},
					ResponseParts: []protocol.ResponsePart{protocol.NewResponsePart(protocol.MarkdownResponsePart{ID: "p1", Content: protocol.NewText("")})}},
			}, 0)
			frames := make([]json.RawMessage, 1000)
			for i := range frames {
				frames[i] = json.RawMessage(fmt.Sprintf(`{"channel":%q,"serverSeq":%d,"action":{"type":"chat/delta","turnId":"t1","partId":"p1","content":"token %d "}}`, chat, i+1, i))
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				raw := frames[i%len(frames)]
				if i%len(frames) == 0 && i > 0 {
					b.StopTimer()
					m.channels[chat].seq = 0 // replay the frames as new
					b.StartTimer()
				}
				params, err := upParams(tt.wire, "action", raw)
				if err != nil {
					b.Fatal(err)
				}
				var env protocol.ActionEnvelope
				if err := json.Unmarshal(params, &env); err != nil {
					b.Fatal(err)
				}
				onlyDefined(tt.wire, &env)
				if out := m.applyEnvelope(env, "me"); !out.changed {
					b.Fatal("delta not applied")
				}
			}
		})
	}
}
