package convert

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ahptui/ahptui/protocol"
)

// The streaming hot path: a 0.6 host sends one chat/delta or
// chat/reasoning per token. Their shape did not change, so converting
// them must cost a scan for their type and nothing else: no allocation,
// no copy (the same slice comes back).
var hotPath = []struct {
	name   string
	action json.RawMessage
}{
	{"delta", json.RawMessage(`{"type":"chat/delta","turnId":"turn-1","partId":"part-1","content":"` + strings.Repeat("token ", 8) + `"}`)},
	{"reasoning", json.RawMessage(`{"type":"chat/reasoning","turnId":"turn-1","partId":"part-2","content":"thinking about it"}`)},
}

func hotEnvelope(action json.RawMessage) json.RawMessage {
	return json.RawMessage(`{"channel":"ahp-chat:/0b7d6f0e-3c1a-4d0c-9d55-7a4f2f1c9e21","serverSeq":1234,"action":` + string(action) + `}`)
}

// TestHotPathDoesNotAllocate holds the budget the benchmark below reports
// as a test, so it fails in every run, not only when someone benchmarks.
func TestHotPathDoesNotAllocate(t *testing.T) {
	for _, hp := range hotPath {
		env := hotEnvelope(hp.action)
		for name, f := range map[string]func() json.RawMessage{
			"upAction06":   func() json.RawMessage { out, _ := upAction06(hp.action); return out },
			"downAction06": func() json.RawMessage { out, _ := downAction06(hp.action); return out },
			"upParams06":   func() json.RawMessage { out, _ := upParams06("action", env); return out },
			"downParams06": func() json.RawMessage { out, _ := downParams06("action", env); return out },
		} {
			if out := f(); !same(out, hp.action) && !same(out, env) {
				t.Errorf("%s(%s) returned a copy", name, hp.name)
			}
			if n := testing.AllocsPerRun(100, func() { f() }); n != 0 {
				t.Errorf("%s(%s) allocates %.0f times; the streaming path must not allocate", name, hp.name, n)
			}
		}
	}
}

// BenchmarkHotPath converts chat/delta and chat/reasoning, bare and in
// their action envelope, both ways, beside decoding the same envelope into
// protocol.ActionEnvelope (which the client does next anyway). Budget:
// 0 allocs/op, and a conversion under a fifth of the decode's time, so
// that a 0.6 host's token stream costs ahptui little more than a 1.0
// host's. TestHotPathDoesNotAllocate holds the first half in every run.
func BenchmarkHotPath(b *testing.B) {
	for _, hp := range hotPath {
		env := hotEnvelope(hp.action)
		b.Run(hp.name+"/decode-reference", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(env)))
			for b.Loop() {
				var e protocol.ActionEnvelope
				if err := json.Unmarshal(env, &e); err != nil {
					b.Fatal(err)
				}
			}
		})
		for _, c := range []struct {
			name string
			in   json.RawMessage
			f    func(json.RawMessage) (json.RawMessage, error)
		}{
			{"upAction06", hp.action, upAction06},
			{"upParams06", env, func(p json.RawMessage) (json.RawMessage, error) { return upParams06("action", p) }},
			{"downParams06", env, func(p json.RawMessage) (json.RawMessage, error) { return downParams06("action", p) }},
		} {
			b.Run(hp.name+"/"+c.name, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(c.in)))
				for b.Loop() {
					if _, err := c.f(c.in); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
