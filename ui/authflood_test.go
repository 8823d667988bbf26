package ui

import (
	"strconv"
	"testing"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
)

// TestAuthRequiredFloodUnadvertised: 50k auth/required for resources the
// host never advertised open no prompt and leave the UI answering keys; an
// advertised resource still gets its prompt. What each costs is
// BenchmarkAuthRequiredUnadvertised's budget, not a timing here.
func TestAuthRequiredFloodUnadvertised(t *testing.T) {
	m := fxModel(fxChatState())
	m.resize(120, 40)
	before := m.Render()
	const n = 50_000
	for i := range n {
		m.Update(eventMsg{client.AuthRequiredEvent{Params: protocol.AuthRequiredParams{
			Channel: fxSession, Resource: authResource("https://unadvertised.example/" + strconv.Itoa(i)),
		}}})
	}
	if len(m.signin.prompts) != 0 {
		t.Fatalf("%d prompts for resources the host never advertised", len(m.signin.prompts))
	}
	m.Update(press("?"))
	if help := m.Render(); help == before {
		t.Fatal("? after the flood drew nothing new: the keys are not answered")
	}
	m.Update(press("?"))

	advertise(m, "https://agent.example/api")
	m.Update(eventMsg{client.AuthRequiredEvent{Params: protocol.AuthRequiredParams{Channel: fxSession, Resource: authResource("https://agent.example/api")}}})
	if len(m.signin.prompts) != 1 {
		t.Fatalf("the advertised resource got %d prompts, want 1", len(m.signin.prompts))
	}
}

// BenchmarkAuthRequiredUnadvertised measures one auth/required for a
// resource the host never advertised, each a new one, on a model that has
// already been sent all the earlier ones (a hostile host's flood).
//
// Budget: under 50 µs each (ns/op < 50,000), flat however many came
// before, so 50,000 of them cost the UI a few seconds at most. The first
// version inserted each into a sorted list (O(n)): 40,000 took 8 s.
func BenchmarkAuthRequiredUnadvertised(b *testing.B) {
	m := fxModel(fxChatState())
	m.resize(120, 40)
	_ = m.Render()
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		m.Update(eventMsg{client.AuthRequiredEvent{Params: protocol.AuthRequiredParams{
			Channel: fxSession, Resource: authResource("https://unadvertised.example/" + strconv.Itoa(i)),
		}}})
	}
	b.StopTimer()
	if len(m.signin.prompts) != 0 {
		b.Fatalf("%d prompts for resources the host never advertised", len(m.signin.prompts))
	}
}

// advertise makes the fixture's first agent declare resource, as a host
// does in its root state before it asks for a sign-in to it.
func advertise(m *Model, resource string) {
	m.root.Agents[0].ProtectedResources = append(m.root.Agents[0].ProtectedResources,
		protocol.ProtectedResourceMetadata{Resource: resource})
	m.signin.forgetAdvertised()
}
