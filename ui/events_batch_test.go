package ui

import (
	"testing"

	"github.com/ahptui/ahptui/protocol/client"
)

// A burst of protocol events that is already queued when the model asks
// for the next one arrives as one message, so it costs one Update and one
// View rather than one per event; the batch is applied in order.
func TestEventBurstIsOneUpdate(t *testing.T) {
	m := fxModel(calmChat())
	stub := m.client.(*stubClient)
	stub.events = make(chan client.Event, 2*maxEventBatch)
	const pairs = 100 // alternating channels: nothing to coalesce
	for range pairs {
		stub.events <- client.ChannelStateEvent{Channel: fxChat}
		stub.events <- client.ChannelStateEvent{Channel: fxSession}
	}
	next := withBlocker(calmChat(), fxAuthPart())
	stub.chats[fxChat] = next

	msg := waitEvent(stub.events)()
	batch, ok := msg.(eventsMsg)
	if !ok || len(batch.evs) != 2*pairs {
		t.Fatalf("a queued burst of %d events arrived as %T with %d events, want one eventsMsg with all", 2*pairs, msg, len(batch.evs))
	}
	m.Update(batch)
	if len(m.chat.ActiveTurn.ResponseParts) != len(next.ActiveTurn.ResponseParts) {
		t.Errorf("the batch was not applied: the chat has %d parts, want %d", len(m.chat.ActiveTurn.ResponseParts), len(next.ActiveTurn.ResponseParts))
	}

	// More than a batch holds waits for the next message.
	for range maxEventBatch + 5 {
		stub.events <- client.HostErrorEvent{}
	}
	if b := waitEvent(stub.events)().(eventsMsg); len(b.evs) != maxEventBatch {
		t.Errorf("first batch of a flood has %d events, want %d", len(b.evs), maxEventBatch)
	}
	if b := waitEvent(stub.events)().(eventsMsg); len(b.evs) != 5 {
		t.Errorf("second batch has %d events, want 5", len(b.evs))
	}
}
