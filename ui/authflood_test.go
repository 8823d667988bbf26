package ui

import (
	"strconv"
	"testing"
	"time"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
)

// TestAuthRequiredFloodUnadvertised: 50k auth/required for resources the
// host never advertised open no prompt, cost a set lookup each (the whole
// flood well under a second, where the old O(n) insert took 8 s for 40k),
// and a key is answered within 100 ms afterwards; an advertised resource
// still gets its prompt.
func TestAuthRequiredFloodUnadvertised(t *testing.T) {
	m := fxModel(fxChatState())
	m.resize(120, 40)
	// The key's cost is measured against the same key before the flood:
	// the first frame fills the renderers' caches, and the race detector
	// or a loaded machine slow every frame alike.
	_ = m.Render()
	baseline := keyAndFrame(m)
	const n = 50_000
	start := time.Now()
	for i := range n {
		m.Update(eventMsg{client.AuthRequiredEvent{Params: protocol.AuthRequiredParams{
			Channel: fxSession, Resource: authResource("https://unadvertised.example/" + strconv.Itoa(i)),
		}}})
	}
	flood := time.Since(start)
	t.Logf("%d unadvertised auth/required handled in %v", n, flood)
	if len(m.signin.prompts) != 0 {
		t.Fatalf("%d prompts for resources the host never advertised", len(m.signin.prompts))
	}
	if flood > 5*time.Second {
		t.Errorf("the flood took %v of UI time", flood)
	}

	d := keyAndFrame(m)
	t.Logf("a key and its frame: %v before the flood, %v after", baseline, d)
	if d > 100*time.Millisecond && d > 2*baseline {
		t.Errorf("a key after the flood took %v (%v before it), budget 100ms", d, baseline)
	}

	advertise(m, "https://agent.example/api")
	m.Update(eventMsg{client.AuthRequiredEvent{Params: protocol.AuthRequiredParams{Channel: fxSession, Resource: authResource("https://agent.example/api")}}})
	if len(m.signin.prompts) != 1 {
		t.Fatalf("the advertised resource got %d prompts, want 1", len(m.signin.prompts))
	}
}

// advertise makes the fixture's first agent declare resource, as a host
// does in its root state before it asks for a sign-in to it.
func advertise(m *Model, resource string) {
	m.root.Agents[0].ProtectedResources = append(m.root.Agents[0].ProtectedResources,
		protocol.ProtectedResourceMetadata{Resource: resource})
	m.signin.forgetAdvertised()
}

// keyAndFrame times one key (the help toggle, twice, so the model ends as
// it began) and the frames it draws.
func keyAndFrame(m *Model) time.Duration {
	start := time.Now()
	for range 2 {
		m.Update(press("?"))
		_ = m.Render()
	}
	return time.Since(start) / 2
}
