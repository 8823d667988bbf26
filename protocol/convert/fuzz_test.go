package convert

import (
	"encoding/json"
	"testing"

	"github.com/ahptui/ahptui/protocol/internal/wiretest"
)

// fuzzMethods are the methods whose params or results the conversion
// opens (the fuzz input picks one by index).
var fuzzMethods = []string{"action", "dispatchAction", "root/sessionAdded", "root/sessionSummaryChanged",
	"createSession", "createChat", "authenticate", "auth/required", "initialize", "subscribe", "reconnect", "listSessions"}

// fuzzChannels are one channel of each kind, for states.
var fuzzChannels = []string{"ahp-root://", "ahp-session:/s", "ahp-chat:/c", "ahp-terminal:/t",
	"ahp-session:/s/annotations", "ahp-changeset:/x", "ahp-future:/x"}

// FuzzConvert feeds hostile JSON to every entry, both ways. Whatever a
// peer sends, the conversion must not panic, and what it returns without
// an error must be valid JSON whenever its input was: the decoder after
// it is the one that reports bad input.
func FuzzConvert(f *testing.F) {
	for _, fx := range wiretest.ParsedReducerFixtures(f, wiretest.FixtureDir(f, "reducers")) {
		f.Add(uint8(0), []byte(fx.Initial))
		for _, a := range fx.Actions {
			f.Add(uint8(1), []byte(a))
		}
	}
	f.Add(uint8(2), []byte(`{"channel":"ahp-chat:/c","action":{"type":"chat/error","turnId":"t","duration":1,"error":{"errorType":"x","message":"m"}}}`))
	f.Add(uint8(3), []byte(`{"type":"replay","actions":[{"channel":"c","action":{"type":"chat/turnResume"}}]}`))
	f.Add(uint8(4), []byte(`{"ty\u0070e":"session/customizationToggled","id":"m","enabled":true,"enabled":false}`))
	f.Fuzz(func(t *testing.T, pick uint8, in []byte) {
		valid := json.Valid(in)
		check := func(what string, out json.RawMessage, err error) {
			if err == nil && valid && !json.Valid(out) {
				t.Fatalf("%s turned valid JSON %s into invalid %s", what, in, out)
			}
		}
		method := fuzzMethods[int(pick)%len(fuzzMethods)]
		channel := fuzzChannels[int(pick)%len(fuzzChannels)]
		for name, f := range map[string]func(json.RawMessage) (json.RawMessage, error){
			"upAction06":   upAction06,
			"downAction06": downAction06,
			"upParams06":   func(b json.RawMessage) (json.RawMessage, error) { return upParams06(method, b) },
			"downParams06": func(b json.RawMessage) (json.RawMessage, error) { return downParams06(method, b) },
			"upResult06":   func(b json.RawMessage) (json.RawMessage, error) { return upResult06(method, b) },
			"downResult06": func(b json.RawMessage) (json.RawMessage, error) { return downResult06(method, b) },
			"upState06":    func(b json.RawMessage) (json.RawMessage, error) { return upState06(channel, b) },
			"downState06":  func(b json.RawMessage) (json.RawMessage, error) { return downState06(channel, b) },
		} {
			out, err := f(in)
			check(name, out, err)
		}
		// And back: what went up comes down without harm.
		if up, err := upState06(channel, in); err == nil {
			down, err := downState06(channel, up)
			check("downState06(upState06)", down, err)
		}
	})
}
