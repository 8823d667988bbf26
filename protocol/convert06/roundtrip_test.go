package convert06

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/internal/wiretest"
)

// roundTripPaths are the 0.6 round-trip fixture types that are whole
// wire messages: each goes up, into the 1.0 model's type and out again,
// and down.
var roundTripPaths = map[string]struct {
	up, down func(json.RawMessage) (json.RawMessage, error)
	model    func() any
}{
	"ActionEnvelope": {
		func(b json.RawMessage) (json.RawMessage, error) { return UpParams("action", b) },
		func(b json.RawMessage) (json.RawMessage, error) { return DownParams("action", b) },
		func() any { return new(protocol.ActionEnvelope) }},
	"StateAction": {UpAction, DownAction, func() any { return new(protocol.StateAction) }},
	"SessionAddedParams": {
		func(b json.RawMessage) (json.RawMessage, error) { return UpParams("root/sessionAdded", b) },
		func(b json.RawMessage) (json.RawMessage, error) { return DownParams("root/sessionAdded", b) },
		func() any { return new(protocol.SessionAddedParams) }},
	"InitializeResult": {
		func(b json.RawMessage) (json.RawMessage, error) { return UpResult("initialize", b) },
		func(b json.RawMessage) (json.RawMessage, error) { return DownResult("initialize", b) },
		func() any { return new(protocol.InitializeResult) }},
}

// TestRoundTripFixturesThroughTheModel: a 0.6 peer's message that went up
// into the 1.0 model and came back down is what the 0.6 round-trip
// fixtures accept, so a 0.6 host's data survives ahptui's model.
func TestRoundTripFixturesThroughTheModel(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(wiretest.FixtureDir(t, "round-trips"), "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no round-trip fixtures: %v", err)
	}
	ran := 0
	for _, file := range files {
		var fx struct {
			Type              string            `json:"type"`
			Input             json.RawMessage   `json:"input"`
			AcceptableOutputs []json.RawMessage `json:"acceptableOutputs"`
		}
		data, err := os.ReadFile(file)
		if err != nil || json.Unmarshal(data, &fx) != nil || len(fx.AcceptableOutputs) == 0 {
			continue // protocol/ahp06's TestRoundTripFixtures reports broken files
		}
		path, ok := roundTripPaths[fx.Type]
		if !ok {
			continue
		}
		ran++
		t.Run(strings.TrimSuffix(filepath.Base(file), ".json"), func(t *testing.T) {
			up, err := path.up(fx.Input)
			if err != nil {
				t.Fatalf("up: %v", err)
			}
			v := path.model()
			if err := json.Unmarshal(up, v); err != nil {
				t.Fatalf("decode %s as the 1.0 %s: %v", up, fx.Type, err)
			}
			enc, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			down, err := path.down(enc)
			if err != nil {
				t.Fatalf("down: %v", err)
			}
			if d := wiretest.JSONDiff(fx.AcceptableOutputs[0], down); d != "" {
				t.Errorf("through the 1.0 model %s came back as\n%s\n%s", fx.Type, down, d)
			}
		})
	}
	if ran < 5 {
		t.Errorf("only %d round-trip fixtures ran through the model; the type table lost some", ran)
	}
}
