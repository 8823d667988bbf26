package convert06

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
			"UpAction":   UpAction,
			"DownAction": DownAction,
			"UpParams":   func(b json.RawMessage) (json.RawMessage, error) { return UpParams(method, b) },
			"DownParams": func(b json.RawMessage) (json.RawMessage, error) { return DownParams(method, b) },
			"UpResult":   func(b json.RawMessage) (json.RawMessage, error) { return UpResult(method, b) },
			"DownResult": func(b json.RawMessage) (json.RawMessage, error) { return DownResult(method, b) },
			"UpState":    func(b json.RawMessage) (json.RawMessage, error) { return UpState(channel, b) },
			"DownState":  func(b json.RawMessage) (json.RawMessage, error) { return DownState(channel, b) },
		} {
			out, err := f(in)
			check(name, out, err)
		}
		// And back: what went up comes down without harm.
		if up, err := UpState(channel, in); err == nil {
			down, err := DownState(channel, up)
			check("DownState(UpState)", down, err)
		}
	})
}
